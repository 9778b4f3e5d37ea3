package executor

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// discard drains the rest of the pipe without copying it to user space:
// splice(2) moves the bytes to /dev/null and only their count is kept. It
// is used once nothing more of the stream is needed (head retention full,
// no live delivery). It returns false, having consumed nothing, when splice
// cannot be used; the caller then reads as usual.
func (r *reader) discard() bool {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	defer null.Close()
	rc, err := r.f.SyscallConn()
	if err != nil {
		return false
	}
	nullFD := int(null.Fd())
	moved := false
	for {
		var n int64
		var serr error
		err := rc.Read(func(fd uintptr) bool {
			// Splice returns int64 on 64-bit ports and int on 32-bit ones.
			spliced, err := unix.Splice(int(fd), nil, nullFD, nil, 1<<20, unix.SPLICE_F_NONBLOCK)
			n, serr = int64(spliced), err
			return serr != unix.EAGAIN
		})
		if n > 0 {
			moved = true
			if !r.count(n) {
				return true
			}
		}
		switch {
		case err != nil:
			// The drain deadline passed, or the pipe was closed.
			r.mu.Lock()
			r.cutShort = r.cutShort || errors.Is(err, os.ErrDeadlineExceeded)
			r.mu.Unlock()
			return true
		case serr == unix.EINTR:
		case serr != nil:
			if !moved {
				return false // e.g. EINVAL: no splice support; read instead
			}
			return true
		case n == 0:
			return true // EOF
		}
	}
}
