//go:build linux && (amd64 || arm64)

package executor

import (
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/internal/nofile"
	"github.com/sbx-dev/sbx/internal/rawfork"
)

// Starting the init of a PID namespace so that it dies with the executor.
//
// Pdeathsig is set by the child itself, after the fork: if the executor
// dies first, the child is reparented and the signal never comes. Package
// syscall's fork guards against this by comparing getppid() with the
// parent's pid, then signalling itself; in a new PID namespace both halves
// fail at once: getppid() is 0 (the parent is outside the namespace), and
// a signal an init sends itself without a handler is discarded. A command
// started that way while the executor is SIGKILLed keeps running with no
// one to kill it (measured: 1 run in 400 under load, sbx killed at random
// moments of its start).
//
// nsFork forks with clone(CLONE_VM|CLONE_VFORK) and runs a child of its
// own (nsChildMain): it writes its own uid and gid maps when it has a user
// namespace, calls setsid and PR_SET_PDEATHSIG, and then reads its parent
// from /proc/self/stat, where the proc mount's PID namespace (the
// executor's) shows it. If the parent is no longer the executor, the
// executor died before the signal was armed and the child exits; if the
// executor dies after, the signal kills it. Then it moves its standard
// streams into place, changes directory and execs.

// atFDCWD is AT_FDCWD as a system call argument.
const atFDCWD = ^uintptr(99)

// nsStep numbers the steps of nsChildMain, for its error reports.
type nsStep int32

const (
	nsStepNone nsStep = iota - 1
	nsStepSetgroups
	nsStepUIDMap
	nsStepGIDMap
	nsStepSetsid
	nsStepPdeathsig
	nsStepDup
	nsStepDup3
	nsStepCloexec
	nsStepChdir
	nsStepExec
)

var nsStepNames = [...]string{
	nsStepSetgroups: "writing /proc/self/setgroups",
	nsStepUIDMap:    "writing the uid map",
	nsStepGIDMap:    "writing the gid map",
	nsStepSetsid:    "setsid",
	nsStepPdeathsig: "prctl(PR_SET_PDEATHSIG)",
	nsStepDup:       "moving a standard stream",
	nsStepDup3:      "installing a standard stream",
	nsStepCloexec:   "clearing close-on-exec on a standard stream",
	nsStepChdir:     "chdir",
	nsStepExec:      "exec",
}

// nsChild is everything nsChildMain uses, prepared before the fork (the
// child shares the executor's memory and cannot allocate).
type nsChild struct {
	path, dir  *byte // dir: nil to stay
	argv, envp **byte
	stdio      [3]uintptr
	userns     bool
	idFile     [3]*byte // setgroups, uid_map, gid_map under /proc/self
	idData     [3]*byte
	idLen      [3]uintptr
	stat       *byte
	parent     int // the executor's pid in the proc mount's namespace; -1: unknown
	// maxFD bounds the descriptors marked close-on-exec one by one where
	// close_range cannot (before Linux 5.11): RLIMIT_NOFILE's soft limit.
	maxFD uintptr
	// nofile is the open-files limit the command gets (nofile.ForChild: the
	// soft limit sbx started with, as os/exec gives it), nil to keep the
	// current one.
	nofile *unix.Rlimit
	buf    [512]byte
	// Set by the child when a step fails.
	step  nsStep
	errno syscall.Errno
}

// nsForkable reports whether nsFork can start cmd: what
// linuxContainer.prepare sets for pid-namespace containment, and nothing
// else (a Wrap sandbox may have asked for more: package syscall's fork
// then does it all).
func nsForkable(cmd *exec.Cmd) bool {
	s := cmd.SysProcAttr
	if s == nil || len(cmd.ExtraFiles) > 0 || s.Cloneflags&syscall.CLONE_NEWPID == 0 ||
		s.Cloneflags&^(syscall.CLONE_NEWPID|syscall.CLONE_NEWUSER) != 0 ||
		!s.Setsid || s.Pdeathsig != syscall.SIGKILL || s.Chroot != "" || s.Credential != nil ||
		s.Ptrace || s.Setpgid || s.Setctty || s.Noctty || s.Ctty != 0 || s.Foreground || s.Pgid != 0 ||
		s.Unshareflags != 0 || len(s.AmbientCaps) > 0 || s.UseCgroupFD || s.PidFD != nil {
		return false
	}
	if s.Cloneflags&syscall.CLONE_NEWUSER == 0 {
		return len(s.UidMappings) == 0 && len(s.GidMappings) == 0
	}
	// A child may write only maps of its own ids, one line each.
	return len(s.UidMappings) == 1 && len(s.GidMappings) == 1 && !s.GidMappingsEnableSetgroups
}

// nsFork starts cmd (prepared as for forkExec, nsForkable) as the init of
// a new PID namespace that cannot outlive the executor. It must be called
// on the locked thread that outlives the command (Pdeathsig follows it).
// An exec failure is an *fs.PathError with Op "exec", a chdir failure one
// with Op "chdir"; another failed step of the child is an *nsStepError (the
// namespace could not be set up); a bare syscall.Errno is clone's own
// failure.
//
// The legacy clone, not clone3: the same flags (CLONE_PIDFD since Linux
// 5.2), and container runtimes' seccomp filters refuse clone3 outright
// (ENOSYS or EPERM, since they cannot inspect its flags) while they allow
// clone.
func nsFork(cmd *exec.Cmd) (*process, error) {
	c := new(nsChild)
	c.step = nsStepNone
	c.maxFD = 1 << 20
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur < uint64(c.maxFD) {
		c.maxFD = uintptr(rl.Cur)
	}
	if l, ok := nofile.ForChild(); ok {
		c.nofile = &unix.Rlimit{Cur: l.Cur, Max: l.Max}
	}
	var err error
	if c.path, err = syscall.BytePtrFromString(cmd.Path); err != nil {
		return nil, err
	}
	argv, err := syscall.SlicePtrFromStrings(cmd.Args)
	if err != nil {
		return nil, err
	}
	envp, err := syscall.SlicePtrFromStrings(cmd.Env)
	if err != nil {
		return nil, err
	}
	c.argv, c.envp = &argv[0], &envp[0]
	if cmd.Dir != "" {
		if c.dir, err = syscall.BytePtrFromString(cmd.Dir); err != nil {
			return nil, err
		}
	}
	for i, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		file, ok := f.(*os.File)
		if !ok {
			return nil, errNeedFiles
		}
		c.stdio[i] = file.Fd()
	}
	sys := cmd.SysProcAttr
	flags := uint64(unix.CLONE_VM | unix.CLONE_VFORK | unix.CLONE_PIDFD | unix.CLONE_NEWPID)
	var keep [3][]byte
	if sys.Cloneflags&syscall.CLONE_NEWUSER != 0 {
		flags |= unix.CLONE_NEWUSER
		c.userns = true
		u, g := sys.UidMappings[0], sys.GidMappings[0]
		keep[0] = []byte("deny")
		keep[1] = []byte(strconv.Itoa(u.ContainerID) + " " + strconv.Itoa(u.HostID) + " " + strconv.Itoa(u.Size) + "\n")
		keep[2] = []byte(strconv.Itoa(g.ContainerID) + " " + strconv.Itoa(g.HostID) + " " + strconv.Itoa(g.Size) + "\n")
		for i, name := range []string{"/proc/self/setgroups", "/proc/self/uid_map", "/proc/self/gid_map"} {
			c.idFile[i], _ = syscall.BytePtrFromString(name)
			c.idData[i], c.idLen[i] = &keep[i][0], uintptr(len(keep[i]))
		}
	}
	c.stat, _ = syscall.BytePtrFromString("/proc/self/stat")
	// The child sees its parent through the proc mount, whose namespace
	// may not be the executor's (a container's /proc from elsewhere): the
	// executor's pid as that mount shows it, or no check.
	c.parent = -1
	if s, err := os.Readlink("/proc/self"); err == nil {
		if n, err := strconv.Atoi(s); err == nil {
			c.parent = n
		}
	}
	// The kernel writes the pidfd at an address taken here, before calls
	// that may move this goroutine's stack: both on the heap.
	pidfd := new(int32)
	*pidfd = -1
	// clone(flags | exit signal, stack 0: the parent's, as vfork, and
	// parent_tid: where CLONE_PIDFD stores the pidfd).
	flags |= uint64(unix.SIGCHLD)

	// Descriptors must not be created without close-on-exec while the
	// child copies the table (package syscall's rule for forks).
	syscall.ForkLock.Lock()
	pid, errno := nsVfork(uintptr(flags), uintptr(unsafe.Pointer(pidfd)), c)
	rawfork.AfterFork()
	syscall.ForkLock.Unlock()
	runtime.KeepAlive(c)
	runtime.KeepAlive(pidfd)
	runtime.KeepAlive(argv)
	runtime.KeepAlive(envp)
	runtime.KeepAlive(&keep)
	if errno != 0 {
		return nil, syscall.Errno(errno)
	}
	if c.step == nsStepNone {
		return &process{pid: int(pid), pidfd: int(*pidfd)}, nil
	}
	// The child failed and exited: reap it here so no zombie is left.
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(int(pid), &ws, 0, nil); err != syscall.EINTR {
			break
		}
	}
	unix.Close(int(*pidfd))
	if c.step == nsStepExec {
		return nil, &fs.PathError{Op: "exec", Path: cmd.Path, Err: c.errno}
	}
	if c.step == nsStepChdir {
		return nil, &fs.PathError{Op: "chdir", Path: cmd.Dir, Err: c.errno}
	}
	return nil, &nsStepError{Step: nsStepNames[c.step], Errno: c.errno}
}

// nsVfork clones and, in the child, runs nsChildMain; it returns only in
// the parent. Between BeforeFork and the end of the child nothing may
// allocate, lock, grow the stack or call a function that is not a raw
// system call.
//
//go:noinline
//go:norace
//go:nocheckptr
func nsVfork(flags, pidfd uintptr, c *nsChild) (pid, errno uintptr) {
	rawfork.BeforeFork()
	pid, errno = rawfork.Vfork(unix.SYS_CLONE, flags, 0, pidfd)
	if errno != 0 || pid != 0 {
		return // the parent (after the child exec'd or exited)
	}
	rawfork.AfterForkInChild()
	nsChildMain(c)
	return
}

// nsChildMain is the child of nsVfork. It never returns.
//
//go:nosplit
//go:norace
//go:nocheckptr
func nsChildMain(c *nsChild) {
	var (
		r, n uintptr
		e    syscall.Errno
		fds  [3]uintptr
	)
	if c.userns {
		// setgroups "deny" first: an unprivileged gid map needs it.
		for i := range c.idFile {
			r, _, e = syscall.RawSyscall6(unix.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(c.idFile[i])), unix.O_WRONLY|unix.O_CLOEXEC, 0, 0, 0)
			if e == 0 {
				_, _, e = syscall.RawSyscall(unix.SYS_WRITE, r, uintptr(unsafe.Pointer(c.idData[i])), c.idLen[i])
				syscall.RawSyscall(unix.SYS_CLOSE, r, 0, 0)
			}
			if e != 0 {
				nsChildFail(c, nsStepSetgroups+nsStep(i), e)
			}
		}
	}
	if _, _, e = syscall.RawSyscall(unix.SYS_SETSID, 0, 0, 0); e != 0 {
		nsChildFail(c, nsStepSetsid, e)
	}
	if _, _, e = syscall.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); e != 0 {
		nsChildFail(c, nsStepPdeathsig, e)
	}
	// The signal is armed: is the executor still the parent? (A proc mount
	// that cannot be read leaves the question open, as package syscall's
	// fork would.)
	if c.parent >= 0 {
		r, _, e = syscall.RawSyscall6(unix.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(c.stat)), unix.O_RDONLY|unix.O_CLOEXEC, 0, 0, 0)
		if e == 0 {
			n, _, e = syscall.RawSyscall(unix.SYS_READ, r, uintptr(unsafe.Pointer(&c.buf[0])), uintptr(len(c.buf)))
			syscall.RawSyscall(unix.SYS_CLOSE, r, 0, 0)
			if e == 0 && statParent(&c.buf, n) != c.parent {
				for {
					syscall.RawSyscall(unix.SYS_EXIT_GROUP, 125, 0, 0)
				}
			}
		}
	}
	// The standard streams: sources below 3 that are not in place move
	// up first, so that installing one never overwrites another's source.
	fds = c.stdio
	for i := range fds {
		if fds[i] < 3 && fds[i] != uintptr(i) {
			if r, _, e = syscall.RawSyscall(unix.SYS_FCNTL, fds[i], unix.F_DUPFD_CLOEXEC, 3); e != 0 {
				nsChildFail(c, nsStepDup, e)
			}
			fds[i] = r
		}
	}
	for i := range fds {
		if fds[i] == uintptr(i) {
			if _, _, e = syscall.RawSyscall(unix.SYS_FCNTL, fds[i], unix.F_SETFD, 0); e != 0 {
				nsChildFail(c, nsStepCloexec, e)
			}
		} else if _, _, e = syscall.RawSyscall(unix.SYS_DUP3, fds[i], uintptr(i), 0); e != 0 {
			nsChildFail(c, nsStepDup3, e)
		}
	}
	// Every descriptor but the three streams closes at the exec: an
	// embedding program's own (a credentials file, a socket, a pipe it
	// reads to EOF) must not reach the command (red team 27: they did,
	// where the program had not marked them close-on-exec itself, as sbx
	// does at its start).
	if _, _, e = syscall.RawSyscall(unix.SYS_CLOSE_RANGE, 3, ^uintptr(0), unix.CLOSE_RANGE_CLOEXEC); e != 0 {
		for fd := uintptr(3); fd < c.maxFD; fd++ {
			syscall.RawSyscall(unix.SYS_FCNTL, fd, unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
	// The open-files limit the executor started with, as os/exec restores
	// it (package nofile); a failure leaves the current one, as there.
	if c.nofile != nil {
		syscall.RawSyscall6(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_NOFILE, uintptr(unsafe.Pointer(c.nofile)), 0, 0, 0)
	}
	if c.dir != nil {
		if _, _, e = syscall.RawSyscall(unix.SYS_CHDIR, uintptr(unsafe.Pointer(c.dir)), 0, 0); e != 0 {
			nsChildFail(c, nsStepChdir, e)
		}
	}
	_, _, e = syscall.RawSyscall(unix.SYS_EXECVE, uintptr(unsafe.Pointer(c.path)), uintptr(unsafe.Pointer(c.argv)), uintptr(unsafe.Pointer(c.envp)))
	nsChildFail(c, nsStepExec, e)
}

// nsChildFail records the failed step for the parent and exits.
//
//go:nosplit
//go:norace
func nsChildFail(c *nsChild, step nsStep, e syscall.Errno) {
	c.step, c.errno = step, e
	for {
		syscall.RawSyscall(unix.SYS_EXIT_GROUP, 127, 0, 0)
	}
}

// statParent returns the ppid field of a /proc/<pid>/stat line (the fourth:
// "pid (comm) state ppid ..."; comm may hold any byte, so the field count
// starts after its last ')'), or -1.
//
//go:nosplit
//go:norace
func statParent(b *[512]byte, n uintptr) int {
	if n > uintptr(len(b)) {
		return -1
	}
	i := int(n) - 1
	for i >= 0 && b[uint(i)%512] != ')' {
		i--
	}
	// ") S 1234 "
	if i < 0 || int(n) < i+5 || b[uint(i+1)%512] != ' ' || b[uint(i+3)%512] != ' ' {
		return -1
	}
	v, digits := 0, 0
	for j := i + 4; j < int(n) && b[uint(j)%512] >= '0' && b[uint(j)%512] <= '9'; j++ {
		v = v*10 + int(b[uint(j)%512]-'0')
		digits++
	}
	if digits == 0 || digits > 10 {
		return -1
	}
	return v
}
