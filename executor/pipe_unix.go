//go:build unix

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
