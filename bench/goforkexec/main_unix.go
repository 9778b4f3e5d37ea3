//go:build unix

// Command goforkexec is the barest Go launcher: the Go runtime's start,
// then syscall.ForkExec of its arguments with the standard streams and
// Wait4, with no os/exec, no capture and no sandbox. Anything written in
// Go that runs a command costs at least this; bench/landlock.sh prints it
// beside bwrap so that each run shows what that floor leaves for the
// sandbox on the machine at hand.
package main

import (
	"os"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	pid, err := syscall.ForkExec(os.Args[1], os.Args[1:], &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		os.Exit(127)
	}
	var ws syscall.WaitStatus
	for {
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		os.Exit(125)
	}
	os.Exit(ws.ExitStatus())
}
