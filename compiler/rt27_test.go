package compiler

// Red team pass 27: the front end on input a user can write. Run:
// go test -count=1 ./compiler -run 'TestRT27' -v

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/compiler/diag"
)

// rt27Errors compiles src and returns its errors.
func rt27Errors(t *testing.T, src string) (*Result, []diag.Diagnostic) {
	t.Helper()
	res, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte(src)}})
	var errs []diag.Diagnostic
	for _, d := range ds {
		if d.Severity == diag.Error {
			errs = append(errs, d)
		}
	}
	return res, errs
}

// TestRT27ControlCharInPath: a path written as a heredoc ends in a
// newline, and escapes ("\t", "\r", "\n", "\u001b") put control
// characters in a quoted one. The front end kept them silently: deny =
// [<<EOT /etc/shadow EOT] compiled to a deny of "/etc/shadow\n", a file
// nobody has, so the rule denied nothing (and protect = [".git\n"]
// protected nothing). A name ending in a line break is an error; other
// control characters, which Linux allows in names, a warning (kept as
// written: red team 23's script compiles such a path on purpose).
func TestRT27ControlCharInPath(t *testing.T) {
	cases := []struct {
		name, body string
		line       int  // of the offending element
		isErr      bool // an error, else a warning
	}{
		{"heredoc deny", "    read = [root]\n    deny = [<<EOT\n/etc/shadow\nEOT\n    ]\n", 4, true},
		{"indented heredoc deny", "    read = [root]\n    deny = [<<-EOT\n      /etc/shadow\n      EOT\n    ]\n", 4, true},
		{"escaped newline", "    read = [root]\n    deny = [\"/etc/shadow\\n\"]\n", 4, true},
		{"CRLF", "    read = [root]\n    deny = [\"/etc/shadow\\r\\n\"]\n", 4, true},
		{"newline then slash", "    read = [root]\n    deny = [\"/etc/shadow\\n/\"]\n", 4, true},
		{"carriage return in read", "    read = [path(cwd, \"src\\r\")]\n", 3, true},
		{"deny_glob heredoc", "    read = [root]\n    deny_glob = [<<EOT\n**/*.pem\nEOT\n    ]\n", 4, true},
		{"unix socket", "    read = [root]\n  }\n  network {\n    unix_sockets = [\"/run/agent.sock\\n\"]\n", 6, true},
		{"protect", "    write = [cwd]\n    protect = [\".git\\n\"]\n", 4, true},
		{"protect heredoc", "    write = [cwd]\n    protect = [<<EOT\n.git\nEOT\n    ]\n", 4, true},
		{"tab in write", "    write = [\"{cwd}/out\\t\"]\n", 3, false},
		{"DEL in deny", "    read = [root]\n    deny = [\"~/.ssh\\u007f\"]\n", 4, false},
		{"C1 control in deny", "    read = [root]\n    deny = [\"~/.aws\\u0085\"]\n", 4, false},
		{"escape mid-path", "    read = [root]\n    deny = [\"/x\\u001b]0;t\\u0007\\nFAIL - forged\"]\n", 4, false},
		{"tab in deny_glob", "    read = [root]\n    deny_glob = [\"**/*.pem\\t\"]\n", 4, false},
		{"tab in protect", "    write = [cwd]\n    protect = [\".git\\t\"]\n", 4, false},
	}
	for _, c := range cases {
		src := "profile \"t\" {\n  filesystem {\n" + c.body + "  }\n}\n"
		res, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte(src)}})
		want := diag.Warning
		if c.isErr {
			want = diag.Error
		}
		found := false
		for _, d := range ds {
			if d.Severity == diag.Error && !c.isErr {
				t.Errorf("%s: unexpected error %q: %s", c.name, d.Summary, d.Detail)
			}
			if d.Severity != want || !strings.Contains(d.Summary, "ontrol character") && !strings.Contains(d.Summary, "line break") {
				continue
			}
			found = true
			if d.Range == nil || d.Range.Start.Line != c.line {
				t.Errorf("%s: %q not at the element (line %d): %v", c.name, d.Summary, c.line, d.Range)
			}
		}
		if !found {
			var got []string
			for _, p := range res.Profiles {
				got = append(got, rules(p)...)
			}
			t.Errorf("%s: no %s about the control character; compiled rules %q", c.name, want, got)
		}
	}
	// Control: an ordinary path with spaces and non-ASCII letters is fine.
	_, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte("profile \"t\" {\n  filesystem {\n    read = [root, \"/srv/My Files/café\"]\n  }\n}\n")}})
	for _, d := range ds {
		if strings.Contains(d.Summary, "ontrol character") || d.Severity == diag.Error {
			t.Errorf("control: %s: %s", d.Summary, d.Detail)
		}
	}
}

// TestRT27PathEmptyBase: path("", "etc") joined to "/etc": an empty base
// silently became the root. It must be an error at the call.
func TestRT27PathEmptyBase(t *testing.T) {
	src := "profile \"t\" {\n  filesystem {\n    read = [cwd]\n    write = [path(\"\", \"etc\")]\n  }\n}\n"
	res, errs := rt27Errors(t, src)
	if len(errs) == 0 {
		var got []string
		for _, p := range res.Profiles {
			got = append(got, rules(p)...)
		}
		t.Fatalf("path(\"\", \"etc\") compiled without error: %q", got)
	}
	for _, d := range errs {
		if d.Range == nil || d.Range.Start.Line != 4 {
			t.Errorf("error %q not at the call (line 4): %v", d.Summary, d.Range)
		}
		if strings.Contains(d.Summary, "bug in sbc") {
			t.Errorf("internal error: %s", d.Detail)
		}
	}
	// Control: path() with an anchor base, and a single argument, compile.
	ok := "profile \"t\" {\n  filesystem {\n    read = [path(cwd), path(\"/\", \"etc\"), path(\"~\", \"x\")]\n  }\n}\n"
	if _, errs := rt27Errors(t, ok); len(errs) != 0 {
		t.Errorf("control: %v", errs)
	}
}

// TestRT27SameFileThroughLink: one profile file named twice is read once
// (red team 17: "./p.hcl" and "p.hcl"), but under another name, through a
// symbolic or hard link (profiles/default.hcl -> dev.hcl, which sbc check
// profiles/ finds beside its target), it was compiled twice and refused as
// "Duplicate profile", pointing at itself.
func TestRT27SameFileThroughLink(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "dev.hcl")
	if err := os.WriteFile(p, []byte("profile \"dev\" {\n  filesystem {\n    read = [root]\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sym, hard := filepath.Join(dir, "default.hcl"), filepath.Join(dir, "hard.hcl")
	if err := os.Symlink("dev.hcl", sym); err != nil {
		t.Skip(err)
	}
	if err := os.Link(p, hard); err != nil {
		t.Skip(err)
	}
	for _, paths := range [][]string{{p, sym}, {sym, p}, {p, hard}, {p, sym, hard}} {
		res, ds := CompileFiles(paths)
		if ds.HasErrors() || len(res.Profiles) != 1 {
			t.Errorf("%q: %d profiles, errors %v", paths, len(res.Profiles), ds)
		}
	}
	// Control: a copy is another file, and its profile a duplicate.
	cp := filepath.Join(dir, "copy.hcl")
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(cp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ds := CompileFiles([]string{p, cp}); !ds.HasCode("duplicate-profile") {
		t.Errorf("control: a copy: %v, want a duplicate-profile error", ds)
	}
}

// TestRT27ByteOrderMark: a profile saved with a UTF-8 byte order mark
// compiled, but the snippet's block header began with the invisible U+FEFF
// and line 1's columns counted it; sbc fmt dropped it. The mark is no
// part of the first line; Format keeps it.
func TestRT27ByteOrderMark(t *testing.T) {
	src := "\ufeffprofil \"p\" {\n}\n"
	res, ds := CompileSources([]Source{{Name: "t.hcl", Data: []byte(src)}})
	if !ds.HasErrors() {
		t.Fatalf("no error for an unknown block type: %v", ds)
	}
	d := ds[0]
	if d.Range == nil || d.Range.Start.Line != 1 || d.Range.Start.Column != 1 {
		t.Errorf("range %+v, want line 1 column 1 (the mark is not a column)", d.Range)
	}
	var b strings.Builder
	if err := diag.WriteText(&b, ds, res.Sources); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(b.String(), '\ufeff') {
		t.Errorf("the rendered diagnostic holds the byte order mark: %q", b.String())
	}
	out, fds := Format("t.hcl", []byte("\ufeffprofile \"p\" {\nfilesystem {\nread=[cwd]\n}\n}\n"))
	if fds.HasErrors() || !strings.HasPrefix(string(out), "\ufeffprofile \"p\" {\n  filesystem {\n    read = [cwd]") {
		t.Errorf("Format: %q, %v; want the mark kept and the rest formatted", out, fds)
	}
}
