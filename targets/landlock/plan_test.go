package landlock_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json")

// profiles returns the built-in profiles and the example profiles of
// testdata/profiles.
func profiles(t *testing.T) map[string]*ir.Profile {
	t.Helper()
	out := map[string]*ir.Profile{}
	for _, n := range builtin.Names() {
		res, ds := compiler.CompileBuiltin(n)
		if ds.HasErrors() {
			t.Fatalf("%s: %v", n, ds)
		}
		out["builtin-"+n] = res.Profiles[0]
	}
	files, _ := filepath.Glob("../../testdata/profiles/*.hcl")
	res, ds := compiler.CompileFiles(files)
	if ds.HasErrors() {
		t.Fatalf("example profiles: %v", ds)
	}
	for _, p := range res.Profiles {
		out["example-"+p.Name] = p
	}
	return out
}

// TestGolden compares each plan with testdata/NAME.golden.json (-update
// rewrites them).
func TestGolden(t *testing.T) {
	for name, p := range profiles(t) {
		pl, err := landlock.Compile(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := json.MarshalIndent(pl, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("testdata", name+".golden.json")
		if *update {
			os.WriteFile(path, got, 0o644)
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: plan differs from %s (go test ./targets/landlock -update)", name, path)
		}
	}
}

// TestDeterministic compiles every profile twice, and once from a profile
// whose lists were shuffled, and expects identical bytes.
func TestDeterministic(t *testing.T) {
	for name, p := range profiles(t) {
		a, _ := landlock.Compile(p)
		b, _ := landlock.Compile(p)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%s: two compilations differ", name)
		}
		// The plan survives its JSON encoding (artifacts store it).
		var back landlock.Plan
		dec := json.NewDecoder(bytes.NewReader(ja))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&back); err != nil {
			t.Errorf("%s: decoding the plan: %v", name, err)
		}
		jc, _ := json.Marshal(&back)
		if !bytes.Equal(ja, jc) {
			t.Errorf("%s: plan does not round-trip", name)
		}
	}
}

// fakeView is an in-memory filesystem for layout tests.
type fakeView map[string]landlock.Kind

func (v fakeView) Lstat(p string) landlock.Kind {
	if k, ok := v[p]; ok {
		return k
	}
	return landlock.KindMissing
}
func (v fakeView) Stat(p string) landlock.Kind {
	k := v.Lstat(p)
	if k == landlock.KindSymlink {
		return landlock.KindDir
	}
	return k
}
func (v fakeView) Subdirs(dir string) []string {
	var out []string
	for p, k := range v {
		if k == landlock.KindDir && strings.HasPrefix(p, dir+"/") && !strings.Contains(p[len(dir)+1:], "/") {
			out = append(out, p[len(dir)+1:])
		}
	}
	return out
}

// TestLayoutAgainstModel checks the bound layout against ir.Bound.Access,
// the reference model: for every path, what Landlock grants intersected with
// what the mounts allow must equal the model's access (or be stricter only
// where a no_create directory is reported).
func TestLayoutAgainstModel(t *testing.T) {
	p := &ir.Profile{Name: "m", Filesystem: ir.Filesystem{
		Rules: []ir.PathRule{
			{Path: ir.Path{Anchor: "root"}, Access: ir.Read},
			{Path: ir.Path{Anchor: "cwd"}, Access: ir.Write},
			{Path: ir.Path{Anchor: "cwd", Rel: "vendor"}, Access: ir.Read},
			{Path: ir.Path{Anchor: "cwd", Rel: "vendor/gen"}, Access: ir.Write},
			{Path: ir.Path{Anchor: "home", Rel: ".ssh"}, Access: ir.Deny},
			{Path: ir.Path{Anchor: "home", Rel: ".ssh/pub"}, Access: ir.Read},
		},
		Protect: []ir.ProtectRule{{Name: ".git"}},
	}, Network: ir.Network{Mode: ir.NetworkNone}}
	v := fakeView{"/": landlock.KindDir, "/w": landlock.KindDir, "/w/.git": landlock.KindDir, "/w/vendor": landlock.KindDir, "/w/vendor/gen": landlock.KindDir,
		"/w/vendor/gen/.git": landlock.KindDir, "/w/src": landlock.KindDir, "/h": landlock.KindDir, "/h/.ssh": landlock.KindDir, "/h/.ssh/pub": landlock.KindFile, "/dev": landlock.KindDir}
	b := ir.Bindings{"cwd": {"/w"}, "home": {"/h"}}
	bd, err := p.Bind(b)
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := landlock.Compile(p)
	_, rep, err := pl.Bind(b, landlock.BindOptions{KernelABI: 7, View: v})
	if err != nil {
		t.Fatal(err)
	}
	// Effective access under the plan: Landlock level from grants, then
	// narrowed by the innermost mount.
	eff := func(path string) ir.Access {
		ll := ir.Deny
		for _, g := range rep.Grants {
			if ir.PathWithin(path, g.Path) {
				if g.Rights&landlock.FSMakeReg != 0 || g.Rights&landlock.FSWriteFile != 0 {
					ll = max(ll, ir.Write)
				} else if g.Rights&landlock.FSReadFile != 0 {
					ll = max(ll, ir.Read)
				}
			}
		}
		state, depth := ir.Read, -1 // base read-only
		for _, m := range rep.Mounts {
			if ir.PathWithin(path, m.Path) && ir.Depth(m.Path) > depth && m.Kind != landlock.MountProc {
				depth = ir.Depth(m.Path)
				switch m.Kind {
				case landlock.MountReadWrite:
					state = ir.Write
				case landlock.MountReadOnly, landlock.MountBaseReadOnly:
					state = ir.Read
				case landlock.MountMask:
					state = ir.Deny
					for _, k := range m.Keep {
						if ir.PathWithin(path, m.Path+"/"+k.Rel) {
							state = ir.Write // narrowed by the kept path's own op
						}
					}
				}
			}
		}
		return min(ll, state)
	}
	for _, path := range []string{"/w/src/a", "/w/.git/config", "/w/vendor/x", "/w/vendor/gen/y", "/h/.ssh/id", "/h/.ssh/pub", "/h/other", "/etc/passwd"} {
		want, _, _ := bd.Access(path)
		if got := eff(path); got != want {
			t.Errorf("%s: plan gives %s, model %s", path, got, want)
		}
	}
	if len(rep.NoCreate) != 0 {
		t.Errorf("no_create with every protected name present: %+v", rep.NoCreate)
	}
	// Remove /w/vendor/gen/.git: gen and the chain above it become
	// non-creatable, /w/src keeps full rights.
	delete(v, "/w/vendor/gen/.git")
	_, rep, _ = pl.Bind(b, landlock.BindOptions{KernelABI: 7, View: v})
	if len(rep.NoCreate) != 1 || rep.NoCreate[0].Dir != "/w/vendor/gen" {
		t.Fatalf("no_create: %+v", rep.NoCreate)
	}
	for _, g := range rep.Grants {
		switch g.Path {
		case "/w", "/w/vendor/gen":
			if g.Rights&landlock.FSMakeReg != 0 {
				t.Errorf("%s keeps make_reg", g.Path)
			}
		case "/w/src":
			if g.Rights != landlock.WriteRights || !g.NoFollow {
				t.Errorf("/w/src re-grant: %+v", g)
			}
		}
	}
}

// TestStrictRefusesPartialRules: a rule the launcher can only partly
// enforce without the seccomp supervisor (ports mode: listen() on an
// unbound socket picks an unchecked ephemeral port, an abstract name bound
// on a socketpair end is the host's) is refused unless degraded mode is
// allowed, and then the report says the run is degraded and names the
// rule.
func TestStrictRefusesPartialRules(t *testing.T) {
	p := &ir.Profile{Name: "binds", Filesystem: ir.Filesystem{
		Rules: []ir.PathRule{{Path: ir.Path{Anchor: "root"}, Access: ir.Read}},
	}, Network: ir.Network{Mode: ir.NetworkPorts, BindTCP: []ir.PortRange{{From: 3000, To: 3000}}}}
	v := fakeView{"/": landlock.KindDir, "/dev": landlock.KindDir}
	pl, err := landlock.Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = pl.Bind(ir.Bindings{}, landlock.BindOptions{KernelABI: 7, View: v})
	if !errors.Is(err, landlock.ErrNotExact) || !strings.Contains(err.Error(), "network ports") || !strings.Contains(err.Error(), "--allow-degraded") {
		t.Fatalf("strict Bind: err = %v, want ErrNotExact naming the rule and the way out", err)
	}
	_, rep, err := pl.Bind(ir.Bindings{}, landlock.BindOptions{KernelABI: 7, View: v, AllowDegraded: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Degraded {
		t.Error("degraded Bind: report not marked degraded")
	}
	// With the supervisor, the same profile is enforced exactly enough to
	// run.
	if _, _, err := pl.Bind(ir.Bindings{}, landlock.BindOptions{KernelABI: 7, View: v, Supervise: true}); err != nil {
		t.Fatalf("supervised: %v", err)
	}
	// Without bind ports, but also without the supervisor: an abstract
	// Unix name bound on a socketpair end would be the host's.
	p.Network.BindTCP = nil
	pl, _ = landlock.Compile(p)
	_, _, err = pl.Bind(ir.Bindings{}, landlock.BindOptions{KernelABI: 7, View: v})
	if !errors.Is(err, landlock.ErrNotExact) || !strings.Contains(err.Error(), "abstract Unix name") {
		t.Fatalf("no bind ports, unsupervised: err = %v, want ErrNotExact naming abstract names", err)
	}
	if _, _, err := pl.Bind(ir.Bindings{}, landlock.BindOptions{KernelABI: 7, View: v, Supervise: true}); err != nil {
		t.Fatalf("no bind ports, supervised: %v", err)
	}
}

// TestBindMountsFailClosed: kernel file systems below writable roots are
// made read-only from the listing of the mounts; a listing that fails
// refuses the binding instead of leaving them writable unseen, and the
// listing's kernel file systems become mount operations.
func TestBindMountsFailClosed(t *testing.T) {
	p := &ir.Profile{Name: "m", Filesystem: ir.Filesystem{Rules: []ir.PathRule{
		{Path: ir.Path{Anchor: "root"}, Access: ir.Read},
		{Path: ir.Path{Anchor: "cwd"}, Access: ir.Write},
	}}, Network: ir.Network{Mode: ir.NetworkNone}}
	v := fakeView{"/": landlock.KindDir, "/w": landlock.KindDir, "/w/chroot": landlock.KindDir, "/w/chroot/proc": landlock.KindDir, "/w/chroot/sys": landlock.KindDir}
	b := ir.Bindings{"cwd": {"/w"}}
	pl, _ := landlock.Compile(p)
	_, _, err := pl.Bind(b, landlock.BindOptions{KernelABI: 7, View: v, Mounts: func() ([]landlock.Mount, error) {
		return nil, errors.New("no /proc here")
	}})
	if err == nil || !strings.Contains(err.Error(), "no /proc here") {
		t.Errorf("a failed listing of the mounts: %v, want the binding refused", err)
	}
	spec, _, err := pl.Bind(b, landlock.BindOptions{KernelABI: 7, View: v, Mounts: func() ([]landlock.Mount, error) {
		return []landlock.Mount{{Path: "/", FSType: "ext4"}, {Path: "/w/chroot/proc", FSType: "proc"}, {Path: "/w/chroot/sys", FSType: "sysfs"}}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	readOnly, hidden := false, false
	for _, m := range spec.Mounts {
		readOnly = readOnly || (m.Kind == landlock.MountKernelReadOnly && m.Path == "/w/chroot/sys")
		hidden = hidden || ((m.Kind == landlock.MountMask || m.Kind == landlock.MountDetach) && m.Path == "/w/chroot/proc")
	}
	if !readOnly {
		t.Errorf("a sysfs below the writable root: no kernel-read-only operation in %v", spec.Mounts)
	}
	if !hidden {
		t.Errorf("a procfs below the writable root: neither masked nor detached in %v", spec.Mounts)
	}
}
