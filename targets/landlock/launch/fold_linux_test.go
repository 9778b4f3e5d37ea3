//go:build linux && (amd64 || arm64)

package launch

import "testing"

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
