//go:build linux && !(amd64 || arm64)

package executor

import (
	"os/exec"
	"syscall"
)

// nsForkable: the raw fork is built for amd64 and arm64 only; elsewhere
// package syscall's fork starts the init (see nsfork_linux.go for the
// window that leaves when the executor is SIGKILLed during the start).
func nsForkable(*exec.Cmd) bool { return false }

func nsFork(*exec.Cmd) (*process, error) { return nil, syscall.ENOSYS }
