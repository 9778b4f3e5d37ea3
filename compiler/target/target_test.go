package target

import (
	"errors"
	"testing"

	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
)

type fake struct {
	name     string
	data     any
	findings []Finding
	err      error
}

func (f fake) Name() string   { return f.name }
func (f fake) Format() string { return "fake/v1" }
func (f fake) Compile(*ir.Profile) (any, []Finding, error) {
	return f.data, f.findings, f.err
}

func profile() *ir.Profile {
	return &ir.Profile{
		Name:    "p",
		Network: ir.Network{Mode: ir.NetworkNone},
		Source:  ir.Range{Filename: "p.hcl", Start: ir.Pos{Line: 1, Column: 1}},
		Filesystem: ir.Filesystem{Rules: []ir.PathRule{
			{Path: ir.Path{Anchor: "root"}, Access: ir.Read, Source: ir.Range{Filename: "p.hcl", Start: ir.Pos{Line: 3, Column: 5}}},
		}},
	}
}

func TestBuild(t *testing.T) {
	p := profile()
	ruleRange := p.Filesystem.Rules[0].Source
	a, ds := Build(p, "test 1", []Target{
		fake{name: "zeta", data: map[string]int{"b": 2, "a": 1}, findings: []Finding{{Severity: diag.Warning, Message: "approximated", Range: ruleRange}}},
		fake{name: "alpha", data: []string{"x"}},
		fake{name: "win", err: errors.Join(ErrUnsupported, errors.New("reopened writable descendant"))},
	})
	if a == nil || ds.HasErrors() {
		t.Fatalf("Build failed: %v", ds)
	}
	if got := a.TargetNames(); len(got) != 2 || got[0] != "alpha" || got[1] != "zeta" {
		t.Errorf("targets %v", got)
	}
	if len(ds) != 2 || ds[0].Range.Start.Line != 3 || ds[0].Summary != "zeta: approximated" || ds[1].Code != "target-win" || ds[1].Severity != diag.Warning {
		t.Errorf("diagnostics %v", ds)
	}
	data, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := ir.DecodeArtifact(data)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]int
	if ok, err := b.Target("zeta", &m); !ok || err != nil || m["b"] != 2 {
		t.Errorf("zeta output %v %v %v", ok, err, m)
	}

	if a, ds := Build(profile(), "test 1", []Target{fake{name: "bad", err: errors.New("boom")}}); a != nil || !ds.HasErrors() {
		t.Errorf("a failing target did not fail the build: %v", ds)
	}
	if a, ds := Build(profile(), "test 1", []Target{fake{name: "bad", data: 1, findings: []Finding{{Severity: diag.Error, Message: "unsafe"}}}}); a != nil || !ds.HasErrors() || ds[0].Range.Filename != "p.hcl" {
		t.Errorf("an error finding did not fail the build: %v", ds)
	}
}
