//go:build linux || darwin

package main

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// writeFD writes p to f's descriptor with write(2), whole: EINTR is
// retried, and EAGAIN (a descriptor someone made non-blocking) waits for
// room. EPIPE is returned as an error (the kernel's SIGPIPE to sbx is
// discarded by the Go runtime, which only os.File raises again).
func writeFD(f *os.File, p []byte) (int, error) {
	fd := int(f.Fd())
	n := 0
	for n < len(p) {
		m, err := unix.Write(fd, p[n:])
		switch {
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}, -1)
		case err != nil:
			return n, &os.PathError{Op: "write", Path: f.Name(), Err: err}
		case m <= 0:
			return n, io.ErrShortWrite
		default:
			n += m
		}
	}
	return n, nil
}
