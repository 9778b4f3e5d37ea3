//go:build unix && !linux

package executor

import (
	"fmt"
	"os"
	"syscall"
)

// newPipe returns a pipe whose read end is registered with the runtime's
// poller (so reads can have deadlines) and whose write end, only handed to
// the command, is not (saving the poller registration os.Pipe makes).
func newPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := pipe2(&p); err != nil {
		return nil, nil, err
	}
	if err := syscall.SetNonblock(p[0], true); err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil, nil, fmt.Errorf("setting pipe non-blocking: %w", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}

// pipe2 creates a pipe whose ends are close-on-exec (no pipe2(2) here:
// the fork lock keeps a concurrent fork from inheriting them in between).
func pipe2(p *[2]int) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(p[:]); err != nil {
		return err
	}
	syscall.CloseOnExec(p[0])
	syscall.CloseOnExec(p[1])
	return nil
}

// exitStatus maps a process state to the shell's exit code: the code
// itself, or 128+N and N when the process died of signal N.
func exitStatus(ps *os.ProcessState) (code, sig int) {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return ps.ExitCode(), 0
	}
	if ws.Signaled() {
		s := int(ws.Signal())
		return 128 + s, s
	}
	return ws.ExitStatus(), 0
}
