package landlock

import (
	"os"
	"testing"

	"github.com/sbx-dev/sbx/ir"
)

// BenchmarkExpandGlobs measures the deny-glob scan at start for a pattern
// that matches anywhere ("**/*.pem", max_depth 8) in a profile that reads /,
// the largest scan a profile asks for: "scan" is expandGlobs, "reference"
// the same walk with os.ReadDir and whole-path MatchGlob (what expandGlobs
// did before session 16), measured in the same run so their ratio is
// comparable on a noisy machine. Both report the entries they visited and
// the matches they found, which must agree.
//
//	go test -run '^$' -bench ExpandGlobs -count 5 ./targets/landlock
func BenchmarkExpandGlobs(b *testing.B) {
	const pattern, maxDepth = "/**/*.pem", 8
	bd := &ir.Bound{
		Rules:     []ir.BoundRule{{Path: "/", Access: ir.Read}},
		DenyGlobs: []ir.BoundGlob{{Pattern: pattern, MaxDepth: maxDepth, Anywhere: true}},
	}
	t := newRuleTable(ir.Filesystem{})
	var want int
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			notes, out := expandGlobs(bd, osView{}, 0, t)
			if len(notes) != 1 || notes[0].level != LevelSupplementary {
				b.Fatalf("the scan did not complete: %+v", notes)
			}
			want = len(out)
		}
		b.ReportMetric(float64(want), "matches")
	})
	b.Run("reference", func(b *testing.B) {
		var got, entries int
		for b.Loop() {
			got, entries = 0, 0
			var walk func(dir string, depth int)
			walk = func(dir string, depth int) {
				des, err := os.ReadDir(dir)
				if err != nil {
					return
				}
				for _, d := range des {
					entries++
					p := ir.JoinAbs(dir, d.Name())
					if ir.MatchGlob(pattern, p) {
						got++
						continue
					}
					if d.IsDir() && depth < maxDepth && !skipScan[p] {
						walk(p, depth+1)
					}
				}
			}
			walk("/", 1)
		}
		b.ReportMetric(float64(got), "matches")
		b.ReportMetric(float64(entries), "entries")
		if want != 0 && got != want {
			b.Errorf("reference found %d matches, the scan %d", got, want)
		}
	})
}
