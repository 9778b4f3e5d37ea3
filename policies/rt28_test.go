// Red team pass 28: false negatives of the built-in rules, profiles a
// policy author writes that expose what the README says a rule reports,
// yet pass. Each case asserts the promised finding, so a gap is a failing
// test. Run: go test -count=1 ./policies -run 'TestRT28' -v
//
// FINDING 1 (SBX003, SBX004): a write rule *below* a start-up or git
// configuration directory was not reported: write =
// ["{home}/.config/git/config"] (git's global configuration itself:
// core.fsmonitor, core.hooksPath), "{home}/.config/fish/config.fish",
// "{home}/.config/systemd/user/x.service", "{home}/.config/autostart/x.desktop"
// all passed, while the directory above them was reported. The rules
// asked only whether the directory itself was writable. Fixed in
// policies/builtin/filesystem.rego (_home_hits: a write rule inside one of
// the names counts too).
//
// FINDING 2 (SBX002, SBX003, SBX004): home directories spelled as absolute
// paths were not homes: write = ["/root"] (root's home, where sbx runs in
// most CI containers) and ["/home/alice"], ["/Users/alice"] passed SBX002,
// though write = ["/home"] fails it and SBX007 already treats /root as a
// home (red team 27); "/root/.bashrc" and "/home/alice/.gitconfig" passed
// SBX003 and SBX004. Fixed: /root, /home/NAME and /Users/NAME are homes
// for SBX002, and the start-up and git files below them are reported.
//
// FINDING 3 (SBX001): the directories below /var that sbx itself refuses
// as a writable working directory because the host runs what they hold
// (crontabs in /var/spool/cron, dpkg's maintainer scripts in
// /var/lib/dpkg/info, rpm's and apt's databases: targets/landlock's
// runDirs) could be written by a profile without SBX001. Fixed: they are
// system directories for SBX001 too.
//
// FINDING 8 (print): "print() output goes to standard error", and was
// written raw: an organisation policy that prints an input value
// (print("checking", input.profile.description), common while debugging)
// let a profile from an untrusted change put an ESC sequence on the
// terminal and forge a "FAIL - ..." line in the CI log, which red team 23
// closed for every other line sbc check prints. Fixed in
// policies/engine.go: each print() call is one line, its control
// characters shown as U+FFFD (ir.Printable).
//
// Held (controls below): the directory forms stay reported once, a
// start-up file kept read-only inside a writable home is not reported, a
// write rule a deny overrides is not reported, /home/alice/src (a project
// below a home) is not a home, /var/cache and /var/tmp stay writable
// without SBX001.
package policies_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/policies"
)

// rt28Codes compiles a one-profile file whose filesystem block is body
// (".git" protected) and returns the codes of its built-in failures.
func rt28Codes(t *testing.T, e *policies.Engine, body string) map[string]string {
	t.Helper()
	src := "profile \"p\" {\n  filesystem {\n" + body + "\n    protect = [\".git\"]\n  }\n}\n"
	res, ds := compiler.CompileSources([]compiler.Source{{Name: "p.hcl", Data: []byte(src)}})
	if ds.HasErrors() {
		t.Fatalf("%s: %v", body, ds)
	}
	r, err := e.Check(context.Background(), policies.Input{Profile: res.Profiles[0], File: "p.hcl"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil {
		t.Fatalf("%s: %v", body, r.Err)
	}
	codes := map[string]string{}
	for _, f := range r.Failures {
		codes[f.Code] += f.Message + "\n"
	}
	return codes
}

func TestRT28BuiltinFalseNegatives(t *testing.T) {
	e, err := policies.New(context.Background(), policies.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		body string
		want string // a failure code the profile must get; "" for none of SBX001-004
	}{
		// Finding 1: below the directory.
		{`    write = ["{home}/.config/git/config"]`, "SBX004"},
		{`    write = ["{home}/.config/git/hooks"]`, "SBX004"},
		{`    write = ["{home}/.config/fish/config.fish"]`, "SBX003"},
		{`    write = ["{home}/.config/fish/functions"]`, "SBX003"},
		{`    write = ["{home}/.config/systemd/user/evil.service"]`, "SBX003"},
		{`    write = ["{home}/.config/autostart/x.desktop"]`, "SBX003"},
		{`    write = ["{home}/.config/environment.d/x.conf"]`, "SBX003"},
		// Finding 2: homes by their absolute paths.
		{`    write = ["/root"]`, "SBX002"},
		{`    write = ["/home/alice"]`, "SBX002"},
		{`    write = ["/Users/alice"]`, "SBX002"},
		{`    write = ["/root/.bashrc"]`, "SBX003"},
		{`    write = ["/home/alice/.profile"]`, "SBX003"},
		{`    write = ["/root/.config"]`, "SBX003"},
		{`    write = ["/home/alice/.config/systemd/user/x.service"]`, "SBX003"},
		{`    write = ["/home/alice/.gitconfig"]`, "SBX004"},
		{`    write = ["/root/.config/git/config"]`, "SBX004"},
		// Finding 3: what the host runs from /var.
		{`    write = ["/var/spool/cron"]`, "SBX001"},
		{`    write = ["/var/spool/cron/crontabs/root"]`, "SBX001"},
		{`    write = ["/var/lib/dpkg/info"]`, "SBX001"},
		{`    write = ["/var/lib/rpm"]`, "SBX001"},
		{`    write = ["/var/lib/apt"]`, "SBX001"},
		// Held before and after.
		{`    write = ["{home}/.config"]`, "SBX003"},
		{`    write = ["{home}/.gitconfig"]`, "SBX004"},
		{`    write = ["/home"]`, "SBX002"},
		{`    write = ["/etc/cron.d"]`, "SBX001"},
		// Controls: nothing of SBX001-004.
		{`    write = ["{home}/.config/nvim"]`, ""},
		{`    write = ["{home}/.config"]
    read = ["{home}/.config/fish", "{home}/.config/autostart", "{home}/.config/nushell", "{home}/.config/environment.d", "{home}/.config/git"]
    deny = ["{home}/.config/systemd"]`, ""},
		{`    write = ["{home}/.config/git/config"]
    deny = ["{home}/.config/git/config"]`, ""},
		{`    write = ["/home/alice/src"]`, ""},
		{`    write = ["/home/alice/src/.bashrc"]`, ""},
		{`    write = ["/var/cache/build", "/var/tmp"]`, ""},
		{`    write = ["/rootfs/x"]`, ""},
	}
	for _, c := range cases {
		codes := rt28Codes(t, e, c.body)
		if c.want == "" {
			for _, k := range []string{"SBX001", "SBX002", "SBX003", "SBX004"} {
				if msg, ok := codes[k]; ok {
					t.Errorf("%s\n  false positive %s: %s", strings.TrimSpace(c.body), k, msg)
				}
			}
			continue
		}
		if _, ok := codes[c.want]; !ok {
			t.Errorf("%s\n  passes without %s (failures: %v)", strings.TrimSpace(c.body), c.want, codes)
		}
	}
}

func TestRT28PrintControlChars(t *testing.T) {
	dir := t.TempDir()
	pol := "package main\n\nwarn contains \"w\" if {\n\tprint(\"checking\", input.profile.description)\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.rego"), []byte(pol), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "profile \"p\" {\n  description = \"d\\u001b]0;pwn\\u0007\\nFAIL - evil.hcl:1:1 - forged\"\n  filesystem {\n    read = [root]\n  }\n}\n"
	res, ds := compiler.CompileSources([]compiler.Source{{Name: "p.hcl", Data: []byte(src)}})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	var buf bytes.Buffer // one profile: one goroutine prints
	e, err := policies.New(context.Background(), policies.Options{Policies: []string{dir}, NoBuiltin: true, Print: &buf})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := e.Check(context.Background(), policies.Input{Profile: res.Profiles[0]}); err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "checking d") || !strings.HasSuffix(out, "forged\n") {
		t.Fatalf("print output %q", out)
	}
	if body := strings.TrimSuffix(out, "\n"); strings.ContainsAny(body, "\x1b\x07\n\r") {
		t.Errorf("print output keeps control characters: %q", out)
	}
}
