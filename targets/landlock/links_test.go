package landlock_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// linkView is a fakeView whose links resolve (landlock.Resolver).
type linkView struct {
	fakeView
	links map[string]string // link -> absolute target
}

func (v linkView) Resolve(abs string) string {
	for l, t := range v.links {
		if abs == l || strings.HasPrefix(abs, l+"/") {
			return t + strings.TrimPrefix(abs, l)
		}
	}
	return abs
}

// TestLinkRulesArePinned: a read, deny or protect rule on a symbolic link
// in a writable directory pins the link (MountPinLink: a mount point
// cannot be removed, renamed or replaced) and applies its rule to the
// target, without taking creation or removal from the directory (red team
// 18: a deny on ~/.ssh that is a link let the command put a directory of
// its own there; a read rule on a link, or a protected .git that is one,
// took creation and removal from the whole workspace).
func TestLinkRulesArePinned(t *testing.T) {
	base := []ir.PathRule{
		{Path: ir.Path{Anchor: "root"}, Access: ir.Read},
		{Path: ir.Path{Anchor: "cwd"}, Access: ir.Write},
	}
	view := func() linkView {
		return linkView{fakeView{"/": landlock.KindDir, "/w": landlock.KindDir, "/w/l": landlock.KindSymlink, "/o": landlock.KindDir,
			"/o/t": landlock.KindDir, "/o/t/secret": landlock.KindFile, "/r": landlock.KindDir, "/r/l": landlock.KindSymlink, "/dev": landlock.KindDir},
			map[string]string{"/w/l": "/o/t", "/r/l": "/o/t"}}
	}
	for _, c := range []struct {
		name    string
		rules   []ir.PathRule
		protect string
		want    []landlock.MountOp // must be among the operations
		notWant []string           // "kind path" that must not be
	}{
		{name: "deny", rules: []ir.PathRule{{Path: ir.Path{Anchor: "cwd", Rel: "l"}, Access: ir.Deny}},
			want: []landlock.MountOp{{Kind: landlock.MountPinLink, Path: "/w/l"}, {Kind: landlock.MountMask, Path: "/o/t"}}},
		{name: "read", rules: []ir.PathRule{{Path: ir.Path{Anchor: "cwd", Rel: "l"}, Access: ir.Read}},
			want: []landlock.MountOp{{Kind: landlock.MountPinLink, Path: "/w/l"}}, notWant: []string{"read-only /w/l"}},
		{name: "protect", protect: "l",
			want: []landlock.MountOp{{Kind: landlock.MountPinLink, Path: "/w/l"}}, notWant: []string{"read-only /w/l"}},
		{name: "deny through a link", rules: []ir.PathRule{{Path: ir.Path{Anchor: "cwd", Rel: "l/secret"}, Access: ir.Deny}},
			want: []landlock.MountOp{{Kind: landlock.MountPinLink, Path: "/w/l"}, {Kind: landlock.MountMask, Path: "/o/t/secret"}}},
		{name: "read through a link", rules: []ir.PathRule{{Path: ir.Path{Anchor: "cwd", Rel: "l/secret"}, Access: ir.Read}},
			want: []landlock.MountOp{{Kind: landlock.MountPinLink, Path: "/w/l"}}},
		{name: "read-only directory", rules: []ir.PathRule{{Path: ir.Path{Anchor: "root", Rel: "r/l"}, Access: ir.Deny}},
			want: []landlock.MountOp{{Kind: landlock.MountMask, Path: "/o/t"}}, notWant: []string{"pin-link /r/l"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &ir.Profile{Name: "l", Filesystem: ir.Filesystem{Rules: append(slices.Clone(base), c.rules...)}, Network: ir.Network{Mode: ir.NetworkNone}}
			if c.protect != "" {
				p.Filesystem.Protect = []ir.ProtectRule{{Name: c.protect}}
			}
			pl, _ := landlock.Compile(p)
			spec, rep, err := pl.Bind(ir.Bindings{"cwd": {"/w"}}, landlock.BindOptions{KernelABI: 7, View: view(), Supervise: true})
			if err != nil {
				t.Fatal(err)
			}
			have := map[string]bool{}
			for _, m := range spec.Mounts {
				have[string(m.Kind)+" "+m.Path] = true
			}
			for _, w := range c.want {
				if !have[string(w.Kind)+" "+w.Path] {
					t.Errorf("no %s %s in %v", w.Kind, w.Path, spec.Mounts)
				}
			}
			for _, n := range c.notWant {
				if have[n] {
					t.Errorf("%s in %v", n, spec.Mounts)
				}
			}
			if len(rep.NoCreate) != 0 {
				t.Errorf("no_create %+v: the link is pinned, the directory keeps its rights", rep.NoCreate)
			}
			for _, g := range spec.Grants {
				if g.Path == "/w/l" || g.Path == "/r/l" {
					t.Errorf("a grant on the link itself (Landlock would follow it): %+v", g)
				}
				if g.Path == "/w" && g.Rights&landlock.FSMakeDir == 0 {
					t.Errorf("the workspace lost make_dir: %+v", g)
				}
			}
		})
	}
}
