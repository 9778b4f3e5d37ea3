package executor

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/internal/procns"
	"github.com/sbx-dev/sbx/internal/procthread"
)

// Containment on Linux.
//
// pid-namespace: the command is PID 1 of a new PID namespace (with a new
// user namespace mapping the caller's uid and gid onto themselves when the
// caller lacks CAP_SYS_ADMIN). When the namespace's init exits, for any
// reason, the kernel SIGKILLs every other process in the namespace — setsid
// and double-fork do not leave it — and waitid only reports the init's exit
// once they are all gone. Pdeathsig (SIGKILL) ties the init to the
// executor, so a SIGKILLed executor takes the whole namespace down; the
// executor's own fork (nsfork_linux.go) arms it and then checks that the
// executor is still its parent, which package syscall's fork cannot do in
// a new PID namespace.
// Consequences of being PID 1: a signal from outside the namespace reaches
// the command only if it installed a handler for it (SIGKILL always does),
// so cancellation's SIGTERM is seen by commands that trap it and the others
// are killed with SIGKILL after the grace; signals the command sends itself
// with the default action (kill -TERM $$) are ignored; orphans in the
// namespace are reparented to the command.
//
// cgroup: the command starts in a fresh cgroup v2 below the executor's own
// (clone3 CLONE_INTO_CGROUP, so no process escapes between fork and
// placement), killed with cgroup.kill and removed after the command ended.
// If the executor is SIGKILLed, the command's leader dies through
// Pdeathsig and the rest of the cgroup is killed when the next run that uses
// cgroup containment starts.
//
// process-group (degraded, opt-in): the executor marks itself a child
// subreaper (PR_SET_CHILD_SUBREAPER, process-wide and never undone, so
// orphans of any of its children are reparented to it), kills the process
// group and then every process in the command's session or carrying the
// run's token in its environment (SBX_CONTAINMENT_TOKEN, added to the
// command's environment). A process that left the session and cleared its
// environment can survive, and nothing is guaranteed once the executor is
// SIGKILLed.

// tokenVar names the environment variable that marks the processes of one
// run under process-group containment.
const tokenVar = "SBX_CONTAINMENT_TOKEN"

// leftoverTimeout bounds how long cleanup waits for killed processes.
const cleanupTimeout = 10 * time.Second

func containmentPlan(c *config) []Containment {
	if c.Containment != ContainmentAuto {
		return []Containment{c.Containment}
	}
	plan := []Containment{ContainmentPIDNamespace, ContainmentCgroup}
	if c.AllowDegraded {
		plan = append(plan, ContainmentProcessGroup)
	}
	return plan
}

type linuxContainer struct {
	k      Containment
	userns bool // pid-namespace: a user namespace is created too
	cg     *cgroup
	// killedAt is when a cgroup run's processes were first killed (kill,
	// or cleanup after the leader's end): the waits for them to end share
	// one bound, cleanupTimeout from then (killWait).
	killedAt time.Time
	// leftovers are earlier runs' cgroups killed at the start and not yet
	// empty then (cleanupLeftovers), removed when the run is released.
	leftovers []string
	token     string
	p         *process
	pid       int
	// procPid is the leader as /proc shows it (procns): pid, but where
	// /proc belongs to an ancestor PID namespace (sbx run nested in a
	// danger-full-access run), the ancestor's id. Set for process-group
	// containment, whose sweep reads /proc.
	procPid int
	// killed holds the stragglers process-group containment killed, to
	// be reaped: each pid with its start time, which tells the process
	// from one that took the pid once it was reaped (red team 29: by pid
	// alone, the next pass killed an unrelated process that had).
	killed map[int]uint64
	// execDenied, when set, tells whether the command's executable (or
	// its script's interpreter) is one the caller may not execute (see
	// isContainmentError).
	execDenied func() bool
	// forwards is set when the leader is a launcher that passes the
	// cancellation's SIGTERM on to every process of the containment
	// (SignalForwarder): terminate then signals the leader alone.
	forwards bool
}

func newContainer(k Containment, c *config) (*linuxContainer, error) {
	if c.isDisabled(k) {
		return nil, errors.New("disabled by the request")
	}
	switch k {
	case ContainmentPIDNamespace:
		lc := &linuxContainer{k: k, userns: !hasCapSysAdmin()}
		if lc.userns {
			if err := userNamespacesUsable(); err != nil {
				return nil, err
			}
		}
		return lc, nil
	case ContainmentCgroup:
		// Leftovers only arise under cgroup containment (an executor
		// SIGKILLed while its command ran), so they are removed when the
		// next run that uses a cgroup starts; in auto mode on a machine
		// without PID namespaces that is every run.
		leftovers := cleanupLeftovers()
		cg, err := newCgroup()
		if err != nil {
			removeLeftovers(leftovers)
			return nil, err
		}
		return &linuxContainer{k: k, cg: cg, leftovers: leftovers}, nil
	case ContainmentProcessGroup:
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return nil, fmt.Errorf("becoming a child subreaper: %w", err)
		}
		return &linuxContainer{k: k, token: fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64()), killed: map[int]uint64{}}, nil
	}
	return nil, fmt.Errorf("not available on Linux")
}

// hasCapSysAdmin reports whether the process may create a PID namespace
// without a user namespace.
func hasCapSysAdmin() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[0].Effective&(1<<unix.CAP_SYS_ADMIN) != 0
}

// readSysctl returns the trimmed content of a /proc/sys file, "" if absent.
func readSysctl(name string) string {
	b, err := os.ReadFile("/proc/sys/" + name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// userNamespacesUsable fails early when the kernel settings rule out
// unprivileged user namespaces.
func userNamespacesUsable() error {
	if readSysctl("user/max_user_namespaces") == "0" {
		return errors.New("user namespaces are disabled (user.max_user_namespaces = 0)")
	}
	if readSysctl("kernel/unprivileged_userns_clone") == "0" {
		return errors.New("unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)")
	}
	return nil
}

// noContainmentHint says what to enable when no mechanism is available;
// limit: namespaces are available but their limit was reached.
func noContainmentHint(c *config, limit bool) string {
	var b strings.Builder
	if limit {
		b.WriteString("to guarantee that no process outlives the command, raise the limit (sysctl user.max_user_namespaces) or end processes that hold user namespaces")
	} else {
		b.WriteString("to guarantee that no process outlives the command, enable unprivileged user namespaces")
	}
	if limit {
		// Enabled: the AppArmor and sysctl notes below do not apply.
	} else if readSysctl("kernel/apparmor_restrict_unprivileged_userns") == "1" {
		b.WriteString(" (AppArmor restricts them here: kernel.apparmor_restrict_unprivileged_userns = 1; set it to 0 or give sbx an AppArmor profile with \"userns,\")")
	} else if readSysctl("user/max_user_namespaces") == "0" {
		b.WriteString(" (user.max_user_namespaces = 0)")
	}
	b.WriteString(", or run sbx in a delegated cgroup v2 (systemd-run --user --scope -p Delegate=yes sbx ...)")
	switch {
	case c.Containment != ContainmentAuto:
		// An explicit containment is the only one tried: --allow-degraded
		// adds nothing to it.
		fmt.Fprintf(&b, ", or ask for another containment than %s (auto tries each, and with --allow-degraded falls back to process-group containment)", c.Containment)
	case !c.AllowDegraded:
		b.WriteString(", or accept degraded process-group containment (--allow-degraded)")
	}
	return b.String()
}

func (c *linuxContainer) kind() Containment { return c.k }

func (c *linuxContainer) note() string {
	switch c.k {
	case ContainmentCgroup:
		return "if sbx itself is killed with SIGKILL, the command's remaining processes are killed when the next run using cgroup containment starts"
	case ContainmentProcessGroup:
		return "degraded: a process that leaves the session and clears its environment may survive, and nothing is guaranteed if sbx itself is killed with SIGKILL"
	}
	return ""
}

func (c *linuxContainer) prepare(cmd *exec.Cmd) error {
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	switch c.k {
	case ContainmentPIDNamespace:
		attr.Cloneflags = syscall.CLONE_NEWPID
		if c.userns {
			uid, gid := os.Geteuid(), os.Getegid()
			attr.Cloneflags |= syscall.CLONE_NEWUSER
			attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
			attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
			attr.GidMappingsEnableSetgroups = false
		}
	case ContainmentCgroup:
		attr.UseCgroupFD = true
		attr.CgroupFD = c.cg.fd
	case ContainmentProcessGroup:
		cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], tokenVar+"="+c.token)
	}
	cmd.SysProcAttr = attr
	return nil
}

// started records the leader, right after it started.
func (c *linuxContainer) started(p *process) error {
	c.p = p
	c.pid = p.pid
	if c.k == ContainmentProcessGroup {
		c.procPid = procns.Proc(p.pid)
	}
	// The cgroup's descriptor stays open: it holds the owner's lock
	// (cgroup.fd), closed when the cgroup is destroyed.
	return nil
}

func (c *linuxContainer) isContainmentError(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	if errno == syscall.EACCES && c.execDenied != nil && c.execDenied() {
		// Package syscall's fork reports the child's exec failure and
		// clone's own alike (a bare errno): a command the caller may not
		// execute is the command's failure (126), not the containment's.
		return false
	}
	switch c.k {
	case ContainmentPIDNamespace:
		switch errno {
		case syscall.EPERM, syscall.EACCES, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS:
			return true
		}
	case ContainmentCgroup:
		switch errno {
		case syscall.EPERM, syscall.EACCES, syscall.EINVAL, syscall.EBUSY, syscall.ENODEV, syscall.EOPNOTSUPP, syscall.ENOSYS:
			return true
		}
	}
	return false
}

// terminate asks the command's process group to stop (SIGTERM).
func (c *linuxContainer) terminate() {
	if c.forwards {
		syscall.Kill(c.pid, syscall.SIGTERM)
		return
	}
	// The leader is a session and group leader (Setsid): its group id is its
	// pid, which cannot be reused before it is reaped.
	syscall.Kill(-c.pid, syscall.SIGTERM)
}

// kill kills the command and everything it started. It is only called
// before the leader is reaped, so its pid (and process group) still name
// it.
func (c *linuxContainer) kill() {
	switch c.k {
	case ContainmentPIDNamespace:
		// Killing the namespace's init kills everything in the namespace.
		c.p.signal(syscall.SIGKILL)
	case ContainmentCgroup:
		c.killWait()
		if c.cg.kill() != nil {
			c.p.signal(syscall.SIGKILL)
		}
	case ContainmentProcessGroup:
		syscall.Kill(-c.pid, syscall.SIGKILL)
		c.killStragglers()
	}
}

// killWait returns how much longer the processes of a cgroup run may
// take to end once killed: cleanupTimeout from their first kill, for
// every wait of the run together (the loop's bound after its SIGKILL,
// cleanup's and release's). A process that cannot die (uninterruptible
// sleep) thus costs cleanupTimeout once: before red team 30 each wait
// took the whole bound again, and sbx gave up 20 s after the leader's
// end, 30 s after a timeout's SIGKILL.
func (c *linuxContainer) killWait() time.Duration {
	if c.killedAt.IsZero() {
		c.killedAt = time.Now()
	}
	return max(time.Until(c.killedAt.Add(cleanupTimeout)), 0)
}

// cleanup kills what the command left behind after its leader exited
// (before it is reaped) and waits until it is gone.
func (c *linuxContainer) cleanup() error {
	switch c.k {
	case ContainmentPIDNamespace:
		// The kernel killed the namespace before the init's exit was
		// reported.
		return nil
	case ContainmentCgroup:
		if err := c.cg.kill(); err != nil {
			return err
		}
		err := waitEmpty(c.cg.dir, c.killWait())
		reapCgroupOrphans(c.cg.dir, c.pid)
		return err
	case ContainmentProcessGroup:
		// Not the shared bound (killWait): each pass kills what it lists,
		// and only repeated passes catch the children forked meanwhile
		// (red team 25's review), which cgroup.kill needs no passes for.
		deadline := time.Now().Add(cleanupTimeout)
		pause := 100 * time.Microsecond
		// Two clean passes in a row, a pause apart: a process caught in
		// execve by a pass can show an empty environment (no token) and
		// a session of its own, and one pass would miss it (red team 24:
		// a survivor of a cancellation that exec'd twice).
		clean := 0
		for {
			syscall.Kill(-c.pid, syscall.SIGKILL)
			if c.killStragglers() == 0 {
				if clean++; clean == 2 {
					return nil
				}
			} else {
				clean = 0
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("processes of the command's session survive after %v", cleanupTimeout)
			}
			time.Sleep(pause)
			pause = min(2*pause, 10*time.Millisecond)
		}
	}
	return nil
}

// reapCgroupOrphans reaps the zombies of the run's cgroup (dir) whose
// parent is this process, but the leader (the loop's to reap). Where this
// process is a child subreaper (a process-group run made it one, for
// good), the command's orphans are reparented here, and those that ended,
// on their own or by cgroup.kill, stay zombies nobody else reaps (red team
// 24: two per run of a command that leaves background jobs). A zombie
// keeps its pid and its cgroup (/proc/PID/cgroup), so both name it.
func reapCgroupOrphans(dir string, leader int) {
	var flag int32
	if _, _, e := unix.Syscall6(unix.SYS_PRCTL, unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&flag)), 0, 0, 0, 0); e == 0 && flag == 0 {
		return // not a subreaper: orphans go to another reaper
	}
	// /proc's ids, which are not this process's where /proc belongs to an
	// ancestor PID namespace (procns).
	self := procns.Self()
	name := "/" + filepath.Base(dir)
	eachProcess(func(pid int, st procStat) {
		if st.state != 'Z' || st.ppid != self || procns.Own(pid) == leader {
			return
		}
		cg, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(cg), "\n") {
			if p, ok := strings.CutPrefix(line, "0::"); ok && (strings.HasSuffix(p, name) || strings.Contains(p, name+"/")) {
				reapZombie(procns.Own(pid))
			}
		}
	})
}

// eachProcess calls fn with every process in /proc but this one and its
// parsed stat line (processes that are gone by the time it is read are
// skipped). The ids are /proc's (see procns).
func eachProcess(fn func(pid int, st procStat)) {
	d, err := os.Open("/proc")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := procns.Self()
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid == self {
			continue
		}
		if st, err := readProcStat(pid); err == nil {
			fn(pid, st)
		}
	}
}

// reapZombie collects the exit status of pid, a zombie child of this process,
// without waiting.
func reapZombie(pid int) {
	if pid <= 0 {
		return // gone (procns.Own found no such process)
	}
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
}

// killStragglers SIGKILLs every live process other than the leader that
// belongs to the command's process group or session or carries the run's
// token, reaps the command's processes that were reparented to this process
// and have died, and returns how many were still alive. (A zombie that left
// the session before it died cannot be attributed to the command any more;
// it stays until this process exits.)
func (c *linuxContainer) killStragglers() (alive int) {
	// /proc's ids throughout: the leader's, this process's, the groups',
	// sessions' and parents' in /proc/PID/stat. Where /proc belongs to an
	// ancestor PID namespace they are not the ids kill and wait take (red
	// team 30: a setsid'd straggler of an sbx run nested in a
	// danger-full-access run was "killed" by a host pid that named
	// nothing there, counted alive at every pass, and survived the run,
	// which ended in the 10 s bound with 125).
	self := procns.Self()
	leader := c.procPid
	if leader == 0 {
		leader = c.pid
	}
	needle := []byte(tokenVar + "=" + c.token + "\x00")
	eachProcess(func(pid int, st procStat) {
		if pid == leader {
			return
		}
		// The state is the main thread's: a process whose main thread
		// ended (pthread_exit) while others run on shows Z, and its
		// environ can only be read through a live thread (red team 28:
		// such a process, setsid'd with the token kept, was taken for a
		// zombie and outlived the run).
		environ := "/proc/" + strconv.Itoa(pid) + "/environ"
		if st.state == 'Z' || st.state == 'X' {
			if tid := procthread.Live(pid); tid > 0 {
				environ = "/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid) + "/environ"
			} else {
				// Orphans of the command were reparented to this process
				// (the subreaper): reap those known to be the command's.
				if st.ppid == self && (c.wasKilled(pid, st) || st.pgrp == leader || st.session == leader) {
					reapZombie(procns.Own(pid))
				}
				return
			}
		}
		mine := st.pgrp == leader || st.session == leader || c.wasKilled(pid, st)
		if !mine {
			env, err := os.ReadFile(environ)
			mine = err == nil && bytes.Contains(env, needle)
		}
		if mine {
			if own := procns.Own(pid); own > 0 {
				syscall.Kill(own, syscall.SIGKILL)
			}
			c.killed[pid] = st.startTime
			alive++
		}
	})
	return alive
}

// wasKilled reports whether the process pid, whose stat is st, is one
// killStragglers killed: the same pid and the same start time.
func (c *linuxContainer) wasKilled(pid int, st procStat) bool {
	start, ok := c.killed[pid]
	return ok && start == st.startTime
}

// release frees the mechanism's resources; it is always called.
func (c *linuxContainer) release() {
	if c.cg != nil {
		if err := c.cg.destroyWithin(c.killWait()); err == nil {
			c.cg = nil
		}
	}
	removeLeftovers(c.leftovers)
	c.leftovers = nil
}

// execDenied reports whether path, or the interpreter its "#!" line names,
// is something execve(2) refuses with EACCES: a file the caller may not
// execute (access(2) with X_OK, which also answers for a noexec mount) or
// a directory.
func execDenied(path string) bool { return execDeniedDepth(path, 4) }

// execDeniedDepth is execDenied following at most depth "#!" lines (the
// kernel's own limit is about as small).
func execDeniedDepth(path string, depth int) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if !st.Mode().IsRegular() || unix.Faccessat(unix.AT_FDCWD, path, unix.X_OK, unix.AT_EACCESS) != nil {
		return true
	}
	if depth == 0 {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [256]byte
	n, _ := f.Read(head[:])
	line := head[:n]
	if !bytes.HasPrefix(line, []byte("#!")) {
		return false
	}
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line[2:]))
	if len(fields) == 0 {
		return false
	}
	return execDeniedDepth(fields[0], depth-1)
}
