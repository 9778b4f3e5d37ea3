package executor

import (
	"bytes"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSpliceCounts drives the count-only phase directly: once head
// retention is full and nothing is delivered, splice must consume and count
// everything up to EOF, without retaining more.
func TestSpliceCounts(t *testing.T) {
	var fds fdSet
	defer fds.closeAll()
	r, w, err := fds.pipe()
	if err != nil {
		t.Fatal(err)
	}
	fds.forget(r)
	lp := &loop{d: &delivery{}, buf: make([]byte, OutputChunkSize)}
	ps := &pipeStream{s: Stdout, fd: r, ret: newRetention(1, false)}
	const size = 5<<20 + 3
	done := make(chan error)
	go func() {
		// A blocking write to a pipe may return early, with the part it
		// wrote, when a signal reaches the thread (the runtime's SIGURG):
		// write the rest.
		b := bytes.Repeat([]byte("y"), size)
		var err error
		for len(b) > 0 && err == nil {
			var n int
			n, err = unix.Write(w, b)
			if err == unix.EINTR {
				err = nil
			}
			b = b[max(n, 0):]
		}
		fds.close(w)
		done <- err
	}()
	pfd := []unix.PollFd{{Fd: int32(r), Events: unix.POLLIN}}
	for ps.fd >= 0 {
		if _, err := unix.Poll(pfd, -1); err != nil && err != unix.EINTR {
			t.Fatal(err)
		}
		lp.drain(ps, func() bool { return false })
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !ps.counting {
		t.Error("full head retention without delivery did not switch to counting")
	}
	if ps.ret.total != size || len(ps.ret.buf) != 1 {
		t.Fatalf("counted %d of %d, retained %d", ps.ret.total, size, len(ps.ret.buf))
	}
	if lp.null > 0 {
		unix.Close(lp.null)
	}
}
