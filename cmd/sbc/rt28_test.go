//go:build linux

// Red team pass 28: sbc's output on hostile file names, for what
// testscript cannot express (a name with a newline). Run:
// go test -count=1 ./cmd/sbc -run 'TestRT28' -v
// (helpers rt17Bin, rt17Run, rt17Write are in rt17_test.go).
//
// FINDING 11 (file names): "sbc fmt -check DIR" (and plain "sbc fmt DIR",
// and -diff's headers) listed the files it would rewrite by their raw
// names, and a file name is anyone's to choose: a pull request adding
// "a\x1b]0;t\x07\nFAIL - forged.hcl" to a walked directory retitled the
// terminal and forged a line in the CI log. The duplicate-profile error's
// detail ("already declared at FILE:LINE:COLUMN") kept the name's newline
// the same way (a detail keeps its line breaks). Fixed in cmd/sbc/fmt.go
// and compiler (where): their control characters are shown as U+FFFD, as
// sbc check shows names since red team 23.
package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRT28FmtHostileFileNames(t *testing.T) {
	sbc := rt17Bin(t)
	dir := t.TempDir()
	messy := "profile \"p\" {\nfilesystem {\nread=[root]\n}\n}\n"
	evil := "a\x1b]0;pwn\x07\nFAIL - forged.hcl"
	rt17Write(t, filepath.Join(dir, evil), messy)
	rt17Write(t, filepath.Join(dir, "ok.hcl"), strings.Replace(messy, "\"p\"", "\"q\"", 1))
	clean := func(what, s string) {
		t.Helper()
		if strings.ContainsAny(s, "\x1b\x07") || strings.Contains(s, "\nFAIL - forged") {
			t.Errorf("%s prints the name raw: %q", what, s)
		}
	}
	for _, args := range [][]string{{"fmt", "-check", "."}, {"fmt", "-check", "-diff", "."}} {
		r := rt17Run(t, dir, 20*time.Second, nil, append([]string{sbc}, args...)...)
		if r.hung || r.code != 1 || !strings.Contains(r.stdout, "ok.hcl") {
			t.Fatalf("%v: exit %d hung %v\n%s%s", args, r.code, r.hung, r.stdout, r.stderr)
		}
		clean(strings.Join(args, " "), r.stdout)
	}
	// The same profile name in both files: the duplicate's detail names
	// the other file.
	rt17Write(t, filepath.Join(dir, "ok.hcl"), messy)
	r := rt17Run(t, dir, 20*time.Second, nil, sbc, "check", ".")
	if r.hung || !strings.Contains(r.stderr, "already declared at") {
		t.Fatalf("check: exit %d hung %v\n%s", r.code, r.hung, r.stderr)
	}
	clean("check's duplicate-profile error", r.stderr)
	// Rewriting lists the name the same way, and still rewrites the file.
	r = rt17Run(t, dir, 20*time.Second, nil, sbc, "fmt", ".")
	if r.hung || r.code != 0 {
		t.Fatalf("fmt: exit %d hung %v\n%s%s", r.code, r.hung, r.stdout, r.stderr)
	}
	clean("fmt", r.stdout)
}
