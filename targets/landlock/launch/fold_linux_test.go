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
		"\u212Aey":     "key",     // KELVIN SIGN folds to k
		".gıt":         ".gıt",    // dotless i folds to itself
		"Ünïcode":      "Ünïcode", // other upper case letters fold to no ASCII letter
		"":             "",
	} {
		if got := foldName(in); got != want {
			t.Errorf("foldName(%q) = %q, want %q", in, got, want)
		}
	}
}
