package launch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitConfigScript tries to plant code where the repository's own
// configuration sends git on the host: hooks in core.hooksPath (husky's
// layout), an included configuration file, a filter driver's script; by
// writing, creating, removing, and renaming the file or a directory above
// it away and putting another in its place.
const gitConfigScript = `
t() {
  n="$1"; shift
  if e=$( ( "$@" ) 2>&1 >/dev/null ); then echo "$n=ok"; return; fi
  case "$e" in
  *"Read-only file system"*) echo "$n=EROFS" ;;
  *"busy"*) echo "$n=EBUSY" ;;
  *) echo "$n=denied" ;;
  esac
}
t hook-write     sh -c 'printf "#!/bin/sh\ntouch $MARK\n" > .husky/_/pre-commit'
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
		hostCommit := func(f *fixture, repo string) {
			os.WriteFile(repo+"/new.txt", []byte("x\n"), 0o644)
			os.Chown(repo+"/new.txt", u.uid, u.uid)
			rt12Git(u, f.home, repo, "add", "new.txt")
			rt12Git(u, f.home, repo, "commit", "-qm", "after")
		}
		// Control: without the sandbox.
		f, repo, marker := setup()
		out := rt12As(u, []string{"HOME=" + f.home, "MARK=" + marker}, "/bin/sh", script)
		out.Dir = repo
		b, _ := out.CombinedOutput()
		for _, l := range strings.Fields(string(b)) {
			if !strings.HasSuffix(l, "=ok") {
				t.Errorf("control (no sandbox): %s", l)
			}
		}
		hostCommit(f, repo)
		if !fileExists(marker) {
			t.Fatalf("control: the host's commit did not run the planted hook")
		}
		// In the sandbox.
		f, repo, marker = setup()
		r := rt12Run(t, u, f.home, []string{"MARK=" + marker}, "workspace", repo, "/bin/sh", script)
		got := map[string]string{}
		for _, l := range strings.Fields(r.Stdout) {
			k, v, _ := strings.Cut(l, "=")
			got[k] = v
		}
		want := map[string]string{"hook-write": "EROFS", "hook-create": "EROFS", "hook-remove": "EROFS", "hooks-rename": "EBUSY",
			"hooksdir-swap": "EBUSY", "include-write": "EROFS", "include-swap": "EBUSY", "filter-write": "EROFS", "tools-rename": "EBUSY", "other-write": "ok"}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("sandboxed %s=%s, want %s (stdout %q, stderr %q)", k, got[k], w, r.Stdout, r.Stderr)
			}
		}
		hostCommit(f, repo)
		if fileExists(marker) {
			t.Errorf("the host's commit ran code the sandboxed command planted")
		}
	})
}
