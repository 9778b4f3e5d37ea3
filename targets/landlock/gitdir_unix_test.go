//go:build unix

package landlock_test

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// TestGitdirLinkProtected: a protected .git that is a git link file
// ("gitdir: PATH") protects PATH too when it lies in a writable root (a
// read-only carve-out in the layout), a link to a missing directory there
// is refused, and a FIFO where a link file is read (commondir) neither
// blocks the binding nor counts.
func TestGitdirLinkProtected(t *testing.T) {
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	home := t.TempDir()
	bind := func() (*landlock.Spec, error) {
		b, err := landlock.DefaultBindings(dir, func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		spec, _, err := plan.Bind(b, landlock.BindOptions{KernelABI: 7, Supervise: true})
		return spec, err
	}
	readOnly := func(spec *landlock.Spec, p string) bool {
		for _, m := range spec.Mounts {
			if m.Kind == landlock.MountReadOnly && m.Path == p {
				return true
			}
		}
		return false
	}
	if err := os.WriteFile(dir+"/.git", []byte("gitdir: ./.bare\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := bind(); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a link to a missing repository: %v, want a refusal", err)
	}
	if err := os.MkdirAll(dir+"/.bare/hooks", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(dir+"/.bare/commondir", 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := bind()
	if err != nil {
		t.Fatal(err)
	}
	if !readOnly(spec, dir+"/.bare") || !readOnly(spec, dir+"/.git") {
		t.Errorf("the linked repository is not protected: %+v", spec.Mounts)
	}
	// Not a link file: a plain .git directory protects only itself.
	os.Remove(dir + "/.git")
	os.Mkdir(dir+"/.git", 0o755)
	if spec, err = bind(); err != nil || readOnly(spec, dir+"/.bare") {
		t.Errorf("a .git directory: %v, .bare protected %v", err, err == nil && readOnly(spec, dir+"/.bare"))
	}
}

// TestGitdirLinkIntoDeny: a .git link file naming a directory below a
// deny inside the writable root adds no read rule there (it would be more
// specific than the deny and reopen what it masks: red team 19, a link
// file planted by an earlier run).
func TestGitdirLinkIntoDeny(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/secrets/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/.git", []byte("gitdir: secrets/sub\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &ir.Profile{Name: "g", Filesystem: ir.Filesystem{
		Rules: []ir.PathRule{
			{Path: ir.Path{Anchor: "root", Rel: "usr"}, Access: ir.Read},
			{Path: ir.Path{Anchor: "cwd"}, Access: ir.Write},
			{Path: ir.Path{Anchor: "cwd", Rel: "secrets"}, Access: ir.Deny},
		},
		Protect: []ir.ProtectRule{{Name: ".git"}},
	}, Network: ir.Network{Mode: ir.NetworkNone}}
	pl, _ := landlock.Compile(p)
	spec, rep, err := pl.Bind(ir.Bindings{"cwd": {dir}}, landlock.BindOptions{KernelABI: 7, Supervise: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Bound {
		if strings.HasPrefix(r.Path+"/", dir+"/secrets/") && r.Access != ir.Deny {
			t.Errorf("a rule below the deny: %+v", r)
		}
	}
	for _, g := range spec.Grants {
		if strings.HasPrefix(g.Path+"/", dir+"/secrets/") {
			t.Errorf("a grant below the deny: %+v", g)
		}
	}
}
