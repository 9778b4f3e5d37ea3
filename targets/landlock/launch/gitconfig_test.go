//go:build linux && amd64

package launch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitAttemptFunc is the shell function the scripts below try each attempt
// with: "t NAME CMD..." prints NAME=ok, NAME=EROFS, NAME=EBUSY or
// NAME=denied.
const gitAttemptFunc = `t() {
  n="$1"; shift
  if e=$( ( "$@" ) 2>&1 >/dev/null ); then echo "$n=ok"; return; fi
  case "$e" in
  *"Read-only file system"*) echo "$n=EROFS" ;;
  *"busy"*) echo "$n=EBUSY" ;;
  *) echo "$n=denied" ;;
  esac
}
`

// gitConfigScript tries to plant code where the repository's own
// configuration sends git on the host: hooks in core.hooksPath (husky's
// layout), an included configuration file, a filter driver's script; by
// writing, creating, removing, and renaming the file or a directory above
// it away and putting another in its place.
const gitConfigScript = `
export MARK="$1"
` + gitAttemptFunc + `t hook-write     sh -c 'printf "#!/bin/sh\ntouch $MARK\n" > .husky/_/pre-commit'
t hook-create    sh -c 'printf "#!/bin/sh\ntouch $MARK\n" > .husky/_/post-commit'
t hook-remove    rm .husky/_/pre-commit
t hooks-rename   sh -c 'mv .husky .h2 && mkdir -p .husky/_'
t hooksdir-swap  sh -c 'mv .husky/_ .husky/x && mkdir .husky/_'
t include-write  sh -c 'printf "[core]\n\tfsmonitor = touch $MARK; false #\n" >> shared.inc'
t include-swap   sh -c 'cp shared.inc s2 && mv s2 shared.inc'
t filter-write   sh -c 'echo "touch $MARK" >> tools/clean.sh'
t tools-rename   sh -c 'mv tools t2 && mkdir tools && echo "touch $MARK" > tools/clean.sh'
t other-write    sh -c 'echo data > README'
`

// TestGitConfigTargetsHold: a repository whose configuration sends git to
// hooks, configuration and scripts inside the workspace (core.hooksPath
// as husky sets it, include.path, a filter driver) keeps them read-only
// to the sandboxed command: each attempt fails (EROFS, or EBUSY for the
// renames), the workspace's other files stay writable, and a commit on
// the host afterwards runs nothing the command planted. The control:
// without the sandbox every attempt succeeds and the host's commit runs
// the planted hook.
func TestGitConfigTargetsHold(t *testing.T) {
	rt12NeedGit(t)
	script := rtFile(t, "gitconfig.sh", gitConfigScript)
	asUser(t, func(t *testing.T, u user) {
		setup := func() (f *fixture, repo, marker string) {
			f = newFixture(t, u)
			repo, marker = f.base+"/repo", f.base+"/git-marker"
			rt12Repo(t, u, f.home, repo)
			for p, c := range map[string]string{".husky/_/pre-commit": "#!/bin/sh\nexit 0\n", "shared.inc": "[user]\n\tname = rt\n",
				"tools/clean.sh": "cat\n", ".gitattributes": "*.txt filter=x\n"} {
				os.MkdirAll(repo+"/"+p[:strings.LastIndexByte(p, '/')+1], 0o755)
				if err := os.WriteFile(repo+"/"+p, []byte(c), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, a := range [][]string{{"config", "core.hooksPath", ".husky/_"}, {"config", "include.path", "../shared.inc"},
				{"config", "filter.x.clean", "sh tools/clean.sh"}} {
				if out, err := rt12Git(u, f.home, repo, a...); err != nil {
					t.Fatalf("git %v: %v\n%s", a, err, out)
				}
			}
			filepath.Walk(repo, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
			return f, repo, marker
		}
		hostCommit := func(f *fixture, repo string) { hostCommitNew(u, f, repo) }
		gitHolds(t, u, script, setup, hostCommit, "", nil,
			map[string]string{"hook-write": "EROFS", "hook-create": "EROFS", "hook-remove": "EROFS", "hooks-rename": "EBUSY",
				"hooksdir-swap": "EBUSY", "include-write": "EROFS", "include-swap": "EBUSY", "filter-write": "EROFS", "tools-rename": "EBUSY", "other-write": "ok"})
	})
}

// gitSubmoduleScript re-points a submodule's gitfile at a repository the
// command makes, whose core.fsmonitor the host's git would then run.
const gitSubmoduleScript = `
EVIL="$1" MARK="$2"
` + gitAttemptFunc + `git init -q "$EVIL" && git -C "$EVIL" config core.fsmonitor "touch $MARK; false #" || echo setup=failed
t gitfile-write   sh -c 'printf "gitdir: %s/.git\n" "$1" > sub/.git' - "$EVIL"
t gitfile-replace sh -c 'rm -f sub/.git && printf "gitdir: %s/.git\n" "$1" > sub/.git' - "$EVIL"
t sub-rename      sh -c 'mv sub sub2 && mkdir sub && printf "gitdir: %s/.git\n" "$1" > sub/.git' - "$EVIL"
t other-write     sh -c 'echo data > sub/file.txt'
`

// TestGitSubmoduleGitfileHolds: a submodule's gitfile (sub/.git, pointing
// into the superproject's .git/modules) is read-only to the sandboxed
// command, below the protected names' level: re-pointed at a repository
// the command made, the host's "git status" in the superproject (which
// recurses into submodules) would run that repository's core.fsmonitor.
// Each attempt fails (EROFS, EBUSY for the removal and the rename), the
// submodule's other
// files stay writable, and the host's status runs nothing. The control:
// without the sandbox the gitfile is re-pointed and the host's status
// runs the planted fsmonitor.
func TestGitSubmoduleGitfileHolds(t *testing.T) {
	rt12NeedGit(t)
	script := rtFile(t, "gitsubmodule.sh", gitSubmoduleScript)
	asUser(t, func(t *testing.T, u user) {
		setup := func() (f *fixture, repo, evil, marker string) {
			f = newFixture(t, u)
			repo, evil, marker = f.base+"/super", f.base+"/super/.evil", f.base+"/git-marker"
			lib := f.base + "/lib"
			rt12Repo(t, u, f.home, lib)
			rt12Repo(t, u, f.home, repo)
			for _, a := range [][]string{{"-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "sub"}, {"commit", "-qm", "sub"}} {
				if out, err := rt12Git(u, f.home, repo, a...); err != nil {
					t.Fatalf("git %v: %v\n%s", a, err, out)
				}
			}
			if b, err := os.ReadFile(repo + "/sub/.git"); err != nil || !strings.HasPrefix(string(b), "gitdir:") {
				t.Fatalf("sub/.git is not a gitfile: %q %v", b, err)
			}
			return f, repo, evil, marker
		}
		// Control: without the sandbox.
		f, repo, evil, marker := setup()
		cmd := rt12As(u, []string{"HOME=" + f.home, "GIT_CONFIG_NOSYSTEM=1"}, "/bin/sh", script, evil, marker)
		cmd.Dir = repo
		b, _ := cmd.CombinedOutput()
		if !strings.Contains(string(b), "gitfile-write=ok") {
			t.Errorf("control (no sandbox): %s", b)
		}
		rt12HostStatus(u, f.home, repo)
		if !fileExists(marker) {
			t.Fatalf("control: the host's git status did not run the planted repository's fsmonitor")
		}
		// In the sandbox.
		f, repo, evil, marker = setup()
		r := rt12Run(t, u, f.home, nil, "workspace", repo, "/bin/sh", script, evil, marker)
		got := map[string]string{}
		for _, l := range strings.Fields(r.Stdout) {
			k, v, _ := strings.Cut(l, "=")
			got[k] = v
		}
		want := map[string]string{"gitfile-write": "EROFS", "gitfile-replace": "EBUSY", "sub-rename": "EBUSY", "other-write": "ok"}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("sandboxed %s=%s, want %s (stdout %q, stderr %q)", k, got[k], w, r.Stdout, r.Stderr)
			}
		}
		if got["setup"] != "" {
			t.Errorf("the planted repository could not be made: %q %q", r.Stdout, r.Stderr)
		}
		rt12HostStatus(u, f.home, repo)
		if fileExists(marker) {
			t.Errorf("the host's git status ran code the sandboxed command planted")
		}
	})
}

// gitEnvScript tries to plant a hook in the hooks directory that git's
// environment (GIT_CONFIG_COUNT), not any file, names.
const gitEnvScript = `
export MARK="$1"
` + gitAttemptFunc + `t envhook-write  sh -c 'printf "#!/bin/sh\ntouch $MARK\n" > envhooks/pre-commit && chmod +x envhooks/pre-commit'
t envhook-create sh -c 'printf "#!/bin/sh\ntouch $MARK\n" > envhooks/post-commit && chmod +x envhooks/post-commit'
t envhooks-swap  sh -c 'mv envhooks eh2 && mkdir envhooks && printf "#!/bin/sh\ntouch $MARK\n" > envhooks/pre-commit && chmod +x envhooks/pre-commit'
t other-write    sh -c 'echo data > README'
`

// TestGitEnvConfigHolds: where sbx runs with git configuration in its
// environment (GIT_CONFIG_COUNT, as a host that runs git with the same
// environment sets it), the hooks directory it names inside the workspace
// is read-only to the sandboxed command, and the host's commit with that
// environment afterwards runs nothing the command planted. The control:
// without the sandbox the hook is planted and the host's commit runs it.
func TestGitEnvConfigHolds(t *testing.T) {
	rt12NeedGit(t)
	script := rtFile(t, "gitenv.sh", gitEnvScript)
	gitEnv := []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=envhooks"}
	asUser(t, func(t *testing.T, u user) {
		setup := func() (f *fixture, repo, marker string) {
			f = newFixture(t, u)
			repo, marker = f.base+"/repo", f.base+"/git-marker"
			rt12Repo(t, u, f.home, repo)
			if err := os.Mkdir(repo+"/envhooks", 0o755); err != nil {
				t.Fatal(err)
			}
			os.Chown(repo+"/envhooks", u.uid, u.uid)
			return f, repo, marker
		}
		hostCommit := func(f *fixture, repo string) {
			os.WriteFile(repo+"/new.txt", []byte("x\n"), 0o644)
			os.Chown(repo+"/new.txt", u.uid, u.uid)
			for _, a := range [][]string{{"add", "new.txt"}, {"commit", "-qm", "after"}} {
				c := rt12As(u, append([]string{"HOME=" + f.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=rt", "GIT_AUTHOR_EMAIL=rt@example.com",
					"GIT_COMMITTER_NAME=rt", "GIT_COMMITTER_EMAIL=rt@example.com"}, gitEnv...), append([]string{"git", "-C", repo}, a...)...)
				if out, err := c.CombinedOutput(); err != nil {
					t.Logf("host git %v: %v\n%s", a, err, out)
				}
			}
		}
		gitHolds(t, u, script, setup, hostCommit, "envhook-write", gitEnv,
			map[string]string{"envhook-write": "EROFS", "envhook-create": "EROFS", "envhooks-swap": "EBUSY", "other-write": "ok"})
	})
}

// gitHolds runs script (its argument the marker file) in the directory
// setup makes, first without the sandbox, where the attempt controlKey
// (every attempt, where it is "") must succeed and host (the host's git in that directory afterwards)
// must run the planted code, which creates the marker; then under the
// workspace profile, sbx started with sbxEnv, where each attempt must end
// as want says and host must run nothing.
func gitHolds(t *testing.T, u user, script string, setup func() (f *fixture, dir, marker string), host func(f *fixture, dir string),
	controlKey string, sbxEnv []string, want map[string]string) {
	t.Helper()
	f, dir, marker := setup()
	cmd := rt12As(u, []string{"HOME=" + f.home}, "/bin/sh", script, marker)
	cmd.Dir = dir
	b, _ := cmd.CombinedOutput()
	if controlKey == "" {
		for _, l := range strings.Fields(string(b)) {
			if !strings.HasSuffix(l, "=ok") {
				t.Errorf("control (no sandbox): %s", l)
			}
		}
	} else if !strings.Contains(string(b), controlKey+"=ok") {
		t.Errorf("control (no sandbox): %s", b)
	}
	host(f, dir)
	if !fileExists(marker) {
		t.Fatalf("control: the host's git did not run the planted code")
	}
	f, dir, marker = setup()
	r := rt12Run(t, u, f.home, sbxEnv, "workspace", dir, "/bin/sh", script, marker)
	got := map[string]string{}
	for _, l := range strings.Fields(r.Stdout) {
		k, v, _ := strings.Cut(l, "=")
		got[k] = v
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("sandboxed %s=%s, want %s (stdout %q, stderr %q)", k, got[k], w, r.Stdout, r.Stderr)
		}
	}
	host(f, dir)
	if fileExists(marker) {
		t.Errorf("the host's git ran code the sandboxed command planted")
	}
}

// gitNestedScript tries to plant a hook in a repository one level below
// the workspace.
const gitNestedScript = `
export MARK="$1"
` + gitAttemptFunc + `t nested-hook    sh -c 'printf "#!/bin/sh\ntouch $MARK\n" > proj/.git/hooks/pre-commit && chmod +x proj/.git/hooks/pre-commit'
t nested-config  sh -c 'printf "[core]\n\tfsmonitor = touch $MARK; false #\n" >> proj/.git/config'
t nested-swap    sh -c 'mv proj/.git proj/g2 && git init -q proj && printf "#!/bin/sh\ntouch $MARK\n" > proj/.git/hooks/pre-commit && chmod +x proj/.git/hooks/pre-commit'
t nested-file    sh -c 'echo data > proj/README'
`

// TestGitNestedRepoHolds: a workspace that holds a project of its own one
// level down (a folder of projects): the project's .git is read-only to
// the sandboxed command (EROFS, EBUSY for the swap), its files stay
// writable, and the host's commit in it afterwards runs nothing. The
// control: without the sandbox the hook is planted and the host's commit
// runs it.
func TestGitNestedRepoHolds(t *testing.T) {
	rt12NeedGit(t)
	script := rtFile(t, "gitnested.sh", gitNestedScript)
	asUser(t, func(t *testing.T, u user) {
		setup := func() (f *fixture, ws, marker string) {
			f = newFixture(t, u)
			ws, marker = f.base+"/projects", f.base+"/git-marker"
			os.MkdirAll(ws, 0o755)
			os.Chown(ws, u.uid, u.uid)
			rt12Repo(t, u, f.home, ws+"/proj")
			return f, ws, marker
		}
		hostCommit := func(f *fixture, ws string) { hostCommitNew(u, f, ws+"/proj") }
		gitHolds(t, u, script, setup, hostCommit, "nested-hook", nil,
			map[string]string{"nested-hook": "EROFS", "nested-config": "EROFS", "nested-swap": "EBUSY", "nested-file": "ok"})
	})
}

// hookManagerStandIns are the hooks a repository gets from two hook
// managers, each followed by a stand-in for the manager itself (neither
// is installed here): the pre-commit framework's hook (its real start, as
// pre-commit 3.x and 4.x write it), which runs each "entry:" of the
// config file it names, as a "repo: local" hook with "language: system"
// makes the framework do; and lefthook's (its real start), which runs
// each "run:" of the local configuration and the scripts in
// .lefthook/post-commit, as lefthook does. sbx reads only the hooks.
var hookManagerStandIns = map[string]string{
	"pre-commit": `#!/usr/bin/env bash
# File generated by pre-commit: https://pre-commit.com
# start templated
INSTALL_PYTHON=/usr/bin/python3
ARGS=(hook-impl --config=.pre-commit-config.yaml --hook-type=pre-commit)
# end templated
cd "$(git rev-parse --show-toplevel)" || exit 1
sed -n 's/^ *entry: //p' .pre-commit-config.yaml | while read -r c; do sh -c "$c"; done
`,
	"post-commit": `#!/bin/sh
call_lefthook()
{
  cd "$(git rev-parse --show-toplevel)" || exit 1
  for f in lefthook.yml lefthook-local.yml .config/lefthook-local.yml; do
    [ -f "$f" ] && sed -n 's/^ *- run: //p' "$f" | while read -r c; do sh -c "$c"; done
  done
  for s in .lefthook/post-commit/*; do [ -f "$s" ] && sh "$s"; done
}
call_lefthook run "post-commit" "$@"
exit 0
`,
}

// gitHookManagerScript tries to add a command to what the hook managers'
// hooks run: a local hook in the pre-commit framework's config (existing:
// rewritten, and replaced by a rename), and lefthook's local
// configuration and script directory (missing: created).
const gitHookManagerScript = `
export MARK="$1"
` + gitAttemptFunc + `t precommit-write   sh -c 'printf "  - repo: local\n    hooks:\n      - id: x\n        entry: touch $MARK\n" >> .pre-commit-config.yaml'
t precommit-swap    sh -c 'printf "repos:\n  - repo: local\n    hooks:\n      - id: x\n        entry: touch $MARK\n" > p2 && mv p2 .pre-commit-config.yaml'
t lefthook-local    sh -c 'printf "post-commit:\n  jobs:\n    - run: touch $MARK\n" > lefthook-local.yml'
t lefthook-config   sh -c 'mkdir -p .config && printf "post-commit:\n  jobs:\n    - run: touch $MARK\n" > .config/lefthook-local.yml'
t lefthook-scripts  sh -c 'mkdir -p .lefthook/post-commit && printf "touch $MARK\n" > .lefthook/post-commit/x.sh'
t other-write       sh -c 'echo data > README'
`

// TestGitHookManagerHolds: in a repository whose hooks the pre-commit
// framework and lefthook installed, the files they take their commands
// from are read-only to the sandboxed command (EROFS; EBUSY for a rename
// over the config) or cannot be created (the supervisor's EACCES), and
// the host's commit afterwards runs nothing the command planted. The
// control: without the sandbox every attempt succeeds and the host's
// commit runs the planted commands.
func TestGitHookManagerHolds(t *testing.T) {
	rt12NeedGit(t)
	script := rtFile(t, "githookmanagers.sh", gitHookManagerScript)
	asUser(t, func(t *testing.T, u user) {
		setup := func() (f *fixture, repo, marker string) {
			f = newFixture(t, u)
			repo, marker = f.base+"/repo", f.base+"/git-marker"
			rt12Repo(t, u, f.home, repo)
			for name, body := range hookManagerStandIns {
				if err := os.WriteFile(repo+"/.git/hooks/"+name, []byte(body), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(repo+"/.pre-commit-config.yaml", []byte("repos:\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chown(repo+"/.pre-commit-config.yaml", u.uid, u.uid)
			return f, repo, marker
		}
		hostCommit := func(f *fixture, repo string) { hostCommitNew(u, f, repo) }
		gitHolds(t, u, script, setup, hostCommit, "", nil, map[string]string{
			"precommit-write": "EROFS", "precommit-swap": "EBUSY", "lefthook-local": "denied",
			"lefthook-config": "denied", "lefthook-scripts": "denied", "other-write": "ok",
		})
	})
}

// hostCommitNew is the host's next commit in repo, as u: a new file added
// and committed, which runs the repository's commit hooks.
func hostCommitNew(u user, f *fixture, repo string) {
	os.WriteFile(repo+"/new.txt", []byte("x\n"), 0o644)
	os.Chown(repo+"/new.txt", u.uid, u.uid)
	rt12Git(u, f.home, repo, "add", "new.txt")
	rt12Git(u, f.home, repo, "commit", "-qm", "after")
}
