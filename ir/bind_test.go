package ir

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func mustPath(t *testing.T, s string) Path {
	t.Helper()
	p, err := ParsePath(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func rule(t *testing.T, acc Access, s string, line int) PathRule {
	return PathRule{Path: mustPath(t, s), Access: acc, Source: Range{Filename: "t.hcl", Start: Pos{Line: line, Column: 1}}}
}

var testBindings = Bindings{
	AnchorCwd:      {"/work/proj"},
	AnchorHome:     {"/home/u"},
	AnchorTmpdir:   {"/tmp"},
	AnchorSlashTmp: {"/tmp"},
	AnchorPlatform: {"/usr", "/etc"},
}

func TestAccessSemantics(t *testing.T) {
	p := &Profile{Name: "t", Network: Network{Mode: NetworkNone}}
	p.Filesystem.Rules = []PathRule{
		rule(t, Read, "/", 1),
		rule(t, Write, "{cwd}", 2),
		rule(t, Read, "{cwd}/vendor", 3),             // read-only inside writable
		rule(t, Write, "{cwd}/vendor/cache", 4),      // reopened writable descendant
		rule(t, Deny, "{home}/.ssh", 5),              // denied inside readable
		rule(t, Deny, "{cwd}/.env", 6),               // denied inside writable
		rule(t, Write, "{tmpdir}", 7),                // tmpdir and slash_tmp bind to the same path:
		rule(t, Read, "{slash_tmp}", 8),              // at equal specificity write beats read
		rule(t, Deny, "/srv/x", 9),                   // deny beats write at equal specificity
		rule(t, Write, "/srv/x", 10),                 //
		rule(t, Read, "{platform_defaults}", 11),     // several bindings
		rule(t, Write, "{cwd}/vendor/cache/a/b", 12), // deeper still
	}
	p.Filesystem.Protect = []ProtectRule{{Name: ".git", Source: Range{Filename: "t.hcl", Start: Pos{Line: 13}}}}
	p.Filesystem.DenyGlobs = []GlobRule{{Pattern: "**/*.pem", MaxDepth: 8}, {Pattern: "{home}/.config/*/token"}}
	bd, err := p.Bind(testBindings)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want Access
		line int // deciding rule's line, 0 for none / glob
	}{
		{"/", Read, 1},
		{"/etc/passwd", Read, 11},
		{"/work", Read, 1},
		{"/work/proj", Write, 2},
		{"/work/proj/src/main.go", Write, 2},
		{"/work/proj/vendor", Read, 3},
		{"/work/proj/vendor/x/y", Read, 3},
		{"/work/proj/vendor/cache", Write, 4},
		{"/work/proj/vendor/cache/z", Write, 4},
		{"/work/proj/vendor/cache/a/b/c", Write, 12},
		{"/work/proj/vendorx", Write, 2}, // sibling with a common prefix is not inside vendor
		{"/home/u/.ssh", Deny, 5},
		{"/home/u/.ssh/id_rsa", Deny, 5},
		{"/home/u/.sshx", Read, 1},
		{"/work/proj/.env", Deny, 6},
		{"/work/proj/.git", Read, 13},        // protected name under the writable cwd
		{"/work/proj/.git/config", Read, 13}, //
		{"/tmp/.git", Read, 13},              // protect applies under every writable root
		{"/tmp/x", Write, 7},
		{"/srv/x/y", Deny, 9},
		{"/work/proj/key.pem", Deny, 0},
		{"/home/u/.config/gh/token", Deny, 0},
		{"/home/u/.config/gh/token/inner", Deny, 0}, // a glob-denied directory denies its subtree
		{"/home/u/.config/gh/other", Read, 1},
	}
	for _, c := range cases {
		got, r, _ := bd.Access(c.path)
		if got != c.want {
			t.Errorf("Access(%s) = %v, want %v", c.path, got, c.want)
			continue
		}
		line := 0
		if r != nil {
			line = r.Source.Start.Line
		}
		if line != c.line {
			t.Errorf("Access(%s) decided by line %d, want %d", c.path, line, c.line)
		}
	}
}

func TestNoRuleDenies(t *testing.T) {
	p := &Profile{Name: "empty", Network: Network{Mode: NetworkNone}}
	if a, err := p.Access("/etc/passwd", testBindings); err != nil || a != Deny {
		t.Fatalf("empty profile gives %v, %v; want deny", a, err)
	}
}

func TestBindUnknownAnchor(t *testing.T) {
	p := &Profile{Name: "t", Network: Network{Mode: NetworkNone}}
	p.Filesystem.Rules = []PathRule{rule(t, Write, "{xdg_cache}/x", 1), rule(t, Read, "/", 2)}
	bd, err := p.Bind(testBindings)
	if err != nil {
		t.Fatal(err)
	}
	if len(bd.Dropped) != 1 || !strings.Contains(bd.Dropped[0].Rule, "xdg_cache") {
		t.Fatalf("dropped = %+v", bd.Dropped)
	}
	// An unknown anchor in a deny rule must not be ignored: that would grant
	// more than the profile says.
	p.Filesystem.Rules = append(p.Filesystem.Rules, rule(t, Deny, "{xdg_secrets}", 3))
	if _, err := p.Bind(testBindings); !errors.Is(err, ErrUnbound) {
		t.Fatalf("Bind with unbound deny: err = %v, want ErrUnbound", err)
	}
}

func TestParsePath(t *testing.T) {
	cases := []struct {
		in      string
		want    Path
		wantErr string
	}{
		{"/", Path{Anchor: AnchorRoot}, ""},
		{"/var//cache/./build/", Path{Anchor: AnchorRoot, Rel: "var/cache/build"}, ""},
		{"{cwd}", Path{Anchor: AnchorCwd}, ""},
		{"{home}/.ssh", Path{Anchor: AnchorHome, Rel: ".ssh"}, ""},
		{"relative/x", Path{}, "relative"},
		{"/a/../b", Path{}, ".."},
		{"{cwd", Path{}, "unterminated"},
		{"{cwd}x", Path{}, "followed by"},
	}
	for _, c := range cases {
		got, err := ParsePath(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParsePath(%q) err = %v, want containing %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParsePath(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		if back, _ := ParsePath(got.String()); back != got {
			t.Errorf("round trip of %q: %+v", c.in, back)
		}
	}
}

func TestEnvBuild(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "AWS_SECRET_ACCESS_KEY=s", "AWS_REGION=r", "LC_ALL=C", "FOO=bar", "broken"}
	cases := []struct {
		env  Env
		want string
	}{
		{Env{}, "HOME=/h LC_ALL=C PATH=/bin"},
		{Env{Inherit: EnvInheritNone, Set: []EnvVar{{"CI", "1"}}}, "CI=1"},
		{Env{Inherit: EnvInheritAll, Unset: []string{"AWS_*"}}, "FOO=bar HOME=/h LC_ALL=C PATH=/bin"},
		{Env{Inherit: EnvInheritAll, Unset: []string{"AWS_SECRET_ACCESS_KEY"}, Set: []EnvVar{{"PATH", "/usr/bin"}}}, "AWS_REGION=r FOO=bar HOME=/h LC_ALL=C PATH=/usr/bin"},
	}
	for _, c := range cases {
		if got := strings.Join(c.env.Build(environ), " "); got != c.want {
			t.Errorf("%+v.Build = %q, want %q", c.env, got, c.want)
		}
	}
}

// TestMatchGlob checks MatchGlob, and the compiled Glob stepped a name at a
// time (what the deny_glob scan uses), on the same cases.
func TestMatchGlob(t *testing.T) {
	cases := []struct {
		pat, name string
		want      bool
	}{
		{"/**/*.pem", "/a.pem", true},
		{"/**/*.pem", "/x/y/z/a.pem", true},
		{"/**/*.pem", "/x/y/z/a.pem.bak", false},
		{"/**/*.pem", "/", false},
		{"/home/u/**", "/home/u", true},
		{"/home/u/**/secret", "/home/u/secret", true},
		{"/home/u/*/secret", "/home/u/secret", false},
		{"/home/u/id_*", "/home/u/id_rsa", true},
		{"/home/u/id_*", "/home/u/xid_rsa", false},
		{"/a/?/c", "/a/b/c", true},
		{"/a/[bc]/d", "/a/c/d", true},
		{"/a/[bc]/d", "/a/e/d", false},
		{"/a/\\*", "/a/*", true},
		{"/a/\\*", "/a/b", false},
		{"/a/b\\*", "/a/b*", true},
		{"/a/b\\*", "/a/bc", false},
		{"/**/**/x", "/x", true},
		{"/", "/", true},
		{"/**", "/", true},
	}
	for _, c := range cases {
		if got := MatchGlob(c.pat, c.name); got != c.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", c.pat, c.name, got, c.want)
		}
		g, ok := CompileGlob(c.pat)
		if !ok {
			t.Fatalf("CompileGlob(%q) failed", c.pat)
		}
		if got := g.Match(g.State(c.name)); got != c.want {
			t.Errorf("Glob(%q) on %q = %v, want %v", c.pat, c.name, got, c.want)
		}
	}
}

// TestGlobDeadState: a prefix no extension can match is an empty state,
// which lets a walk stop descending; a pattern of more than 63 names does
// not compile (MatchGlob answers it).
func TestGlobDeadState(t *testing.T) {
	g, _ := CompileGlob("/ws/src/*.key")
	if s := g.State("/ws/doc"); s != 0 {
		t.Errorf("state of /ws/doc under /ws/src/*.key = %b, want empty", s)
	}
	if s := g.State("/ws/src"); s == 0 {
		t.Errorf("state of /ws/src under /ws/src/*.key is empty")
	}
	if _, ok := CompileGlob("/" + strings.Repeat("a/", 64) + "b"); ok {
		t.Errorf("CompileGlob accepted 65 names")
	}
}

// TestEscapeGlob: an anchor's path bound into a deny glob is literal: the
// pattern matches below it whatever its name holds (red team 22), and
// GlobLiteral reads the escaped component back.
func TestEscapeGlob(t *testing.T) {
	for _, dir := range []string{"/w/p[1]/ws", "/w/a*b", "/w/q?", `/w/back\slash`, "/w/plain", "/w/[x]/**"} {
		pat := JoinAbs(EscapeGlob(dir), "**/*.pem")
		if !MatchGlob(pat, dir+"/k.pem") || !MatchGlob(pat, dir+"/a/b/k.pem") {
			t.Errorf("%s: %q does not match below it", dir, pat)
		}
		if MatchGlob(pat, "/w/p1/ws/k.pem") && dir != "/w/p1/ws" {
			t.Errorf("%s: %q matches another directory", dir, pat)
		}
		for _, c := range splitAbs(EscapeGlob(dir)) {
			if name, ok := GlobLiteral(c); !ok || !slices.Contains(splitAbs(dir), name) {
				t.Errorf("%s: component %q read back as %q %v", dir, c, name, ok)
			}
		}
	}
	for _, c := range []string{"*", "a?", "[ab]", `x\`, "**"} {
		if _, ok := GlobLiteral(c); ok {
			t.Errorf("%q read as a literal", c)
		}
	}
}

// TestProtectedBetween: protected names go into every writable directory
// strictly between a writable root and one nested in it, not into
// directories the rules deny or make read-only, and not above a write
// rule on a file (red team 25: a .git planted above the workspace).
func TestProtectedBetween(t *testing.T) {
	w := func(p string) BoundRule {
		return BoundRule{Path: p, Access: Write, Origin: OriginRule, Symbolic: Path{Anchor: "root", Rel: strings.TrimPrefix(p, "/")}}
	}
	r := func(p string, a Access) BoundRule { return BoundRule{Path: p, Access: a, Origin: OriginRule} }
	protect := []ProtectRule{{Name: ".git"}}
	for _, c := range []struct {
		name  string
		rules []BoundRule
		files []string
		want  []string
	}{
		{"nested", []BoundRule{w("/tmp"), w("/tmp/a/b/ws")}, nil, []string{"/tmp/a/.git", "/tmp/a/b/.git"}},
		{"directly nested", []BoundRule{w("/tmp"), w("/tmp/ws")}, nil, nil},
		{"not nested", []BoundRule{w("/tmp/a"), w("/var/ws")}, nil, nil},
		{"a denied directory between", []BoundRule{w("/tmp"), r("/tmp/a", Deny), w("/tmp/a/b/ws")}, nil, nil},
		{"a read-only directory between", []BoundRule{w("/tmp"), r("/tmp/a/b", Read), w("/tmp/a/b/c/ws")}, nil, []string{"/tmp/a/.git"}},
		{"a file rule", []BoundRule{w("/tmp"), w("/tmp/a/f.txt")}, []string{"/tmp/a/f.txt"}, nil},
		{"the root overridden", []BoundRule{w("/tmp"), r("/tmp", Deny), w("/tmp/a/ws")}, nil, nil},
	} {
		bd := &Bound{Rules: append([]BoundRule(nil), c.rules...)}
		var got []string
		for _, x := range bd.ProtectedBetween(protect, func(p string) bool { return slices.Contains(c.files, p) }) {
			if x.Origin == OriginProtect {
				if x.Access != Read || !strings.HasSuffix(x.Symbolic.Rel, "/.git") {
					t.Errorf("%s: %+v: want a read rule whose symbolic path ends in the name", c.name, x)
				}
				got = append(got, x.Path)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: protected %v, want %v", c.name, got, c.want)
		}
	}
}
