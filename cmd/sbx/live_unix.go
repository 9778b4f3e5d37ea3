//go:build linux || darwin

package main

import (
	"errors"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// blockingFD returns w's descriptor and the largest write that never
// blocks once poll reports room, when writes to w can block; -1 and 0
// otherwise. A pipe with room takes a page without blocking; a terminal
// reports room from WAKEUP_CHARS (256) free bytes on.
func blockingFD(w io.Writer) (int, int) {
	f, ok := w.(*os.File)
	if !ok {
		return -1, 0
	}
	fd := int(f.Fd())
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return -1, 0
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return fd, 4096
	case unix.S_IFSOCK, unix.S_IFCHR:
		return fd, 256
	}
	return -1, 0
}

// waitWritable waits until the stream has room, and reports false when
// the deadline passed or sbx got a signal first. An error or hang-up on
// the stream counts as room: the write then reports it.
func (l *liveOutput) waitWritable() bool {
	fds := []unix.PollFd{{Fd: int32(l.fd), Events: unix.POLLOUT}, {Fd: int32(l.intr), Events: unix.POLLIN}}
	if l.intr < 0 {
		fds = fds[:1]
	}
	for {
		// Room is used whenever there is some: the bound only ends a wait.
		timeout, expired := -1, false
		if !l.deadline.IsZero() {
			left := time.Until(l.deadline)
			expired = left <= 0
			timeout = max(0, int((left+time.Millisecond-1)/time.Millisecond))
		}
		n, err := unix.Poll(fds, timeout)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return true // let the write report the problem
		case fds[0].Revents != 0:
			return true
		case len(fds) > 1 && fds[1].Revents != 0, expired:
			return false
		case n == 0:
			continue // the deadline is checked above
		}
	}
}

// interruptPipe returns the read end of a pipe that notify makes readable
// (raw descriptors: an os.File would start the runtime's poller, whose
// descriptors may not be available), and a function that closes both ends.
// r is -1 when no pipe could be made.
func interruptPipe() (r int, notify func(), closeBoth func()) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		return -1, func() {}, func() {}
	}
	for _, fd := range p {
		unix.CloseOnExec(fd)
		unix.SetNonblock(fd, true)
	}
	return p[0], func() { unix.Write(p[1], []byte{0}) }, func() { unix.Close(p[0]); unix.Close(p[1]) }
}
