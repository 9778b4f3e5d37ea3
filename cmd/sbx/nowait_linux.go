package main

import "golang.org/x/sys/unix"

// writeNoWait writes p to fd with pwritev2(RWF_NOWAIT) at the stream's
// position, which a pipe or a socket without room refuses (EAGAIN)
// instead of blocking, whatever the description's O_NONBLOCK (which sbx
// shares with whoever else writes the stream, and so leaves alone). A
// pipe write of at most PIPE_BUF bytes stays atomic: it goes whole or not
// at all. ok is false where the kernel or the file takes no such write
// (EOPNOTSUPP before pipes had it, ENOSYS before pwritev2, EINVAL before
// RWF_NOWAIT).
func writeNoWait(fd int, p []byte) (n int, ok bool, err error) {
	iov := [][]byte{p}
	for {
		n, err = unix.Pwritev2(fd, iov, -1, unix.RWF_NOWAIT)
		switch err {
		case nil:
			return n, true, nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return 0, true, nil
		case unix.EOPNOTSUPP, unix.ENOSYS, unix.EINVAL, unix.ESPIPE:
			return 0, false, nil
		}
		return 0, true, err
	}
}
