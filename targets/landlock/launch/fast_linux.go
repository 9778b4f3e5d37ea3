//go:build linux && (amd64 || arm64)

package launch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/internal/starttrace"
	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// Spawn starts cmd confined (executor.Spawner): a child applies the sandbox
// with raw system calls and stays as the init (PID 1) of the command's
// namespaces; the command is its child (see startInit). It honours the attributes the
// executor's containment set: Cloneflags (CLONE_NEWPID is required,
// CLONE_NEWUSER), the uid and gid mappings (the child writes its own),
// Setsid, Pdeathsig and the cgroup descriptor.
//
// Standard input: when cmd.Stdin is the null device (the executor's), the
// command gets its own, reached through a private read-only mount (see
// compileNullStdin); a pipe or a connected stream or seqpacket socket is
// passed as it is; anything else (a file, a terminal, a datagram or
// listening socket) is refused, since the command could change the file's
// metadata, inject input through the terminal, or send to any address or
// accept connections past the profile's network mode. Standard output and
// error: a socket among them must be a connected stream or seqpacket
// socket too.
//
// Errors: a clone failure is an *os.SyscallError (the executor may fall back
// to another containment); a failed sandbox step wraps executor.ErrSandbox
// and names the step; an execve failure is an *fs.PathError with Op
// "exec".
func (s *Sandbox) Spawn(cmd *exec.Cmd) (executor.Spawned, error) {
	none := executor.Spawned{Pidfd: -1}
	if raceEnabled {
		return none, fmt.Errorf("%w: the Landlock sandbox cannot start commands from a race-enabled build (go build -race)", executor.ErrSandbox)
	}
	sys := cmd.SysProcAttr
	if sys == nil || sys.Cloneflags&unix.CLONE_NEWPID == 0 {
		return none, fmt.Errorf("%w: the Landlock sandbox needs PID-namespace containment (a fresh /proc hides other processes, a mount namespace holds the read-only view%s), which needs %s", executor.ErrSandbox, s.carveOutRules(), userNSHint())
	}
	spec := *s.spec
	spec.Path, spec.Argv, spec.Env = cmd.Path, cmd.Args, cmd.Env
	if spec.Env == nil {
		spec.Env = []string{}
	}
	if cmd.Dir != "" {
		d, err := filepath.Abs(cmd.Dir)
		if err != nil {
			return none, fmt.Errorf("%w: working directory: %v", executor.ErrSandbox, err)
		}
		spec.Cwd = d
	}
	setup := &childSetup{
		userns:     sys.Cloneflags&unix.CLONE_NEWUSER != 0,
		uid:        os.Geteuid(),
		gid:        os.Getegid(),
		setsid:     sys.Setsid,
		pdeathsig:  unix.Signal(sys.Pdeathsig),
		landlock:   spec.ABI > 0,
		ruleset:    -1,
		listenerTo: -1,
	}
	if f, ok := cmd.Stdin.(*os.File); ok {
		kind, err := stdinKind(int(f.Fd()))
		if err != nil {
			return none, fmt.Errorf("%w: %v", executor.ErrSandbox, err)
		}
		setup.nullStdin = kind == stdinNull
	}
	setup.nsFDs = setup.userns && !setup.landlock
	flags := uint64(sys.Cloneflags) | unix.CLONE_NEWNS | unix.CLONE_NEWIPC
	cg := -1
	if sys.UseCgroupFD {
		cg = sys.CgroupFD
	}
	// The init first (started early by Prestart, or now): the kernel
	// creates its namespaces and it runs its part of the program (mounts)
	// while the command's part is prepared here.
	h := s.takeEarly(setup, flags, cg)
	if h == nil {
		var err error
		if h, err = startInit(flags, cg); err != nil {
			return none, cloneError(err)
		}
		err = h.sendPre(newProgram(), s.lastCap, setup.setsid, spec.NewNet)
		if err == nil {
			var initProg *program
			initProg, err = compiled(func() (*program, error) { return compileInit(&spec, setup, nil) })
			if err == nil {
				err = h.sendInit(initProg)
			}
		}
		if err != nil {
			h.abort()
			return none, fmt.Errorf("%w: %v", executor.ErrSandbox, err)
		}
	}
	fail := func(err error) (executor.Spawned, error) {
		h.abort()
		return none, fmt.Errorf("%w: %v", executor.ErrSandbox, err)
	}
	// An init that is not given its program must not outlive a panic a
	// caller recovers from.
	defer func() {
		if r := recover(); r != nil {
			h.abort()
			panic(r)
		}
	}()
	// The standard streams, the ruleset and the listener's socket go to
	// the init with the command's part (compileCommand).
	for i, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		file, ok := f.(*os.File)
		if !ok {
			return fail(errors.New("the sandbox needs *os.File standard streams"))
		}
		setup.stdio[i] = int(file.Fd())
		if i > 0 {
			// stdin was checked above (stdinKind).
			if err := checkStreamSocket(setup.stdio[i], streamNames[i]); err != nil {
				return fail(err)
			}
		}
	}
	if setup.nullStdin {
		setup.stdio[0] = -1 // the command's part has its own
	}
	if spec.ABI > 0 {
		rfd, err := newRuleset(&spec)
		if err != nil {
			return fail(err)
		}
		defer unix.Close(rfd)
		setup.ruleset = rfd
	}
	var err error
	var sock [2]int
	if spec.Seccomp.NeedsSupervisor() {
		if sock, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0); err != nil {
			return fail(fmt.Errorf("socketpair: %v", err))
		}
		defer unix.Close(sock[0])
		defer unix.Close(sock[1])
		setup.listenerTo = sock[1]
	}
	if setup.filter, err = buildFilter(spec.Seccomp); err != nil {
		return fail(err)
	}
	starttrace.Mark("filter")
	prog, err := compiled(func() (*program, error) { return compileCommand(&spec, setup, h.init) })
	starttrace.Mark("compiled")
	if err != nil {
		return fail(err)
	}
	h.f.args.linger = s.linger
	pid, pidfd, status, err := h.runCommand(prog)
	starttrace.Mark("execd")
	runtime.KeepAlive(cmd.Stdin)
	runtime.KeepAlive(cmd.Stdout)
	runtime.KeepAlive(cmd.Stderr)
	if err != nil {
		var se *spawnError
		if errors.As(err, &se) {
			if se.Exec {
				return none, &fs.PathError{Op: "exec", Path: cmd.Path, Err: se.Errno}
			}
			hint := ""
			if se.Errno == unix.EPERM && setup.userns && readSysctl("kernel.apparmor_restrict_unprivileged_userns") == "1" {
				// The user namespace was created, but AppArmor gave it no
				// capabilities: the first mount fails.
				hint = " (kernel.apparmor_restrict_unprivileged_userns=1: AppArmor denies capabilities in unprivileged user namespaces unless sbx has a profile with `userns,`; or run as root)"
			}
			return none, fmt.Errorf("%w: sandbox setup failed: %v%s", executor.ErrSandbox, se, hint)
		}
		return none, fmt.Errorf("%w: %v", executor.ErrSandbox, err)
	}
	// The executor owns the init's pidfd; the supervisor uses a duplicate.
	proc := executor.Spawned{Pid: pid, Pidfd: pidfd, CommandPid: commandPid(h.init)}
	run := &runState{f: status}
	s.status.Store(cmd, run)
	if !spec.Seccomp.NeedsSupervisor() {
		return proc, nil
	}
	// The command's process sent its seccomp listener (and, with nsFDs,
	// its mount, IPC and user namespaces) before it exec'd. On a failure
	// the command is killed: without its supervisor it would hang on its
	// first creation call. The run stays registered: the executor reaps
	// the init and releases it (ExitSignal).
	want := 1
	if setup.nsFDs {
		want = 4
	}
	fds, err := recvFDs(sock[0], want)
	if err != nil {
		unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
		return proc, fmt.Errorf("%w: receiving the seccomp listener: %v", executor.ErrSandbox, err)
	}
	// The supervisor's child places these on 3, 4, 5 and 0-2: keep them
	// above that range so that placing one never overwrites another.
	var dupErr error
	high := func(fd int) int {
		if fd < 0 {
			return -1
		}
		n, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, highFD)
		if err != nil {
			dupErr = fmt.Errorf("descriptor %d: %w", fd, err)
			return -1
		}
		return n
	}
	// The command's part identified the guarded directories before the
	// command ran (it has exec'd: the buffers are written).
	guard := make([]string, 0, len(spec.Guarded))
	for _, g := range spec.Guarded {
		i := slices.IndexFunc(prog.guardDirs, func(d guardDir) bool { return d.path == path.Dir(g) })
		if i < 0 {
			unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
			return proc, fmt.Errorf("%w: the guarded directory of %s was not identified", executor.ErrSandbox, g)
		}
		st := prog.guardDirs[i].st
		guard = append(guard, guardArg(st.Dev, st.Ino, g))
	}
	l := &lazySupervisor{spec: &spec, guard: guard, userns: setup.userns, pidfd: high(pidfd), listener: high(fds[0]), ruleset: high(setup.ruleset), stderr: high(setup.stdio[2]),
		nsMnt: -1, nsIPC: -1, nsUser: -1, failed: func(err error) { s.failures.Store(cmd, err) }}
	if setup.nsFDs {
		l.nsMnt, l.nsIPC, l.nsUser = high(fds[1]), high(fds[2]), high(fds[3])
	}
	for _, fd := range fds {
		unix.Close(fd)
	}
	run.sup = l
	if l.pidfd < 0 || l.listener < 0 || l.stderr < 0 || (setup.ruleset >= 0) != (l.ruleset >= 0) ||
		setup.nsFDs && (l.nsMnt < 0 || l.nsIPC < 0 || l.nsUser < 0) {
		unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
		return proc, fmt.Errorf("%w: duplicating the supervisor's descriptors failed: %v", executor.ErrSandbox, dupErr)
	}
	return proc, nil
}

// The init reports the end itself, and the listener is watched by the
// executor.
var (
	_ executor.EndReporter = (*Sandbox)(nil)
	_ executor.Watcher     = (*Sandbox)(nil)
)

// runState is what a run started by Spawn holds until it is released
// (ExitSignal, once its init was reaped).
type runState struct {
	f   *initFile
	sup *lazySupervisor // nil without a supervisor
	// ended is set once the init's end report was read (End); status is
	// the command's wait status it carried.
	ended  bool
	status uint32
}

// Watch returns the run's seccomp listener (executor.Watcher): the
// supervisor starts, in a goroutine of its own, when the command makes its
// first notified system call; a command that makes none never pays for it.
func (s *Sandbox) Watch(cmd *exec.Cmd) (int, func()) {
	v, ok := s.status.Load(cmd)
	if !ok || v.(*runState).sup == nil {
		return -1, nil
	}
	l := v.(*runState).sup
	return l.listener, func() {
		l.started = true
		go l.run()
	}
}

// EndFD returns the read end of the run's status pipe
// (executor.EndReporter): the init's end report arrives there.
func (s *Sandbox) EndFD(cmd *exec.Cmd) int {
	v, ok := s.status.Load(cmd)
	if !ok {
		return -1
	}
	return int(v.(*runState).f.Fd())
}

// End reads the init's end report (executor.EndReporter). With it, what
// the run holds that keeps the command's pipes open (the descriptors of a
// supervisor that never started) is released at once; the rest only once
// the init was reaped (ExitSignal): until then it may run on its stack.
func (s *Sandbox) End(cmd *exec.Cmd) (syscall.WaitStatus, bool) {
	v, ok := s.status.Load(cmd)
	if !ok {
		return 0, false
	}
	run := v.(*runState)
	if !run.readEnd() {
		return 0, false
	}
	if run.sup != nil && !run.sup.started {
		run.sup.close()
	}
	return syscall.WaitStatus(run.status), true
}

// readEnd reads the init's end report, if not done yet, and reports
// whether it has one.
func (r *runState) readEnd() bool {
	if r.ended {
		return true
	}
	var rep endReport
	n, _ := r.f.Read(unsafe.Slice((*byte)(unsafe.Pointer(&rep)), unsafe.Sizeof(rep)))
	if n != int(unsafe.Sizeof(rep)) || rep.magic != endMagic {
		return false
	}
	r.ended, r.status = true, rep.status
	return true
}

// cloneError maps a failure of startInit: an errno of clone3 that means
// the namespaces could not be created is an *os.SyscallError, so that the
// executor may try its next containment.
func cloneError(err error) error {
	// Only a bare errno is clone3's: startInit names the other calls
	// (pipe, socketpair, pidfd_open) in its error.
	if errno, ok := err.(syscall.Errno); ok {
		switch errno {
		case unix.ENOSPC, unix.EUSERS:
			// The user-namespace limit (user.max_user_namespaces, or 32
			// levels of nesting), not a missing feature.
			return fmt.Errorf("%w: clone3: %v: the limit of user namespaces is reached (user.max_user_namespaces, or 32 levels of nesting)", executor.ErrSandbox, errno)
		case unix.EPERM, unix.EACCES, unix.EINVAL:
			return os.NewSyscallError("clone3", errno)
		case unix.ENOSYS:
			if h := filteredHint(); h != "" {
				return fmt.Errorf("%w: clone3: %v%s", executor.ErrSandbox, errno, h)
			}
			return fmt.Errorf("%w: clone3: %v (Linux 5.3 or newer is needed)", executor.ErrSandbox, errno)
		}
		return fmt.Errorf("%w: clone3: %v", executor.ErrSandbox, errno)
	}
	return fmt.Errorf("%w: %v", executor.ErrSandbox, err)
}

// commandPid is the command's process id that its process read before
// its exec (program.selfLink), or 0 when it could not.
func commandPid(p *program) int {
	if p == nil || p.selfLink == nil || p.selfLink[0] == 0 {
		return 0
	}
	n := 0
	for _, c := range p.selfLink {
		if c == 0 {
			break
		}
		if c < '0' || c > '9' || n > 1<<30 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// recvFDs receives the descriptors sent with SCM_RIGHTS in one message
// (already queued: the command's process sent it before its exec).
func recvFDs(sock int, want int) ([]int, error) {
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4*want))
	_, oobn, _, _, err := unix.Recvmsg(sock, buf, oob, unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return nil, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, errors.New("no descriptors in the message")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != want {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("%d descriptors in the message, want %d", len(fds), want)
	}
	return fds, nil
}

// lazySupervisor starts the supervisor on the command's first creation
// system call. Most short commands make none (a compiler writing into a
// directory that exists makes them, /bin/true does not), so the
// supervisor's start — a Go program joining the command's user and mount
// namespaces — costs nothing until it is needed; the first call then waits
// for it once (about 3 ms).
type lazySupervisor struct {
	spec *landlock.Spec
	// guard are the supervisor's arguments for Spec.Guarded (guardArg):
	// each name with the identity of its directory.
	guard    []string
	userns   bool
	pidfd    int // the init (PID 1 of the sandbox)
	listener int
	ruleset  int
	stderr   int
	// nsMnt, nsIPC and nsUser are the command's namespaces, which the
	// supervisor joins, when it cannot join the init's through its pidfd
	// (childSetup.nsFDs); -1 otherwise.
	nsMnt, nsIPC, nsUser int
	// started is set when the executor saw the first notification and
	// started run (on its goroutine: no lock needed).
	started bool
	// failed records a failure of the supervisor that ended the command
	// (Sandbox.RunFailure); set before the command is killed.
	failed func(error)
}

// run starts the supervisor for the notification pending on the listener
// and ends it with the command. It owns the descriptors.
func (l *lazySupervisor) run() {
	defer l.close()
	exited, stopExit := readable(l.pidfd)
	defer stopExit()
	// The listener goes to the supervisor as it was created (blocking).
	unix.SetNonblock(l.listener, false)
	// The supervisor's parent-death signal follows the thread that starts
	// it: this goroutine keeps its thread until the supervisor is reaped.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	sup, err := l.start()
	if err != nil {
		// Fail closed: without the supervisor the command cannot create
		// anything; it is killed with a message on its stderr (unless it
		// has just exited, and the namespaces with it).
		// ESRCH from setns: the command is exiting (its namespaces are
		// released before its pidfd reports the exit).
		if !l.ended() && !errors.Is(err, unix.ESRCH) {
			l.failed(fmt.Errorf("starting the sandbox supervisor failed (the command, which needed it, was killed): %w", err))
		}
		unix.PidfdSendSignal(l.pidfd, unix.SIGKILL, nil, 0)
		return
	}
	// The supervisor ends with the command: wait for the command, then
	// kill and reap the supervisor. A supervisor that ends first (it
	// failed; its message is on the command's stderr) takes the command
	// with it, which would otherwise wait forever on its pending call.
	supfd, err := unix.PidfdOpen(sup.Pid, 0)
	if err != nil {
		sup.Kill()
		sup.Wait()
		l.failed(fmt.Errorf("watching the sandbox supervisor failed (the command, which needed it, was killed): pidfd_open: %w", err))
		unix.PidfdSendSignal(l.pidfd, unix.SIGKILL, nil, 0)
		return
	}
	supExited, stopSup := readable(supfd)
	select {
	case <-exited:
		stopSup()
		unix.Close(supfd)
		sup.Kill()
		sup.Wait()
		return
	case <-supExited:
	}
	stopSup()
	unix.Close(supfd)
	// The supervisor ends by itself (status 0) when no filtered task is
	// left: the command and everything it started are gone, and the init
	// is about to report. Any other end is a failure the command must not
	// outlive.
	if st, err := sup.Wait(); err != nil || !st.Success() {
		// A message of its own, if it wrote one (it did not when it was
		// killed), is on the command's stderr.
		if !l.ended() {
			how := "; its message is on the command's stderr"
			if st != nil && !st.Exited() {
				how = "" // killed by a signal: no message of its own
			}
			l.failed(fmt.Errorf("the sandbox supervisor ended (%v%s) and the command, which needed it, was killed", describeWait(st, err), how))
		}
		unix.PidfdSendSignal(l.pidfd, unix.SIGKILL, nil, 0)
	}
}

// ended reports whether the sandbox's init has exited already (its pidfd
// is readable): a supervisor that fails then failed nobody.
func (l *lazySupervisor) ended() bool {
	gone := []unix.PollFd{{Fd: int32(l.pidfd), Events: unix.POLLIN}}
	n, _ := unix.Poll(gone, 0)
	return n > 0
}

// describeWait names how a process ended for a message.
func describeWait(st *os.ProcessState, err error) string {
	if err != nil {
		return err.Error()
	}
	return st.String()
}

// readable returns a channel closed when fd becomes readable (a pidfd: the
// process exited; a seccomp listener: a notification is pending), waiting
// in the runtime's poller on a non-blocking duplicate; stop ends the wait.
func readable(fd int) (ready <-chan struct{}, stop func()) {
	ch := make(chan struct{})
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, highFD)
	if err != nil {
		close(ch)
		return ch, func() {}
	}
	unix.SetNonblock(dup, true)
	f := os.NewFile(uintptr(dup), "poll")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		close(ch)
		return ch, func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := rc.Read(func(fd uintptr) bool {
			p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(p, 0)
			// POLLIN only: a listener without filtered tasks left reports
			// POLLHUP, which is no notification.
			return err == nil && n > 0 && p[0].Revents&unix.POLLIN != 0
		})
		if err == nil {
			close(ch)
		}
	}()
	return ch, func() {
		f.Close()
		<-done
	}
}

// highFD is the lowest descriptor number the supervisor's sources use.
const highFD = 16

// close closes the supervisor's descriptors; it may be called again.
func (l *lazySupervisor) close() {
	for _, fd := range []*int{&l.listener, &l.pidfd, &l.ruleset, &l.stderr, &l.nsMnt, &l.nsIPC, &l.nsUser} {
		if *fd >= 0 {
			unix.Close(*fd)
			*fd = -1
		}
	}
}

// start starts the supervisor: sbx itself, re-executed by a child that
// joins the command's user, mount and IPC namespaces (setns with the
// command's pidfd; a single-threaded child may join a user namespace, sbx
// may not). The child keeps the host's /proc, opened before it joins: the
// ids in notifications are in sbx's PID namespace.
func (l *lazySupervisor) start() (*os.Process, error) {
	p := newProgram()
	proc, exe, tmp := p.slot(), p.slot(), p.slot()
	// First: sbx killed before this step leaves the child untied (the
	// signal is armed for the parent's later death only), so the window
	// is kept to the clone itself.
	p.call("prctl(PR_SET_PDEATHSIG)", unix.SYS_PRCTL, unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL))
	p.call("opening /proc", unix.SYS_OPENAT, atFdcwdU, p.str("/proc"), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC).into(tmp)
	p.call("fcntl(F_DUPFD_CLOEXEC)", unix.SYS_FCNTL, 0, unix.F_DUPFD_CLOEXEC, highFD).from(0, tmp).into(proc)
	p.call("opening /proc/self/exe", unix.SYS_OPENAT, atFdcwdU, p.str("/proc/self/exe"), unix.O_PATH|unix.O_CLOEXEC).into(tmp)
	p.call("fcntl(F_DUPFD_CLOEXEC)", unix.SYS_FCNTL, 0, unix.F_DUPFD_CLOEXEC, highFD).from(0, tmp).into(exe)
	// A session of its own, like the command's: no controlling terminal
	// (an O_CREAT open of /dev/tty it performs must fail as the command's
	// own open would).
	p.call("setsid", unix.SYS_SETSID)
	if l.nsMnt >= 0 {
		// First: the other two need capabilities in the command's user
		// namespace, which joining it gives (sbx's uid owns it).
		p.call("setns into the sandbox's user namespace", unix.SYS_SETNS, uintptr(l.nsUser), unix.CLONE_NEWUSER)
		p.call("setns into the sandbox's mount namespace", unix.SYS_SETNS, uintptr(l.nsMnt), unix.CLONE_NEWNS)
		p.call("setns into the sandbox's IPC namespace", unix.SYS_SETNS, uintptr(l.nsIPC), unix.CLONE_NEWIPC)
	} else {
		// The init's namespaces are the command's (seccomp keeps the
		// command from creating others). With a pidfd, setns joins them
		// together, the user namespace first.
		flags := uintptr(unix.CLONE_NEWNS | unix.CLONE_NEWIPC)
		if l.userns {
			flags |= unix.CLONE_NEWUSER
		}
		p.call("setns into the sandbox's namespaces", unix.SYS_SETNS, uintptr(l.pidfd), flags)
	}
	if l.userns {
		// The supervisor is not root in the user namespace, so execve
		// would clear the capabilities setns gave it: it keeps, as ambient
		// capabilities, CAP_SETPCAP (its worker drops its capabilities
		// like the command's) and CAP_SYS_PTRACE (it reads callers'
		// memory and duplicates their descriptors).
		keep := uint32(1<<unix.CAP_SETPCAP | 1<<unix.CAP_SYS_PTRACE)
		hdr := &unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		data := &[2]unix.CapUserData{{Effective: ^uint32(0), Permitted: ^uint32(0), Inheritable: keep}, {Effective: ^uint32(0), Permitted: ^uint32(0)}}
		p.keep = append(p.keep, hdr, data)
		p.call("capset", unix.SYS_CAPSET, uintptr(unsafe.Pointer(hdr)), uintptr(unsafe.Pointer(&data[0])))
		for _, c := range []uintptr{unix.CAP_SETPCAP, unix.CAP_SYS_PTRACE} {
			p.call("prctl(PR_CAP_AMBIENT_RAISE)", unix.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_RAISE, c)
		}
	}
	for i, fd := range []int{l.stderr, l.stderr, l.stderr} {
		p.call("dup3(stdio)", unix.SYS_DUP3, uintptr(fd), uintptr(i), 0)
	}
	p.call("dup3(listener)", unix.SYS_DUP3, uintptr(l.listener), supListenerFD, 0)
	flags := "-"
	if l.ruleset >= 0 {
		flags += "r"
		p.call("dup3(ruleset)", unix.SYS_DUP3, uintptr(l.ruleset), supRulesetFD, 0)
	}
	if l.spec.Seccomp.NotifyBind {
		flags += "a"
	}
	if l.spec.Seccomp.Network == ir.NetworkPorts {
		flags += "p"
	}
	p.call("dup3(/proc)", unix.SYS_DUP3, 0, supProcFD, 0).from(0, proc)
	p.call("close_range", unix.SYS_CLOSE_RANGE, supProcFD+1, ^uintptr(0), closeRangeCloex)
	argv := append([]string{"sbx", HelperArg, "supervise", flags, strconv.Itoa(len(l.guard))}, l.guard...)
	for _, s := range l.spec.Sockets {
		argv = append(argv, socketArg(s))
	}
	av, err := cStrings(p, argv)
	if err != nil {
		return nil, err
	}
	ev, _ := cStrings(p, nil)
	p.call("execveat(sbx)", unix.SYS_EXECVEAT, 0, p.str(""), av, ev, unix.AT_EMPTY_PATH).from(0, exe)
	pid, pidfd, err := spawn(p, 0, -1)
	if err != nil {
		return nil, err
	}
	unix.Close(pidfd)
	return os.FindProcess(pid)
}

// ExitSignal returns the signal the command run by cmd died of, as its
// init reported it, or 0 (executor.SignalReporter: the init itself exits
// with 128+N). It releases the run: its status pipe, the descriptors of a
// supervisor that never started and the init's stack. Call it once, after
// the init was reaped.
func (s *Sandbox) ExitSignal(cmd *exec.Cmd) int {
	v, ok := s.status.LoadAndDelete(cmd)
	if !ok {
		return 0
	}
	run := v.(*runState)
	defer run.f.release()
	if run.sup != nil && !run.sup.started {
		run.sup.close()
	}
	// The init has exited: its report is there, or EOF.
	if !run.readEnd() {
		return 0
	}
	if ws := syscall.WaitStatus(run.status); ws.Signaled() {
		return int(ws.Signal())
	}
	return 0
}

var _ executor.FailureReporter = (*Sandbox)(nil)

// RunFailure returns the failure of the run's supervisor that ended cmd, if
// any (executor.FailureReporter), once: it is forgotten then.
func (s *Sandbox) RunFailure(cmd *exec.Cmd) error {
	if v, ok := s.failures.LoadAndDelete(cmd); ok {
		return v.(error)
	}
	return nil
}

// Kinds of standard input Spawn accepts (stdinKind).
const (
	stdinNull   = iota // the null device
	stdinStream        // a pipe or a connected stream socket
)

// stdinKind tells what the descriptor the command would get as standard
// input is, and refuses what the sandbox must not hand the command.
func stdinKind(fd int) (int, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, fmt.Errorf("standard input: fstat: %v", err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFCHR:
		if unix.Major(st.Rdev) == 1 && unix.Minor(st.Rdev) == 3 {
			return stdinNull, nil
		}
	case unix.S_IFIFO:
		return stdinStream, nil
	case unix.S_IFSOCK:
		if err := connectedStream(fd, "standard input"); err != nil {
			return 0, err
		}
		return stdinStream, nil
	}
	return 0, errors.New("standard input must be the null device, a pipe or a connected stream socket: a file or a terminal would let the command change its metadata or, for a terminal, inject input")
}

// streamNames name the standard streams in errors.
var streamNames = [3]string{"standard input", "standard output", "standard error"}

// checkStreamSocket refuses fd, the standard stream called name, when it
// is a socket connectedStream refuses (anything else passes: a pipe, or
// for output a file or a terminal the caller chose).
func checkStreamSocket(fd int, name string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: fstat: %v", name, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil
	}
	return connectedStream(fd, name)
}

// connectedStream accepts a socket as a standard stream only when it is a
// connected stream or seqpacket socket (a socketpair's end, a
// connection): the command then talks to that peer alone. A datagram
// socket names its destination at every send (red team 30: under network
// none an unconnected UDP socket reached any address, and a Unix datagram
// socket any pathname datagram socket of the host, which the filter
// denies the command in every mode; a connected one can be connected
// again), and a listening socket accepts connections from the network
// (neither Landlock nor the filter sees sends, or accept).
func connectedStream(fd int, name string) error {
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return fmt.Errorf("%s: getsockopt(SO_TYPE): %v", name, err)
	}
	if typ != unix.SOCK_STREAM && typ != unix.SOCK_SEQPACKET {
		return fmt.Errorf("%s is a datagram or raw socket (type %d), which the command could send to any address with: only a connected stream or seqpacket socket is passed on", name, typ)
	}
	if acc, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || acc != 0 {
		return fmt.Errorf("%s is a listening socket, on which the command would accept connections: only a connected stream or seqpacket socket is passed on", name)
	}
	var sa unix.RawSockaddrAny
	n := uint32(unix.SizeofSockaddrAny)
	if _, _, e := unix.RawSyscall(unix.SYS_GETPEERNAME, uintptr(fd), uintptr(unsafe.Pointer(&sa)), uintptr(unsafe.Pointer(&n))); e != 0 {
		return fmt.Errorf("%s is a socket that is not connected (%v): only a connected stream or seqpacket socket is passed on", name, e)
	}
	return nil
}

// socketArg is s as a helper argument: its path, or "@DEV:INO:PATH" for a
// socket fixed at binding (a path always starts with "/").
func socketArg(s landlock.Socket) string {
	if !s.Fixed {
		return s.Path
	}
	return "@" + strconv.FormatUint(s.Dev, 10) + ":" + strconv.FormatUint(s.Ino, 10) + ":" + s.Path
}
