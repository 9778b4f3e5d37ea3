//go:build linux

package landlock_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// TestDenyGlobLinkRootScannedOnce: a read rule on a link (platform_defaults'
// /lib -> usr/lib on a merged-/usr system) gains a rule on its target, a
// root of its own; a deny_glob that matches anywhere walked both, the
// same tree twice under two spellings, and spent its scan budget twice
// (red team 20: "*.key" with the default max_depth, in a profile reading
// platform_defaults and a workspace, stopped at 200,000 entries on a
// machine whose /usr/lib holds a cloud SDK, so strict mode refused it as
// partial). With a budget between one walk and two, the scan completes
// and the match is masked once, at its own path.
func TestDenyGlobLinkRootScannedOnce(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real, lnk := filepath.Join(dir, "usr", "lib"), filepath.Join(dir, "lib")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if err := os.WriteFile(filepath.Join(real, fmt.Sprintf("f%02d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(real, "x.key"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("usr/lib", lnk); err != nil {
		t.Fatal(err)
	}
	rel := func(p string) ir.Path { return ir.Path{Anchor: ir.AnchorRoot, Rel: p[1:]} }
	p := &ir.Profile{Name: "g", Filesystem: ir.Filesystem{
		Rules:     []ir.PathRule{{Path: rel(lnk), Access: ir.Read}, {Path: rel(real), Access: ir.Read}},
		DenyGlobs: []ir.GlobRule{{Pattern: "**/*.key", MaxDepth: 8}},
	}, Network: ir.Network{Mode: ir.NetworkNone}}
	pl, _ := landlock.Compile(p)
	spec, _, err := pl.Bind(ir.Bindings{"root": {"/"}}, landlock.BindOptions{KernelABI: 7, GlobBudget: 80,
		Mounts: func() ([]landlock.Mount, error) { return nil, nil }})
	if err != nil {
		t.Fatalf("the scan of %s (51 entries, budget 80) through the link %s too: %v", real, lnk, err)
	}
	var masks []string
	for _, m := range spec.Mounts {
		if m.Kind == landlock.MountMask {
			masks = append(masks, m.Path)
		}
	}
	if len(masks) != 1 || masks[0] != filepath.Join(real, "x.key") {
		t.Errorf("masks %v, want only %s", masks, filepath.Join(real, "x.key"))
	}
}
