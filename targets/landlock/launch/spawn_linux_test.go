//go:build linux && (amd64 || arm64)

package launch

import (
	"errors"
	"runtime"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// runProgram spawns p (ending with execve of /bin/sh -c script) and waits.
func runProgram(t *testing.T, p *program, script string) (syscall.WaitStatus, error) {
	t.Helper()
	argv, _ := cStrings(p, []string{"sh", "-c", script})
	envv, _ := cStrings(p, []string{"PATH=/usr/bin:/bin"})
	p.call("execve /bin/sh", unix.SYS_EXECVE, p.str("/bin/sh"), argv, envv)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pid, pidfd, err := spawn(p, 0, -1)
	if err != nil {
		return 0, err
	}
	unix.Close(pidfd)
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		t.Fatal(err)
	}
	return ws, nil
}

func TestSpawnRunsProgram(t *testing.T) {
	dir := t.TempDir()
	p := newProgram()
	p.call("entering "+dir, unix.SYS_CHDIR, p.str(dir))
	// A slot: open, write through it, close.
	s := p.slot()
	p.call("open out", unix.SYS_OPENAT, atFdcwdU, p.str("out"), unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o644).into(s)
	b := []byte("via slot\n")
	p.keep = append(p.keep, b)
	p.call("write out", unix.SYS_WRITE, 0, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b))).from(0, s)
	p.closeSlot(s)
	// A tolerated error skips the steps it guards.
	p.call("open missing", unix.SYS_OPENAT, atFdcwdU, p.str("missing"), unix.O_RDONLY|unix.O_CLOEXEC).tolerate(unix.ENOENT, 1)
	p.call("never reached", unix.SYS_CHDIR, p.str("/nonexistent"))
	// A fallback runs only when the step before it fails with the errno
	// named: here the first open succeeds (no "fb1"), the second fails
	// (ENOENT: "fb2" is created).
	p.call("open out again", unix.SYS_OPENAT, atFdcwdU, p.str("out"), unix.O_RDONLY|unix.O_CLOEXEC).orElse(unix.ENOENT, 1)
	p.call("fallback 1", unix.SYS_MKDIRAT, atFdcwdU, p.str("fb1"), 0o755)
	p.call("open missing again", unix.SYS_OPENAT, atFdcwdU, p.str("missing"), unix.O_RDONLY|unix.O_CLOEXEC).orElse(unix.ENOENT, 1)
	p.call("fallback 2", unix.SYS_MKDIRAT, atFdcwdU, p.str("fb2"), 0o755)
	ws, err := runProgram(t, p, `read l < out && [ "$l" = "via slot" ] && [ "$PWD" = "`+dir+`" ] && [ ! -e fb1 ] && [ -d fb2 ] && exit 7`)
	if err != nil {
		t.Fatal(err)
	}
	if ws.ExitStatus() != 7 {
		t.Errorf("exit %d, want 7 (the program's effects were not seen)", ws.ExitStatus())
	}
}

func TestSpawnReportsFailedStep(t *testing.T) {
	p := newProgram()
	p.call("entering /nonexistent/dir", unix.SYS_CHDIR, p.str("/nonexistent/dir"))
	_, err := runProgram(t, p, "exit 0")
	var se *spawnError
	if !errors.As(err, &se) || se.Step != "entering /nonexistent/dir" || se.Errno != unix.ENOENT || se.Exec {
		t.Fatalf("got %#v (%v), want the chdir step with ENOENT", err, err)
	}
	// The failed child was reaped: no child is left.
	if _, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil); err != syscall.ECHILD {
		t.Errorf("a child is left: %v", err)
	}
}

func TestSpawnReportsExecFailure(t *testing.T) {
	p := newProgram()
	argv, _ := cStrings(p, []string{"x"})
	envv, _ := cStrings(p, nil)
	p.call("execve /nonexistent", unix.SYS_EXECVE, p.str("/nonexistent"), argv, envv)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_, _, err := spawn(p, 0, -1)
	var se *spawnError
	if !errors.As(err, &se) || !se.Exec || se.Errno != unix.ENOENT {
		t.Fatalf("got %v, want an exec failure with ENOENT", err)
	}
}

func TestSpawnRejectsInvalidProgram(t *testing.T) {
	p := newProgram()
	p.call("skips past the end", unix.SYS_GETPID).tolerate(unix.ENOENT, 5)
	if _, _, err := spawn(p, 0, -1); err == nil {
		t.Fatal("an invalid program was run")
	}
	p = newProgram()
	p.call("skips past the end on success", unix.SYS_GETPID).orElse(unix.ENOENT, 5)
	if _, _, err := spawn(p, 0, -1); err == nil {
		t.Fatal("an invalid program (orElse) was run")
	}
	if _, _, err := spawn(newProgram(), 0, -1); err == nil {
		t.Fatal("an empty program was run")
	}
}

func TestStdinKind(t *testing.T) {
	var pipe [2]int
	if err := unix.Pipe2(pipe[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pipe[0])
	defer unix.Close(pipe[1])
	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(sp[0])
	defer unix.Close(sp[1])
	open := func(path string) int {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fd) })
		return fd
	}
	for _, c := range []struct {
		name string
		fd   int
		kind int
		ok   bool
	}{
		{"/dev/null", open("/dev/null"), stdinNull, true},
		{"pipe", pipe[0], stdinStream, true},
		{"socket", sp[0], stdinStream, true},
		{"a UDP socket", rt30Socket(t, unix.AF_INET, unix.SOCK_DGRAM, false), 0, false},
		{"a Unix datagram socket", rt30Socket(t, unix.AF_UNIX, unix.SOCK_DGRAM, false), 0, false},
		{"an unconnected stream socket", rt30Socket(t, unix.AF_UNIX, unix.SOCK_STREAM, false), 0, false},
		{"a listening stream socket", rt30Socket(t, unix.AF_INET, unix.SOCK_STREAM, true), 0, false},
		{"/dev/zero", open("/dev/zero"), 0, false},
		{"/dev/ptmx (a terminal)", open("/dev/ptmx"), 0, false},
		{"a regular file", open("/etc/passwd"), 0, false},
		{"a directory", open("/"), 0, false},
	} {
		kind, err := stdinKind(c.fd)
		if (err == nil) != c.ok || (c.ok && kind != c.kind) {
			t.Errorf("%s: kind %d, error %v; want kind %d, accepted %v", c.name, kind, err, c.kind, c.ok)
		}
	}
}

// rt30Socket returns a socket of domain and type, listening on a loopback
// port if listen (red team 30: such sockets are refused as standard
// streams).
func rt30Socket(t *testing.T, domain, typ int, listen bool) int {
	t.Helper()
	fd, err := unix.Socket(domain, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if listen {
		if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			t.Fatal(err)
		}
		if err := unix.Listen(fd, 1); err != nil {
			t.Fatal(err)
		}
	}
	return fd
}
