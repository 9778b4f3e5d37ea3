package landlock_test

import (
	"os"
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
	orig := abs
	for hops := 0; hops <= 40; hops++ {
		moved := false
		for l, t := range v.links {
			if abs == l || strings.HasPrefix(abs, l+"/") {
				abs, moved = t+strings.TrimPrefix(abs, l), true
				break
			}
		}
		if !moved {
			return abs
		}
	}
	return orig
}

func (v linkView) Readlink(abs string) (string, error) {
	if t, ok := v.links[abs]; ok {
		return t, nil
	}
	return "", os.ErrInvalid
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

// TestPlantedLinksGrantNothing: a link in a writable directory may have
// been put there by a command an earlier run confined, so a read rule or
// a protected name through it must not grant its target (red team 19:
// .git -> /any/dir made that directory readable under a profile that
// reads only /usr; the next run read it through .git). Only a carve-out
// carries through such a link (a target the profile makes writable), and
// a link in a read-only directory is followed as before.
func TestPlantedLinksGrantNothing(t *testing.T) {
	view := func() linkView {
		return linkView{fakeView{"/": landlock.KindDir, "/usr": landlock.KindDir, "/w": landlock.KindDir, "/w/l": landlock.KindSymlink,
			"/w/in": landlock.KindSymlink, "/w/real": landlock.KindDir, "/o": landlock.KindDir, "/o/t": landlock.KindDir,
			"/o/t/secret": landlock.KindFile, "/r": landlock.KindDir, "/r/l": landlock.KindSymlink, "/r/n": landlock.KindSymlink},
			map[string]string{"/w/l": "/o/t", "/w/in": "/w/real", "/r/l": "/o/t", "/r/n": "/w/l/secret"}}
	}
	narrow := []ir.PathRule{
		{Path: ir.Path{Anchor: "root", Rel: "usr"}, Access: ir.Read},
		{Path: ir.Path{Anchor: "root", Rel: "r"}, Access: ir.Read},
		{Path: ir.Path{Anchor: "cwd"}, Access: ir.Write},
	}
	for _, c := range []struct {
		name     string
		rules    []ir.PathRule
		protect  string
		readable string // a path that must get read rights ("" none)
		dropped  bool   // a Dropped entry is expected
	}{
		{name: "protected name", protect: "l", dropped: true},
		{name: "read rule on the link", rules: []ir.PathRule{{Path: ir.Path{Anchor: "cwd", Rel: "l"}, Access: ir.Read}}, dropped: true},
		{name: "read rule through the link", rules: []ir.PathRule{{Path: ir.Path{Anchor: "cwd", Rel: "l/secret"}, Access: ir.Read}}, dropped: true},
		{name: "read-only directory", rules: []ir.PathRule{{Path: ir.Path{Anchor: "root", Rel: "r/l"}, Access: ir.Read}}, readable: "/o/t"},
		{name: "carve-out in the workspace", protect: "in"},
		// A link in a read-only directory that leads through a planted one
		// (found by FuzzBindLayoutLinks).
		{name: "nested planted link", rules: []ir.PathRule{{Path: ir.Path{Anchor: "root", Rel: "r/n"}, Access: ir.Read}}, dropped: true},
		// A write rule nested in the writable root (no mount of its own)
		// whose path is a planted link (red team 19); one whose link
		// stays inside the root is kept.
		{name: "write rule on the link", rules: []ir.PathRule{{Path: ir.Path{Anchor: "cwd", Rel: "l"}, Access: ir.Write}}, dropped: true},
		{name: "write rule through the link", rules: []ir.PathRule{{Path: ir.Path{Anchor: "cwd", Rel: "l/secret"}, Access: ir.Write}}, dropped: true},
		{name: "write rule inside the root", rules: []ir.PathRule{{Path: ir.Path{Anchor: "cwd", Rel: "in"}, Access: ir.Write}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &ir.Profile{Name: "l", Filesystem: ir.Filesystem{Rules: append(slices.Clone(narrow), c.rules...)}, Network: ir.Network{Mode: ir.NetworkNone}}
			if c.protect != "" {
				p.Filesystem.Protect = []ir.ProtectRule{{Name: c.protect}}
			}
			pl, _ := landlock.Compile(p)
			spec, rep, err := pl.Bind(ir.Bindings{"cwd": {"/w"}}, landlock.BindOptions{KernelABI: 7, View: view(), Supervise: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range spec.Grants {
				if strings.HasPrefix(g.Path+"/", "/o/") && g.Path != c.readable {
					t.Errorf("the link's target is granted: %+v", g)
				}
			}
			if c.readable != "" && !slices.ContainsFunc(spec.Grants, func(g landlock.Grant) bool { return g.Path == c.readable }) {
				t.Errorf("no grant on %s (a link in a read-only directory is followed): %+v", c.readable, spec.Grants)
			}
			if got := len(rep.Dropped) > 0; got != c.dropped {
				t.Errorf("dropped %+v, want an entry: %v", rep.Dropped, c.dropped)
			}
			pinned := map[string]bool{}
			for _, m := range spec.Mounts {
				if m.Kind == landlock.MountPinLink {
					pinned[m.Path] = true
				}
			}
			if c.protect == "in" {
				// The target is writable: the protected name narrows it
				// to read-only there.
				if a := readRights(spec.Grants, "/w/real"); a&landlock.FSWriteFile != 0 || a&landlock.FSReadFile == 0 {
					t.Errorf("/w/real should be read-only (a carve-out through the link): %v in %+v", a, spec.Grants)
				}
			}
			if !strings.HasPrefix(c.name, "read-only") && !strings.HasPrefix(c.name, "nested") && !strings.HasPrefix(c.name, "write") && !pinned["/w/l"] && !pinned["/w/in"] {
				t.Errorf("the link is not pinned: %+v", spec.Mounts)
			}
		})
	}
}

// readRights returns the rights of the grant at p.
func readRights(gs []landlock.Grant, p string) landlock.AccessFS {
	for _, g := range gs {
		if g.Path == p {
			return g.Rights
		}
	}
	return 0
}

// TestListedSocketsAgainstPlantedLinks: a listed socket reached through a
// link in a writable directory is left out (the link may be the
// command's, to a socket nobody listed); one missing in a writable
// directory is left out too (the command could put a link there); one in
// a read-only directory stays, resolved when connect() is called (red
// team 19).
func TestListedSocketsAgainstPlantedLinks(t *testing.T) {
	v := linkView{fakeView{"/": landlock.KindDir, "/w": landlock.KindDir, "/w/app.sock": landlock.KindSymlink, "/o": landlock.KindDir,
		"/o/docker.sock": landlock.KindFile, "/r": landlock.KindDir, "/r/ok.sock": landlock.KindFile, "/r/via": landlock.KindSymlink},
		map[string]string{"/w/app.sock": "/o/docker.sock", "/r/via": "/w/app.sock"}}
	p := &ir.Profile{Name: "s", Filesystem: ir.Filesystem{Rules: []ir.PathRule{
		{Path: ir.Path{Anchor: "root"}, Access: ir.Read},
		{Path: ir.Path{Anchor: "cwd"}, Access: ir.Write},
	}}, Network: ir.Network{Mode: ir.NetworkNone, UnixSockets: []ir.SocketRule{
		{Path: ir.Path{Anchor: "cwd", Rel: "app.sock"}},
		{Path: ir.Path{Anchor: "cwd", Rel: "missing.sock"}},
		{Path: ir.Path{Anchor: "root", Rel: "r/via"}},
		{Path: ir.Path{Anchor: "root", Rel: "r/ok.sock"}},
	}}}
	pl, _ := landlock.Compile(p)
	spec, rep, err := pl.Bind(ir.Bindings{"cwd": {"/w"}}, landlock.BindOptions{KernelABI: 7, View: v, Supervise: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Sockets) != 1 || spec.Sockets[0] != (landlock.Socket{Path: "/r/ok.sock"}) {
		t.Errorf("sockets %+v, want only /r/ok.sock, not fixed", spec.Sockets)
	}
	var dropped []string
	for _, d := range rep.Dropped {
		dropped = append(dropped, d.Rule)
	}
	want := []string{"unix_socket /w/app.sock", "unix_socket /w/missing.sock", "unix_socket /r/via"}
	if !slices.Equal(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
}
