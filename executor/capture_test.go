package executor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

// wantRetained is the reference for what a stream retains.
func wantRetained(s []byte, limit int, headTail bool) (head, tail []byte) {
	if limit < 0 || len(s) <= limit {
		return s, nil
	}
	if !headTail {
		return s[:limit], nil
	}
	h := limit / 2
	return s[:h], s[len(s)-(limit-h):]
}

func TestRetention(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, limit := range []int{-1, 1, 2, 7, 100, 4096, 100_000} {
		for _, headTail := range []bool{false, true} {
			for _, size := range []int{0, 1, 50, 99, 100, 101, 4095, 4096, 4097, 10_000, 300_000} {
				stream := make([]byte, size)
				for i := range stream {
					stream[i] = byte(rng.IntN(256))
				}
				r := newRetention(limit, headTail)
				for rest := stream; len(rest) > 0; {
					n := min(len(rest), 1+rng.IntN(20_000))
					if rng.IntN(4) == 0 {
						n = min(len(rest), 1+rng.IntN(3))
					}
					r.Write(rest[:n])
					rest = rest[n:]
				}
				head, tail, omitted := r.finish()
				wh, wt := wantRetained(stream, limit, headTail)
				if !bytes.Equal(head, wh) || !bytes.Equal(tail, wt) || r.total != int64(size) ||
					omitted != int64(size-len(wh)-len(wt)) {
					t.Fatalf("limit %d headTail %v size %d: head %d/%d tail %d/%d omitted %d", limit, headTail, size,
						len(head), len(wh), len(tail), len(wt), omitted)
				}
				if limit >= 0 && cap(r.buf) > limit {
					t.Fatalf("limit %d: buffer grew to %d", limit, cap(r.buf))
				}
			}
		}
	}
}

func TestRetentionDoesNotAllocatePastTheCap(t *testing.T) {
	chunk := make([]byte, 8192)
	for _, headTail := range []bool{false, true} {
		r := newRetention(1<<20, headTail)
		for range 200 {
			r.Write(chunk)
		}
		if n := testing.AllocsPerRun(1000, func() { r.Write(chunk) }); n != 0 {
			t.Errorf("headTail %v: %v allocations per write past the cap", headTail, n)
		}
	}
	d := &delivery{cb: func(Stream, []byte) {}, max: -1}
	if n := testing.AllocsPerRun(1000, func() { d.deliver(Stdout, chunk) }); n != 0 {
		t.Errorf("delivery: %v allocations per chunk", n)
	}
}

func TestAggregateBudgets(t *testing.T) {
	const c = 1 << 20
	for _, tc := range []struct {
		limit, out, err  int
		wantOut, wantErr int
	}{
		{c, c, c, 349_525, 699_051},
		{c, c / 10, c, c / 10, c - c/10},
		{c, c, 1, c - 1, 1},
		{c, 1000, 2000, 1000, 2000},
		{c, c, 0, c, 0},
		{c, 0, c, 0, c},
		{c, c/2 + 1, c / 2, c - c/2, c / 2}, // stderr fits; the room it leaves goes back to stdout
		{-1, 5 * c, 7 * c, 5 * c, 7 * c},
		{10, 10, 10, 3, 7},
	} {
		o, e := aggregateBudgets(tc.limit, tc.out, tc.err)
		if o != tc.wantOut || e != tc.wantErr {
			t.Errorf("aggregateBudgets(%d, %d, %d) = %d, %d; want %d, %d", tc.limit, tc.out, tc.err, o, e, tc.wantOut, tc.wantErr)
		}
	}
}

func TestAggregatedHeadTail(t *testing.T) {
	res := &Result{
		OutputCap: 10,
		Retention: RetainHeadTail,
		Stdout:    StreamResult{Head: []byte("abcde"), Tail: []byte("vwxyz"), Bytes: 26, Omitted: 16, Truncated: true},
		Stderr:    StreamResult{Head: []byte("0123456789"), Bytes: 10},
	}
	// Both over the aggregate cap: stdout gets 10/3 = 3 bytes (2 from the
	// start, 1 from the end), stderr 7 (4 from the start, 3 from the end).
	want := "ab\n[sbx: 23 bytes of stdout omitted]\nz" + "0123\n[sbx: 3 bytes of stderr omitted]\n789"
	if got := string(res.Aggregated()); got != want {
		t.Fatalf("aggregate %q, want %q", got, want)
	}
	res.Retention = RetainHead
	res.Stdout = StreamResult{Head: []byte("abcdefghij"), Bytes: 26, Omitted: 16, Truncated: true}
	if got := string(res.Aggregated()); got != "abc0123456" {
		t.Fatalf("head retention aggregate %q", got)
	}
}

func TestJSONText(t *testing.T) {
	for _, in := range []string{
		"", "plain", "quote\" backslash\\ slash/", "\x00\x01\x1f\x7f\n\r\t",
		"\xff\xfe", "caf\xc3", "€ 𝄞 \u2028\u2029", "ok\xe2\x82", strings.Repeat("é", 1000) + "\xc3",
		"<html>&amp;",
	} {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		lossy := writeJSONString(w, []byte(in))
		w.Flush()
		var got string
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatalf("%q: invalid JSON %s: %v", in, b.Bytes(), err)
		}
		// encoding/json replaces each invalid byte by U+FFFD, as we do.
		ref, _ := json.Marshal(in)
		var want string
		json.Unmarshal(ref, &want)
		if got != want || lossy == utf8.ValidString(in) {
			t.Errorf("%q: got %q (lossy %v), want %q", in, got, lossy, want)
		}
	}
}

func TestIndexFold(t *testing.T) {
	for _, tc := range []struct {
		text, needle string
		want         int
	}{
		{"", "abc", -1},
		{"abc", "abc", 0},
		{"xxABC", "abc", 2},
		{"Operation Not Permitted", "operation not permitted", 0},
		{"aaaaaaaaaab", "ab", 9},
		{"AaAaAaAaAB", "ab", 8},
		{"landloc", "landlock", -1},
		{"read-only File System!", "read-only file system", 0},
	} {
		if got := indexFold([]byte(tc.text), tc.needle); got != tc.want {
			t.Errorf("indexFold(%q, %q) = %d, want %d", tc.text, tc.needle, got, tc.want)
		}
	}
}

type fakeSandbox struct{ seccomp bool }

func (fakeSandbox) Wrap(*exec.Cmd) error { return nil }
func (fakeSandbox) Report() any          { return "fake" }
func (f fakeSandbox) UsesSeccomp() bool  { return f.seccomp }

// reportOnly is a Sandbox that enforces nothing.
type reportOnly struct{ fakeSandbox }

func (reportOnly) Enforcing() bool { return false }

func TestDeniedLikely(t *testing.T) {
	sb, sc := fakeSandbox{}, fakeSandbox{seccomp: true}
	for _, tc := range []struct {
		name     string
		sb       Sandbox
		code     int
		out, err string
		want     bool
	}{
		{"no sandbox", nil, 1, "", "Permission denied", false},
		{"sandbox that enforces nothing", reportOnly{}, 1, "", "Permission denied", false},
		{"success", sb, 0, "", "Permission denied", false},
		{"keyword on stderr", sb, 1, "", "open: Permission denied", true},
		{"keyword on stdout", sb, 1, "Read-only file system", "", true},
		{"each keyword", sb, 1, "", "seccomp", true},
		{"sandbox word", sb, 1, "", "/home/me/sandbox/x: error", true},
		{"landlock", sb, 1, "LANDLOCK", "", true},
		{"failed to write file", sb, 1, "Failed to write file", "", true},
		{"operation not permitted", sb, 1, "operation not permitted", "", true},
		{"keyword wins over quick reject", sb, 127, "", "permission denied", true},
		{"usage error", sb, 2, "", "usage", false},
		{"not executable", sb, 126, "", "", false},
		{"not found", sb, 127, "", "", false},
		{"SIGSYS under seccomp", sc, 159, "", "", true},
		{"SIGSYS without seccomp", sb, 159, "", "", false},
		{"other failure", sb, 1, "", "boom", false},
	} {
		agg := []byte(tc.out + tc.err)
		if got := deniedLikely(tc.sb, tc.code, []byte(tc.out), []byte(tc.err), agg); got != tc.want {
			t.Errorf("%s: deniedLikely = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func BenchmarkRetentionWrite(b *testing.B) {
	chunk := make([]byte, readBufSize)
	for _, headTail := range []bool{false, true} {
		name := "head"
		if headTail {
			name = "head_tail"
		}
		b.Run(name, func(b *testing.B) {
			r := newRetention(DefaultOutputCap, headTail)
			b.SetBytes(int64(len(chunk)))
			b.ReportAllocs()
			for b.Loop() {
				r.Write(chunk)
			}
		})
	}
}

func BenchmarkWriteJSONText(b *testing.B) {
	text := bytes.Repeat([]byte("hello, world: \"quoted\" \t é\n"), 40_000)
	w := bufio.NewWriter(discard{})
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		writeJSONText(w, text)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
