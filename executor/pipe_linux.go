package executor

import "syscall"

func pipe2(p *[2]int) error {
	return syscall.Pipe2(p[:], syscall.O_CLOEXEC)
}
