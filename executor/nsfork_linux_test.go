//go:build linux && (amd64 || arm64)

package executor

import (
	"os"
	"strconv"
	"testing"
)

func TestStatParent(t *testing.T) {
	for _, tc := range []struct {
		line string
		n    int // bytes read; -1: len(line)
		want int
	}{
		{"42 (sbx) S 1234 42 42 0 -1 4194560", -1, 1234},
		{"7 (a) b) c) R 99 7 7", -1, 99},        // comm with ") "
		{"7 (x y (z)) S 5 1", -1, 5},            // nested parentheses
		{"7 () S 0 1", -1, 0},                   // empty comm, parent outside the namespace
		{"7 (sbx) S 12345678901 1", -1, -1},     // eleven digits
		{"7 (sbx) S ", -1, -1},                  // cut before the field
		{"7 (sbx) S 12", 9, -1},                 // n cuts inside
		{"7 (sbx)S 12 1", -1, -1},               // malformed
		{"no parenthesis at all 1 2 3", -1, -1}, //
		{"", -1, -1},
		{"7 (sbx) S 3", 600, -1}, // n beyond the buffer
	} {
		var b [512]byte
		copy(b[:], tc.line)
		n := tc.n
		if n < 0 {
			n = len(tc.line)
		}
		if got := statParent(&b, uintptr(n)); got != tc.want {
			t.Errorf("statParent(%q, %d) = %d, want %d", tc.line, n, got, tc.want)
		}
	}
	// This process's own line.
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip(err)
	}
	var b [512]byte
	n := copy(b[:], data)
	if got := statParent(&b, uintptr(n)); got != os.Getppid() {
		t.Errorf("own stat line: parent %d, getppid %d (%s)", got, os.Getppid(), strconv.Quote(string(data)))
	}
}
