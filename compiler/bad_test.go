package compiler

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/compiler/diag"
)

// want is an expected diagnostic: severity, code, the start of the range
// (line:col) and a fragment of the summary.
type want struct {
	sev     diag.Severity
	code    string
	pos     string
	summary string
}

func e(code, pos, summary string) want { return want{diag.Error, code, pos, summary} }
func w(code, pos, summary string) want { return want{diag.Warning, code, pos, summary} }

// badCases covers every kind of bad input the front end must reject (or
// warn about), one fixture each under testdata/bad. The rendered text of
// each fixture's diagnostics is pinned in testdata/bad/NAME.txt (refresh
// with -update) so that message wording is reviewed like code.
var badCases = []struct {
	file string
	want []want
}{
	{"syntax.hcl", []want{e("syntax", "4:3", "Missing item separator")}},
	{"unknown_block.hcl", []want{e("schema", "5:3", "Unsupported block type")}},
	{"unknown_toplevel.hcl", []want{e("schema", "1:1", "Unsupported block type")}},
	{"unknown_attr.hcl", []want{e("schema", "4:5", "Unsupported argument")}},
	{"wrong_type.hcl", []want{
		e("type", "2:17", "Incorrect value type for description"),
		e("type", "3:17", "Incorrect value type for unsandboxed"),
		e("type", "6:13", "Incorrect value type for read"),
		e("type", "7:19", "Incorrect element type in write"),
	}},
	{"relative_path.hcl", []want{e("relative-path", "4:19", "Relative path")}},
	{"dotdot.hcl", []want{e("dotdot-path", "4:13", `Path contains ".."`), e("dotdot-path", "4:38", `Path contains ".."`)}},
	{"glob_in_rule.hcl", []want{e("glob-in-rule", "3:14", "Glob pattern in read"), e("glob-in-rule", "4:14", "Glob pattern in write")}},
	{"empty.hcl", []want{w("empty-profile", "1:1", `Profile "nothing" denies everything`)}},
	{"duplicate.hcl", []want{e("duplicate-profile", "5:9", `Duplicate profile "dup"`)}},
	{"reserved_name.hcl", []want{e("duplicate-profile", "1:9", `Profile name "workspace" is reserved`)}},
	{"cycle.hcl", []want{e("extends-cycle", "10:13", "Cycle in extends")}},
	{"self_extends.hcl", []want{e("extends-cycle", "2:13", "Cycle in extends")}},
	{"unknown_extends.hcl", []want{e("unknown-profile", "2:13", `Unknown profile "worksapce" in extends`)}},
	{"ports.hcl", []want{
		e("invalid-port", "6:20", "Invalid port in connect_tcp"),
		e("invalid-port", "6:23", "Invalid port in connect_tcp"),
		e("invalid-port", "6:30", "Invalid port in connect_tcp"),
		e("invalid-port", "6:43", "Invalid port in connect_tcp"),
		e("invalid-port", "6:51", "Invalid port in connect_tcp"),
		e("invalid-port", "7:20", "Invalid port in bind_tcp"),
	}},
	{"ports_ignored.hcl", []want{w("ports-ignored", "6:5", `connect_tcp is ignored with network mode "none"`)}},
	{"duration.hcl", []want{e("invalid-duration", "5:15", "Invalid duration for timeout"), e("invalid-duration", "13:15", "Invalid duration for timeout")}},
	{"size.hcl", []want{e("invalid-size", "5:18", "Invalid size for output_cap"), e("invalid-size", "13:18", "Invalid size for output_cap")}},
	{"non_utf8.hcl", []want{e("invalid-utf8", "2:21", "Invalid UTF-8")}},
	{"unknown_anchor.hcl", []want{w("unknown-anchor", "5:14", `Unknown anchor "xdg_cache"`), w("unknown-anchor", "6:14", `Unknown anchor "xdg_config"`)}},
	{"network_mode.hcl", []want{e("invalid-network-mode", "5:12", "Invalid network mode")}},
	{"deny_glob.hcl", []want{
		e("invalid-glob", "5:18", "Invalid glob pattern"),
		e("invalid-glob", "5:26", "Invalid max_depth"),
		e("schema", "5:64", "Unsupported deny_glob key"),
		e("dotdot-path", "5:98", `Path contains ".."`),
	}},
	{"protect.hcl", []want{
		e("invalid-protect", "5:16", "Protected name contains /"),
		e("invalid-protect", "5:30", "Glob pattern in protect"),
		e("invalid-protect", "5:40", "Invalid protected name"),
	}},
	{"env.hcl", []want{
		e("invalid-env", "6:17", "Invalid env inherit mode"),
		e("invalid-env", "7:19", "Invalid variable name in set"),
		e("invalid-env", "8:18", "Invalid variable name in unset"),
	}},
	{"duplicate_block.hcl", []want{e("schema", "5:3", "Duplicate filesystem block")}},
	{"bad_name.hcl", []want{e("invalid-name", "1:9", "Invalid profile name")}},
	{"anchor_form.hcl", []want{
		e("invalid-path", "5:13", "Invalid anchor"),
		e("invalid-path", "5:21", "Unsupported home directory form"),
		e("invalid-path", "5:35", "platform_defaults takes no sub-path"),
		e("invalid-path", "5:67", "Misplaced anchor"),
	}},
	{"variables.hcl", []want{e("expression", "5:12", "Unquoted word")}},
}

func TestBadInputs(t *testing.T) {
	dir := filepath.Join("..", "testdata", "bad")
	covered := map[string]bool{}
	for _, tc := range badCases {
		covered[tc.file] = true
		t.Run(tc.file, func(t *testing.T) {
			name := filepath.ToSlash(filepath.Join("testdata", "bad", tc.file))
			data, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			res, ds := CompileSources([]Source{{Name: name, Data: data}})
			checkDiags(t, ds, tc.want)
			if ds.HasErrors() && len(res.Profiles) > 0 && tc.file != "duplicate.hcl" {
				t.Errorf("profiles %v compiled despite errors", res.Names())
			}
			var text bytes.Buffer
			if err := diag.WriteText(&text, ds, res.Sources); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(dir, strings.TrimSuffix(tc.file, ".hcl")+".txt"), text.Bytes())
		})
	}
	// Every fixture must have expectations.
	files, _ := filepath.Glob(filepath.Join(dir, "*.hcl"))
	for _, f := range files {
		if !covered[filepath.Base(f)] {
			t.Errorf("%s has no entry in badCases", f)
		}
	}
}

// checkDiags compares diagnostics with expectations, in order and exactly:
// a diagnostic that is not expected fails the test too.
func checkDiags(t *testing.T, ds diag.Diagnostics, want []want) {
	t.Helper()
	var got []string
	for _, d := range ds {
		pos := "-"
		if d.Range != nil {
			pos = fmt.Sprintf("%d:%d", d.Range.Start.Line, d.Range.Start.Column)
		}
		got = append(got, fmt.Sprintf("%s %s %s %s", d.Severity, d.Code, pos, d.Summary))
	}
	if len(ds) != len(want) {
		t.Fatalf("got %d diagnostics, want %d:\n%s", len(ds), len(want), strings.Join(got, "\n"))
	}
	for i, wd := range want {
		d := ds[i]
		if d.Severity != wd.sev || d.Code != wd.code || !strings.HasPrefix(got[i], fmt.Sprintf("%s %s %s ", wd.sev, wd.code, wd.pos)) || !strings.Contains(d.Summary, wd.summary) {
			t.Errorf("diagnostic %d:\n got  %s\n want %s %s %s %s", i, got[i], wd.sev, wd.code, wd.pos, wd.summary)
		}
	}
}

func TestMissingFile(t *testing.T) {
	res, ds := CompileFiles([]string{filepath.Join(t.TempDir(), "nope.hcl")})
	if res == nil || len(ds) != 1 || ds[0].Code != diag.CodeIO || ds[0].Summary != "File not found" {
		t.Fatalf("got %v", ds)
	}
	_, ds = CompileFiles([]string{t.TempDir()})
	if len(ds) != 1 || ds[0].Code != diag.CodeIO || !strings.Contains(ds[0].Detail, "is a directory") {
		t.Fatalf("directory: got %v", ds)
	}
}

// TestLargeFile checks that an oversized file is refused without being read
// whole, and that files at the limit but full of tokens are refused cheaply
// rather than parsed.
func TestLargeFile(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.hcl")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse 1 GiB file: reading it whole would be noticed.
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, ds := CompileFiles([]string{big})
	checkDiags(t, ds, []want{e("file-too-large", "1:1", "File too large")})

	cases := map[string]string{
		"tokens":   "profile \"a\" {\n filesystem {\n read = [" + strings.Repeat("\"/x\",", 800_000) + "]\n}\n}\n",
		"nesting":  "profile \"a\" {\n description = " + strings.Repeat("[", 100) + "\n}\n",
		"unary":    "profile \"a\" {\n description = " + strings.Repeat("!", 5000) + "true\n}\n",
		"binary":   "profile \"a\" {\n description = " + strings.Repeat("1+", 5000) + "1\n}\n",
		"heredoc":  "profile \"a\" {\n description = <<EOT\n" + strings.Repeat("x\n", 5000) + "EOT\n}\n",
		"escapes":  "profile \"a\" {\n description = \"" + strings.Repeat("$${x}", 5000) + "\"\n}\n",
		"template": "profile \"a\" {\n description = \"" + strings.Repeat("${\"", 100) + strings.Repeat("\"}", 100) + "\"\n}\n",
	}
	// Token checks apply to files larger than smallFile: pad with a comment.
	pad := "#" + strings.Repeat(" ", smallFile) + "\n"
	for name, src := range cases {
		src = pad + src
		if len(src) > MaxFileSize {
			t.Fatalf("%s: test input too large", name)
		}
		_, ds := CompileSources([]Source{{Name: name + ".hcl", Data: []byte(src)}})
		if len(ds) != 1 || ds[0].Code != "too-complex" {
			t.Errorf("%s: got %v", name, ds)
		}
	}
}
