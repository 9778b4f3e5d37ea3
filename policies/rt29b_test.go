// Red team pass 29 (compiler), the two false negatives it left open, fixed
// on branch rt29comp2. Each test failed before its fix. Run:
// go test -count=1 ./policies -run 'TestRT29b' -v
//
// max_depth: deny_globs counted for the built-in rules whatever their
// max_depth. With read = [root], deny_glob = [{ pattern = "**/.ssh",
// max_depth = 1 }] masks no home's keys on Linux (the scan counts from
// "/", and ~/.ssh is 3 names below it), yet SBX007 was silent for
// {home}/.ssh. Fixed in sbx.access (policies/access.go): a deny_glob's
// match counts only where the scan reaches it, as targets/landlock
// counts; and in data.sbx.lib.name_glob_denied_within for every user's
// home read whole (read = ["/home"]).
//
// Credential list: SBX007 did not know Cargo's and Terraform's tokens,
// Vault's token or browsers' profiles (cookies, saved passwords). Added in
// policies/builtin/secrets.rego.
package policies

import (
	"fmt"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

func rt29bValue(t *testing.T, s string) ast.Value {
	t.Helper()
	v, err := ast.ParseTerm(s)
	if err != nil {
		t.Fatal(err)
	}
	return v.Value
}

func rt29bProfile(body string) string {
	return "profile \"p\" {\n  filesystem {\n    " + body + "\n  }\n}\n"
}

// TestRT29bMaxDepthCounts: a deny_glob that cannot reach a credential
// store when sbx runs does not protect it; one that can, or has no
// max_depth to speak of (the default, 8), does.
func TestRT29bMaxDepthCounts(t *testing.T) {
	e := rt29Engine(t)
	for _, c := range []struct {
		body     string
		store    string // a credential store, as SBX007 names it
		readable bool   // whether SBX007 is to name it
	}{
		// Counted from "/": {home}/.ssh is 3 names below it in /home/NAME.
		{`read = [root]
    deny_glob = [{ pattern = "**/.ssh", max_depth = 1 }]`, "{home}/.ssh (SSH private keys)", true},
		{`read = [root]
    deny_glob = [{ pattern = "**/.ssh", max_depth = 2 }]`, "{home}/.ssh (SSH private keys)", true},
		{`read = [root]
    deny_glob = [{ pattern = "**/.ssh", max_depth = 3 }]`, "{home}/.ssh (SSH private keys)", false},
		{`read = [root]
    deny_glob = ["**/.ssh"]`, "{home}/.ssh (SSH private keys)", false}, // the default, 8
		{`read = [root]
    deny_glob = [{ pattern = "/**/.ssh", max_depth = 2 }]`, "{home}/.ssh (SSH private keys)", true},
		{`read = [root]
    deny_glob = [{ pattern = "/**/.ssh", max_depth = 3 }]`, "{home}/.ssh (SSH private keys)", false},
		{`read = [root]
    deny_glob = [{ pattern = "**/config.json", max_depth = 3 }]`, "{home}/.docker/config.json", true},
		{`read = [root]
    deny_glob = [{ pattern = "**/config.json", max_depth = 4 }]`, "{home}/.docker/config.json", false},
		// {home} readable is a root of its own: the scan counts from it.
		{`read = [root, home]
    deny_glob = [{ pattern = "**/.ssh", max_depth = 1 }]`, "{home}/.ssh (SSH private keys)", false},
		{`read = [home]
    deny_glob = [{ pattern = "**/.ssh", max_depth = 1 }]`, "{home}/.ssh (SSH private keys)", false},
		{`read = [home]
    deny_glob = [{ pattern = "**/config.json", max_depth = 1 }]`, "{home}/.docker/config.json", true},
		// Anchored: counted from the pattern's anchor.
		{`read = [root]
    deny_glob = [{ pattern = "{home}/**/.ssh", max_depth = 1 }]`, "{home}/.ssh (SSH private keys)", false},
		{`read = [root]
    deny_glob = [{ pattern = "{home}/.ssh", max_depth = 1 }]`, "{home}/.ssh (SSH private keys)", false},
		{`read = [root]
    deny_glob = [{ pattern = "{home}/**/config.json", max_depth = 1 }]`, "{home}/.docker/config.json", true},
		{`read = [root]
    deny_glob = [{ pattern = "{home}/**/config.json", max_depth = 2 }]`, "{home}/.docker/config.json", false},
		// A rule's own path a glob matches is denied whatever max_depth says.
		{`read = [root, "~/.ssh"]
    deny_glob = [{ pattern = "**/.ssh", max_depth = 1 }]`, "{home}/.ssh (SSH private keys)", false},
		// One user's home by its path: /home/alice/.ssh is 1 below that root.
		{`read = ["/home/alice"]
    deny_glob = [{ pattern = "**/.ssh", max_depth = 1 }]`, "/home/alice/.ssh (SSH private keys)", false},
		{`read = ["/home/alice"]
    deny_glob = [{ pattern = "/home/*/.ssh", max_depth = 1 }]`, "/home/alice/.ssh (SSH private keys)", true},
		{`read = ["/home/alice"]
    deny_glob = [{ pattern = "/home/*/.ssh", max_depth = 2 }]`, "/home/alice/.ssh (SSH private keys)", false},
		// Every user's home: /home/NAME/.ssh is 2 below /home, 3 below "/".
		{`read = ["/home"]
    deny_glob = [{ pattern = "**/.ssh", max_depth = 1 }]`, " .ssh (SSH private keys)", true},
		{`read = ["/home"]
    deny_glob = [{ pattern = "**/.ssh", max_depth = 2 }]`, " .ssh (SSH private keys)", false},
		{`read = ["/Users"]
    deny_glob = [{ pattern = "/**/.ssh", max_depth = 2 }]`, " .ssh (SSH private keys)", true},
		{`read = ["/Users"]
    deny_glob = [{ pattern = "/**/.ssh", max_depth = 3 }]`, " .ssh (SSH private keys)", false},
	} {
		got := rt29Check(t, e, rt29bProfile(c.body))["SBX007"]
		if strings.Contains(got, c.store) != c.readable {
			t.Errorf("%s: SBX007 %q; want %q named: %v", c.body, got, c.store, c.readable)
		}
	}
}

// TestRT29bMaxDepthAccess asks sbx.access's model directly: the glob index
// is -1 where the glob cannot reach the path.
func TestRT29bMaxDepthAccess(t *testing.T) {
	for _, c := range []struct {
		rules  [][3]string // anchor, rel, access
		glob   string
		depth  int
		anchor string
		rel    string
		want   int
	}{
		{[][3]string{{"root", "", "read"}}, "**/.ssh", 1, "home", ".ssh", -1},
		{[][3]string{{"root", "", "read"}}, "**/.ssh", 3, "home", ".ssh", 0},
		{[][3]string{{"root", "", "read"}}, "**/.ssh", 0, "home", ".ssh", 0}, // no max_depth: as before
		{[][3]string{{"root", "", "read"}}, "**/.ssh", 1, "root", ".ssh", 0},
		{[][3]string{{"root", "", "read"}}, "**/.ssh", 1, "root", "home/a/.ssh", -1},
		{[][3]string{{"root", "", "read"}}, "**/.ssh", 3, "root", "home/a/.ssh/id", 0},
		{[][3]string{{"root", "", "read"}, {"root", "home/a", "read"}}, "**/.ssh", 1, "root", "home/a/.ssh", 0},
		{[][3]string{{"root", "", "read"}}, "/home/*/.ssh", 1, "root", "home/a/.ssh", -1},
		{[][3]string{{"root", "", "read"}}, "/home/*/.ssh", 2, "root", "home/a/.ssh", 0},
		{[][3]string{{"cwd", "", "write"}}, "*.pem", 1, "cwd", "a/b.pem", -1},
		{[][3]string{{"cwd", "", "write"}}, "*.pem", 2, "cwd", "a/b.pem", 0},
		{[][3]string{{"cwd", "", "write"}, {"cwd", "a", "read"}}, "*.pem", 1, "cwd", "a/b.pem", 0},
		{[][3]string{{"cwd", "", "write"}, {"cwd", "a/b.pem", "read"}}, "*.pem", 1, "cwd", "a/b.pem", 0},
		{[][3]string{{"cwd", "", "write"}, {"cwd", "a", "deny"}}, "*.pem", 1, "cwd", "a/b.pem", -1},
	} {
		var rules []string
		for _, r := range c.rules {
			rules = append(rules, `{"path": {"anchor": "`+r[0]+`", "rel": "`+r[1]+`"}, "access": "`+r[2]+`"}`)
		}
		g := `{"pattern": "` + c.glob + `"}`
		if c.depth > 0 {
			g = `{"pattern": "` + c.glob + `", "max_depth": ` + fmt.Sprint(c.depth) + `}`
		}
		fs := `{"rules": [` + strings.Join(rules, ", ") + `], "deny_globs": [` + g + `]}`
		m, err := parseFS(rt29bValue(t, fs))
		if err != nil {
			t.Fatal(err)
		}
		if got := m.glob(c.anchor, c.rel); got != c.want {
			t.Errorf("%v %s max_depth %d, {%s}/%s: glob %d, want %d", c.rules, c.glob, c.depth, c.anchor, c.rel, got, c.want)
		}
	}
}

// TestRT29bCredentialStores: the stores SBX007 did not know, in {home}
// and in one home by its path, and denying them silences it.
func TestRT29bCredentialStores(t *testing.T) {
	e := rt29Engine(t)
	stores := []struct{ path, what string }{
		{".cargo/credentials", "Cargo registry tokens"},
		{".cargo/credentials.toml", "Cargo registry tokens"},
		{".terraform.d/credentials.tfrc.json", "Terraform tokens"},
		{".vault-token", "Vault token"},
		{".mozilla/firefox", "Firefox cookies and passwords"},
		{".config/google-chrome", "Chrome cookies and passwords"},
		{".config/chromium", "Chromium cookies and passwords"},
		{".config/BraveSoftware", "Brave cookies and passwords"},
		{"Library/Application Support/Google/Chrome", "Chrome cookies and passwords"},
		{"Library/Application Support/Firefox", "Firefox cookies and passwords"},
		{"Library/Application Support/BraveSoftware", "Brave cookies and passwords"},
	}
	for _, c := range []struct{ read, prefix string }{{"root", "{home}/"}, {"home", "{home}/"}, {`"/home/alice"`, "/home/alice/"}} {
		got := rt29Check(t, e, rt29bProfile("read = ["+c.read+"]"))["SBX007"]
		for _, s := range stores {
			if want := c.prefix + s.path + " (" + s.what + ")"; !strings.Contains(got, want) {
				t.Errorf("read = [%s]: SBX007 %q, want %q", c.read, got, want)
			}
		}
	}
	// Every user's home read whole: named as stores no name glob denies.
	got := rt29Check(t, e, rt29bProfile(`read = ["/home"]`))["SBX007"]
	for _, s := range stores {
		if want := s.path + " (" + s.what + ")"; !strings.Contains(got, want) {
			t.Errorf(`read = ["/home"]: SBX007 %q, want %q`, got, want)
		}
	}
	// Denying them (and only them: the rest of ~/.cargo and ~/.config
	// stays readable) leaves them unmentioned.
	var deny []string
	for _, s := range stores {
		deny = append(deny, `"~/`+s.path+`"`)
	}
	got = rt29Check(t, e, rt29bProfile("read = [root]\n    deny = ["+strings.Join(deny, ", ")+"]"))["SBX007"]
	for _, s := range stores {
		if strings.Contains(got, s.path) {
			t.Errorf("denied %s still reported: %q", s.path, got)
		}
	}
	// Neighbours that hold no secret are not reported.
	got = rt29Check(t, e, rt29bProfile("read = [root]\n    deny = [\"~/.ssh\"]"))["SBX007"]
	for _, n := range []string{".cargo/registry", ".cargo)", ".terraform.d/plugins", ".config/Code", ".mozilla)"} {
		if strings.Contains(got, n) {
			t.Errorf("%s reported: %q", n, got)
		}
	}
}
