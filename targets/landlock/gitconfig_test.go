package landlock

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestParseGitConfig: git's configuration syntax as git reads it.
func TestParseGitConfig(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []gitEntry
	}{
		{"section and key lowercased", "[Core]\n\tHooksPath = .husky/_\n",
			[]gitEntry{{name: "core.hookspath", value: ".husky/_", key: "Core.HooksPath"}}},
		{"quoted subsection kept as written", "[includeIf \"gitdir:~/Work/\"]\n path = ~/w.inc\n",
			[]gitEntry{{name: "includeif.gitdir:~/Work/.path", value: "~/w.inc", key: "includeIf.gitdir:~/Work/.path"}}},
		{"old dotted subsection", "[filter.X]\nclean = a/b\n",
			[]gitEntry{{name: "filter.x.clean", value: "a/b", key: "filter.X.clean"}}},
		{"bare key is true", "[core]\n\tbare\n", []gitEntry{{name: "core.bare", key: "core.bare"}}},
		{"comments", "# c\n; c\n[core] ; c\n\thooksPath = h # c\n\tx = \"a # b\" ; c\n",
			[]gitEntry{{name: "core.hookspath", value: "h", key: "core.hooksPath"}, {name: "core.x", value: "a # b", key: "core.x"}}},
		{"escapes", `[a]` + "\n" + `k = "x\"y\\z" \t w` + "\n",
			[]gitEntry{{name: "a.k", value: "x\"y\\z \t w", key: "a.k"}}},
		{"continuation", "[a]\nk = one \\\ntwo\n", []gitEntry{{name: "a.k", value: "one two", key: "a.k"}}},
		{"variable on the header's line", "[core] hooksPath = h\n", []gitEntry{{name: "core.hookspath", value: "h", key: "core.hooksPath"}}},
		{"no section", "k = v\n[a]\nk = v\n", []gitEntry{{name: "a.k", value: "v", key: "a.k"}}},
		{"malformed lines skipped", "[a\n[b]\n=v\nk v\nk = v\n", []gitEntry{{name: "b.k", value: "v", key: "b.k"}}},
		{"crlf", "[core]\r\n\thooksPath = h\r\n", []gitEntry{{name: "core.hookspath", value: "h", key: "core.hooksPath"}}},
		{"inner blanks kept, outer trimmed", "[a]\nk =   x  y   \n", []gitEntry{{name: "a.k", value: "x  y", key: "a.k"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseGitConfig(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestGitKeys: which variables name paths git reads or runs, and which
// hold commands.
func TestGitKeys(t *testing.T) {
	for _, tc := range []struct {
		name, value   string
		path, command bool
	}{
		{"core.hookspath", "", true, false},
		{"include.path", "", true, false},
		{"includeif.gitdir:/w/.path", "", true, false},
		{"includeif.gitdir:/w/.other", "", false, false},
		{"core.fsmonitor", "", true, false},
		{"core.sshcommand", "", false, true},
		{"core.editor", "", false, true},
		{"filter.lfs.process", "", false, true},
		{"filter.x.clean", "", false, true},
		{"filter.x.required", "", false, false},
		{"diff.x.textconv", "", false, true},
		{"merge.x.driver", "", false, true},
		{"credential.helper", "", false, true},
		{"credential.https://h.example.helper", "", false, true},
		{"gpg.ssh.program", "", false, true},
		{"pager.log", "", false, true},
		{"alias.x", "!tools/x.sh", false, true},
		{"alias.co", "checkout", false, false},
		{"remote.origin.url", "../other", false, false},
		// Red team 30: commands git runs that the first list left out.
		{"remote.origin.uploadpack", "sh tools/up.sh", false, true},
		{"remote.origin.receivepack", "", false, true},
		{"core.gitproxy", "", false, true},
		{"core.alternaterefscommand", "", false, true},
		{"uploadpack.packobjectshook", "", false, true},
		{"gpg.ssh.defaultkeycommand", "", false, true},
		{"difftool.x.cmd", "", false, true},
		{"mergetool.x.path", "", false, true},
		{"mergetool.x.trustexitcode", "", false, false},
		{"browser.x.cmd", "", false, true},
		{"man.x.cmd", "", false, true},
		{"trailer.sign.cmd", "", false, true},
		{"trailer.sign.key", "", false, false},
		{"sendemail.sendmailcmd", "", false, true},
		{"hook.lint.command", "", false, true},
		{"hook.lint.event", "", false, false},
		{"submodule.lib.update", "!tools/sub.sh", false, true},
		{"submodule.lib.update", "rebase", false, false},
	} {
		if got := gitPathKey(tc.name); got != tc.path {
			t.Errorf("gitPathKey(%q) = %v, want %v", tc.name, got, tc.path)
		}
		if got := gitCommandKey(tc.name, tc.value); got != tc.command {
			t.Errorf("gitCommandKey(%q, %q) = %v, want %v", tc.name, tc.value, got, tc.command)
		}
	}
}

// TestGitWords: the words of a command-valued variable and which start a
// command (red team 30).
func TestGitWords(t *testing.T) {
	for _, tc := range []struct {
		in     string
		words  string
		starts string
	}{
		{"sh tools/x.sh", "sh tools/x.sh", "10"},
		{"sh tools/x.sh;", "sh tools/x.sh", "10"},
		{"f() { ./x.sh \"$@\"; }; f", "f ./x.sh $@ f", "1101"},
		{"npm test && ./scripts/check.sh", "npm test ./scripts/check.sh", "101"},
		{"a|b", "a b", "11"},
		{"git log >./out/log", "git log ./out/log", "100"},
		{"tools/a.sh --x\ntools/b.sh", "tools/a.sh --x tools/b.sh", "101"},
	} {
		w, st := gitWords(tc.in)
		var sb strings.Builder
		for _, s := range st {
			if s {
				sb.WriteByte('1')
			} else {
				sb.WriteByte('0')
			}
		}
		if got := strings.Join(w, " "); got != tc.words || sb.String() != tc.starts {
			t.Errorf("gitWords(%q) = %q %s, want %q %s", tc.in, got, sb.String(), tc.words, tc.starts)
		}
	}
}

// TestGitEnvEntries: the variables git takes from its environment, named
// as a file's are, and GIT_CONFIG_PARAMETERS in both of git's quotings.
func TestGitEnvEntries(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []gitEntry
	}{
		{"nothing", nil, nil},
		{"count", map[string]string{
			"GIT_CONFIG_COUNT": "3",
			"GIT_CONFIG_KEY_0": "Core.HooksPath", "GIT_CONFIG_VALUE_0": "h",
			"GIT_CONFIG_KEY_1": "filter.MyDrv.Clean", "GIT_CONFIG_VALUE_1": "sh x.sh",
			"GIT_CONFIG_KEY_2": "nodot", "GIT_CONFIG_VALUE_2": "skipped",
		}, []gitEntry{
			{name: "core.hookspath", value: "h", key: "Core.HooksPath"},
			{name: "filter.MyDrv.clean", value: "sh x.sh", key: "filter.MyDrv.Clean"},
		}},
		{"bogus count", map[string]string{"GIT_CONFIG_COUNT": "x", "GIT_CONFIG_KEY_0": "core.pager", "GIT_CONFIG_VALUE_0": "p"}, nil},
		{"count beyond the keys", map[string]string{"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "core.pager", "GIT_CONFIG_VALUE_0": "p"},
			[]gitEntry{{name: "core.pager", value: "p", key: "core.pager"}}},
		{"parameters", map[string]string{
			"GIT_CONFIG_PARAMETERS": `'core.hooksPath'='it'\''s/h' 'alias.x=!tools/x.sh'  'color.ui' 'sub.A.B.Key'='v w'`,
		}, []gitEntry{
			{name: "core.hookspath", value: "it's/h", key: "core.hooksPath"},
			{name: "alias.x", value: "!tools/x.sh", key: "alias.x"},
			{name: "color.ui", key: "color.ui"},
			{name: "sub.A.B.key", value: "v w", key: "sub.A.B.Key"},
		}},
		{"parameters cut at what does not parse", map[string]string{"GIT_CONFIG_PARAMETERS": `'core.pager'='p' unquoted 'core.editor'='e'`},
			[]gitEntry{{name: "core.pager", value: "p", key: "core.pager"}}},
		{"unterminated quote", map[string]string{"GIT_CONFIG_PARAMETERS": `'core.pager'='p`}, nil},
	} {
		got := gitEnvEntries(func(k string) string { return tc.env[k] })
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestGitEnvEntry: a GIT_CONFIG_KEY_n name as git matches it (red team 31):
// section and key lowercased, a subsection as written.
func TestGitEnvEntry(t *testing.T) {
	for _, c := range []struct {
		key, want string
		ok        bool
	}{
		{"core.hooksPath", "core.hookspath", true},
		{"Core.FSMonitor", "core.fsmonitor", true},
		{"includeIf.gitdir:~/W/.path", "includeif.gitdir:~/W/.path", true},
		{"alias.Run", "alias.run", true},
		{"filter.Foo.clean", "filter.Foo.clean", true},
		{"core", "", false},
		{".x", "", false},
		{"core.", "", false},
		{"", "", false},
	} {
		e, ok := gitEnvEntry(c.key, "v")
		if e.name != c.want || ok != c.ok {
			t.Errorf("gitEnvEntry(%q) = %q, %v; want %q, %v", c.key, e.name, ok, c.want, c.ok)
		}
	}
}

// PreCommitHook is the start of the hook the pre-commit framework installs
// (pre-commit 3.x and 4.x write this shape; the config is shlex-quoted).
// Exported for the package's external tests.
const PreCommitHook = `#!/usr/bin/env bash
# File generated by pre-commit: https://pre-commit.com
# ID: 138fd403232d2ddd5efb44317e38bf03

# start templated
INSTALL_PYTHON=/usr/bin/python3
ARGS=(hook-impl %s --hook-type=pre-commit)
# end templated

HERE="$(cd "$(dirname "$0")" && pwd)"
ARGS+=(--hook-dir "$HERE" -- "$@")
exec "$INSTALL_PYTHON" -mpre_commit "${ARGS[@]}"
`

// LefthookHook is the start of the hook lefthook 1.x installs.
const LefthookHook = `#!/bin/sh

if [ "$LEFTHOOK_VERBOSE" = "1" -o "$LEFTHOOK_VERBOSE" = "true" ]; then
  set -x
fi

call_lefthook()
{
  if lefthook -h >/dev/null 2>&1
  then
    lefthook "$@"
  fi
}

call_lefthook run "pre-commit" "$@"
`

func TestHookManagerFiles(t *testing.T) {
	lefthook := func(extra ...string) []string {
		var out []string
		for _, base := range []string{"lefthook", "lefthook-local"} {
			for _, ext := range []string{"yml", "yaml", "toml", "json", "jsonc"} {
				out = append(out, base+"."+ext, "."+base+"."+ext, ".config/"+base+"."+ext)
			}
		}
		return append(append(out, ".lefthook", ".lefthook-local"), extra...)
	}
	noEnv := func(string) string { return "" }
	tests := []struct {
		name, script string
		getenv       func(string) string
		want         []string
	}{
		{"pre-commit default", fmt.Sprintf(PreCommitHook, "--config=.pre-commit-config.yaml"), noEnv, []string{".pre-commit-config.yaml"}},
		{"pre-commit other file", fmt.Sprintf(PreCommitHook, "--config=ci/hooks.yaml"), noEnv, []string{"ci/hooks.yaml"}},
		{"pre-commit quoted", fmt.Sprintf(PreCommitHook, "'--config=my hooks.yaml'"), noEnv, []string{"my hooks.yaml"}},
		{"pre-commit absolute", fmt.Sprintf(PreCommitHook, "--config=/srv/hooks.yaml)"), noEnv, []string{"/srv/hooks.yaml"}},
		{"pre-commit without --config", fmt.Sprintf(PreCommitHook, ""), noEnv, []string{".pre-commit-config.yaml"}},
		{"lefthook", LefthookHook, noEnv, lefthook()},
		{"lefthook with LEFTHOOK_CONFIG", LefthookHook, func(k string) string {
			if k == "LEFTHOOK_CONFIG" {
				return "/etc/lefthook.yml"
			}
			return ""
		}, lefthook("/etc/lefthook.yml")},
		{"plain hook", "#!/bin/sh\nexec make lint\n", noEnv, nil},
		{"a hook that only names pre-commit", "#!/bin/sh\n# pre-commit: run the linter\nmake lint\n", noEnv, nil},
		{"empty", "", noEnv, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hookManagerFiles(tt.script, tt.getenv); !slices.Equal(got, tt.want) {
				t.Errorf("hookManagerFiles = %q, want %q", got, tt.want)
			}
		})
	}
}
