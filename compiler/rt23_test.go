package compiler

// Red team pass 23: the front end on input a user can write. Run:
// go test -count=1 ./compiler -run 'TestRT23' -v

import (
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/compiler/diag"
)

// TestRT23DenyGlobOnRoot: a deny_glob naming the root itself ("/",
// "{root}", root, "/./") is input a user can write. The promise is a
// clear error (or warning) at the offending element ("These are errors,
// each pointing at the offending element"), never an internal error:
// today the front end accepts it, the IR validator then rejects the
// compiled profile ("glob \"/\": a component is \"\"") and sbc reports
// "The compiled profile is invalid (a bug in sbc) ... Please report it",
// code "internal", at the profile block (line 1) instead of line 4.
func TestRT23DenyGlobOnRoot(t *testing.T) {
	for _, pat := range []string{`"/"`, `"{root}"`, `root`, `"/./"`, `"//"`} {
		src := "profile \"t\" {\n  filesystem {\n    read      = [root]\n    deny_glob = [" + pat + "]\n  }\n}\n"
		_, diags := CompileSources([]Source{{Name: "t.hcl", Data: []byte(src)}})
		for _, d := range diags {
			if d.Severity != diag.Error {
				continue
			}
			if d.Code == "internal" || strings.Contains(d.Summary, "bug in sbc") {
				t.Errorf("deny_glob = [%s]: internal error %q (%s), want a user diagnostic at the element", pat, d.Summary, d.Detail)
				continue
			}
			if d.Range == nil || d.Range.Start.Line != 4 {
				t.Errorf("deny_glob = [%s]: error %q not at the element (line 4): %v", pat, d.Summary, d.Range)
			}
		}
	}
}
