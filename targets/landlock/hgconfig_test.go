package landlock

import (
	"reflect"
	"testing"
)

// TestParseHgConfig: hgrc syntax as Mercurial's config.py reads it.
func TestParseHgConfig(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []hgEntry
		includes []string
	}{
		{"hooks", "[hooks]\nprecommit.lint = sh tools/lint.sh\nchangegroup=./notify\n",
			[]hgEntry{{"hooks", "precommit.lint", "sh tools/lint.sh"}, {"hooks", "changegroup", "./notify"}}, nil},
		{"comments and blank lines", "# a comment\n; another\n\n[ui]\n  \neditor = vim\n",
			[]hgEntry{{"ui", "editor", "vim"}}, nil},
		{"continuation", "[hooks]\nprecommit = sh -c\n  tools/a.sh\n\ttools/b.sh\nother = x\n",
			[]hgEntry{{"hooks", "precommit", "sh -c\ntools/a.sh\ntools/b.sh"}, {"hooks", "other", "x"}}, nil},
		{"includes", "%include ../shared.rc\n%include\ttools/hooks.rc\n%includebad\n[hooks]\n",
			nil, []string{"../shared.rc", "tools/hooks.rc"}},
		{"unset", "[hooks]\nprecommit = tools/a.sh\n%unset precommit\n",
			[]hgEntry{{"hooks", "precommit", ""}}, nil},
		{"case kept, CRLF", "[Hooks]\r\nPreCommit = A\r\n",
			[]hgEntry{{"Hooks", "PreCommit", "A"}}, nil},
		{"garbage skipped", "[hooks\nnot an item\n= no key\n[hooks]\nx = y\n",
			[]hgEntry{{"hooks", "x", "y"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, inc := parseHgConfig(tc.in)
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(inc, tc.includes) {
				t.Errorf("parseHgConfig = %q, %q; want %q, %q", got, inc, tc.want, tc.includes)
			}
		})
	}
}

// TestHgKeys: which items hg runs as a command, and which name a Python
// file it loads.
func TestHgKeys(t *testing.T) {
	for _, tc := range []struct {
		e      hgEntry
		run    bool
		pyFile string
	}{
		{hgEntry{"hooks", "precommit.lint", "sh tools/lint.sh"}, true, ""},
		{hgEntry{"hooks", "pretxncommit", "python:tools/check.py:run"}, false, "tools/check.py"},
		{hgEntry{"hooks", "pretxncommit", "python:hgext.check.run"}, false, ""},
		{hgEntry{"hooks", "x", "python:check.py:run"}, false, "check.py"},
		{hgEntry{"extensions", "local", "tools/ext.py"}, false, "tools/ext.py"},
		{hgEntry{"extensions", "rebase", ""}, false, ""},
		{hgEntry{"extensions", "off", "!tools/ext.py"}, false, ""},
		{hgEntry{"ui", "editor", "tools/ed"}, true, ""},
		{hgEntry{"ui", "username", "a/b"}, false, ""},
		{hgEntry{"ui", "ssh", "ssh -o ProxyCommand=tools/p.sh"}, true, ""},
		{hgEntry{"pager", "pager", "less"}, true, ""},
		{hgEntry{"merge-tools", "kdiff3.executable", "tools/kd"}, true, ""},
		{hgEntry{"merge-tools", "kdiff3.args", "$base"}, false, ""},
		{hgEntry{"extdiff", "cmd.mydiff", "tools/d"}, true, ""},
		{hgEntry{"alias", "x", "!tools/x.sh"}, true, ""},
		{hgEntry{"alias", "l", "log -l 3"}, false, ""},
	} {
		if got := hgRunKey(tc.e); got != tc.run {
			t.Errorf("hgRunKey(%v) = %v, want %v", tc.e, got, tc.run)
		}
		if got := hgPythonFile(tc.e); got != tc.pyFile {
			t.Errorf("hgPythonFile(%v) = %q, want %q", tc.e, got, tc.pyFile)
		}
	}
}
