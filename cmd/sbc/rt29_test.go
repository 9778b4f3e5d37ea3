// Red team pass 29 (compiler), the command line. Run:
// go test -count=1 ./cmd/sbc -run 'TestRT29|TestScripts/sbc_rt29' -v
//
// FINDING 14 (bidirectional overrides in reports): red team 23 made every
// line sbc prints show a profile's control characters as U+FFFD, so that
// a profile from an untrusted change can neither rewrite the terminal nor
// forge a line of the CI log. A bidirectional override is no control
// character: a path holding U+202E (RIGHT-TO-LEFT OVERRIDE) was printed
// raw in FAIL lines, snippets and summaries, and made the rest of the line
// display reversed ("Trojan Source"). Fixed in ir.Printable: the
// bidirectional formatting characters are shown as U+FFFD too.
//
// FINDING 15 (-o build/): with one profile, -o build/ (build not yet
// made) was taken for a file named "build/" and failed with "open
// build/.a.sbx.json.123.tmp: no such file or directory"; now a path ending
// in a separator names a directory (testdata/script/sbc_rt29_outdir.txtar).
package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRT29BidiOverridesNotPrinted(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "b.hcl")
	src := "profile \"b\" {\n  description = \"x\u202ey\"\n  filesystem {\n    read  = [root]\n    write = [\"/etc/\u202eok\u202c\", \"/usr/\u2067x\u2069\"]\n  }\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", file},
		{"check", "--format", "github", file},
		{"compile", "-o", filepath.Join(dir, "b.sbx.json"), file},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if code != exitInvalid || !strings.Contains(out, "SBX001") {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
		for _, r := range []string{"\u202e", "\u202c", "\u2067", "\u2069"} {
			if strings.Contains(out, r) {
				t.Errorf("%v prints %U raw:\n%s", args, []rune(r)[0], out)
			}
		}
	}
}
