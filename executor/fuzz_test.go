package executor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// fuzzRetain writes stream to a retention of limit in the pieces cuts
// says (each byte of cuts is the length of the next write, 0 meaning 1),
// counting without writing once head retention is full, as the readers
// do, and returns the stream's result.
func fuzzRetain(t *testing.T, stream, cuts []byte, limit int, headTail bool) StreamResult {
	t.Helper()
	r := newRetention(limit, headTail)
	rest := stream
	for i := 0; len(rest) > 0; i++ {
		n := 1
		if len(cuts) > 0 {
			n = max(1, int(cuts[i%len(cuts)]))
		}
		n = min(n, len(rest))
		if r.full() {
			r.total += int64(n) // exec_portable.go: counted only
		} else if k, err := r.Write(rest[:n]); k != n || err != nil {
			t.Fatalf("Write = %d, %v; want %d, nil", k, err, n)
		}
		if limit >= 0 && cap(r.buf) > limit {
			t.Fatalf("the buffer grew to %d bytes past the cap %d", cap(r.buf), limit)
		}
		rest = rest[n:]
	}
	if full := !r.headTail && limit >= 0 && len(stream) >= limit; r.full() != full {
		t.Fatalf("full() = %v after %d bytes, cap %d, head+tail %v", r.full(), len(stream), limit, headTail)
	}
	head, tail, omitted := r.finish()
	return StreamResult{Head: head, Tail: tail, Bytes: r.total, Omitted: omitted, Truncated: omitted > 0}
}

// fuzzLimit maps a fuzzed number to a cap: negative is unlimited, and
// caps stay small so that the fuzzer reaches them.
func fuzzLimit(l int16) int {
	if l < 0 {
		return -1
	}
	return int(l) % 300
}

// FuzzRetention writes a stream in arbitrary pieces to a retention with an
// arbitrary cap, in head and head+tail mode, and compares what it keeps
// with the reference (wantRetained: the first cap bytes; or the first
// cap/2 and the last cap-cap/2, as README's --retain says): head, tail,
// byte count and omitted count; the buffer never grows past the cap.
//
//	go test ./executor -run '^$' -fuzz '^FuzzRetention$' -fuzztime 200000x
func FuzzRetention(f *testing.F) {
	f.Add([]byte("hello, world"), []byte{3, 1, 7}, int16(5), true)
	f.Add(bytes.Repeat([]byte("0123456789"), 30), []byte{0, 255, 13}, int16(7), true)
	f.Add([]byte("abc"), []byte{}, int16(1), true)
	f.Add([]byte("abcdef"), []byte{2}, int16(0), false)
	f.Add([]byte("abcdef"), []byte{2}, int16(-1), true)
	f.Fuzz(func(t *testing.T, stream, cuts []byte, l int16, headTail bool) {
		limit := fuzzLimit(l)
		res := fuzzRetain(t, stream, cuts, limit, headTail)
		wantHead, wantTail := wantRetained(stream, limit, headTail)
		if !bytes.Equal(res.Head, wantHead) || !bytes.Equal(res.Tail, wantTail) {
			t.Fatalf("cap %d head+tail %v: kept %q + %q, want %q + %q", limit, headTail, res.Head, res.Tail, wantHead, wantTail)
		}
		if res.Bytes != int64(len(stream)) || res.Omitted != int64(len(stream)-len(wantHead)-len(wantTail)) {
			t.Fatalf("bytes %d omitted %d, want %d and %d", res.Bytes, res.Omitted, len(stream), len(stream)-len(wantHead)-len(wantTail))
		}
	})
}

// wantPortion is the reference for a stream's portion of the aggregate:
// whole when it fits the budget; else in head retention the first budget
// bytes; in head+tail retention the budget split in a start of
// budget-budget/2 and an end of budget/2 bytes of what is retained, the
// room one side cannot use going to the other.
func wantPortion(head, tail []byte, budget int, headTail bool) (h, t []byte) {
	if len(head)+len(tail) <= budget {
		return head, tail
	}
	if !headTail {
		return head[:budget], nil
	}
	if len(tail) == 0 {
		return head[:budget-budget/2], head[len(head)-budget/2:]
	}
	hs, ts := budget-budget/2, budget/2
	if len(head) < hs {
		hs, ts = len(head), budget-len(head)
	}
	if len(tail) < ts {
		hs, ts = budget-len(tail), len(tail)
	}
	return head[:hs], tail[len(tail)-ts:]
}

// FuzzAggregate retains two arbitrary streams and checks the aggregated
// output against the README's rules: within the cap both streams whole;
// over it stdout gets at most cap/3 (plus what stderr leaves), stderr what
// it needs from the rest, and together they fill the cap; each portion is
// a start and an end of its stream (wantPortion), joined in head+tail
// retention by the omission marker that counts exactly the bytes left out.
//
//	go test ./executor -run '^$' -fuzz '^FuzzAggregate$' -fuzztime 200000x
func FuzzAggregate(f *testing.F) {
	f.Add([]byte("out put"), []byte("err"), []byte{2}, int16(6), true)
	f.Add(bytes.Repeat([]byte("o"), 100), bytes.Repeat([]byte("e"), 100), []byte{9}, int16(31), true)
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz"), []byte{}, []byte{}, int16(10), false)
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz"), []byte("0123456789"), []byte{1}, int16(1), true)
	f.Fuzz(func(t *testing.T, out, errb, cuts []byte, l int16, headTail bool) {
		limit := fuzzLimit(l)
		res := &Result{OutputCap: limit, Retention: RetainHead}
		if headTail {
			res.Retention = RetainHeadTail
		}
		res.Stdout = fuzzRetain(t, out, cuts, limit, headTail)
		res.Stderr = fuzzRetain(t, errb, cuts, limit, headTail)
		lo := len(res.Stdout.Head) + len(res.Stdout.Tail)
		le := len(res.Stderr.Head) + len(res.Stderr.Tail)
		ob, eb := aggregateBudgets(limit, lo, le)
		switch {
		case limit < 0 || lo+le <= limit:
			if ob != lo || eb != le {
				t.Fatalf("within the cap: budgets %d, %d for %d, %d", ob, eb, lo, le)
			}
		case ob+eb != limit || ob > lo || eb > le || ob > max(limit/3, limit-le) || eb < min(le, limit-limit/3) || ob < 0 || eb < 0:
			t.Fatalf("cap %d, retained %d and %d: budgets %d and %d", limit, lo, le, ob, eb)
		}
		var want []byte
		for _, s := range []struct {
			stream Stream
			full   []byte
			sr     *StreamResult
			budget int
		}{{Stdout, out, &res.Stdout, ob}, {Stderr, errb, &res.Stderr, eb}} {
			h, tl := wantPortion(s.sr.Head, s.sr.Tail, s.budget, headTail)
			if !bytes.HasPrefix(s.full, h) || !bytes.HasSuffix(s.full, tl) || len(h)+len(tl) > len(s.full) || len(h)+len(tl) != min(s.budget, len(s.sr.Head)+len(s.sr.Tail)) {
				t.Fatalf("reference portion %q + %q of %q (budget %d)", h, tl, s.full, s.budget)
			}
			want = append(want, h...)
			if gap := len(s.full) - len(h) - len(tl); gap > 0 && headTail {
				want = append(want, omissionMarker(s.stream, int64(gap))...)
			}
			want = append(want, tl...)
		}
		if got := res.Aggregated(); !bytes.Equal(got, want) {
			t.Fatalf("cap %d head+tail %v, stdout %q, stderr %q:\naggregated %q\nwant       %q", limit, headTail, out, errb, got, want)
		}
	})
}

// FuzzJSONText checks the JSON string writer of results: the output is
// valid JSON that decodes to the input with each invalid byte replaced by
// U+FFFD (what README promises: nothing dropped), reports a replacement
// exactly when the input is not valid UTF-8, and never holds a raw control
// character, U+2028 or U+2029.
//
//	go test ./executor -run '^$' -fuzz '^FuzzJSONText$' -fuzztime 200000x
func FuzzJSONText(f *testing.F) {
	f.Add([]byte("plain"))
	f.Add([]byte("a\x00b\"c\\d\n\r\t\x1f\x7f"))
	f.Add([]byte("caf\xe9 \xe2\x82 \u2028\u2029 \U0001F600 \xed\xa0\x80"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		replaced := writeJSONString(w, data)
		w.Flush()
		out := buf.Bytes()
		var s string
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatalf("%q: not a JSON string: %v (%q)", data, err, out)
		}
		if want := string([]rune(string(data))); s != want {
			t.Fatalf("%q decodes to %q, want %q", data, s, want)
		}
		if replaced != !utf8.Valid(data) {
			t.Fatalf("%q: replaced = %v", data, replaced)
		}
		for _, r := range string(out) {
			if r < 0x20 || r == '\u2028' || r == '\u2029' {
				t.Fatalf("%q: raw %U in %q", data, r, out)
			}
		}
	})
}

// FuzzIndexFold compares indexFold, the search for denied_likely's
// phrases in command output, with bytes.Index over ASCII-lower-cased text.
//
//	go test ./executor -run '^$' -fuzz '^FuzzIndexFold$' -fuzztime 200000x
func FuzzIndexFold(f *testing.F) {
	f.Add([]byte("Operation Not Permitted"), "operation not permitted")
	f.Add([]byte("AaAaAaAaAB"), "ab")
	f.Add([]byte("landloc"), "landlock")
	f.Fuzz(func(t *testing.T, text []byte, needle string) {
		lower := func(b []byte) []byte {
			out := bytes.Clone(b)
			for i, c := range out {
				if 'A' <= c && c <= 'Z' {
					out[i] = c + 'a' - 'A'
				}
			}
			return out
		}
		needle = string(lower([]byte(needle)))
		if got, want := indexFold(text, needle), bytes.Index(lower(text), []byte(needle)); got != want {
			t.Fatalf("indexFold(%q, %q) = %d, want %d", text, needle, got, want)
		}
	})
}
