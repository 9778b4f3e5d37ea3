//go:build linux && (amd64 || arm64)

package launch

import (
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

func TestFoldName(t *testing.T) {
	for in, want := range map[string]string{
		".git":         ".git",
		".GIT":         ".git",
		".Git":         ".git",
		".\u017Fvn":    ".svn", // LATIN SMALL LETTER LONG S folds to s
		".agent\u017F": ".agents",
		"\u212Aey":     "key",      // KELVIN SIGN folds to k
		".\u00DFh":     ".ssh",     // sharp s folds to ss
		".\u1E9Eh":     ".ssh",     // capital sharp s too
		"Make\uFB01le": "makefile", // the fi ligature folds to fi
		"MAKE\uFB01LE": "makefile",
		"a\u037Eb":     "a;b",  // GREEK QUESTION MARK decomposes to ;
		".g\u200Dit":   ".git", // a zero-width joiner is dropped
		".gıt":         ".gıt", // dotless i folds to itself
		"":             "",
	} {
		if got := foldName(in); got != want {
			t.Errorf("foldName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFoldNameSame: spellings a case-insensitive directory takes for one
// entry get one key; different names keep different keys.
func TestFoldNameSame(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"R\u00E9sum\u00E9", "Re\u0301sume\u0301", true},    // composed, decomposed
		{"R\u00C9SUM\u00C9", "re\u0301sume\u0301", true},    // and upper case
		{"\u00C5ngstr\u00F6m", "\u212Bngstro\u0308m", true}, // ANGSTROM SIGN
		{"q\u0323\u0307", "q\u0307\u0323", true},            // combining marks in either order
		{"\u03A3\u039F\u03A3", "\u03C3\u03BF\u03C2", true},  // final sigma
		{"\u13A0", "\uAB70", true},                          // Cherokee folds to upper case
		{"\u0130", "i\u0307", true},                         // capital I with dot above
		{"\u00DCn\u00EFcode", "\u00FCN\u00CFCODE", true},
		{"\u00E9", "e", false},
		{".gıt", ".git", false},
		{"\u0131", "i", false},
	} {
		if got := foldName(tc.a) == foldName(tc.b); got != tc.same {
			t.Errorf("foldName(%q) = %q, foldName(%q) = %q: same %v, want %v", tc.a, foldName(tc.a), tc.b, foldName(tc.b), got, tc.same)
		}
	}
}

// TestFoldNameMatchesXText: for every code point, foldName is what
// golang.org/x/text's NFD, full case folding, NFD (the kernel's comparison
// in a case-insensitive directory) makes of it, and gives one key to all
// that it takes for one name; it merges more only by dropping ignorable
// code points. Also sequences the
// tables alone cannot get right: Hangul syllables against their jamo, and
// combining marks out of canonical order.
func TestFoldNameMatchesXText(t *testing.T) {
	fold := cases.Fold()
	ref := func(s string) string { return norm.NFD.String(fold.String(norm.NFD.String(s))) }
	if norm.Version != unicodeVersion {
		t.Fatalf("the tables are Unicode %s, x/text is %s: go generate ./targets/landlock/launch", unicodeVersion, norm.Version)
	}
	keyOf := map[string]string{} // reference key -> foldName's key
	first := map[string]rune{}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		s := string(r)
		k, mine := ref(s), foldName(s)
		if !ignorable(r) && mine != k && !cherokee(r) {
			t.Errorf("foldName(%+q) = %+q, x/text: %+q", s, mine, k)
		}
		if prev, ok := keyOf[k]; !ok {
			keyOf[k], first[k] = mine, r
		} else if prev != mine {
			t.Errorf("%U and %U are one name in a case-insensitive directory, but fold to %+q and %+q", first[k], r, prev, mine)
		}
	}
	for _, s := range []string{
		"\uD55C\uAE00", "\u1112\u1161\u11AB\u1100\u1173\u11AF", // Hangul, and its jamo
		"a\u0301\u0323b", "a\u0323\u0301B", "\u1EA1\u0301", // marks in either order
		"\u00C5\u0316", "A\u030A\u0316", "\u212B\u0316",
		"x\u0345\u0301", "X\u0301\u0345",
	} {
		if got, want := foldName(s), ref(s); got != want {
			t.Errorf("foldName(%+q) = %+q, want %+q", s, got, want)
		}
	}
}

// TestSbxDoesNotLinkXText: sbx carries its own Unicode tables; x/text's
// tables and initialisation cost 1.8% of its start-up.
func TestSbxDoesNotLinkXText(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../../cmd/sbx").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "golang.org/x/text") {
			t.Errorf("cmd/sbx depends on %s", dep)
		}
	}
}

// cherokee reports the Cherokee letters, which x/text's Fold maps upper to
// lower case and lower to upper; CaseFolding.txt, and the tables, fold
// both to the upper case (TestFoldNameSame checks a pair).
func cherokee(r rune) bool {
	return r >= 0x13A0 && r <= 0x13FD || r >= 0xAB70 && r <= 0xABBF
}
