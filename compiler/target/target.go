// Package target defines the interface between sbc and the target compilers
// (Landlock, Seatbelt, Windows) that turn a profile's IR into the form one
// platform enforces, and builds artifacts from their outputs.
//
// It depends only on packages ir and diag, so a target package implementing
// Target does not pull the HCL front end into sbx.
package target

import (
	"errors"
	"fmt"

	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
)

// Target compiles the IR of a profile for one platform.
type Target interface {
	// Name is the key of the output in the artifact ("landlock").
	Name() string
	// Format names the output's own format and version ("sbx.landlock/v1").
	Format() string
	// Compile translates p, which is canonical (sorted) and valid. data is
	// stored as JSON in the artifact, so it must encode deterministically
	// (no maps with non-string keys, no timestamps). findings are reported
	// to the author as warnings, such as "this target cannot express the
	// read-only carve-out at line 12, it will be enforced as read". An error
	// wrapping ErrUnsupported means the target cannot enforce p at all: the
	// artifact is written without an output for it (and sbx refuses to run
	// it on that platform); any other error fails the compilation.
	Compile(p *ir.Profile) (data any, findings []Finding, err error)
}

// ErrUnsupported is wrapped by a Target's error when the profile cannot be
// enforced by that target.
var ErrUnsupported = errors.New("profile not supported by this target")

// Finding is a target's remark about a profile, pointing at the rule it is
// about. Fidelity remarks ("enforced as read only") are warnings; an Error
// finding fails the compilation, for the rare output that would be unsafe
// to run at all (one artifact serves every platform, so prefer returning
// ErrUnsupported, which only disables this target).
type Finding struct {
	Severity diag.Severity
	Message  string
	Detail   string
	// Range is the Source of the IR node the finding is about; the zero
	// Range means the profile as a whole.
	Range ir.Range
}

// Build encodes p into a new artifact with the output of every target, in
// the order given (the artifact's encoding sorts them by name). compilerID
// is recorded in the artifact; it must not vary between runs. Findings are
// returned as diagnostics of their severity, and an ErrUnsupported target
// as a warning; another target error, or an Error finding, is returned as
// an error diagnostic, with no artifact.
func Build(p *ir.Profile, compilerID string, targets []Target) (*ir.Artifact, diag.Diagnostics) {
	var ds diag.Diagnostics
	a, err := ir.NewArtifact(p, compilerID)
	if err != nil {
		return nil, ds.Errorf(diag.CodeInternal, nil, fmt.Sprintf("Cannot encode the IR of profile %q", p.Name), "%v", err)
	}
	for _, t := range targets {
		data, findings, err := t.Compile(p)
		code := "target-" + t.Name()
		src := p.Source // copied: diagnostics must not alias the profile
		for _, f := range findings {
			r := f.Range
			if r == (ir.Range{}) {
				r = src
			}
			ds = append(ds, diag.Diagnostic{
				Severity: f.Severity,
				Code:     code,
				Summary:  fmt.Sprintf("%s: %s", t.Name(), f.Message),
				Detail:   f.Detail,
				Range:    &r,
			})
		}
		if err != nil {
			if errors.Is(err, ErrUnsupported) {
				ds = ds.Warnf(code, &src,
					fmt.Sprintf("Target %s cannot enforce profile %q", t.Name(), p.Name),
					"%v. The artifact has no %s output, so sbx will refuse to run this profile where it needs that target.", err, t.Name())
				continue
			}
			return nil, ds.Errorf(code, &src,
				fmt.Sprintf("Target %s failed on profile %q", t.Name(), p.Name), "%v", err)
		}
		if err := a.SetTarget(t.Name(), t.Format(), data); err != nil {
			return nil, ds.Errorf(diag.CodeInternal, &src, fmt.Sprintf("Cannot encode the %s output of profile %q", t.Name(), p.Name), "%v", err)
		}
	}
	if ds.HasErrors() {
		return nil, ds
	}
	return a, ds
}
