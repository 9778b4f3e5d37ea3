//go:build linux

package landlock_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// TestDenyGlobDepth: max_depth bounds a match's depth below the pattern's
// anchor as find's -maxdepth does (an entry of the anchor is at depth 1:
// "{home}/**/id_*" with max_depth 4 finds ~/a/b/c/id_rsa, not
// ~/a/b/c/d/id_rsa), and below each readable root for a pattern that
// matches anywhere (red team 18: an unanchored pattern counted from /, so
// "*.key" with max_depth 3 found nothing in a workspace four levels down).
func TestDenyGlobDepth(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	files := []string{"ws/a.key", "ws/d1/b.key", "ws/d1/d2/c.key", "ws/d1/d2/d3/e.key", "home/h.key", "home/x/y/z/deep.key"}
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name    string
		read    []ir.PathRule
		pattern string
		depth   int
		want    []string // masked, relative to dir
	}{
		{"anchored", nil, "{cwd}/**/*.key", 3, []string{"ws/a.key", "ws/d1/b.key", "ws/d1/d2/c.key"}},
		{"anchored depth 1", nil, "{cwd}/**/*.key", 1, []string{"ws/a.key"}},
		{"anywhere", []ir.PathRule{{Path: ir.Path{Anchor: "home"}, Access: ir.Read}}, "**/*.key", 2,
			[]string{"home/h.key", "ws/a.key", "ws/d1/b.key"}},
		{"anywhere below a nested root", []ir.PathRule{{Path: ir.Path{Anchor: "root"}, Access: ir.Read}}, "**/*.key", 2,
			[]string{"ws/a.key", "ws/d1/b.key"}},
		{"anywhere deep", []ir.PathRule{{Path: ir.Path{Anchor: "home"}, Access: ir.Read}}, "**/*.key", 4,
			[]string{"home/h.key", "home/x/y/z/deep.key", "ws/a.key", "ws/d1/b.key", "ws/d1/d2/c.key", "ws/d1/d2/d3/e.key"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &ir.Profile{Name: "g", Filesystem: ir.Filesystem{
				Rules:     append(slices.Clone(c.read), ir.PathRule{Path: ir.Path{Anchor: "cwd"}, Access: ir.Write}),
				DenyGlobs: []ir.GlobRule{{Pattern: c.pattern, MaxDepth: c.depth}},
			}, Network: ir.Network{Mode: ir.NetworkNone}}
			pl, _ := landlock.Compile(p)
			spec, _, err := pl.Bind(ir.Bindings{"cwd": {ws}, "home": {home}}, landlock.BindOptions{KernelABI: 7, AllowDegraded: true,
				Mounts: func() ([]landlock.Mount, error) { return nil, nil }})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range spec.Mounts {
				if m.Kind == landlock.MountMask {
					if rel, err := filepath.Rel(dir, m.Path); err == nil && filepath.IsLocal(rel) {
						got = append(got, rel)
					}
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("masked %v, want %v", got, c.want)
			}
		})
	}
}

// TestDenyGlobMatchesLink: a deny_glob matches names, so a symbolic link
// it matches is masked itself, by a file whatever it points to (a mount on
// a link's own entry cannot be a directory), and what it points to stays
// as the profile has it under its own name.
func TestDenyGlobMatchesLink(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	for _, d := range []string{ws, filepath.Join(dir, "tdir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "target"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"f.key": "../target", "d.key": "../tdir"} {
		if err := os.Symlink(to, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	p := &ir.Profile{Name: "g", Filesystem: ir.Filesystem{
		Rules:     []ir.PathRule{{Path: ir.Path{Anchor: "root"}, Access: ir.Read}, {Path: ir.Path{Anchor: "cwd"}, Access: ir.Write}},
		DenyGlobs: []ir.GlobRule{{Pattern: "{cwd}/*.key", MaxDepth: 1}},
	}, Network: ir.Network{Mode: ir.NetworkNone}}
	pl, _ := landlock.Compile(p)
	spec, _, err := pl.Bind(ir.Bindings{"cwd": {ws}}, landlock.BindOptions{KernelABI: 7, AllowDegraded: true,
		Mounts: func() ([]landlock.Mount, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	masked := map[string]bool{}
	for _, m := range spec.Mounts {
		switch {
		case m.Kind == landlock.MountMask && filepath.Dir(m.Path) == ws:
			if m.Dir {
				t.Errorf("%s: a directory mask on a link", m.Path)
			}
			masked[filepath.Base(m.Path)] = true
		case m.Kind == landlock.MountPinLink, m.Kind == landlock.MountMask && (m.Path == filepath.Join(dir, "target") || m.Path == filepath.Join(dir, "tdir")):
			t.Errorf("%s %s: the glob's match is the link", m.Kind, m.Path)
		}
	}
	if !masked["f.key"] || !masked["d.key"] {
		t.Errorf("masked links %v in %v, want f.key and d.key", masked, spec.Mounts)
	}
}
