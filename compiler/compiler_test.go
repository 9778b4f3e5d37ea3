package compiler

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
)

// compile compiles one inline source and fails the test on errors.
func compile(t *testing.T, src string) *Result {
	t.Helper()
	res, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte(src)}})
	if ds.HasErrors() {
		t.Fatalf("unexpected errors:\n%v", ds)
	}
	return res
}

// one compiles a source with a single profile and returns it.
func one(t *testing.T, src string) *ir.Profile {
	t.Helper()
	res := compile(t, src)
	if len(res.Profiles) != 1 {
		t.Fatalf("got %d profiles", len(res.Profiles))
	}
	return res.Profiles[0]
}

func rules(p *ir.Profile) []string {
	var out []string
	for _, r := range p.Filesystem.Rules {
		out = append(out, r.Access.String()+" "+r.Path.String())
	}
	slices.Sort(out)
	return out
}

func TestPathForms(t *testing.T) {
	cases := []struct{ expr, want string }{
		{`root`, "/"},
		{`"/"`, "/"},
		{`"/var/cache/build/"`, "/var/cache/build"},
		{`"//var///cache/./build"`, "/var/cache/build"},
		{`cwd`, "{cwd}"},
		{`home`, "{home}"},
		{`tmpdir`, "{tmpdir}"},
		{`slash_tmp`, "{slash_tmp}"},
		{`platform_defaults`, "{platform_defaults}"},
		{`"~"`, "{home}"},
		{`"~/"`, "{home}"},
		{`"~/.ssh/"`, "{home}/.ssh"},
		{`"{cwd}/x/"`, "{cwd}/x"},
		{`"{root}/etc"`, "/etc"},
		{`"${cwd}/x"`, "{cwd}/x"},
		{`path(cwd, ".env")`, "{cwd}/.env"},
		{`path(cwd, "a/", "/b" == "" ? "" : "b")`, "{cwd}/a/b"},
		{`path(root, "etc")`, "/etc"},
		{`path("/opt", "tool")`, "/opt/tool"},
		{`path(home)`, "{home}"},
		{`"/a b/ünï"`, "/a b/ünï"},
		{`"/x/~"`, "/x/~"},
	}
	for _, c := range cases {
		p := one(t, fmt.Sprintf("profile \"p\" {\n filesystem {\n read = [%s]\n }\n}\n", c.expr))
		if got := p.Filesystem.Rules[0].Path.String(); got != c.want {
			t.Errorf("%s: got %s, want %s", c.expr, got, c.want)
		}
	}
}

func TestPathErrors(t *testing.T) {
	cases := []struct{ expr, code string }{
		{`"relative"`, "relative-path"},
		{`"./x"`, "relative-path"},
		{`""`, "invalid-path"},
		{`"C:/Windows"`, "relative-path"},
		{`"/a/../b"`, "dotdot-path"},
		{`path(cwd, "..")`, "dotdot-path"},
		{`"/a/*"`, "glob-in-rule"},
		{`"/a/?"`, "glob-in-rule"},
		{`"/a/[x]"`, "glob-in-rule"},
		{`"{cwd"`, "invalid-path"},
		{`"{cwd}x"`, "invalid-path"},
		{`"{}/x"`, "invalid-path"},
		{`"{a/b}/x"`, "invalid-path"},
		{`"~bob"`, "invalid-path"},
		{`"/a/{cwd}"`, "invalid-path"},
		{`"/a\u0000b"`, "invalid-path"},
		{`path(platform_defaults, "x")`, "invalid-path"},
		{`path(cwd, "/abs")`, "expression"},
		{`path(cwd, null)`, "expression"},
		{`path(cwd, 1, 2)`, "invalid-path"}, // numbers convert to "1/2"? no: relative parts, fine; then cwd/1/2 is valid
		{`cwd.x`, "expression"},
		{`[cwd]`, "type"},
		{`true`, "type"},
		{`null`, "type"},
	}
	for _, c := range cases {
		src := fmt.Sprintf("profile \"p\" {\n filesystem {\n read = [%s]\n }\n}\n", c.expr)
		res, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte(src)}})
		if c.expr == `path(cwd, 1, 2)` {
			// cty converts numbers to strings for string parameters.
			if ds.HasErrors() || res.Profiles[0].Filesystem.Rules[0].Path.String() != "{cwd}/1/2" {
				t.Errorf("%s: %v", c.expr, ds)
			}
			continue
		}
		if !ds.HasErrors() || ds[0].Code != c.code {
			t.Errorf("%s: want error %s, got %v", c.expr, c.code, ds)
			continue
		}
		if r := ds[0].Range; r == nil || r.Start.Line != 3 {
			t.Errorf("%s: range %v, want line 3", c.expr, r)
		}
	}
}

// TestElementRanges checks that each rule's source range covers exactly its
// own element, which later stages quote back to the author.
func TestElementRanges(t *testing.T) {
	src := "profile \"p\" {\n  filesystem {\n    read = [root, path(cwd, \"a\"),\n      \"/b\"]\n  }\n}\n"
	p := one(t, src)
	got := map[string]string{}
	for _, r := range p.Filesystem.Rules {
		got[r.Path.String()] = src[r.Source.Start.Byte:r.Source.End.Byte] + fmt.Sprintf("@%d:%d", r.Source.Start.Line, r.Source.Start.Column)
	}
	want := map[string]string{"/": "root@3:13", "{cwd}/a": `path(cwd, "a")@3:19`, "/b": `"/b"@4:7`}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: range covers %q, want %q", k, got[k], v)
		}
	}
	if p.Source.Start.Line != 1 || src[p.Source.Start.Byte:p.Source.End.Byte] != `profile "p"` {
		t.Errorf("profile range %v", p.Source)
	}
}

func TestUnknownAnchorKept(t *testing.T) {
	res, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte(`profile "p" {
  filesystem {
    read  = [root, xdg_cache, "{xdg_data}/app"]
    deny  = [path(xdg_config, "s")]
    deny_glob = ["{xdg_state}/**/*.log"]
  }
  network {
    unix_sockets = [path(xdg_runtime, "bus")]
  }
}`)}})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	var anchors []string
	for _, d := range ds {
		if d.Code != "unknown-anchor" || d.Severity != diag.Warning {
			t.Errorf("unexpected %v", d)
		}
		anchors = append(anchors, strings.Split(d.Summary, `"`)[1])
	}
	if want := []string{"xdg_cache", "xdg_data", "xdg_config", "xdg_state", "xdg_runtime"}; !slices.Equal(anchors, want) {
		t.Errorf("warned about %v, want %v", anchors, want)
	}
	p := res.Profiles[0]
	if got, want := rules(p), []string{"deny {xdg_config}/s", "read /", "read {xdg_cache}", "read {xdg_data}/app"}; !slices.Equal(got, want) {
		t.Errorf("rules %v, want %v", got, want)
	}
	if p.Filesystem.DenyGlobs[0].Pattern != "{xdg_state}/**/*.log" || p.Network.UnixSockets[0].Path.String() != "{xdg_runtime}/bus" {
		t.Errorf("glob or socket: %+v %+v", p.Filesystem.DenyGlobs, p.Network.UnixSockets)
	}
	// An sbx of this version drops the unknown allow rules and refuses the
	// unknown deny, as the warning says.
	b := ir.Bindings{"cwd": {"/w"}, "home": {"/h"}}
	if _, err := p.Bind(b); err == nil {
		t.Error("Bind accepted a deny rule with an unknown anchor")
	}
}

func TestDenyGlobs(t *testing.T) {
	p := one(t, `profile "p" {
  filesystem {
    read = [root]
    deny_glob = ["*.pem", "**/*.key", "/etc/**/secret*", "~/.config/**/token", path(home, "**/id_*"),
                 { pattern = ".env", max_depth = 3 }, "./x/*.tmp/"]
  }
}`)
	var got []string
	for _, g := range p.Filesystem.DenyGlobs {
		got = append(got, fmt.Sprintf("%s:%d", g.Pattern, g.MaxDepth))
	}
	want := []string{"**/*.key:8", "**/*.pem:8", "**/.env:3", "**/x/*.tmp:8", "/etc/**/secret*:8", "{home}/**/id_*:8", "{home}/.config/**/token:8"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	b := ir.Bindings{"home": {"/h"}, "cwd": {"/w"}}
	bd, err := p.Bind(b)
	if err != nil {
		t.Fatal(err)
	}
	for path, denied := range map[string]bool{"/w/a/b/key.pem": true, "/w/.env": true, "/h/.ssh/id_rsa": true, "/etc/app/secrets.txt": true, "/w/main.go": false, "/w/x/a.tmp/f": true} {
		acc, _, _ := bd.Access(path)
		if (acc == ir.Deny) != denied {
			t.Errorf("%s: access %s", path, acc)
		}
	}
}

func TestPorts(t *testing.T) {
	p := one(t, `profile "p" {
  filesystem { read = [root] }
  network {
    mode        = "ports"
    connect_tcp = [443, "80", "8000-8100", 65535, "1-1"]
    bind_tcp    = []
  }
}`)
	var got []string
	for _, r := range p.Network.ConnectTCP {
		got = append(got, r.String())
	}
	if want := []string{"1", "80", "443", "8000-8100", "65535"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if len(p.Network.BindTCP) != 0 {
		t.Errorf("bind %v", p.Network.BindTCP)
	}
}

func TestParsePortRange(t *testing.T) {
	for s, ok := range map[string]bool{"1": true, "65535": true, "0": false, "65536": false, "1-2": true, "2-1": false, "-1": false, "1-": false, "a": false, "1 - 2": false, "+1": false, "00080": true, "999999": false} {
		_, msg := parsePortRange(s)
		if (msg == "") != ok {
			t.Errorf("%q: msg %q", s, msg)
		}
	}
}

func TestSizesAndDurations(t *testing.T) {
	sizes := map[string]int64{`1048576`: 1 << 20, `"1048576"`: 1 << 20, `"1MiB"`: 1 << 20, `"512KiB"`: 512 << 10, `"10MB"`: 10_000_000, `"2 GiB"`: 2 << 30, `"1kB"`: 1000, `"7B"`: 7}
	for expr, want := range sizes {
		p := one(t, fmt.Sprintf("profile \"p\" {\n filesystem { read = [root] }\n process { output_cap = %s }\n}\n", expr))
		if p.Process.OutputCap != want {
			t.Errorf("%s: %d, want %d", expr, p.Process.OutputCap, want)
		}
	}
	for _, bad := range []string{`"1.5MiB"`, `"MiB"`, `"-1"`, `0`, `"0"`, `1.5`, `"1mib"`, `"2TiB"`, `"99999999999999999999"`, `true`, `"5000GB"`} {
		_, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte(fmt.Sprintf("profile \"p\" {\n process { output_cap = %s }\n}\n", bad))}})
		if !ds.HasCode("invalid-size") {
			t.Errorf("%s: got %v", bad, ds)
		}
	}
	durations := map[string]int64{`"10s"`: 10_000, `"1m30s"`: 90_000, `"500ms"`: 500, `"2h"`: 7_200_000}
	for expr, want := range durations {
		p := one(t, fmt.Sprintf("profile \"p\" {\n filesystem { read = [root] }\n process { timeout = %s }\n}\n", expr))
		if p.Process.TimeoutMS != want {
			t.Errorf("%s: %d, want %d", expr, p.Process.TimeoutMS, want)
		}
	}
	for _, bad := range []string{`"10"`, `10`, `"0s"`, `"-1s"`, `"1.5ms"`, `"500us"`, `"ten seconds"`, `"1d"`} {
		_, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte(fmt.Sprintf("profile \"p\" {\n process { timeout = %s }\n}\n", bad))}})
		if !ds.HasCode("invalid-duration") {
			t.Errorf("%s: got %v", bad, ds)
		}
	}
}

// TestNestedRules checks the carve-out example end to end against the IR's
// reference semantics: a read-only folder in a writable root, a writable
// folder reopened inside it, a denied file in a readable tree.
func TestNestedRules(t *testing.T) {
	var src Source
	for _, s := range examples(t) {
		if strings.HasSuffix(s.Name, "carveouts.hcl") {
			src = s
		}
	}
	res, ds := CompileSources([]Source{src})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	b := ir.Bindings{"cwd": {"/w"}, "home": {"/h"}, "tmpdir": {"/t"}}
	for path, want := range map[string]ir.Access{
		"/w/src/main.go":                ir.Write,
		"/w/vendor/lib/x.go":            ir.Read,
		"/w/vendor":                     ir.Read,
		"/w/vendor/generated/out.go":    ir.Write,
		"/w/vendor/generated/.keep":     ir.Read,
		"/w/.git/config":                ir.Read,
		"/w/vendor/generated/.git/HEAD": ir.Read,
		"/etc/passwd":                   ir.Read,
		"/etc/shadow":                   ir.Deny,
		"/h/.netrc":                     ir.Deny,
		"/h/.bashrc":                    ir.Read,
		"/t/x":                          ir.Write,
	} {
		got, err := res.Profiles[0].Access(path, b)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
}

// TestExtendsMerge checks the documented merge rules.
func TestExtendsMerge(t *testing.T) {
	res := compile(t, `
profile "parent" {
  description = "parent"
  filesystem {
    read      = [root]
    write     = [cwd]
    deny_glob = ["*.pem"]
    protect   = [".git"]
  }
  network {
    mode         = "ports"
    reason       = "registry"
    connect_tcp  = [443]
    bind_tcp     = [3000]
    unix_sockets = ["/run/a.sock"]
  }
  process {
    timeout    = "10s"
    output_cap = "1MiB"
    env {
      inherit = "none"
      set     = { A = "1", B = "2", AWS_X = "x" }
      unset   = ["U1"]
    }
  }
}

profile "child" {
  extends = "parent"
  filesystem {
    read      = [path(cwd, "vendor")]
    deny_glob = ["*.pem", "*.key"]
    protect   = [".git", ".hg"]
  }
  network {
    connect_tcp  = [80]
    unix_sockets = ["/run/a.sock", "/run/b.sock"]
  }
  process {
    timeout = "1m"
    env {
      set   = { B = "two", C = "3" }
      unset = ["AWS_*"]
    }
  }
}

profile "grandchild" {
  extends = "child"
  network {
    mode = "none"
  }
  process {
    env {
      inherit = "all"
    }
  }
}
`)
	parent, child, gc := res.Profile("parent"), res.Profile("child"), res.Profile("grandchild")
	if got := res.Names(); !slices.Equal(got, []string{"parent", "child", "grandchild"}) {
		t.Errorf("order %v", got)
	}
	if child.Description != "" || !slices.Equal(child.Extends, []string{"parent"}) || !slices.Equal(gc.Extends, []string{"child", "parent"}) {
		t.Errorf("description %q, extends %v / %v", child.Description, child.Extends, gc.Extends)
	}
	if got, want := rules(child), []string{"read /", "read {cwd}/vendor", "write {cwd}"}; !slices.Equal(got, want) {
		t.Errorf("rules %v", got)
	}
	if len(child.Filesystem.DenyGlobs) != 2 || len(child.Filesystem.Protect) != 2 || len(child.Network.UnixSockets) != 2 {
		t.Errorf("unions: %+v %+v %+v", child.Filesystem.DenyGlobs, child.Filesystem.Protect, child.Network.UnixSockets)
	}
	n := child.Network
	if n.Mode != ir.NetworkPorts || n.Reason != "registry" || len(n.ConnectTCP) != 1 || n.ConnectTCP[0].From != 80 || len(n.BindTCP) != 1 || n.BindTCP[0].From != 3000 {
		t.Errorf("network %+v", n)
	}
	pr := child.Process
	if pr.TimeoutMS != 60_000 || pr.OutputCap != 1<<20 || pr.Env.Inherit != ir.EnvInheritNone {
		t.Errorf("process %+v", pr)
	}
	var set []string
	for _, v := range pr.Env.Set {
		set = append(set, v.Name+"="+v.Value)
	}
	if want := []string{"A=1", "B=two", "C=3"}; !slices.Equal(set, want) {
		t.Errorf("env set %v, want %v (AWS_X is unset by the child)", set, want)
	}
	if want := []string{"AWS_*", "U1"}; !slices.Equal(pr.Env.Unset, want) {
		t.Errorf("env unset %v", pr.Env.Unset)
	}
	// A child that changes the mode drops the inherited ports and reason.
	if gc.Network.Mode != ir.NetworkNone || len(gc.Network.ConnectTCP) != 0 || gc.Network.Reason != "" || gc.Process.Env.Inherit != ir.EnvInheritAll {
		t.Errorf("grandchild %+v %+v", gc.Network, gc.Process.Env)
	}
	// The parent is not changed by its children.
	if got := rules(parent); !slices.Equal(got, []string{"read /", "write {cwd}"}) || len(parent.Network.ConnectTCP) != 1 || parent.Network.ConnectTCP[0].From != 443 {
		t.Errorf("parent changed: %v %+v", got, parent.Network)
	}
}

// TestExtendsAcrossFiles checks that profiles in different files see each
// other, in any order, and that duplicates across files are reported at the
// second declaration.
func TestExtendsAcrossFiles(t *testing.T) {
	a := Source{Name: "a.hcl", Data: []byte(`profile "child" { extends = "base" }`)}
	b := Source{Name: "b.hcl", Data: []byte("profile \"base\" {\n extends = \"read-only\"\n}\n")}
	res, ds := CompileSources([]Source{a, b})
	if ds.HasErrors() || !slices.Equal(res.Names(), []string{"child", "base"}) {
		t.Fatalf("%v %v", res.Names(), ds)
	}
	if got := res.Profile("child").Extends; !slices.Equal(got, []string{"base", "read-only"}) {
		t.Errorf("extends %v", got)
	}
	_, ds = CompileSources([]Source{b, {Name: "c.hcl", Data: []byte("\n\nprofile \"base\" {}\n")}})
	if len(ds) != 1 || ds[0].Code != "duplicate-profile" || ds[0].Range.Filename != "c.hcl" || ds[0].Range.Start.Line != 3 || !strings.Contains(ds[0].Detail, "b.hcl:1:1") {
		t.Errorf("got %v", ds)
	}
}

// TestBuiltinScope checks that built-ins are in scope everywhere, compile
// by name, and do not see user profiles.
func TestBuiltinScope(t *testing.T) {
	res, ds := CompileBuiltin("workspace-net")
	if ds.HasErrors() || res.Profiles[0].Name != "workspace-net" || !slices.Equal(res.Profiles[0].Extends, []string{"workspace"}) {
		t.Fatalf("%v %v", res.Names(), ds)
	}
	if _, ok := res.Sources.Get("builtin:workspace.hcl"); !ok {
		t.Errorf("sources %v lack the parent's", res.Sources.Names())
	}
	if _, ds := CompileBuiltin("nope"); !ds.HasCode("unknown-profile") {
		t.Errorf("got %v", ds)
	}
	res, ds = CompileBuiltin("danger-full-access")
	if len(ds) != 1 || ds[0].Code != "unsandboxed" || !res.Profiles[0].Unsandboxed {
		t.Errorf("danger-full-access: %v", ds)
	}
	// A user profile extending it is unsandboxed too, and says so.
	_, ds = CompileSources([]Source{{Name: "t.hcl", Data: []byte(`profile "yolo" { extends = "danger-full-access" }`)}})
	if len(ds) != 1 || ds[0].Code != "unsandboxed" || ds[0].Range.Filename != "t.hcl" {
		t.Errorf("yolo: %v", ds)
	}
}

func TestNoProfiles(t *testing.T) {
	res, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte("# nothing\n")}, {Name: "u.hcl", Data: nil}})
	if len(res.Profiles) != 0 || len(ds) != 2 || ds[0].Code != "no-profiles" || ds.HasErrors() {
		t.Errorf("got %v", ds)
	}
}

func TestSizeLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("profile \"base\" {\n filesystem {\n read = [")
	for i := range maxProfileElems / 2 {
		fmt.Fprintf(&b, "\"/r/%d\",", i)
	}
	b.WriteString("]\n }\n}\n")
	for i := range 100 {
		fmt.Fprintf(&b, "profile \"p%d\" {\n extends = \"base\"\n}\n", i)
	}
	res, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte(b.String())}})
	if !ds.HasCode("too-large") || len(res.Profiles) > maxCompileElems/(maxProfileElems/2) {
		t.Errorf("%d profiles, %v", len(res.Profiles), ds)
	}
}

// TestExtendsDepth: a chain of maxExtendsDepth profiles compiles; one
// more is refused at its extends attribute, once, and the profiles below
// it fail silently (each IR lists its whole chain: 14,000 one-line
// profiles, within the token limit, cost 4 GB before the bound).
func TestExtendsDepth(t *testing.T) {
	chain := func(n int) string {
		var b strings.Builder
		b.WriteString("profile \"p0\" {\n  filesystem { read = [cwd] }\n}\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "profile \"p%d\" {\n  extends = \"p%d\"\n}\n", i, i-1)
		}
		return b.String()
	}
	res, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte(chain(maxExtendsDepth + 1))}})
	if ds.HasErrors() || len(res.Profiles) != maxExtendsDepth+1 || len(res.Profiles[maxExtendsDepth].Extends) != maxExtendsDepth {
		t.Fatalf("%d levels: %d profiles, %v", maxExtendsDepth, len(res.Profiles), ds)
	}
	res, ds = CompileSources([]Source{{Name: "t.hcl", Data: []byte(chain(maxExtendsDepth + 200))}})
	if n := ds.Count(diag.Error); n != 1 || !ds.HasCode("too-large") || !strings.Contains(ds[0].Summary, "Extends chain too long") {
		t.Fatalf("%d errors: %v", n, ds)
	}
	// The profile with one extends too many: line 2 of its declaration.
	if r := ds[0].Range; r.Filename != "t.hcl" || r.Start.Line != 3+3*(maxExtendsDepth)+2 {
		t.Errorf("range %v", r)
	}
	if len(res.Profiles) != maxExtendsDepth+1 {
		t.Errorf("%d profiles compiled", len(res.Profiles))
	}
}

func TestTooManyErrors(t *testing.T) {
	src := "profile \"p\" {\n filesystem {\n read = [" + strings.Repeat(`"x", `, 200) + "]\n }\n}\n"
	_, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte(src)}})
	if n := ds.Count(diag.Error); n != maxErrorsPerFile+1 || ds[len(ds)-1].Code != "too-many-errors" {
		t.Errorf("%d errors, last %v", n, ds[len(ds)-1])
	}
}

func TestFormat(t *testing.T) {
	out, ds := Format("t.hcl", []byte("profile \"p\" {\nfilesystem {\nread = [root]\nwrite=[cwd]\n}\n}\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	want := "profile \"p\" {\n  filesystem {\n    read  = [root]\n    write = [cwd]\n  }\n}\n"
	if string(out) != want {
		t.Errorf("got\n%s", out)
	}
	if out, ds := Format("t.hcl", []byte("profile {")); out != nil || !ds.HasCode("syntax") {
		t.Errorf("syntax error: %q %v", out, ds)
	}
}
