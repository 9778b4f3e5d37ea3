package policies

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sbx-dev/sbx/ir"
)

func at(file string, line int) ir.Range {
	return ir.Range{Filename: file, Start: ir.Pos{Line: line, Column: 3}, End: ir.Pos{Line: line, Column: 20}}
}

// testProfile is a small profile in dev.hcl: read /, write {cwd} (line
// 3), deny {home}/.ssh (line 4), network full with no reason (line 6).
func testProfile() *ir.Profile {
	p := &ir.Profile{Name: "dev", Source: at("dev.hcl", 1)}
	p.Filesystem.Rules = []ir.PathRule{
		{Path: ir.Path{Anchor: "root"}, Access: ir.Read, Source: at("dev.hcl", 2)},
		{Path: ir.Path{Anchor: "cwd"}, Access: ir.Write, Source: at("dev.hcl", 3)},
		{Path: ir.Path{Anchor: "home", Rel: ".ssh"}, Access: ir.Deny, Source: at("dev.hcl", 4)},
	}
	p.Filesystem.Protect = []ir.ProtectRule{{Name: ".git", Source: at("dev.hcl", 5)}}
	p.Network = ir.Network{Mode: ir.NetworkFull, Source: at("dev.hcl", 6)}
	p.Process = ir.Process{Source: at("dev.hcl", 7)}
	return p
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func check(t *testing.T, opts Options, p *ir.Profile) *Result {
	t.Helper()
	e, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Check(context.Background(), Input{Profile: p})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func byCode(fs []Finding, code string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

const orgPolicy = `package main

import data.sbx.lib

# METADATA
# title: no-network
# custom:
#   code: ORG001
deny_network contains msg if {
	input.profile.network.mode == "full"
	msg := "network must be off"
}

# A node with its source: located at that rule.
deny contains {"code": "ORG002", "msg": "no writable workspace", "node": r} if {
	some r in input.profile.filesystem.rules
	r.access == "write"
	r.path.anchor == "cwd"
}

# A path into the input.
warn contains {"code": "ORG003", "msg": "path form", "path": ["profile", "filesystem", "rules", 2]} if true

# A node without its own source (the path object of a rule): located at the
# enclosing rule.
warn contains {"code": "ORG004", "msg": "node form", "node": r.path} if {
	some r in input.profile.filesystem.rules
	r.access == "deny"
}

# A dotted path string and a JSON pointer.
warn contains {"code": "ORG005", "msg": "dotted", "path": "profile.network.mode"} if true

warn contains {"code": "ORG006", "msg": "pointer", "path": "/profile/filesystem/protect/0"} if true

# No location: the profile.
warn contains {"code": "ORG007", "msg": "no location", "extra": 1} if true

# The object itself carries source.
warn contains {"code": "ORG008", "msg": "self", "source": input.profile.process.source} if true

violation contains {"msg": "a violation", "details": {"why": "x"}} if true

warn_plain contains "plain string" if lib.access_at("home", ".ssh") == "deny"
`

func TestOrgPolicyLocations(t *testing.T) {
	dir := writeFiles(t, map[string]string{"org/main.rego": orgPolicy})
	res := check(t, Options{Policies: []string{filepath.Join(dir, "org")}, NoBuiltin: true}, testProfile())
	want := map[string]int{"ORG001": 1, "ORG002": 3, "ORG003": 4, "ORG004": 4, "ORG005": 6, "ORG006": 5, "ORG007": 1, "ORG008": 7, "main.violation": 1, "main.warn_plain": 1}
	got := map[string]int{}
	for _, f := range append(res.Failures, res.Warnings...) {
		if f.Range == nil {
			t.Errorf("%s: no range", f.Code)
			continue
		}
		got[f.Code] = f.Range.Start.Line
	}
	for code, line := range want {
		if got[code] != line {
			t.Errorf("%s: line %d, want %d", code, got[code], line)
		}
	}
	if len(res.Failures) != 3 {
		t.Errorf("failures %d, want 3 (ORG001, ORG002, violation): %+v", len(res.Failures), res.Failures)
	}
	if f := byCode(res.Warnings, "ORG007"); len(f) != 1 || f[0].Details["extra"] == nil {
		t.Errorf("ORG007 details: %+v", f)
	}
	if f := byCode(res.Warnings, "ORG004"); len(f) != 1 || len(f[0].Path) != 5 {
		t.Errorf("ORG004 should carry the path of the rule it was found in: %+v", f)
	}
	if f := byCode(res.Failures, "main.violation"); len(f) != 1 || f[0].Details["details"] == nil {
		t.Errorf("violation details: %+v", f)
	}
}

func TestExceptions(t *testing.T) {
	dir := writeFiles(t, map[string]string{"p/main.rego": `package main

deny_network contains "network must be off" if input.profile.network.mode == "full"

exception contains rules if {
	input.name == "dev"
	rules := ["network", "SBX008", "sbx.builtin.filesystem.warn_writable_profile_files"]
}
`})
	res := check(t, Options{Policies: []string{filepath.Join(dir, "p")}}, testProfile())
	exc := map[string]bool{}
	for _, f := range res.Exceptions {
		exc[f.Code] = true
		if !strings.HasPrefix(f.ExceptedBy, "main.exception: ") {
			t.Errorf("ExceptedBy %q", f.ExceptedBy)
		}
	}
	for _, code := range []string{"main.deny_network", "SBX008", "SBX016"} {
		if !exc[code] {
			t.Errorf("%s not excepted: exceptions %+v", code, res.Exceptions)
		}
	}
	for _, f := range append(res.Failures, res.Warnings...) {
		if exc[f.Code] {
			t.Errorf("%s reported although excepted", f.Code)
		}
	}
}

func TestBuiltinFindings(t *testing.T) {
	res := check(t, Options{}, testProfile())
	for _, code := range []string{"SBX007", "SBX008"} {
		if len(byCode(res.Warnings, code)) == 0 {
			t.Errorf("no %s warning: %+v", code, res.Warnings)
		}
	}
	if f := byCode(res.Warnings, "SBX008"); len(f) == 1 && f[0].Range.Start.Line != 6 {
		t.Errorf("SBX008 at line %d, want 6", f[0].Range.Start.Line)
	}
	if len(res.Failures) != 0 {
		t.Errorf("unexpected failures: %+v", res.Failures)
	}
}

func newErr(t *testing.T, opts Options) string {
	t.Helper()
	_, err := New(context.Background(), opts)
	if err == nil {
		t.Fatal("no error")
	}
	return err.Error()
}

func TestBadPolicy(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"syntax/p.rego":    "package main\n\ndeny contains msg if {\n\tmsg := \n}\n",
		"v0/p.rego":        "package main\n\ndeny[msg] {\n\tmsg := \"x\"\n}\n",
		"type/p.rego":      "package main\n\ndeny contains msg if {\n\tmsg := concat(1, 2)\n}\n",
		"bool/p.rego":      "package main\n\ndeny if {\n\tinput.profile.network.mode == \"full\"\n}\n",
		"func/p.rego":      "package main\n\nwarn(x) := x\n",
		"http/p.rego":      "package main\n\ndeny contains msg if {\n\tr := http.send({\"method\": \"GET\", \"url\": \"https://example.com\"})\n\tmsg := r.body\n}\n",
		"dns/p.rego":       "package main\n\nwarn contains msg if {\n\tnet.lookup_ip_addr(\"example.com\")\n\tmsg := \"x\"\n}\n",
		"reserved/p.rego":  "package sbx.builtin.extra\n\ndeny contains \"x\" if true\n",
		"other/p.rego":     "package org.rules\n\ndeny contains \"x\" if true\n",
		"empty/README.txt": "nothing here",
		"corrupt.tar.gz":   "\x1f\x8b\x08\x00garbage",
		"notbundle.tar.gz": "just text",
	})
	cases := []struct {
		opts Options
		want []string
	}{
		{Options{Policies: []string{filepath.Join(dir, "syntax")}}, []string{"syntax/p.rego:5", "rego_parse_error"}},
		{Options{Policies: []string{filepath.Join(dir, "v0")}}, []string{"v0/p.rego:3", "rego_parse_error"}},
		{Options{Policies: []string{filepath.Join(dir, "type")}}, []string{"type/p.rego:4", "rego_type_error"}},
		{Options{Policies: []string{filepath.Join(dir, "bool")}}, []string{"bool/p.rego:3", "boolean rule", "deny contains msg if"}},
		{Options{Policies: []string{filepath.Join(dir, "func")}}, []string{"func/p.rego:3", "is a function"}},
		{Options{Policies: []string{filepath.Join(dir, "http")}}, []string{"http/p.rego:4", "uses http.send", "hermetic"}},
		{Options{Policies: []string{filepath.Join(dir, "dns")}}, []string{"dns/p.rego:4", "uses net.lookup_ip_addr"}},
		{Options{Policies: []string{filepath.Join(dir, "reserved")}}, []string{"reserved for sbc's built-in rules"}},
		{Options{Policies: []string{filepath.Join(dir, "other")}}, []string{`namespace "main"`, "org.rules", "--all-namespaces"}},
		{Options{Policies: []string{filepath.Join(dir, "other")}, Namespaces: []string{"nope"}}, []string{`namespace "nope"`}},
		{Options{Policies: []string{filepath.Join(dir, "missing")}}, []string{"does not exist"}},
		{Options{Policies: []string{filepath.Join(dir, "empty")}}, []string{"holds no .rego files"}},
		{Options{Policies: []string{filepath.Join(dir, "corrupt.tar.gz")}}, []string{"corrupt"}},
		{Options{Policies: []string{filepath.Join(dir, "notbundle.tar.gz")}}, []string{"not gzip data"}},
	}
	for _, c := range cases {
		msg := newErr(t, c.opts)
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v: error %q does not mention %q", c.opts.Policies, msg, w)
			}
		}
	}
	// The other namespace works once selected.
	for _, opts := range []Options{
		{Policies: []string{filepath.Join(dir, "other")}, Namespaces: []string{"org.rules"}},
		{Policies: []string{filepath.Join(dir, "other")}, AllNamespaces: true},
	} {
		res := check(t, opts, testProfile())
		if len(byCode(res.Failures, "org.rules.deny")) != 1 {
			t.Errorf("%+v: failures %+v", opts, res.Failures)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	cases := map[string]string{
		"div":    "package main\n\ndeny contains msg if {\n\tx := 1 / 0\n\tmsg := sprintf(\"%v\", [x])\n}\n",
		"nomsg":  "package main\n\ndeny contains {\"code\": \"X\"} if true\n",
		"number": "package main\n\nwarn contains 42 if true\n",
		"exc":    "package main\n\nexception contains 42 if true\n",
	}
	for name, src := range cases {
		dir := writeFiles(t, map[string]string{"p.rego": src})
		e, err := New(context.Background(), Options{Policies: []string{dir}, NoBuiltin: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := e.Check(context.Background(), Input{Profile: testProfile()}); err == nil {
			t.Errorf("%s: no evaluation error", name)
		} else if !strings.Contains(err.Error(), `profile "dev"`) {
			t.Errorf("%s: error does not name the profile: %v", name, err)
		}
		rs := e.CheckAll(context.Background(), []Input{{Profile: testProfile()}})
		if rs[0].Err == nil {
			t.Errorf("%s: CheckAll swallowed the error", name)
		}
	}
}

// makeBundle writes an OPA bundle tarball with the given files.
func makeBundle(t *testing.T, path string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range sortedKeys(files) {
		data := []byte(files[name])
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data))}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	tw.Close()
	gz.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBundle(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "org.tar.gz")
	makeBundle(t, b, map[string]string{
		"/.manifest":          `{"roots": ["org", "main", "main_test"]}`,
		"/org/data.json":      `{"allowed_modes": ["none", "ports"]}`,
		"/policy/main.rego":   "package main\n\ndeny contains {\"code\": \"ORG100\", \"msg\": \"mode not allowed\", \"node\": input.profile.network} if {\n\tnot input.profile.network.mode in data.org.allowed_modes\n}\n",
		"/policy/x_test.rego": "package main_test\n\ntest_x if true\n",
	})
	res := check(t, Options{Policies: []string{b}, NoBuiltin: true}, testProfile())
	f := byCode(res.Failures, "ORG100")
	if len(f) != 1 || f[0].Range.Start.Line != 6 {
		t.Fatalf("bundle policy: %+v", res.Failures)
	}
	// Truncated bundle.
	data, _ := os.ReadFile(b)
	tr := filepath.Join(dir, "truncated.tar.gz")
	os.WriteFile(tr, data[:len(data)/2], 0o644)
	if msg := newErr(t, Options{Policies: []string{tr}}); !strings.Contains(msg, "corrupt") {
		t.Errorf("truncated bundle: %s", msg)
	}
	// A syntax error inside a bundle names the file in the bundle.
	bad := filepath.Join(dir, "bad.tar.gz")
	makeBundle(t, bad, map[string]string{"/p.rego": "package main\n\ndeny contains if\n"})
	if msg := newErr(t, Options{Policies: []string{bad}}); !strings.Contains(msg, "p.rego:3") {
		t.Errorf("bad bundle: %s", msg)
	}
}

func TestPrint(t *testing.T) {
	dir := writeFiles(t, map[string]string{"p.rego": "package main\n\ndeny contains \"x\" if {\n\tprint(\"checking\", input.name)\n\tfalse\n}\n"})
	var buf bytes.Buffer
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return buf.Write(p) })
	check(t, Options{Policies: []string{dir}, NoBuiltin: true, Print: w}, testProfile())
	if !strings.Contains(buf.String(), "checking dev") {
		t.Errorf("print output %q", buf.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestConcurrent checks many profiles from several goroutines with one
// engine (run with -race).
func TestConcurrent(t *testing.T) {
	e, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ins := inputsFor(genProfiles(60, 7))
	want := e.CheckAll(context.Background(), ins)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(ins); i += 4 {
				r, err := e.Check(context.Background(), ins[i])
				if err != nil {
					t.Error(err)
					return
				}
				if len(r.Failures) != len(want[i].Failures) || len(r.Warnings) != len(want[i].Warnings) {
					t.Errorf("profile %d: different results concurrently", i)
				}
			}
		}()
	}
	wg.Wait()
}

// TestBigProfile checks that a profile with thousands of rules (and
// thousands of findings) is evaluated in reasonable time.
func TestBigProfile(t *testing.T) {
	p := &ir.Profile{Name: "big", Source: at("big.hcl", 1)}
	for i := range 3000 {
		p.Filesystem.Rules = append(p.Filesystem.Rules, ir.PathRule{Path: ir.Path{Anchor: "cwd", Rel: "dup"}, Access: ir.Write, Source: at("big.hcl", i+2)})
	}
	p.Network = ir.Network{Mode: ir.NetworkNone, Source: at("big.hcl", 1)}
	res := check(t, Options{}, p)
	if n := len(byCode(res.Warnings, "SBX011")); n != 2999 {
		t.Errorf("%d duplicate findings, want 2999", n)
	}
}

func TestInputDocument(t *testing.T) {
	data, err := InputDocument(Input{Profile: testProfile(), File: "profiles/dev.hcl"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"file":"profiles/dev.hcl"`, `"artifact":"dev.sbx.json"`, `"fidelity":{}`, `"rel":""`, `"access":"write"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("input lacks %s: %s", want, data)
		}
	}
}
