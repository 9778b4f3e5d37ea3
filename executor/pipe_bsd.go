//go:build unix && !linux

package executor

import "syscall"

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
