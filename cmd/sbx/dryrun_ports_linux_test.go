package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/ir"
)

// TestDryRunPortRanges: a dry run of a ports profile shows each range of
// the profile as one line (not one per Landlock rule) with its rights.
func TestDryRunPortRanges(t *testing.T) {
	art := rt20Artifact(t, "ports", func(p *ir.Profile) {
		p.Network.Mode = ir.NetworkPorts
		p.Network.ConnectTCP = []ir.PortRange{{From: 443, To: 443}, {From: 8000, To: 8100}}
		p.Network.BindTCP = []ir.PortRange{{From: 8050, To: 8050}, {From: 9000, To: 9009}}
	}, nil)
	code, _, out := rt20RunJSON(t, "run", "--artifact", art, "--dry-run", "--", "true")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, out)
	}
	want := []string{
		`(?m)^  tcp port 443 +connect_tcp$`,
		`(?m)^  tcp ports 8000-8049 +connect_tcp$`,
		`(?m)^  tcp port 8050 +bind_tcp\|connect_tcp$`,
		`(?m)^  tcp ports 8051-8100 +connect_tcp$`,
		`(?m)^  tcp ports 9000-9009 +bind_tcp$`,
	}
	for _, w := range want {
		if !regexp.MustCompile(w).MatchString(out) {
			t.Errorf("dry run lacks %s:\n%s", w, out)
		}
	}
	if n := strings.Count(out, "tcp port"); n != len(want) {
		t.Errorf("%d port lines, want %d:\n%s", n, len(want), out)
	}
}
