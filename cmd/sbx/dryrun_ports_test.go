package main

import (
	"reflect"
	"testing"

	"github.com/sbx-dev/sbx/targets/landlock"
)

// TestPortRuns: the dry run folds the one-rule-per-port grants into runs
// of consecutive ports with the same rights, and only those.
func TestPortRuns(t *testing.T) {
	const c, b = landlock.NetConnectTCP, landlock.NetBindTCP
	grants := func(rs ...portRun) []landlock.PortGrant {
		var out []landlock.PortGrant
		for _, r := range rs {
			for p := int(r.from); p <= int(r.to); p++ {
				out = append(out, landlock.PortGrant{Port: uint16(p), Rights: r.rights})
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		in   []landlock.PortGrant
		want []portRun
	}{
		{"none", nil, nil},
		{"one", grants(portRun{443, 443, c}), []portRun{{443, 443, c}}},
		{"range", grants(portRun{8000, 8100, c}), []portRun{{8000, 8100, c}}},
		{"gap splits", grants(portRun{80, 80, c}, portRun{82, 82, c}), []portRun{{80, 80, c}, {82, 82, c}}},
		{"rights split", grants(portRun{8000, 8009, c}, portRun{8010, 8010, c | b}, portRun{8011, 8020, b}),
			[]portRun{{8000, 8009, c}, {8010, 8010, c | b}, {8011, 8020, b}}},
		{"whole range", grants(portRun{1, 65535, c}), []portRun{{1, 65535, c}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := portRuns(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("portRuns = %v, want %v", got, tc.want)
			}
		})
	}
	if got := (portRun{1, 65535, c}).String(); got != "tcp ports 1-65535" {
		t.Errorf("String = %q", got)
	}
	if got := (portRun{443, 443, c}).String(); got != "tcp port 443" {
		t.Errorf("String = %q", got)
	}
}
