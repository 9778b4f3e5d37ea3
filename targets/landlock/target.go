package landlock

import (
	"fmt"

	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/compiler/target"
	"github.com/sbx-dev/sbx/ir"
)

// Target is the sbc target that stores the plan in artifacts. Every rule not
// enforced exactly yields a finding at the rule's source range: the message
// starts with the fidelity level, so "supplementary" (enforced as written,
// with a mount or seccomp) reads as information rather than an alarm.
type Target struct{}

var _ target.Target = Target{}

// Name returns "landlock".
func (Target) Name() string { return TargetName }

// Format returns PlanFormat.
func (Target) Format() string { return PlanFormat }

// Compile returns the plan of p and its fidelity findings.
func (Target) Compile(p *ir.Profile) (any, []target.Finding, error) {
	pl, err := Compile(p)
	if err != nil {
		return nil, nil, err
	}
	return pl, Findings(pl.Fidelity), nil
}

// Findings turns fidelity records into target findings (one per rule that is
// not exact).
func Findings(fid []Fidelity) []target.Finding {
	var out []target.Finding
	for _, f := range fid {
		if f.Level == LevelExact {
			continue
		}
		msg := fmt.Sprintf("%s: %s on Linux", f.Rule, f.Level)
		if f.Mechanism != "" {
			msg += " (" + f.Mechanism + ")"
		}
		out = append(out, target.Finding{Severity: diag.Warning, Message: msg, Detail: f.Detail, Range: f.Source})
	}
	return out
}
