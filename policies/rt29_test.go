// Red team pass 29 (compiler): the built-in rules' false negatives and
// false positives, and the cost of checking a large profile. Each test
// failed before its fix. Run: go test -count=1 ./policies -run 'TestRT29' -v
//
// FINDING 4 (SBX001 above system directories): SBX001 reported a write
// rule on or in a system directory, but not one above it: write =
// ["/var"] (which holds /var/spool/cron and /var/lib/dpkg), ["/var/lib"],
// ["/run"] (/run/systemd: units systemd runs as root) passed, as did the
// rest of what sbx refuses as a writable working directory: /run/systemd,
// /run/udev, /run/modprobe.d, a user's runtime directory and its
// systemd/, /proc, /sys, /dev (but the device files every program
// writes), /opt and /srv. Fixed in policies/builtin/filesystem.rego: a
// write rule that decides a system directory below it is reported (a
// more specific rule that narrows it again makes it pass), and the list
// follows targets/landlock's.
//
// FINDING 5 (deny_glob names matched by OPA's glob.match): whether a
// deny_glob denies a name everywhere (SBX009's ".git", SBX007's ".env"
// and credentials in every home) was answered with OPA's glob.match, whose
// syntax is not the profile language's: "[!x]" is a negated class there
// and a class of "!" and "x" in a deny_glob, and "*" does not cross "."
// there. So deny_glob = ["**/.gi[!x]"], which denies no .git, silenced
// SBX009 (a failure) for a writable workspace, and ["**/*"], which denies
// everything, still got SBX007's .env warning. Fixed: data.sbx.lib
// matches with sbx.glob_match, a built-in in Go with the deny_glob
// matcher (ir.MatchGlob), available to organisation policy too.
//
// FINDING 6 (checking a large profile): sbx.access scanned every rule per
// question, and data.sbx.lib.xrules looked for a deny rule on each write
// rule's path among all rules, so checking a 150 KB profile of 9,000
// write rules (within the 10,000 limit) took 93 s of evaluation: sbc
// check and sbc compile failed it with "still running after 5s". Fixed:
// rules are indexed by path (policies/access.go), and the deny rules'
// paths are a set (lib.rego); deny globs are compiled once and stepped
// along the path (ir.Glob) instead of matched against each ancestor from
// the start. Now 3.5 s end to end, Landlock planning included.
//
// FINDING 7 (SBX007's advice): "add deny_globs = [...]" and SBX005's and
// SBX016's "deny_globs = [\"*.sbx.json\"]" named an attribute that does
// not exist: pasted into a profile, it is an error. Now deny_glob.
package policies

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/ir"
)

func rt29Engine(t *testing.T) *Engine {
	t.Helper()
	e, err := New(context.Background(), Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// rt29Check compiles src (one profile) and returns its findings' messages
// by code.
func rt29Check(t *testing.T, e *Engine, src string) map[string]string {
	t.Helper()
	res, ds := compiler.CompileSources([]compiler.Source{{Name: "p.hcl", Data: []byte(src)}})
	if ds.HasErrors() {
		t.Fatalf("%s: %v", src, ds)
	}
	r, err := e.Check(context.Background(), Input{Profile: res.Profiles[0], File: "p.hcl"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil {
		t.Fatalf("%.300s: %v", src, r.Err)
	}
	codes := map[string]string{}
	for _, f := range append(r.Failures, r.Warnings...) {
		codes[f.Code] += f.Message + "\n"
	}
	return codes
}

func rt29FS(body string) string {
	return "profile \"p\" {\n  filesystem {\n    read = [root]\n    protect = [\".git\"]\n" + body + "\n  }\n}\n"
}

func TestRT29SystemDirectoriesAbove(t *testing.T) {
	e := rt29Engine(t)
	for _, tc := range []struct {
		body string
		want bool
	}{
		{`write = ["/var"]`, true},
		{`write = ["/var/lib"]`, true},
		{`write = ["/var/cache"]`, true},
		{`write = ["/run"]`, true},
		{`write = ["/run/systemd/system"]`, true},
		{`write = ["/run/udev"]`, true},
		{`write = ["/run/user"]`, true},
		{`write = ["/run/user/1000"]`, true},
		{`write = ["/run/user/1000/systemd/user"]`, true},
		{`write = ["/proc"]`, true},
		{`write = ["/sys/kernel"]`, true},
		{`write = ["/dev"]`, true},
		{`write = ["/dev/sda"]`, true},
		{`write = ["/opt"]`, true},
		{`write = ["/srv"]`, true},
		// Held and controls.
		{`write = ["/var/spool"]`, true},
		{`write = ["/var/cache/build", "/var/tmp", "/opt/app", "/srv/www", "/dev/shm", "/dev/null", "/run/user/1000/app"]`, false},
		// A more specific rule narrows the one above again.
		{`write = ["/var/cache"]
    deny = ["/var/cache/debconf"]`, false},
		{`write = ["/var/lib"]
    deny = ["/var/lib/dpkg", "/var/lib/apt", "/var/lib/ucf", "/var/lib/rpm", "/var/lib/dnf", "/var/lib/yum", "/var/lib/pacman", "/var/lib/apk", "/var/lib/systemd", "/var/lib/polkit-1", "/var/lib/dbus", "/var/lib/pam", "/var/lib/sudo", "/var/lib/AccountsService"]`, false},
	} {
		got := rt29Check(t, e, rt29FS("    "+tc.body))["SBX001"]
		if (got != "") != tc.want {
			t.Errorf("%s: SBX001 %q, want reported %v", tc.body, got, tc.want)
		}
	}
	// The finding names what lies below.
	if got := rt29Check(t, e, rt29FS(`    write = ["/var/cache"]`))["SBX001"]; !strings.Contains(got, "/var/cache/debconf") {
		t.Errorf("SBX001 for /var/cache: %q", got)
	}
}

func TestRT29NameGlobsMatchAsDenyGlobs(t *testing.T) {
	e := rt29Engine(t)
	for _, tc := range []struct {
		globs, code string
		want        bool
	}{
		// "[!x]" is a class of "!" and "x" in a deny_glob: .git is not
		// denied, and the writable workspace's .git is exposed.
		{`"**/.gi[!x]"`, "SBX009", true},
		{`"**/.gi[^x]"`, "SBX009", false}, // a negated class: .git denied
		{`"**/.git"`, "SBX009", false},
		// "*" matches names with dots: everything is denied.
		{`"**/*"`, "SBX007", false},
		{`"**/.e?v", "**/.ss[!x]"`, "SBX007", true},
	} {
		src := "profile \"p\" {\n  filesystem {\n    read = [root]\n    write = [path(cwd, \"src\")]\n    deny_glob = [" + tc.globs + "]\n  }\n}\n"
		got := rt29Check(t, e, src)[tc.code]
		if (got != "") != tc.want {
			t.Errorf("deny_glob = [%s]: %s %q, want reported %v", tc.globs, tc.code, got, tc.want)
		}
	}
	// sbx.glob_match itself.
	rs, err := rego.New(rego.Query(`x := [sbx.glob_match("**/.gi[!x]", ".git"), sbx.glob_match("*", ".env"), sbx.glob_match("/home/**/*.pem", "/home/a/b.pem"), sbx.glob_match("/a/*", "/a/b/c"), sbx.glob_match("**/.gi[^x]", "/w/.git")]`),
		globMatchOption()).Eval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rs[0].Bindings["x"]); got != "[false true true false true]" {
		t.Errorf("sbx.glob_match: %s", got)
	}
}

func TestRT29DenyGlobAdviceCompiles(t *testing.T) {
	e := rt29Engine(t)
	msgs := rt29Check(t, e, "profile \"p\" {\n  filesystem {\n    read = [root]\n  }\n}\n")["SBX007"]
	m := regexp.MustCompile(`add (deny_glob = \[[^]]*\])`).FindStringSubmatch(msgs)
	if m == nil {
		t.Fatalf("no deny_glob advice in %q", msgs)
	}
	if got := rt29Check(t, e, "profile \"p\" {\n  filesystem {\n    read = [root]\n    "+m[1]+"\n  }\n}\n")["SBX007"]; strings.Contains(got, ".env files") {
		t.Errorf("after %s: %q", m[1], got)
	}
}

func TestRT29LargeProfileChecked(t *testing.T) {
	// A generous evaluation limit, and a bound on the time that the
	// quadratic evaluation (about 17 s for these 5,000 rules on the
	// 2-core development machine, 1 s now) exceeds even on a loaded one.
	e, err := New(context.Background(), Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "\"/d%d/e%d\",", i%100, i)
	}
	start := time.Now()
	codes := rt29Check(t, e, rt29FS("    write = ["+b.String()+"]"))
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("checking 5,000 write rules took %v", took)
	}
	if codes["SBX001"] != "" || codes["SBX009"] != "" {
		t.Errorf("findings: %v", codes)
	}
}

// rt29DecideLinear is sbx.access's decision before red team 29: a scan of
// every rule. The indexed one must agree with it.
func rt29DecideLinear(m *fsModel, anchor, rel string, skipExact bool) int {
	best := -1
	for i, r := range m.rules {
		if r.anchor != anchor || !within(rel, r.rel) || (skipExact && r.rel == rel) {
			continue
		}
		if best < 0 || better(r, m.rules[best], i, best) {
			best = i
		}
	}
	if best >= 0 || anchor == "root" || skipExact {
		return best
	}
	for i, r := range m.rules {
		if r.anchor != "root" || r.rel != "" {
			continue
		}
		if best < 0 || better(r, m.rules[best], i, best) {
			best = i
		}
	}
	return best
}

// rt29GlobLinear is sbx.access's glob matching before red team 29: each
// ancestor matched from the start.
func rt29GlobLinear(m *fsModel, anchor, rel string) int {
	var prefixes []string
	if rel != "" {
		parts := strings.Split(rel, "/")
		for j := 1; j <= len(parts); j++ {
			prefixes = append(prefixes, "/"+strings.Join(parts[:j], "/"))
		}
	}
	for gi, pat := range m.globs {
		var bound string
		switch {
		case strings.HasPrefix(pat, "{"):
			end := strings.IndexByte(pat, '}')
			if end < 0 || pat[1:end] != anchor {
				continue
			}
			rest := strings.TrimPrefix(pat[end+1:], "/")
			if rest == "" {
				return gi
			}
			bound = "/" + rest
		case strings.HasPrefix(pat, "/"):
			if anchor != "root" && pat != "/**" && !strings.HasPrefix(pat, "/**/") {
				continue
			}
			bound = pat
		case strings.HasPrefix(pat, "**/") || pat == "**":
			bound = "/" + pat
		default:
			bound = "/**/" + pat
		}
		for _, p := range prefixes {
			if ir.MatchGlob(bound, p) {
				return gi
			}
		}
	}
	return -1
}

func TestRT29DecideIndexedAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(29))
	names := []string{"a", "b", "ab", ".git", "a.b"}
	relOf := func() string {
		var parts []string
		for range rng.Intn(4) {
			parts = append(parts, names[rng.Intn(len(names))])
		}
		return strings.Join(parts, "/")
	}
	anchors := []string{"root", "home", "cwd"}
	accesses := []string{"read", "write", "deny"}
	for iter := range 2000 {
		var rules []map[string]any
		for k := range rng.Intn(12) {
			file := "p.hcl"
			if rng.Intn(3) == 0 {
				file = "builtin:x.hcl"
			}
			rules = append(rules, map[string]any{
				"path":   map[string]any{"anchor": anchors[rng.Intn(3)], "rel": relOf()},
				"access": accesses[rng.Intn(3)],
				"source": map[string]any{"filename": file, "start": map[string]any{"line": k + 1}},
			})
		}
		fs := map[string]any{"rules": rules}
		patterns := []string{"**/a", "a*", "**/.git", "{cwd}", "{home}/a/**", "/a/*", "/**/b", "/**", "**", "{cwd}/a?", "/a/**/b", "{root}/x", "[ab]b", "**/a/b", "{home}/**/a.b"}
		var globs []any
		for range rng.Intn(4) {
			globs = append(globs, map[string]any{"pattern": patterns[rng.Intn(len(patterns))]})
		}
		fs["deny_globs"] = globs
		if rng.Intn(2) == 0 {
			fs["protect"] = []any{map[string]any{"name": ".git", "source": map[string]any{"filename": "p.hcl"}}}
		}
		raw, _ := json.Marshal(fs)
		v, err := ast.ValueFromReader(strings.NewReader(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		m, err := parseFS(v)
		if err != nil {
			t.Fatal(err)
		}
		for range 40 {
			anchor, rel, skip := anchors[rng.Intn(3)], relOf(), rng.Intn(2) == 0
			if got, want := m.decide(anchor, rel, skip), rt29DecideLinear(m, anchor, rel, skip); got != want {
				t.Fatalf("iteration %d: %s\ndecide(%s, %q, %v) = %d, want %d", iter, raw, anchor, rel, skip, got, want)
			}
			if got, want := m.glob(anchor, rel), rt29GlobLinear(m, anchor, rel); got != want {
				t.Fatalf("iteration %d: %s\nglob(%s, %q) = %d, want %d", iter, raw, anchor, rel, got, want)
			}
		}
	}
}

// FINDING 10 (SBX003): what the distributions' default start-up files run
// passed: write = ["{home}/.bash_aliases"] (Debian's and Ubuntu's .bashrc
// sources it), ["{home}/.bashrc.d"] (Fedora's sources every file in it),
// ["{home}/.bash_completion"] and ["{home}/.local/share/bash-completion"]
// (bash-completion sources and loads them), ["{home}/.xinitrc"],
// ["{home}/.xsession"], KDE Plasma's autostart scripts and environment
// scripts, user units in ["{home}/.local/share/systemd/user"] and
// PowerShell's profile. Fixed: they are in SBX003's list.
func TestRT29StartupFilesOfDefaults(t *testing.T) {
	e := rt29Engine(t)
	for _, p := range []string{
		`"{home}/.bash_aliases"`, `"{home}/.bashrc.d"`, `"{home}/.bashrc.d/x.sh"`, `"{home}/.bash_completion"`,
		`"{home}/.local/share/bash-completion/completions"`, `"{home}/.local/share"`, `"{home}/.xinitrc"`,
		`"{home}/.xsession"`, `"{home}/.config/autostart-scripts"`, `"{home}/.config/plasma-workspace/env/x.sh"`,
		`"{home}/.local/share/systemd/user/x.service"`, `"{home}/.config/powershell"`, `"/home/alice/.bash_aliases"`,
	} {
		if got := rt29Check(t, e, rt29FS("    write = ["+p+"]"))["SBX003"]; got == "" {
			t.Errorf("write = [%s]: no SBX003", p)
		}
	}
	// Controls.
	for _, p := range []string{`"{home}/.cache/go-build"`, `"{home}/.local/share/virtualenvs"`, `"{home}/.bash_history"`} {
		if got := rt29Check(t, e, rt29FS("    write = ["+p+"]"))["SBX003"]; got != "" {
			t.Errorf("write = [%s]: SBX003 %q", p, got)
		}
	}
}

// FINDING 11 (SBX015): the README names D-Bus's socket beside Docker's as
// the classic escape, but SBX015 knew neither bus: unix_sockets =
// ["/run/user/1000/bus"] (the session bus, whose clients have the user's
// systemd start any command outside the sandbox: systemd-run --user) and
// ["/run/dbus/system_bus_socket"] passed, while systemd's private socket
// was reported. Fixed in policies/builtin/network.rego.
func TestRT29DBusSockets(t *testing.T) {
	e := rt29Engine(t)
	for _, c := range []struct {
		sock string
		want bool
	}{
		{"/run/user/1000/bus", true},
		{"/run/dbus/system_bus_socket", true},
		{"/var/run/dbus/system_bus_socket", true},
		{"/run/user/1000/gnupg/S.gpg-agent", false},
		{"/run/user/1000/bus/x", false},
		{"/tmp/bus", false},
	} {
		src := "profile \"p\" {\n  filesystem {\n    read = [path(root, \"usr\")]\n  }\n  network {\n    unix_sockets = [\"" + c.sock + "\"]\n  }\n}\n"
		got := rt29Check(t, e, src)["SBX015"]
		if (got != "") != c.want {
			t.Errorf("%s: SBX015 %q, want reported %v", c.sock, got, c.want)
		}
	}
}

// FINDING 12 (SBX007, one home by its path): read = ["/home/alice"] (or
// "/Users/alice") made that user's ~/.ssh, ~/.aws, ... readable without a
// warning, though SBX002 takes /home/NAME for a home (red team 28) and
// SBX007 reports /home and /root; and /root was judged by name globs only,
// so denying /root/.ssh and the rest by path still warned. Fixed in
// policies/builtin/secrets.rego: such a home's credentials are looked up
// like {home}'s.
func TestRT29OneHomeByPathSecrets(t *testing.T) {
	e := rt29Engine(t)
	var denyAll []string
	for _, s := range []string{".ssh", ".aws", ".gnupg", ".config/gcloud", ".kube", ".docker/config.json", ".azure", ".config/gh", ".git-credentials", ".netrc", ".npmrc", ".pypirc",
		// Red team 29 (compiler), rt29b_test.go: the credential stores added since.
		".cargo/credentials", ".cargo/credentials.toml", ".terraform.d/credentials.tfrc.json", ".vault-token", ".mozilla/firefox", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware", "Library/Application Support/Google/Chrome", "Library/Application Support/Firefox", "Library/Application Support/BraveSoftware"} {
		denyAll = append(denyAll, `"/root/`+s+`"`)
	}
	for _, c := range []struct {
		body string
		want string // a substring of SBX007's messages, or "" for none
	}{
		{`read = [path(root, "home", "alice")]`, "/home/alice/.ssh (SSH private keys)"},
		{`read = ["/Users/alice"]`, "/Users/alice/.aws (AWS credentials)"},
		{`read = ["/root"]`, "/root/.ssh (SSH private keys)"},
		{`read = ["/root"]
    deny = [` + strings.Join(denyAll, ", ") + `]`, ""},
		{`read = ["/home/alice/src"]`, ""},
	} {
		src := "profile \"p\" {\n  filesystem {\n    " + c.body + "\n  }\n}\n"
		got := rt29Check(t, e, src)["SBX007"]
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: SBX007 %q, want %q", c.body, got, c.want)
		}
	}
}
