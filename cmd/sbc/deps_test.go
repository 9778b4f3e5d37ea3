package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// heavyDeps are module paths that must not be linked into sbx: sbx loads
// compiled artifacts and must stay small and quick to start, so the HCL
// front end and the policy engine belong to sbc only.
var heavyDeps = []string{"open-policy-agent", "hashicorp/hcl", "zclconf/go-cty"}

// TestLightPackagesDoNotLinkCompiler checks that sbx, and the packages it
// may import from this part of the tree, do not depend on HCL, cty or OPA.
func TestLightPackagesDoNotLinkCompiler(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	pkgs := []string{"./builtin", "./ir", "./compiler/diag", "./compiler/target"}
	if _, err := os.Stat(filepath.Join("..", "sbx")); err == nil {
		pkgs = append(pkgs, "./cmd/sbx")
	} else {
		t.Log("cmd/sbx does not exist yet: checking only the packages it will import")
	}
	for _, pkg := range pkgs {
		cmd := exec.Command("go", "list", "-deps", pkg)
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, heavy := range heavyDeps {
				if strings.Contains(dep, heavy) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}
