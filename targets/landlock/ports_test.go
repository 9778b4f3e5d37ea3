package landlock

import (
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/sbx-dev/sbx/ir"
)

// naivePortGrants is the reference for portGrants: a map from port to
// rights, filled port by port, sorted.
func naivePortGrants(connect, bind []ir.PortRange) []PortGrant {
	ports := map[int]AccessNet{}
	for _, r := range connect {
		for p := int(r.From); p <= int(r.To); p++ {
			ports[p] |= NetConnectTCP
		}
	}
	for _, r := range bind {
		for p := int(r.From); p <= int(r.To); p++ {
			ports[p] |= NetBindTCP
		}
	}
	var out []PortGrant
	for p, a := range ports {
		out = append(out, PortGrant{Port: uint16(p), Rights: a})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Port < out[j].Port })
	return out
}

// TestPortGrants: the edge sweep gives the reference's grants for fixed
// cases (overlaps, adjacency, duplicates, the whole range) and for random
// range lists clustered so that they overlap.
func TestPortGrants(t *testing.T) {
	r := func(from, to uint16) ir.PortRange { return ir.PortRange{From: from, To: to} }
	cases := []struct {
		name          string
		connect, bind []ir.PortRange
	}{
		{"none", nil, nil},
		{"one", []ir.PortRange{r(443, 443)}, nil},
		{"bind only", nil, []ir.PortRange{r(8080, 8080)}},
		{"same port both", []ir.PortRange{r(80, 80)}, []ir.PortRange{r(80, 80)}},
		{"overlapping", []ir.PortRange{r(8000, 8100), r(8050, 8200)}, []ir.PortRange{r(8090, 8095)}},
		{"adjacent", []ir.PortRange{r(10, 19), r(20, 29)}, nil},
		{"duplicate", []ir.PortRange{r(22, 22), r(22, 22)}, nil},
		{"nested", []ir.PortRange{r(1, 100)}, []ir.PortRange{r(40, 60), r(50, 50)}},
		{"whole range", []ir.PortRange{r(1, 65535)}, []ir.PortRange{r(1024, 65535)}},
		{"last port", []ir.PortRange{r(65535, 65535)}, []ir.PortRange{r(65534, 65535)}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		base := 1 + rng.IntN(65200)
		gen := func() []ir.PortRange {
			var rs []ir.PortRange
			for range rng.IntN(6) {
				from := base + rng.IntN(200)
				to := min(from+rng.IntN(100), 65535)
				rs = append(rs, r(uint16(from), uint16(to)))
			}
			return rs
		}
		cases = append(cases, struct {
			name          string
			connect, bind []ir.PortRange
		}{"random", gen(), gen()})
	}
	for _, tc := range cases {
		got, want := portGrants(tc.connect, tc.bind), naivePortGrants(tc.connect, tc.bind)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: connect %v bind %v:\ngot  %d grants %v\nwant %d grants %v", tc.name, tc.connect, tc.bind, len(got), head(got), len(want), head(want))
		}
	}
}

func head(g []PortGrant) []PortGrant {
	if len(g) > 8 {
		return g[:8]
	}
	return g
}
