//go:build linux && (amd64 || arm64)

package launch

import (
	"errors"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/internal/starttrace"
	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// Early is a sandbox init started before the profile is bound (Prestart),
// so that the kernel creates its namespaces and copies the mount table
// while sbx binds the profile and prepares the command: New gives it the
// init's part of the program (mounts) as soon as the plan is bound, and
// the first Spawn whose containment matches uses it. It saves a few tenths
// of a millisecond per run.
type Early struct {
	mu     sync.Mutex
	h      *initHandle
	userns bool
	flags  uint64
	setup  *childSetup // what the init's part was compiled for
	taken  bool
	// pre is the mask the init built while the profile was bound, or nil.
	pre *prebuilt
	// newNet is set when the init created a network namespace (predicted
	// from the plan: landlock.Plan.NeedsNetNamespace).
	newNet bool
	// mounts receives the host's mounts, read on a goroutine of their own
	// while the init starts and the profile is bound (see Mounts).
	mounts chan mountList
	got    mountList
	once   sync.Once
}

// MountListing is the host's mount table (/proc/self/mountinfo) being
// read on a goroutine of its own, for Prestart (Options.Mounts).
type MountListing struct{ ch chan mountList }

// ListMounts starts reading the mount table. A caller that knows early
// that it will start a sandbox (sbx run, before parsing its flags and
// loading the profile) starts it then, so that the read, and the thread
// the runtime may create for it, overlap that work rather than the
// init's start. Each listing is for one Prestart.
func ListMounts() *MountListing {
	l := &MountListing{ch: make(chan mountList, 1)}
	go func() {
		var r mountList
		if ml, ok := landlock.OSView().(landlock.MountLister); ok {
			r.ms, r.err = ml.Mounts()
		}
		l.ch <- r
	}()
	return l
}

// mountList is a listing of the mounts, or why there is none.
type mountList struct {
	ms  []landlock.Mount
	err error
}

// Mounts returns the mounts of sbx's namespace (landlock.BindOptions.Mounts),
// listed concurrently since Prestart: the kernel writes mountinfo at about
// 2.5 µs a mount here, a tenth of a millisecond the binding need not wait
// for.
func (e *Early) Mounts() ([]landlock.Mount, error) {
	e.once.Do(func() { e.got = <-e.mounts })
	return e.got.ms, e.got.err
}

// Prestart starts an init in new PID, mount and IPC namespaces, and a user
// namespace when userns is set (as the executor's PID-namespace
// containment asks when not root). The init is tied to sbx's process (it
// watches a pidfd of it), not to the calling thread. Close releases an
// init that was not used.
//
// With the plan of the profile to be bound, the init also builds, while
// the profile is bound, the mask of /dev that a profile reading / gets
// (about a third of the mount view's system calls); its part attaches
// the mask if the bound spec asks for that one, and discards it
// otherwise. It also empties the bounding and ambient capability sets
// the command will inherit (see compileBoundingDrop), and creates the
// network namespace the spec will ask for when the plan, bound with o
// (the Options New will get), asks for one.
func Prestart(userns bool, plan *landlock.Plan, o Options) (*Early, error) {
	if raceEnabled {
		return nil, errors.New("no early init in a race-enabled build")
	}
	ml := o.Mounts
	if ml == nil {
		ml = ListMounts()
	}
	mounts := ml.ch
	flags := uint64(unix.CLONE_NEWPID | unix.CLONE_NEWNS | unix.CLONE_NEWIPC)
	if userns {
		flags |= unix.CLONE_NEWUSER
	}
	// The init first: the kernel creates its namespaces while its first
	// part is compiled here.
	h, err := startInit(flags, -1)
	if err != nil {
		return nil, cloneError(err)
	}
	var pre *prebuilt
	first := newProgram()
	if op, ok := predictDevMask(plan); ok {
		pre = compilePrebuild(op, lstatKind, userns, unix.Geteuid(), unix.Getegid())
		first = pre.prog
	}
	newNet := plan != nil && plan.NeedsNetNamespace(landlock.BindOptions{KernelABI: KernelABI(), ABICap: o.ABICap,
		Supervise: !o.NoSupervisor && supervisorAvailable()})
	if err := h.sendPre(first, lastCapability(), true, newNet); err != nil {
		h.abort()
		return nil, err
	}
	return &Early{h: h, userns: userns, flags: flags, pre: pre, newNet: newNet, mounts: mounts}, nil
}

// predictDevMask returns the mask of /dev that binding plan will most
// likely make (see devInputs in package landlock): when a rule reads or
// writes / and none names /dev or a path below it, /dev is masked and the
// standard devices that exist are kept. A wrong guess only costs the
// prebuilt mask (see prebuilt.matches).
func predictDevMask(plan *landlock.Plan) (landlock.MountOp, bool) {
	if plan == nil || len(plan.DenyGlobs) > 0 {
		return landlock.MountOp{}, false
	}
	covered := false
	for _, r := range plan.Rules {
		if r.Path.Anchor != ir.AnchorRoot {
			continue
		}
		switch {
		case r.Path.Rel == "" && r.Access != ir.Deny:
			covered = true
		case r.Path.Rel == "dev" || strings.HasPrefix(r.Path.Rel, "dev/"):
			return landlock.MountOp{}, false
		}
	}
	if !covered || lstatKind("/dev") != landlock.KindDir {
		return landlock.MountOp{}, false
	}
	op := landlock.MountOp{Kind: landlock.MountMask, Path: "/dev", Dir: true, Why: ir.Deny.String()}
	for _, d := range landlock.StandardDevices {
		var st unix.Stat_t
		if unix.Stat(d, &st) != nil {
			continue
		}
		op.Keep = append(op.Keep, landlock.Keep{Rel: strings.TrimPrefix(d, "/dev/"), Dir: st.Mode&unix.S_IFMT == unix.S_IFDIR})
	}
	return op, true
}

// lstatKind is what lstat finds at p.
func lstatKind(p string) landlock.Kind {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return landlock.KindMissing
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return landlock.KindSymlink
	case unix.S_IFDIR:
		return landlock.KindDir
	}
	return landlock.KindFile
}

// Close ends the init unless a Spawn has taken it (it then belongs to
// that run). It may be called more than once.
func (e *Early) Close() {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.taken {
		e.taken = true
		e.h.abort()
	}
}

// adopt gives the init its part of the program for spec (New). On
// failure the init is closed: Spawn then starts one of its own.
func (e *Early) adopt(spec *landlock.Spec) *Early {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.taken || e.setup != nil {
		return nil // closed, or adopted by another Sandbox
	}
	if spec.NewNet != e.newNet {
		// The network namespace is the init's own, created in its first
		// part: a wrong prediction costs the early init.
		e.taken = true
		e.h.abort()
		return nil
	}
	setup := &childSetup{userns: e.userns, uid: unix.Geteuid(), gid: unix.Getegid(), setsid: true, pdeathsig: unix.SIGKILL, landlock: spec.ABI > 0, nullStdin: true}
	p, err := compiled(func() (*program, error) { return compileInit(spec, setup, e.pre) })
	if err == nil {
		starttrace.Mark("initcompiled")
		err = e.h.sendInit(p)
	}
	if err != nil {
		e.taken = true
		e.h.abort()
		return nil
	}
	e.setup = setup
	return e
}

// takeEarly returns the Sandbox's early init if it was prepared for what
// Spawn is about to start (setup, flags, no cgroup), and nil otherwise (an
// early init that does not match is closed).
func (s *Sandbox) takeEarly(setup *childSetup, flags uint64, cg int) *initHandle {
	s.mu.Lock()
	e := s.early
	s.early = nil
	s.mu.Unlock()
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.taken {
		return nil
	}
	e.taken = true
	es := e.setup
	if flags != e.flags || cg >= 0 || setup.userns != es.userns || setup.uid != es.uid || setup.gid != es.gid ||
		setup.setsid != es.setsid || setup.pdeathsig != es.pdeathsig || setup.landlock != es.landlock || setup.nullStdin != es.nullStdin {
		e.h.abort()
		return nil
	}
	return e.h
}
