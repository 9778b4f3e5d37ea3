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
	ws, err := runProgram(t, p, `read l < out && [ "$l" = "via slot" ] && [ "$PWD" = "`+dir+`" ] && exit 7`)
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
	if _, _, err := spawn(newProgram(), 0, -1); err == nil {
		t.Fatal("an empty program was run")
	}
}
