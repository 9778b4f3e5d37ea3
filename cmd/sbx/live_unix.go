//go:build linux || darwin

package main

import (
	"errors"
	"io"
	"math"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// blockingFD returns the descriptor to write w's output through and the
// largest write that never blocks once poll reports room, when writes to
// w can block; -1 and 0 otherwise. A pipe with room takes a page without
// blocking. A terminal reports room as soon as it has some and expands
// what it is given (a newline to two bytes, a tab to eight), so no size
// is safe there: sbx writes to it through a descriptor of its own, opened
// again in non-blocking mode (own; the caller's descriptor keeps its
// flags), or, where it may not open the terminal (another user's), on a
// goroutine of its own (tty), which only that goroutine waits for.
func blockingFD(w io.Writer) (fd, piece int, own, tty bool) {
	f, ok := file(w)
	if !ok {
		return -1, 0, false, false
	}
	fd = int(f.Fd())
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return -1, 0, false, false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return fd, 4096, false, false
	case unix.S_IFSOCK:
		return fd, 256, false, false
	case unix.S_IFCHR:
		if _, err := unix.IoctlGetTermios(fd, ioctlGetTermios); err != nil {
			return fd, 256, false, false // not a terminal
		}
		// A new open file description of the same terminal (Linux's
		// /proc/self/fd): its O_NONBLOCK is sbx's alone. Not for a
		// pseudo-terminal's master, whose link names /dev/ptmx: that open
		// would make a new pseudo-terminal and the output would go to it
		// (red team 22), with the same device number.
		if isPtyMaster(fd) {
			return fd, 0, false, true
		}
		if nb, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), unix.O_WRONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err == nil {
			var nst unix.Stat_t
			if unix.Fstat(nb, &nst) == nil && nst.Rdev == st.Rdev && nst.Mode&unix.S_IFMT == unix.S_IFCHR {
				return nb, 0, true, false
			}
			unix.Close(nb)
		}
		return fd, 0, false, true
	}
	return -1, 0, false, false
}

// ttyWriter writes to a terminal on a goroutine of its own, one write at a
// time; it writes a byte to a pipe (done) for each write finished, so that
// the loop can wait for one with poll, bounded like its other waits.
type ttyWriter struct {
	fd      int
	work    chan []byte
	done    int
	mu      sync.Mutex
	err     error // of the writes finished so far
	pending bool
}

func newTTYWriter(fd int) *ttyWriter {
	done, notify, closeBoth := interruptPipe()
	if done < 0 {
		return nil
	}
	t := &ttyWriter{fd: fd, work: make(chan []byte), done: done}
	go func() {
		defer closeBoth()
		for b := range t.work {
			for len(b) > 0 {
				n, err := unix.Write(t.fd, b)
				if err == unix.EINTR {
					continue
				}
				if err != nil {
					t.mu.Lock()
					t.err = err
					t.mu.Unlock()
					break
				}
				b = b[n:]
			}
			notify()
		}
	}()
	return t
}

// writeTTY hands p to the terminal's goroutine once the previous write has
// finished, and reports false when the deadline passed or sbx got a
// signal first.
func (l *liveOutput) writeTTY(p []byte) (ok bool, err error) {
	t := l.tw
	if t.pending && !l.waitFD(t.done) {
		return false, nil
	}
	t.settle()
	if err := t.error(); err != nil {
		return true, err
	}
	t.pending = true
	t.work <- append([]byte(nil), p...) // p is only valid during the call
	return true, nil
}

// error returns the error of the writes finished so far.
func (t *ttyWriter) error() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// settle consumes the byte of a finished write.
func (t *ttyWriter) settle() {
	if t.pending {
		var b [1]byte
		unix.Read(t.done, b[:])
		t.pending = false
	}
}

// flush waits, without bound, for the write in progress: what sbx writes
// after the run comes after it.
func (t *ttyWriter) flush() {
	if t == nil || !t.pending {
		return
	}
	for {
		_, err := unix.Poll([]unix.PollFd{{Fd: int32(t.done), Events: unix.POLLIN}}, -1)
		if err != unix.EINTR {
			break
		}
	}
	t.settle()
}

// writeOwn writes p to the stream's own non-blocking descriptor, waiting
// for room as needed, and reports false when the deadline passed or sbx
// got a signal first.
func (l *liveOutput) writeOwn(p []byte) (n int, ok bool, err error) {
	for n < len(p) {
		if !l.waitWritable() {
			return n, false, nil
		}
		m, err := unix.Write(l.fd, p[n:])
		switch {
		case err == unix.EAGAIN || err == unix.EINTR:
			// Room was reported, but not enough for what the terminal
			// makes of the next byte: wait a little instead of spinning.
			l.pause()
		case err != nil:
			return n, true, err
		default:
			n += m
		}
	}
	return n, true, nil
}

// pause waits a millisecond, or less if sbx gets a signal.
func (l *liveOutput) pause() {
	if l.intr < 0 {
		unix.Poll(nil, 1)
		return
	}
	unix.Poll([]unix.PollFd{{Fd: int32(l.intr), Events: unix.POLLIN}}, 1)
}

// release waits for a write to the terminal still in progress (bounded
// as the writes are, if they are), records its error, and ends the
// terminal's goroutine or closes the stream's own descriptor.
func (l *liveOutput) release() {
	if t := l.tw; t != nil {
		if t.pending && (!l.bounded || l.waitFD(t.done)) {
			t.flush()
		}
		if err := t.error(); err != nil {
			l.w.fail(err)
		}
		close(t.work) // the goroutine closes the pipe once its write is done
		l.tw = nil
	}
	if l.own && l.fd >= 0 {
		unix.Close(l.fd)
		l.fd = -1
	}
}

// waitWritable waits until the stream has room, and reports false when
// the deadline passed or sbx got a signal first. An error or hang-up on
// the stream counts as room: the write then reports it.
func (l *liveOutput) waitWritable() bool {
	return l.wait(unix.PollFd{Fd: int32(l.fd), Events: unix.POLLOUT})
}

// waitFD waits until fd is readable (see waitWritable).
func (l *liveOutput) waitFD(fd int) bool {
	return l.wait(unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
}

func (l *liveOutput) wait(on unix.PollFd) bool {
	fds := []unix.PollFd{on, {Fd: int32(l.intr), Events: unix.POLLIN}}
	if l.intr < 0 {
		fds = fds[:1]
	}
	for {
		// Room is used whenever there is some: the bound only ends a wait.
		timeout, expired := -1, false
		if !l.deadline.IsZero() {
			left := time.Until(l.deadline)
			expired = left <= 0
			timeout = max(0, int(min(left/time.Millisecond+1, math.MaxInt32)))
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

// file returns the stream's *os.File when w is one (or a stdStream).
func file(w any) (*os.File, bool) {
	switch f := w.(type) {
	case *os.File:
		return f, true
	case stdStream:
		return f.f, true
	}
	return nil, false
}

// writePiece writes b, a piece poll reported room for, without blocking
// where the kernel allows it (writeNoWait: pwritev2 with RWF_NOWAIT on
// Linux), and returns what was written: possibly nothing, when another
// writer of the same pipe or socket took the room first (red team 29:
// two sbx runs writing to one stdout pipe, as `make -j` or `xargs -P`
// give them, whose reader stalled; the run that lost the room was held
// in write(2) for as long as the reader stalled, its command running on
// past --timeout while the deadline went unseen). The loop then waits
// for room again, bounded as before. Where the stream takes no such
// write (an old kernel, a device), the piece is written with write(2).
func (l *liveOutput) writePiece(b []byte) (int, error) {
	if !l.blocking {
		n, ok, err := l.w.writeNoWait(l.fd, b)
		if ok {
			if err == nil && n == 0 {
				// Lost the room: wait a little (or less, on a signal)
				// rather than spin where poll keeps reporting room the
				// write does not get.
				l.pause()
			}
			return n, err
		}
		l.blocking = true
	}
	return l.w.Write(b)
}

// writeNoWait writes p to fd, which is the descriptor of c's stream,
// without blocking (see writePiece): n is what was written (0 when the
// stream had no room), ok false when the stream cannot be written so
// (nothing was written then). A failure is recorded as c's, as Write
// records it.
func (c *checkedWriter) writeNoWait(fd int, p []byte) (n int, ok bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, true, c.err
	}
	n, ok, errno := writeNoWait(fd, p)
	if !ok {
		return 0, false, nil
	}
	if errno != nil {
		name := "/dev/fd/" + strconv.Itoa(fd)
		if f, isFile := file(c.w); isFile {
			name = f.Name()
		}
		err = &os.PathError{Op: "write", Path: name, Err: errno}
		c.setErr(err)
	}
	return n, true, err
}

// sameStream reports whether a and b write to the same file (2>&1): one
// reader takes both.
func sameStream(a, b io.Writer) bool {
	fa, ok := file(a)
	fb, ok2 := file(b)
	if !ok || !ok2 {
		return false
	}
	var sa, sb unix.Stat_t
	if unix.Fstat(int(fa.Fd()), &sa) != nil || unix.Fstat(int(fb.Fd()), &sb) != nil {
		return false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}
