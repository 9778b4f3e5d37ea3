//go:build linux && (amd64 || arm64)

package launch

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// foldRef is the key a case-insensitive directory compares names by
// (NFD, full case folding, NFD: TestFoldNameMatchesXText), computed with
// golang.org/x/text instead of the generated tables, rune by rune so that
// it can drop the default-ignorable code points the guard drops too and
// fold Cherokee as CaseFolding.txt does (x/text folds its lower case to
// upper and its upper case to lower).
func foldRef(s string) string {
	fold := cases.Fold()
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case ignorable(r):
		case r >= 0xAB70 && r <= 0xABBF:
			b.WriteRune(r - 0xAB70 + 0x13A0)
		case r >= 0x13F8 && r <= 0x13FD:
			b.WriteRune(r - 8)
		case cherokee(r):
			b.WriteRune(r)
		default:
			b.WriteString(fold.String(string(r)))
		}
	}
	return norm.NFD.String(b.String())
}

// FuzzFoldName checks the protected-name guard's key on arbitrary names
// (the names a sandboxed command passes to creation system calls): for
// valid UTF-8 it is exactly the reference key (so every spelling a
// case-insensitive directory takes for a guarded name, decomposed, folded,
// marks reordered, gets the guarded name's key); for any name the key is
// valid UTF-8 and a fixed point (the key of a key is itself).
//
// Run it alone (the package's other tests start sandboxes):
//
//	go test ./targets/landlock/launch -run '^$' -fuzz '^FuzzFoldName$' -fuzztime 100000x
func FuzzFoldName(f *testing.F) {
	for _, s := range []string{".git", ".GIT", ".\u017Fvn", "Make\uFB01le", ".\u00DFh", "Re\u0301sume\u0301", "\uD55C\uAE00",
		"a\u0323\u0301B", "x\u0345\u0301", ".g\u200Dit", "\u13A0\uAB70\u13F8", "\u0130", "\xff.git", "\u03A3\u039F\u03C2", "A\u030A\u0316",
		"a\u0301\u0300\u0323", "\u1E69\u0307"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		key := foldName(name)
		if !utf8.ValidString(key) {
			t.Fatalf("foldName(%+q) = %+q: not valid UTF-8", name, key)
		}
		if again := foldName(key); again != key {
			t.Fatalf("foldName(%+q) = %+q, whose key is %+q", name, key, again)
		}
		if utf8.ValidString(name) {
			if want := foldRef(name); key != want {
				t.Fatalf("foldName(%+q) = %+q, reference %+q", name, key, want)
			}
		}
	})
}
