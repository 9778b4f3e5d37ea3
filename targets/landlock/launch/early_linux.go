//go:build linux && (amd64 || arm64)

package launch

import (
	"errors"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/internal/starttrace"
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
}

// Prestart starts an init in new PID, mount and IPC namespaces, and a user
// namespace when userns is set (as the executor's PID-namespace
// containment asks when not root). The init is tied to sbx's process (it
// watches a pidfd of it), not to the calling thread. Close releases an
// init that was not used.
func Prestart(userns bool) (*Early, error) {
	if raceEnabled {
		return nil, errors.New("no early init in a race-enabled build")
	}
	flags := uint64(unix.CLONE_NEWPID | unix.CLONE_NEWNS | unix.CLONE_NEWIPC)
	if userns {
		flags |= unix.CLONE_NEWUSER
	}
	h, err := startInit(flags, -1)
	if err != nil {
		return nil, cloneError(err)
	}
	return &Early{h: h, userns: userns, flags: flags}, nil
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
	setup := &childSetup{userns: e.userns, uid: unix.Geteuid(), gid: unix.Getegid(), setsid: true, pdeathsig: unix.SIGKILL, landlock: spec.ABI > 0}
	p, err := compiled(func() (*program, error) { return compileInit(spec, setup) })
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
		setup.setsid != es.setsid || setup.pdeathsig != es.pdeathsig || setup.landlock != es.landlock {
		e.h.abort()
		return nil
	}
	return e.h
}
