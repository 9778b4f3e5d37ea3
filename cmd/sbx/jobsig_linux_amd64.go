package main

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// jobSignals delivers SIGTSTP, SIGCONT, SIGTTOU and SIGTTIN on the returned channel until
// done is closed. As for cancellation (see sigpipe), a handler of a few
// instructions writes the signal's number to a non-blocking pipe, here
// read by a goroutine parked in the runtime's poller: os/signal's set-up
// would start runtime threads during sbx's start. A signal sbx inherited
// ignored stays ignored. Where the pipe cannot be made, os/signal serves.
func jobSignals(done <-chan struct{}) <-chan os.Signal {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return notifyJobSignals(done)
	}
	// (A failure leaves that signal with its default action: sbx stops
	// alone, as before job control.)
	installed, _ := installRawHandler(p[1], []syscall.Signal{syscall.SIGTSTP, syscall.SIGCONT, syscall.SIGTTOU, syscall.SIGTTIN})
	ch := make(chan os.Signal, 4)
	r := os.NewFile(uintptr(p[0]), "sbx-job-signals") // non-blocking: the poller
	go func() {
		<-done
		// The defaults again (sbx exits right after the run); the pipe's
		// write end stays open for a handler running meanwhile.
		dfl := kernelSigaction{}
		for _, s := range installed {
			unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(s), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
		}
		r.Close()
	}()
	go func() {
		var b [16]byte
		for {
			n, err := r.Read(b[:])
			for _, s := range b[:max(n, 0)] {
				ch <- syscall.Signal(s)
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}
