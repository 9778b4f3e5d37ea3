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
// FINDING 9 (deny_globs anchored at "/**"): the README anchors a pattern
// that starts with "/" at /, and "/**/build" matches build directories
// anywhere, as "**/build" does; the symbolic model (sbx.access, and
// lib.name_glob_denied) matched such a pattern only against paths of the
// root anchor. So a write rule on {cwd}/build that "/**/build" denies
// passed SBX006 (a dead write rule), and a profile denying "/**/.ssh",
// "/**/.aws", ..., "/**/.env" still got SBX007 warnings that they were
// readable. Fixed in policies/access.go and policies/builtin/lib.rego.
//
// FINDING 10 (SBX015): only sockets named docker.sock, containerd.sock,
// podman.sock, crio.sock and buildkitd.sock were privileged: LXD's and
// Incus's (/var/snap/lxd/common/lxd/unix.socket, /var/lib/incus/unix.socket,
// whose clients start privileged containers as Docker's do), systemd's
// private socket (/run/systemd/private) and cri-dockerd's passed. Fixed in
// policies/builtin/network.rego.
//
// FINDING 12 (SBX003): what runs outside the sandbox at the next login or
// command without being a shell's start-up file passed: write =
// ["{home}/.ssh"] (sshd runs ~/.ssh/rc at every login and takes any key
// in authorized_keys; ssh runs ~/.ssh/config's ProxyCommand), and
// ["{home}/.local/bin"] or ["{home}/bin"], on PATH before /usr/bin in the
// distributions' default .profile, so a planted "git" or "sudo" runs at
// the user's next command. Fixed: they are in SBX003's list.
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
// (".git" protected) and returns the codes of its built-in findings.
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
	for _, f := range append(r.Failures, r.Warnings...) {
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
		// Finding 12: persistence outside the shells' start-up files.
		{`    write = ["{home}/.ssh"]`, "SBX003"},
		{`    write = ["{home}/.ssh/config"]`, "SBX003"},
		{`    write = ["{home}/.ssh/authorized_keys"]`, "SBX003"},
		{`    write = ["{home}/.local"]`, "SBX003"},
		{`    write = ["{home}/.local/bin"]`, "SBX003"},
		{`    write = ["{home}/bin"]`, "SBX003"},
		{`    write = ["/root/.ssh"]`, "SBX003"},
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
		// Finding 9.
		{`    read = [root]
    write = [path(cwd, "build")]
    deny_glob = ["/**/build"]`, "SBX006"},
		{`    read = [root]
    write = [path(cwd, "out", "build", "x")]
    deny_glob = ["/**/build"]`, "SBX006"},
		// Held before and after.
		{`    write = ["{home}/.config"]`, "SBX003"},
		{`    write = ["{home}/.gitconfig"]`, "SBX004"},
		{`    write = ["/home"]`, "SBX002"},
		{`    write = ["/etc/cron.d"]`, "SBX001"},
		// Controls: nothing of SBX001-004.
		{`    write = ["{home}/.config/nvim"]`, ""},
		{`    write = ["{home}/.config"]
    read = ["{home}/.config/fish", "{home}/.config/autostart", "{home}/.config/nushell", "{home}/.config/environment.d", "{home}/.config/git", "{home}/.config/autostart-scripts", "{home}/.config/plasma-workspace", "{home}/.config/powershell"]
    deny = ["{home}/.config/systemd"]`, ""},
		{`    write = ["{home}/.config/git/config"]
    deny = ["{home}/.config/git/config"]`, ""},
		{`    write = ["/home/alice/src"]`, ""},
		{`    write = ["{home}/.local/share/app", "{home}/.cache", "{home}/.ssh/known_hosts"]`, ""},
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

func TestRT28RootGlobsDenyEverywhere(t *testing.T) {
	e, err := policies.New(context.Background(), policies.Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := `    read = [root]
    deny_glob = ["/**/.ssh", "/**/.aws", "/**/.gnupg", "/**/.config/gcloud", "/**/.kube", "/**/.docker/config.json", "/**/.azure", "/**/.config/gh", "/**/.git-credentials", "/**/.netrc", "/**/.npmrc", "/**/.pypirc", "/**/.cargo/credentials", "/**/.cargo/credentials.toml", "/**/.terraform.d/credentials.tfrc.json", "/**/.vault-token", "/**/.mozilla/firefox", "/**/.config/google-chrome", "/**/.config/chromium", "/**/.config/BraveSoftware", "/**/Library/Application Support/Google/Chrome", "/**/Library/Application Support/Firefox", "/**/Library/Application Support/BraveSoftware", "/**/.env", "/**/.env.*"]`
	if msg, ok := rt28Codes(t, e, body)["SBX007"]; ok {
		t.Errorf("credentials denied by /**/ patterns reported readable: %s", msg)
	}
	// Control: a pattern anchored elsewhere below / says nothing of {home}.
	if _, ok := rt28Codes(t, e, `    read = [root]
    deny_glob = ["/srv/**/.ssh"]`)["SBX007"]; !ok {
		t.Errorf("/srv/**/.ssh taken to deny {home}/.ssh")
	}
}

func TestRT28PrivilegedSockets(t *testing.T) {
	e, err := policies.New(context.Background(), policies.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sock string
		want bool
	}{
		{"/var/snap/lxd/common/lxd/unix.socket", true},
		{"/var/lib/incus/unix.socket", true},
		{"/run/systemd/private", true},
		{"/run/cri-dockerd.sock", true},
		{"/var/run/docker.sock", true}, // held
		// Red team 29: the session bus was a control here, but its
		// clients start any command outside the sandbox (systemd-run
		// --user): SBX015 now reports it (TestRT29DBusSockets).
		{"/run/user/1000/gnupg/S.gpg-agent", false}, // controls
		{"/tmp/unix.socket", false},
		{"/run/myprivate", false},
	} {
		src := "profile \"p\" {\n  filesystem {\n    read = [path(root, \"usr\")]\n  }\n  network {\n    unix_sockets = [\"" + c.sock + "\"]\n  }\n}\n"
		res, ds := compiler.CompileSources([]compiler.Source{{Name: "p.hcl", Data: []byte(src)}})
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		r, err := e.Check(context.Background(), policies.Input{Profile: res.Profiles[0]})
		if err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
		got := false
		for _, f := range r.Warnings {
			got = got || f.Code == "SBX015"
		}
		if got != c.want {
			t.Errorf("%s: SBX015 %v, want %v", c.sock, got, c.want)
		}
	}
}
