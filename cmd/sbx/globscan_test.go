//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/ir"
)

// TestGlobScanLimit: --glob-scan-limit bounds the start-up scan for a
// deny_glob's matches. Under the default the match is masked; a limit the
// scan reaches is refused in strict mode, naming the rule, the limit and
// the ways out; --allow-degraded runs and the result is marked degraded,
// the rule's fidelity partial with the limit (README, Strict and degraded).
func TestGlobScanLimit(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	for i := range 30 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", i)), []byte("plain\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "zz.key"), []byte("SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	art := rt20Artifact(t, "globscan", func(p *ir.Profile) {
		p.Filesystem.DenyGlobs = append(p.Filesystem.DenyGlobs, ir.GlobRule{Pattern: dir + "/**/*.key", MaxDepth: 8,
			Source: ir.Range{Filename: "globscan.hcl", Start: ir.Pos{Line: 3, Column: 5, Byte: 40}, End: ir.Pos{Line: 3, Column: 30, Byte: 65}}})
	}, nil)
	cat := []string{"--", "sh", "-c", "cat " + dir + "/f00; cat " + dir + "/zz.key || echo denied"}

	code, res, out := rt20RunJSON(t, append([]string{"run", "--json", "--artifact", art}, cat...)...)
	if code != 0 || res.Stdout != "plain\ndenied\n" {
		t.Fatalf("default limit: exit %d, stdout %q; want the match masked\n%s", code, res.Stdout, out)
	}

	code, _, out = rt20RunJSON(t, append([]string{"run", "--artifact", art, "--glob-scan-limit", "10"}, cat...)...)
	for _, want := range []string{"rule cannot be enforced exactly", "deny_glob " + dir + "/**/*.key (globscan.hcl:3:5)",
		"the scan stopped after 10 entries", "--glob-scan-limit", "--allow-degraded"} {
		if !strings.Contains(out, want) {
			t.Errorf("limit 10: output lacks %q:\n%s", want, out)
		}
	}
	if code != 125 || strings.Contains(out, "SECRET") || strings.Contains(out, "plain") {
		t.Errorf("limit 10: exit %d, want 125 before the command ran:\n%s", code, out)
	}

	// With a limit above the directory's 31 entries the scan completes.
	code, res, out = rt20RunJSON(t, append([]string{"run", "--json", "--artifact", art, "--glob-scan-limit", "31"}, cat...)...)
	if code != 0 || res.Stdout != "plain\ndenied\n" {
		t.Errorf("limit 31: exit %d, stdout %q; want the match masked\n%s", code, res.Stdout, out)
	}

	code, res, out = rt20RunJSON(t, append([]string{"run", "--json", "--allow-degraded", "--artifact", art, "--glob-scan-limit", "10"}, cat...)...)
	if code != 0 || !strings.Contains(out, `"degraded":true`) ||
		!regexp.MustCompile(`"level":"partial","mechanism":"mount-namespace mask","detail":"matches are found [^"]*the scan stopped after 10 entries`).MatchString(out) {
		t.Errorf("limit 10, degraded: exit %d; want a degraded run whose result gives the glob's fidelity as partial\n%s", code, out)
	}
	if res.Stdout != "plain\nSECRET\n" && res.Stdout != "plain\ndenied\n" {
		t.Errorf("limit 10, degraded: stdout %q", res.Stdout)
	}
}
