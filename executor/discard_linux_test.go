package executor

import (
	"bytes"
	"testing"
	"time"
)

// TestDiscardCounts drives the count-only phase directly: splice must
// consume and count everything up to EOF, and stop at the read deadline
// while the pipe is held open.
func TestDiscardCounts(t *testing.T) {
	for _, hold := range []bool{false, true} {
		pr, pw, err := newPipe()
		if err != nil {
			t.Fatal(err)
		}
		r := &reader{f: pr, ret: newRetention(1, false), d: &delivery{}, done: make(chan struct{})}
		r.ret.Write([]byte("x"))
		if !r.onlyCounting() {
			t.Fatal("full head retention without delivery should only count")
		}
		const size = 5<<20 + 3
		go func() {
			pw.Write(bytes.Repeat([]byte("y"), size))
			if !hold {
				pw.Close()
				return
			}
			// Everything is in the pipe; keep it open and let the deadline
			// cut the drain short.
			pr.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		}()
		if !r.discard() {
			t.Fatal("splice unavailable")
		}
		if r.ret.total != size+1 || r.cutShort != hold {
			t.Fatalf("hold %v: counted %d, cut short %v", hold, r.ret.total, r.cutShort)
		}
		pr.Close()
		pw.Close()
	}
}
