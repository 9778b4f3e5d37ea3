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
		timeout := -1
		if !l.deadline.IsZero() {
			left := time.Until(l.deadline)
			if left <= 0 {
				return false
			}
			timeout = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		n, err := unix.Poll(fds, timeout)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return true // let the write report the problem
		case n == 0:
			continue // the deadline is checked above
		case len(fds) > 1 && fds[1].Revents != 0:
			return false
		case fds[0].Revents != 0:
			return true
		}
	}
}
