package builtin_test

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/ir"
)

// The issue asks for at least these built-ins.
var required = []string{"danger-full-access", "network-off", "read-only", "workspace", "workspace-net"}

func TestNames(t *testing.T) {
	names := builtin.Names()
	for _, r := range required {
		if !slices.Contains(names, r) {
			t.Errorf("built-in %q missing", r)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("Names not sorted: %v", names)
	}
	var files []string
	fs.WalkDir(builtin.Sources(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, strings.TrimSuffix(p, ".hcl"))
		}
		return err
	})
	slices.Sort(files)
	if !slices.Equal(files, names) {
		t.Errorf("Sources() holds %v, Names() says %v", files, names)
	}
	if builtin.Has("no-such") {
		t.Error(`Has("no-such") = true`)
	}
	if _, err := builtin.Artifact("no-such"); err == nil {
		t.Error("Artifact of an unknown name did not fail")
	}
}

// TestArtifactsMatchSources checks each embedded artifact verifies and
// carries the IR the compiler produces from the embedded source now. (The
// byte-for-byte check, targets included, is TestBuiltinArtifacts in
// cmd/sbc, which knows the target list.)
func TestArtifactsMatchSources(t *testing.T) {
	for _, name := range builtin.Names() {
		a, p, err := builtin.Load(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if p.Name != name {
			t.Errorf("artifact %s holds profile %q", name, p.Name)
		}
		if a.Compiler != compiler.Version {
			t.Errorf("artifact %s compiled by %q, want %q: go generate ./builtin", name, a.Compiler, compiler.Version)
		}
		res, ds := compiler.CompileBuiltin(name)
		if ds.HasErrors() {
			t.Fatalf("%s: %v", name, ds)
		}
		_, digest, err := ir.Encode(res.Profiles[0])
		if err != nil {
			t.Fatal(err)
		}
		if digest != a.Digest {
			t.Errorf("artifact %s is stale (IR digest %s, source compiles to %s): go generate ./builtin", name, a.Digest, digest)
		}
	}
}

// TestSemantics pins what each built-in means, through the IR's reference
// semantics rather than its encoding.
func TestSemantics(t *testing.T) {
	b := ir.Bindings{
		"cwd": {"/work/repo"}, "home": {"/home/u"}, "tmpdir": {"/tmp/u"}, "slash_tmp": {"/tmp"},
		"platform_defaults": {"/usr", "/etc"},
	}
	cases := []struct {
		profile, path string
		want          ir.Access
	}{
		{"read-only", "/etc/passwd", ir.Read},
		{"read-only", "/work/repo/main.go", ir.Read},
		{"workspace", "/work/repo/main.go", ir.Write},
		{"workspace", "/work/repo/.git/config", ir.Read},
		{"workspace", "/work/repo/.git", ir.Read},
		{"workspace", "/tmp/u/x", ir.Write},
		{"workspace", "/tmp/x", ir.Write},
		{"workspace", "/home/u/.bashrc", ir.Read},
		{"workspace-net", "/work/repo/.agents/x", ir.Read},
		{"workspace-net", "/work/repo/src", ir.Write},
		{"network-off", "/etc/hosts", ir.Write},
		{"danger-full-access", "/etc/hosts", ir.Write},
	}
	for _, c := range cases {
		_, p, err := builtin.Load(c.profile)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Access(c.path, b)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: access to %s = %s, want %s", c.profile, c.path, got, c.want)
		}
	}
	modes := map[string]ir.NetworkMode{"read-only": ir.NetworkNone, "workspace": ir.NetworkNone, "workspace-net": ir.NetworkFull, "network-off": ir.NetworkNone, "danger-full-access": ir.NetworkFull}
	for name, want := range modes {
		_, p, _ := builtin.Load(name)
		if p.Network.Mode != want {
			t.Errorf("%s: network mode %s, want %s", name, p.Network.Mode, want)
		}
		if p.Unsandboxed != (name == "danger-full-access") {
			t.Errorf("%s: unsandboxed = %v", name, p.Unsandboxed)
		}
	}
}
