package builtin

import (
	"reflect"
	"testing"

	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// TestDecodedMatchesArtifacts guards decoded.go: for every built-in profile
// the generated IR and Landlock plan must be deeply equal to what
// ir.DecodeArtifact (and the plan's JSON decoding) makes of the embedded
// artifact. A failure means decoded.go is stale: run go generate ./builtin.
func TestDecodedMatchesArtifacts(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			mkProfile, mkPlan := decoded(name)
			if mkProfile == nil || mkPlan == nil {
				t.Fatalf("decoded.go has no values for %q (a bootstrap stub?): run go generate ./builtin", name)
			}
			data, err := Artifact(name)
			if err != nil {
				t.Fatal(err)
			}
			a, want, err := ir.DecodeArtifact(data)
			if err != nil {
				t.Fatal(err)
			}
			if got := mkProfile(); !reflect.DeepEqual(got, want) {
				t.Errorf("generated IR differs from artifacts/%s.json: run go generate ./builtin\ngot  %+v\nwant %+v", name, got, want)
			}
			var wantPlan landlock.Plan
			ok, err := a.Target(landlock.TargetName, &wantPlan)
			if err != nil {
				t.Fatal(err)
			}
			gotPlan := mkPlan()
			switch {
			case !ok && gotPlan != nil:
				t.Errorf("artifact has no Landlock plan, generated one does")
			case ok && !reflect.DeepEqual(gotPlan, &wantPlan):
				t.Errorf("generated Landlock plan differs from artifacts/%s.json: run go generate ./builtin\ngot  %+v\nwant %+v", name, gotPlan, &wantPlan)
			}

			// Profile and Plan return the same values as the artifact.
			p, err := Profile(name)
			if err != nil || !reflect.DeepEqual(p, want) {
				t.Errorf("Profile(%q) = %+v, %v", name, p, err)
			}
			pl, err := Plan(name)
			if err != nil {
				t.Fatalf("Plan(%q): %v", name, err)
			}
			if ok && !reflect.DeepEqual(pl, &wantPlan) {
				t.Errorf("Plan(%q) differs from the artifact's plan", name)
			}
		})
	}
	if mk, _ := decoded("no-such"); mk != nil {
		t.Error(`decoded("no-such") returned constructors`)
	}
	if _, err := Profile("no-such"); err == nil {
		t.Error(`Profile("no-such") did not fail`)
	}
	if _, err := Plan("no-such"); err == nil {
		t.Error(`Plan("no-such") did not fail`)
	}
}

// TestDecodedFresh checks each call builds new values: changing one
// profile or plan must not affect the next caller's.
func TestDecodedFresh(t *testing.T) {
	for _, name := range Names() {
		p1, _ := Profile(name)
		p2, _ := Profile(name)
		if p1 == p2 {
			t.Fatalf("%s: Profile returned the same pointer twice", name)
		}
		p1.Name = "changed"
		if len(p1.Filesystem.Rules) > 0 {
			p1.Filesystem.Rules[0].Path.Anchor = "changed"
		}
		p3, _ := Profile(name)
		if !reflect.DeepEqual(p2, p3) {
			t.Errorf("%s: changing a returned profile changed later ones", name)
		}
		pl1, _ := Plan(name)
		pl2, _ := Plan(name)
		if pl1 == pl2 {
			t.Fatalf("%s: Plan returned the same pointer twice", name)
		}
		pl1.Profile = "changed"
		if len(pl1.Fidelity) > 0 {
			pl1.Fidelity[0].Rule = "changed"
		}
		pl3, _ := Plan(name)
		if !reflect.DeepEqual(pl2, pl3) {
			t.Errorf("%s: changing a returned plan changed later ones", name)
		}
	}
}
