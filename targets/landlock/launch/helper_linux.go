package launch

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/targets/landlock"
)

// HelperArg is the hidden argv[1] with which sbx re-executes itself as the
// sandbox helper. cmd/sbx dispatches it before anything else.
const HelperArg = "__sbx-landlock-helper"

// Exit codes of the helper when it cannot start the command.
const (
	exitSetup       = 125 // the sandbox could not be set up (fails closed)
	exitNotExec     = 126 // the command exists but cannot be executed
	exitNotFound    = 127 // the command does not exist
	maxSpecBytes    = 16 << 20
	closeRangeCloex = 1 << 2 // CLOSE_RANGE_CLOEXEC
)

// RunHelper is the helper's entry point: args are the arguments after
// HelperArg. It confines the calling thread and execs the command; it only
// returns through os.Exit.
//
// The helper runs as PID 1 of the PID namespace the executor created, in
// fresh mount and IPC namespaces (and network namespace for network none)
// that Wrap requested. Everything it restricts is per thread — capability
// sets, no_new_privs, the Landlock domain (landlock_restrict_self without
// TSYNC), the seccomp filter (without TSYNC) — so it works on one locked OS
// thread and execs from that same thread: execve keeps the calling thread's
// credentials and filter and ends the others. sbx itself is never restricted.
func RunHelper(args []string) {
	runtime.LockOSThread()
	if len(args) != 1 {
		fail(exitSetup, "sbx: %s: want exactly one argument (the spec descriptor)", HelperArg)
	}
	fd, err := strconv.Atoi(args[0])
	if err != nil || fd < 3 {
		fail(exitSetup, "sbx: %s: bad descriptor %q", HelperArg, args[0])
	}
	spec, err := readSpec(fd)
	if err != nil {
		fail(exitSetup, "sbx: sandbox setup failed: %v", err)
	}
	// Descriptors that survived the exec into the helper (sbx's caller may
	// have leaked some without close-on-exec) are closed for real: the
	// supervisor stays alive next to the command. Only the exit-signal pipe
	// is kept (the spec descriptor was closed by readSpec).
	if err := closeInherited(spec.StatusFD); err != nil {
		fail(exitSetup, "sbx: sandbox setup failed: %v", err)
	}
	if spec.Seccomp.NotifyCreate {
		runSupervised(spec) // never returns
	}
	if err := confine(spec); err != nil {
		fail(exitSetup, "sbx: sandbox setup failed: %v", err)
	}
	err = syscall.Exec(spec.Path, spec.Argv, spec.Env)
	failExec(spec, err)
}

// failExec reports that the command could not be executed, with the
// shell's exit codes.
func failExec(spec *landlock.Spec, err error) {
	name := spec.Path
	if len(spec.Argv) > 0 {
		name = spec.Argv[0]
	}
	if errors.Is(err, syscall.ENOENT) {
		fail(exitNotFound, "sbx: %s: not found", name)
	}
	fail(exitNotExec, "sbx: %s: %v", name, err)
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(code)
}

func readSpec(fd int) (*landlock.Spec, error) {
	f := os.NewFile(uintptr(fd), "spec")
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSpecBytes))
	if err != nil {
		return nil, fmt.Errorf("reading the sandbox spec: %w", err)
	}
	// gob keeps strings byte for byte (see Sandbox.Wrap).
	var s landlock.Spec
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return nil, fmt.Errorf("decoding the sandbox spec: %w", err)
	}
	if s.Path == "" || len(s.Argv) == 0 {
		return nil, errors.New("the sandbox spec names no command")
	}
	return &s, nil
}

// closeInherited closes every descriptor above 2 that is not close-on-exec,
// except keep. Those are exactly the ones inherited through the exec: every
// descriptor the Go runtime opens is close-on-exec (and some must stay
// open: the cgroup CPU limit file the runtime rereads).
func closeInherited(keep int) error {
	var fds []int
	if d, err := unix.Open("/proc/self/fd", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
		buf := make([]byte, 4096)
		for {
			n, err := unix.ReadDirent(d, buf)
			if err != nil || n <= 0 {
				break
			}
			var names []string
			_, _, names = unix.ParseDirent(buf[:n], -1, names)
			for _, name := range names {
				if fd, err := strconv.Atoi(name); err == nil && fd != d {
					fds = append(fds, fd)
				}
			}
		}
		unix.Close(d)
	} else {
		// No /proc: probe every descriptor below the limit.
		var lim unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
			return fmt.Errorf("getrlimit(RLIMIT_NOFILE): %w", err)
		}
		for fd := 3; uint64(fd) < min(lim.Cur, 1<<20); fd++ {
			fds = append(fds, fd)
		}
	}
	for _, fd := range fds {
		if fd < 3 || fd == keep {
			continue
		}
		if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && fl&unix.FD_CLOEXEC == 0 {
			if err := unix.Close(fd); err != nil && err != unix.EBADF {
				return fmt.Errorf("closing inherited descriptor %d: %w", fd, err)
			}
		}
	}
	return nil
}

// confine applies the spec to the calling (locked) thread. The order
// matters: mounts need capabilities; Landlock rules are opened on the final
// view; capabilities are dropped before no_new_privs and restrict_self;
// the seccomp filter comes last since it denies mount and friends.
func confine(s *landlock.Spec) error {
	p, err := prepare(s)
	if err != nil {
		return err
	}
	_, err = p.restrict(false)
	return err
}

// prepared is the helper's state between building the view and
// restricting the thread.
type prepared struct {
	s    *landlock.Spec
	rfd  int // Landlock ruleset, -1 without Landlock
	prog []unix.SockFilter
	mark func(string)
}

// prepare builds the mount view, re-enters the working directory, creates
// the Landlock ruleset and assembles the seccomp filter.
func prepare(s *landlock.Spec) (*prepared, error) {
	t0 := time.Now()
	p := &prepared{s: s, rfd: -1, mark: func(what string) {
		if s.Trace {
			fmt.Fprintf(os.Stderr, "sbx-helper: %-10s %6dus\n", what, time.Since(t0).Microseconds())
		}
	}}
	if s.Seccomp.NotifyConnect || s.Seccomp.NotifyListen {
		return nil, errors.New("this profile needs the supervisor for listed Unix sockets or bind ports, which this sbx does not implement yet; remove the unix_sockets/bind_tcp rules or use a profile without them")
	}
	if len(s.Mounts) > 0 {
		if err := applyMounts(s.Mounts); err != nil {
			return nil, fmt.Errorf("mount namespace: %w", err)
		}
	}
	p.mark("mounts")
	if s.Cwd != "" {
		if err := unix.Chdir(s.Cwd); err != nil {
			return nil, fmt.Errorf("entering the working directory %s: %w", s.Cwd, err)
		}
	}
	if s.ABI > 0 {
		var err error
		if p.rfd, err = buildRuleset(s); err != nil {
			return nil, err
		}
	}
	p.mark("ruleset")
	var err error
	if p.prog, err = buildFilter(s.Seccomp); err != nil {
		return nil, err
	}
	// No core dumps: a core_pattern pipe helper runs outside the sandbox.
	if err := unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{}); err != nil {
		return nil, fmt.Errorf("setrlimit(RLIMIT_CORE): %w", err)
	}
	return p, nil
}

// restrictThread gives the calling thread the command's confinement except
// the seccomp filter: no capabilities, no_new_privs, the Landlock domain of
// the ruleset rfd (a new domain on each call, with the same rules).
func restrictThread(rfd int) error {
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if rfd >= 0 {
		return restrictSelf(rfd)
	}
	return nil
}

// restrict confines the calling thread and installs the filter; with
// listener it returns the user-notification descriptor (close-on-exec, as
// every descriptor above 2 afterwards). Without listener the ruleset is
// closed.
func (p *prepared) restrict(listener bool) (int, error) {
	defer p.mark("confined")
	if err := restrictThread(p.rfd); err != nil {
		return -1, err
	}
	if p.rfd >= 0 && !listener {
		unix.Close(p.rfd)
		p.rfd = -1
	}
	lfd, err := installFilter(p.prog, listener)
	if err != nil {
		return -1, err
	}
	// Every descriptor but stdin, stdout and stderr closes on exec, whatever
	// the caller leaked into the helper.
	if err := unix.CloseRange(3, ^uint(0), closeRangeCloex); err != nil {
		return -1, fmt.Errorf("close_range: %w", err)
	}
	return lfd, nil
}
