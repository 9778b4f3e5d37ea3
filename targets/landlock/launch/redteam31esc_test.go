//go:build linux && amd64

package launch_test

// Red team 31 (escape), through the real sbx binary (built by TestMain),
// as root and as uid 65534:
//
//   - FINDING (fixed): a working directory or $TMPDIR at, above or inside
//     one of the home directory's start-up locations was accepted. The
//     binding refuses a writable root that is or contains the home
//     directory, and one in the host's system and runtime directories
//     (runDirs, red teams 20 and 28), but nothing below the home
//     directory; the linter's write-startup-files (SBX003) sees only a
//     profile's own rules on them, not the workspace profile's bare {cwd}
//     and {tmpdir} bound at run time. "sbx run --cwd ~/.config" (a
//     dotfiles repository, an agent asked to fix an editor's
//     configuration one level too high) let the command write
//     ~/.config/systemd/user/*.service and its default.target.wants link
//     (the user's manager runs it at the next login), ~/.config/autostart
//     entries and ~/.config/git/config (git's global configuration: a
//     core.fsmonitor there runs at every git command in every
//     repository); "--cwd ~/.ssh" wrote rc and authorized_keys;
//     TMPDIR=~/.local wrote bin/ (on PATH before /usr/bin), every time
//     (TestRedTeam31EscHomeStartupRoots). Fixed: CheckWritableRoots
//     (targets/landlock/bind.go, homeStartup, homeStartupPath) refuses
//     (125) a {cwd}, {tmpdir} or {slash_tmp} below $HOME or the account's
//     home that is, lies in or contains one of the start-up files and
//     directories SBX003 names, or git's global configuration (SBX004),
//     unless the profile writes {home} or / itself; ~/.config/nvim,
//     ~/.ssh/keys, ~/src stay usable;
//   - FINDING (fixed): a working directory that is a git repository's
//     own directory (a bare repository, proj.git; the --git-dir of a
//     bare-dotfiles setup). The workspace profile protects ".git" and
//     "HEAD" (no bare repository can be made in the workspace), so such a
//     directory had only its HEAD made read-only: the command wrote
//     hooks/post-update (run on the host at the next push into it) and a
//     core.pager into its config (run by the host's next "git log"
//     there), every time; a working directory or TMPDIR inside one
//     (proj.git/hooks) wrote the hooks too (TestRedTeam31EscBareRepoRoot).
//     Fixed: CheckWritableRoots (gitDirAt) refuses (125) a {cwd},
//     {tmpdir} or {slash_tmp} that is or lies in a directory git takes
//     for a repository's (HEAD, and objects/ and refs/ or commondir) when
//     the profile protects .git or HEAD, as it refused one inside a
//     protected .git;
//   - FINDING (fixed): git configuration values of the form ~NAME/...
//     (git expands them to NAME's home directory) were left unresolved by
//     session 26's protection of what git configuration names:
//     core.hooksPath = ~root/ws/hooks in the user's ~/.gitconfig left the
//     workspace's hooks writable, and the host's next commit ran the hook
//     the command planted (TestRedTeam31EscGitTildeUser, root only).
//     Fixed: targets/landlock gitconfig.go resolves ~NAME through
//     /etc/passwd (passwdHomeOf);
//   - FINDING (fixed): nor were GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM
//     (files git reads in place of the user's and the system's) or
//     GIT_CONFIG_COUNT with GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n
//     (variables set by the environment, git 2.31) read: a core.hooksPath
//     or core.fsmonitor set there and naming the workspace stayed
//     writable, and the host's next commit with that environment ran the
//     command's hook (TestRedTeam31EscGitConfigEnv). Fixed in
//     gitConfigTargets (gitEnvName); GIT_CONFIG_PARAMETERS (git -c, which
//     git passes to the gits it starts) is still not read;
//   - FINDING (fixed): session 26's example, husky's core.hooksPath =
//     .husky/_, held only for husky 8: husky 9's hooks in .husky/_ are
//     stubs whose h runs the project's .husky/NAME when it exists, and
//     .husky itself stayed writable; the command rewrote
//     .husky/pre-commit, created .husky/commit-msg, and the host's next
//     commit ran both (TestRedTeam31EscHuskyHooks). Fixed in
//     gitConfigTargets: a hooks path DIR/_ holding husky 9's runner h
//     makes DIR read-only too;
//   - FINDING (fixed): the user's git configuration file itself was as
//     writable as its place: ~/.gitconfig a GNU stow link to
//     ~/dotfiles/gitconfig (or $XDG_CONFIG_HOME in the workspace) with
//     --cwd ~/dotfiles let the command add a core.pager that every git on
//     the host then ran, with or without a repository in the workspace
//     (TestRedTeam31EscGlobalGitConfigLink). Fixed in gitConfigTargets:
//     where the profile protects .git, the user's and the system's files
//     (and what they link to) are read-only where they lie in a writable
//     root;
//   - FINDING (known limit, skipped; SBX_RT31_HOLES=1 reproduces it): sbx's
//     own executable in a writable root (a project-local install,
//     node_modules/.bin/sbx, ./bin/sbx built in the repository, a build in
//     /tmp such as "go test"'s or bench/run.sh's mktemp -d). The command
//     cannot write it while sbx runs (ETXTBSY, red team 29), but it can
//     rename it away and put a script of its own at its name: the host's
//     next "sbx run" is that script, with no sandbox at all
//     (TestRedTeam31EscOwnBinary). Not fixed here: refusing such a binary
//     (as an artifact the profile makes writable is refused, red team 19)
//     would refuse every run of a binary built in /tmp, which the workspace
//     profile writes (go test's binaries, bench/run.sh), and a read-only
//     bind of the executable costs every such run a mount and does not
//     cover a symbolic link on PATH (node_modules/.bin/sbx) that names
//     it. Keep sbx outside the directories the profiles it runs write;
//   - FINDING (known limit, skipped; SBX_RT31_HOLES=1 reproduces it): a
//     script of the working tree that .hg/hgrc's [hooks] run (precommit.lint
//     = sh tools/lint.sh) stays writable, and the host's next hg commit
//     runs it (TestRedTeam31EscHgHookScript): session 26's protection of
//     what configuration names is git's only; hgrc needs a reader of its
//     own;
//   - FINDING (known limit, skipped; SBX_RT31_HOLES=1 reproduces it):
//     start-up files a dotfiles repository links into place (GNU stow:
//     ~/.bashrc -> dotfiles/bash/.bashrc, ~/.ssh -> dotfiles/ssh/.ssh)
//     are writable with --cwd ~/dotfiles (TestRedTeam31EscStowStartupLink):
//     only git's global configuration is followed through its link;
//     resolving every start-up path would cost every run some forty
//     lookups below the home directory;
//   - held (TestRedTeam31EscHeld): a guarded name created through another
//     process's /proc/PID/cwd and /proc/PID/fd/N (a sibling whose working
//     directory is the workspace), through /dev/fd/N and
//     /proc/self/fd/N of a descriptor of the workspace, by linkat of an
//     O_TMPFILE file through /proc/self/fd, by renaming a deeper ".git"
//     directory up, by binding a Unix socket at the name and as a FIFO:
//     refused, nothing created; signals to the sandbox's init from inside
//     (EPERM: it is outside the command's Landlock domain), and an "exit
//     137" is not reported as a SIGKILL; the read-only profile: no file,
//     directory, FIFO or socket created in the working directory, /tmp,
//     /var/tmp, /dev/shm or /run, no time, mode or extended attribute of
//     the working directory changed.
//
//	go test -count=1 -run 'TestRedTeam31Esc' -v ./targets/landlock/launch

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedTeam31EscHomeStartupRoots: FINDING (fixed), as root and as uid
// 65534. Under the built-in workspace profile, a working directory or
// $TMPDIR at a start-up location of the home directory made it writable:
// the command wrote a user service, an autostart entry, git's global
// configuration, SSH's rc and authorized_keys, a program in ~/.local/bin.
// Now refused (125) and nothing is written. Controls: a working directory
// beside or below them (~/.config/nvim, ~/.ssh/keys, ~/src) runs and
// writes.
func TestRedTeam31EscHomeStartupRoots(t *testing.T) {
	// Every start-up file a command could write from the root it is
	// given; a shell prints the ones it wrote.
	const script = `for p in systemd/user/x.service autostart/x.desktop git/config fish/config.fish rc authorized_keys bin/git; do
  mkdir -p "$(dirname "$1/$p")" 2>/dev/null && echo evil > "$1/$p" 2>/dev/null && echo "wrote=$p"
done
echo done`
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		rt29Write(t, f.home, u.uid, map[string]string{
			".config/nvim/": "", ".config/systemd/": "", ".ssh/keys/": "", ".local/share/": "", "bin/": "", "src/": "",
		})
		os.Chmod(f.home+"/.ssh", 0o700)
		// The script's argument is the root it writes below.
		run := func(cwd, tmpdir string) rtResult {
			env := []string{"HOME=" + f.home}
			root := cwd
			if tmpdir != "" {
				env = append(env, "TMPDIR="+tmpdir)
				root = tmpdir
			}
			return rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", cwd, "--profile", "workspace", "--", "/bin/sh", "-c", script, "sh", root}})
		}
		for _, c := range []struct {
			name, cwd, tmpdir string
			refused           bool
		}{
			{"cwd=~/.config", f.home + "/.config", "", true},
			{"cwd=~/.config/systemd", f.home + "/.config/systemd", "", true},
			{"cwd=~/.ssh", f.home + "/.ssh", "", true},
			{"cwd=~/.local", f.home + "/.local", "", true},
			{"cwd=~/.local/share", f.home + "/.local/share", "", true},
			{"cwd=~/bin", f.home + "/bin", "", true},
			{"TMPDIR=~/.local", f.home + "/src", f.home + "/.local", true},
			{"TMPDIR=~/.config", f.home + "/src", f.home + "/.config", true},
			// Controls.
			{"cwd=~/.config/nvim", f.home + "/.config/nvim", "", false},
			{"cwd=~/.ssh/keys", f.home + "/.ssh/keys", "", false},
			{"cwd=~/src", f.home + "/src", "", false},
		} {
			t.Run(strings.ReplaceAll(c.name, "/", "_"), func(t *testing.T) {
				root := c.cwd
				if c.tmpdir != "" {
					root = c.tmpdir
				}
				before := rt31Tree(t, root)
				r := run(c.cwd, c.tmpdir)
				if c.refused {
					if r.ExitCode != 125 || !strings.Contains(r.SbxError, "runs outside the sandbox") {
						t.Errorf("%s: not refused (exit %d, sbx_error %q, stdout %q): the command wrote the host's start-up files", c.name, r.ExitCode, r.SbxError, r.Stdout)
					}
					if strings.Contains(r.Stdout, "wrote=") {
						t.Errorf("%s: written: %q", c.name, r.Stdout)
					}
					if after := rt31Tree(t, root); after != before {
						t.Errorf("%s: the tree changed:\nbefore %s\nafter  %s", c.name, before, after)
					}
					return
				}
				if r.SbxError != "" || r.ExitCode != 0 || !strings.Contains(r.Stdout, "wrote=git/config") {
					t.Errorf("%s (control): exit %d, sbx_error %q, stdout %q, stderr %q", c.name, r.ExitCode, r.SbxError, r.Stdout, r.Stderr)
				}
			})
		}
	})
}

// TestRedTeam31EscBareRepoRoot: FINDING (fixed), as root and as uid
// 65534. The workspace profile protects ".git" and "HEAD" (so that no
// bare repository can be made in the workspace), but a working directory
// that is a repository's directory itself (a bare repository, proj.git,
// or the --git-dir of a bare-dotfiles setup) had only its HEAD made
// read-only: the command wrote hooks/post-update (run on the host at the
// next push into it) and a core.pager into its config (run by the host's
// next "git log" there). Now refused (125), and likewise a working
// directory or TMPDIR inside one (proj.git/hooks). Control: network-off,
// which protects nothing, runs there and writes.
func TestRedTeam31EscBareRepoRoot(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is missing")
	}
	const script = `printf '#!/bin/sh\necho pwned\n' > hooks/post-update 2>/dev/null && echo hook=ok
printf '[core]\n\tpager = sh -c "id > /tmp/pwned"\n' >> config 2>/dev/null && echo config=ok
echo done`
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		bare := filepath.Join(f.base, "proj.git")
		if out, err := exec.Command("git", "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
			t.Fatalf("git init --bare: %v %s", err, out)
		}
		filepath.Walk(bare, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
		cfg, _ := os.ReadFile(bare + "/config")
		env := []string{"HOME=" + f.home}
		intact := func(what string) {
			t.Helper()
			now, _ := os.ReadFile(bare + "/config")
			if string(now) != string(cfg) || fileExists(bare+"/hooks/post-update") {
				t.Errorf("%s: the bare repository was written (config %q, hook %v)", what, now, fileExists(bare+"/hooks/post-update"))
				os.WriteFile(bare+"/config", cfg, 0o644)
				os.Remove(bare + "/hooks/post-update")
			}
		}
		for _, c := range []struct{ name, cwd, tmpdir string }{
			{"cwd=proj.git", bare, ""},
			{"cwd=proj.git/hooks", bare + "/hooks", ""},
			{"TMPDIR=proj.git/hooks", f.ws, bare + "/hooks"},
		} {
			e := env
			sc := script
			if c.tmpdir != "" {
				e = append(e, "TMPDIR="+c.tmpdir)
				sc = `cd "$TMPDIR/.." && ` + "{\n" + script + "\n}"
			} else if c.cwd != bare {
				sc = `cd .. && ` + "{\n" + script + "\n}"
			}
			r := rtRun(t, rtOpts{u: u, env: e, args: []string{"--cwd", c.cwd, "--profile", "workspace", "--", "/bin/sh", "-c", sc}})
			if r.ExitCode != 125 || !strings.Contains(r.SbxError, "git repository's own directory") {
				t.Errorf("%s: not refused (exit %d, sbx_error %q, stdout %q, stderr %q)", c.name, r.ExitCode, r.SbxError, r.Stdout, r.Stderr)
			}
			intact(c.name)
		}
		// Control: a profile that protects nothing writes there.
		r := rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", bare, "--profile", "network-off", "--", "/bin/sh", "-c", script}})
		if !strings.Contains(r.Stdout, "hook=ok") || !strings.Contains(r.Stdout, "config=ok") {
			t.Errorf("control (network-off): %q %q %q", r.SbxError, r.Stdout, r.Stderr)
		}
		os.WriteFile(bare+"/config", cfg, 0o644)
		os.Remove(bare + "/hooks/post-update")
	})
}

// TestRedTeam31EscGitTildeUser: FINDING (fixed), as root (the named
// account whose home holds the workspace must be the caller's: root's
// /root here; uid 65534's home, /nonexistent, holds nothing). Session 26
// makes what git configuration names in a writable root read-only, but
// left a path of the form ~NAME/... unresolved (git expands it to NAME's
// home directory): core.hooksPath = ~root/ws/hooks in the user's
// ~/.gitconfig left the workspace's hooks writable, the command planted
// pre-commit, and the host's next "git commit" ran it. Now resolved
// through /etc/passwd: the hooks directory is read-only (EROFS), and a
// missing one is refused (125) like any other.
func TestRedTeam31EscGitTildeUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root (a workspace in root's home directory)")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is missing")
	}
	rootHome := ""
	if data, err := os.ReadFile("/etc/passwd"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Split(line, ":"); len(f) >= 6 && f[0] == "root" {
				rootHome = f[5]
			}
		}
	}
	if fi, err := os.Stat(rootHome); rootHome == "" || err != nil || !fi.IsDir() {
		t.Skipf("root's home directory %q is not a directory", rootHome)
	}
	ws, err := os.MkdirTemp(rootHome, "rt31-")
	if err != nil {
		t.Skipf("no scratch directory in %s: %v", rootHome, err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	home, err := os.MkdirTemp("/var/tmp", "rt31home")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
		cmd.Dir = ws
		cmd.Env = []string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin"}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	git("init", "-q", ".")
	os.Mkdir(ws+"/hooks", 0o755)
	setting := "~root/" + filepath.Base(ws) + "/hooks"
	if err := os.WriteFile(home+"/.gitconfig", []byte("[core]\n\thooksPath = "+setting+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `printf '#!/bin/sh\necho PLANTED-HOOK\n' > hooks/pre-commit 2>/dev/null && chmod +x hooks/pre-commit && echo wrote=hook; echo done`
	r := rtRun(t, rtOpts{u: users[0], env: []string{"HOME=" + home}, args: []string{"--cwd", ws, "--profile", "workspace", "--", "/bin/sh", "-c", script}})
	if r.SbxError != "" || !strings.Contains(r.Stdout, "done") {
		t.Fatalf("sbx: %q %q %q", r.SbxError, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout, "wrote=hook") || fileExists(ws+"/hooks/pre-commit") {
		t.Errorf("core.hooksPath = %s: the command planted hooks/pre-commit; the host's next commit: %q", setting, git("commit", "-q", "--allow-empty", "-m", "x"))
	}
	// A missing directory so named is refused, as any missing hooks path.
	os.WriteFile(home+"/.gitconfig", []byte("[core]\n\thooksPath = ~root/"+filepath.Base(ws)+"/missing\n"), 0o644)
	r = rtRun(t, rtOpts{u: users[0], env: []string{"HOME=" + home}, args: []string{"--cwd", ws, "--profile", "workspace", "--", "/bin/sh", "-c", "mkdir missing && echo made"}})
	if r.ExitCode != 125 || fileExists(ws+"/missing") {
		t.Errorf("core.hooksPath = ~root/.../missing: not refused (exit %d, %q, %q)", r.ExitCode, r.SbxError, r.Stdout)
	}
}

// TestRedTeam31EscGitConfigEnv: FINDING (fixed), as root and as uid
// 65534. Session 26 reads the user's and the system's git configuration
// at their usual places (~/.gitconfig, $XDG_CONFIG_HOME/git/config,
// /etc/gitconfig), but git reads GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM
// in their place when they are set, and takes variables from
// GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n (git 2.31; CI
// systems and tools set them): a core.hooksPath or core.fsmonitor set
// there and naming the workspace stayed writable, and the host's next
// commit with the same environment ran the command's hook. Now read like
// the others: the hooks and the fsmonitor script are read-only, and a
// missing hooks directory is refused (125).
func TestRedTeam31EscGitConfigEnv(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is missing")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		repo := filepath.Join(f.base, "repo")
		if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		rt29Write(t, repo, u.uid, map[string]string{"hooks/": "", "tools/fsmon.sh": "#!/bin/sh\n"})
		cfg := filepath.Join(f.outside, "gitconfig")
		rt29Write(t, f.outside, u.uid, map[string]string{"gitconfig": "[core]\n\thooksPath = " + repo + "/hooks\n"})
		const script = `echo evil > hooks/pre-commit 2>/dev/null && echo wrote=hook; echo evil > tools/fsmon.sh 2>/dev/null && echo wrote=fsmon; echo done`
		for _, c := range []struct {
			name string
			env  []string
		}{
			{"GIT_CONFIG_GLOBAL", []string{"GIT_CONFIG_GLOBAL=" + cfg}},
			{"GIT_CONFIG_SYSTEM", []string{"GIT_CONFIG_SYSTEM=" + cfg}},
			{"GIT_CONFIG_COUNT", []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=" + repo + "/hooks",
				"GIT_CONFIG_KEY_1=core.fsmonitor", "GIT_CONFIG_VALUE_1=" + repo + "/tools/fsmon.sh"}},
		} {
			r := rtRun(t, rtOpts{u: u, env: append([]string{"HOME=" + f.home}, c.env...), args: []string{"--cwd", repo, "--profile", "workspace", "--", "/bin/sh", "-c", script}})
			if r.SbxError != "" || !strings.Contains(r.Stdout, "done") {
				t.Errorf("%s: %q %q %q", c.name, r.SbxError, r.Stdout, r.Stderr)
				continue
			}
			if strings.Contains(r.Stdout, "wrote=hook") || fileExists(repo+"/hooks/pre-commit") {
				t.Errorf("%s: the hooks directory git is sent to stayed writable: %q", c.name, r.Stdout)
				os.Remove(repo + "/hooks/pre-commit")
			}
			if c.name == "GIT_CONFIG_COUNT" && strings.Contains(r.Stdout, "wrote=fsmon") {
				t.Errorf("%s: the core.fsmonitor script stayed writable: %q", c.name, r.Stdout)
			}
		}
		// A missing hooks directory named there is refused.
		r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0=" + repo + "/nohooks"},
			args: []string{"--cwd", repo, "--profile", "workspace", "--", "/bin/sh", "-c", "mkdir nohooks; echo done"}})
		if r.ExitCode != 125 || fileExists(repo+"/nohooks") {
			t.Errorf("GIT_CONFIG_COUNT core.hooksPath missing: not refused (exit %d, %q %q)", r.ExitCode, r.SbxError, r.Stdout)
		}
		// Control: without the environment, the same directories are the
		// command's to write.
		r = rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--cwd", repo, "--profile", "workspace", "--", "/bin/sh", "-c", script}})
		if !strings.Contains(r.Stdout, "wrote=hook") || !strings.Contains(r.Stdout, "wrote=fsmon") {
			t.Errorf("control: %q %q %q", r.SbxError, r.Stdout, r.Stderr)
		}
	})
}

// TestRedTeam31EscHuskyHooks: FINDING (fixed), as root and as uid 65534.
// Session 26 made the directory core.hooksPath names read-only, with
// husky's .husky/_ as its example, but husky 9's hooks there are stubs
// (". $(dirname $0)/h") whose h runs the project's own .husky/NAME when it
// exists: the command rewrote .husky/pre-commit and created
// .husky/commit-msg, and the host's next commit ran both. Now .husky, the
// directory above the stubs, is read-only too (EROFS; renamed: EBUSY).
// Control: a file beside it is written.
func TestRedTeam31EscHuskyHooks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is missing")
	}
	const stub = "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n"
	const h = "#!/usr/bin/env sh\nn=$(basename \"$0\")\ns=$(dirname \"$(dirname \"$0\")\")/$n\n[ ! -f \"$s\" ] && exit 0\nsh -e \"$s\" \"$@\"\n"
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		repo := filepath.Join(f.base, "repo")
		if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		if out, err := exec.Command("git", "-C", repo, "config", "core.hooksPath", ".husky/_").CombinedOutput(); err != nil {
			t.Fatalf("git config: %v %s", err, out)
		}
		rt29Write(t, repo, u.uid, map[string]string{
			".husky/_/pre-commit": stub, ".husky/_/commit-msg": stub, ".husky/_/h": h, ".husky/_/.gitignore": "*\n",
			".husky/pre-commit": "exit 0\n",
		})
		for _, n := range []string{"pre-commit", "commit-msg", "h"} {
			os.Chmod(filepath.Join(repo, ".husky/_", n), 0o755)
		}
		r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--cwd", repo, "--profile", "workspace", "--", "/bin/sh", "-c",
			`echo 'echo PLANTED-PRE-COMMIT' > .husky/pre-commit 2>/dev/null && echo wrote=pre-commit
echo 'echo PLANTED-COMMIT-MSG' > .husky/commit-msg 2>/dev/null && echo wrote=commit-msg
mv .husky .husky.old 2>/dev/null && mkdir -p .husky/_ && echo wrote=moved
echo x > notes.txt && echo wrote=control
echo done`}})
		if r.SbxError != "" || !strings.Contains(r.Stdout, "wrote=control") {
			t.Fatalf("sbx: %q %q %q", r.SbxError, r.Stdout, r.Stderr)
		}
		for _, w := range []string{"pre-commit", "commit-msg", "moved"} {
			if strings.Contains(r.Stdout, "wrote="+w) {
				t.Errorf("husky's hooks: %s written: %q", w, r.Stdout)
			}
		}
		// The host's next commit (git as the test, root).
		cmd := exec.Command("git", "-c", "safe.directory=*", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "x")
		cmd.Dir = repo
		cmd.Env = []string{"HOME=" + f.home, "PATH=/usr/local/bin:/usr/bin:/bin"}
		out, _ := cmd.CombinedOutput()
		if strings.Contains(string(out), "PLANTED") {
			t.Errorf("the host's next commit ran the command's husky hook: %q", out)
		}
	})
}

// TestRedTeam31EscGlobalGitConfigLink: FINDING (fixed), as root and as
// uid 65534. Session 26 reads the user's git configuration for what it
// names, but the file itself was left as writable as its place: with
// ~/.gitconfig a GNU stow link to ~/dotfiles/gitconfig (or
// $XDG_CONFIG_HOME inside the workspace) and the workspace at
// ~/dotfiles, a dotfiles repository or not, the command added a
// core.pager (or core.fsmonitor, an alias) that every git on the host
// then ran, in every repository. Now the file is read-only where the
// profile protects .git (EROFS); network-off, which protects nothing,
// still writes it (control). Since red team 32 a workspace that holds
// $XDG_CONFIG_HOME is refused (its fish, systemd/user and autostart were
// writable too).
func TestRedTeam31EscGlobalGitConfigLink(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		for _, repo := range []bool{false, true} {
			name := "no-repository"
			if repo {
				name = "repository"
			}
			t.Run(name, func(t *testing.T) {
				f := newFixture(t, u)
				files := map[string]string{"dotfiles/gitconfig": "[user]\n\tname = u\n", "dotfiles/xdg/git/config": "[user]\n\tname = u\n"}
				if repo {
					files["dotfiles/.git/HEAD"] = "ref: refs/heads/main\n"
				}
				rt29Write(t, f.home, u.uid, files)
				if err := os.Symlink("dotfiles/gitconfig", f.home+"/.gitconfig"); err != nil {
					t.Fatal(err)
				}
				os.Lchown(f.home+"/.gitconfig", u.uid, u.uid)
				dot := f.home + "/dotfiles"
				const script = `printf '[core]\n\tpager = sh -c "id > /tmp/pwned"\n' >> gitconfig 2>/dev/null && echo wrote=gitconfig
printf '[core]\n\tpager = sh -c "id > /tmp/pwned"\n' >> xdg/git/config 2>/dev/null && echo wrote=xdg
echo x > notes.txt && echo wrote=control; echo done`
				// $XDG_CONFIG_HOME inside the workspace: refused since red
				// team 32 (its fish, systemd/user and autostart were
				// writable), and nothing is written.
				r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home, "XDG_CONFIG_HOME=" + dot + "/xdg"}, args: []string{"--cwd", dot, "--profile", "workspace", "--", "/bin/sh", "-c", script}})
				if r.ExitCode != 125 || !strings.Contains(r.SbxError, "XDG_CONFIG_HOME") || strings.Contains(r.Stdout, "wrote=") {
					t.Errorf("XDG_CONFIG_HOME in the workspace: not refused: %d %q %q", r.ExitCode, r.SbxError, r.Stdout)
				}
				if b, _ := os.ReadFile(dot + "/xdg/git/config"); strings.Contains(string(b), "pager") {
					t.Errorf("$XDG_CONFIG_HOME/git/config now holds %q", b)
				}
				r = rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--cwd", dot, "--profile", "workspace", "--", "/bin/sh", "-c", script}})
				if r.SbxError != "" || !strings.Contains(r.Stdout, "wrote=control") {
					t.Fatalf("sbx: %q %q %q", r.SbxError, r.Stdout, r.Stderr)
				}
				if strings.Contains(r.Stdout, "wrote=gitconfig") {
					t.Errorf("the user's git configuration was written through the workspace: %q", r.Stdout)
				}
				if b, _ := os.ReadFile(dot + "/gitconfig"); strings.Contains(string(b), "pager") {
					t.Errorf("~/.gitconfig's target now holds %q", b)
				}
				// Control: network-off protects nothing and writes it.
				r = rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--cwd", dot, "--profile", "network-off", "--", "/bin/sh", "-c", script}})
				if !strings.Contains(r.Stdout, "wrote=gitconfig") {
					t.Errorf("control (network-off): %q %q %q", r.SbxError, r.Stdout, r.Stderr)
				}
			})
		}
	})
}

// rt31Tree lists the paths below root (for a before/after comparison).
func rt31Tree(t *testing.T, root string) string {
	t.Helper()
	var names []string
	filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			names = append(names, strings.TrimPrefix(p, root))
		}
		return nil
	})
	return strings.Join(names, " ")
}

// TestRedTeam31EscOwnBinary: FINDING (known limit), as root and as uid
// 65534. sbx's executable in the workspace: the command renames it away
// and writes a script at its name, which the host's next "sbx run" runs
// with no sandbox. Skipped unless SBX_RT31_HOLES=1 (see the header).
func TestRedTeam31EscOwnBinary(t *testing.T) {
	if os.Getenv("SBX_RT31_HOLES") != "1" {
		t.Skip("known limit: sbx's own executable in a writable root can be renamed away and replaced by the command (a write while sbx runs is ETXTBSY, a rename is not); refusing it would refuse every binary built in /tmp, which the workspace profile writes; keep sbx outside the profile's writable roots (SBX_RT31_HOLES=1 reproduces)")
	}
	src, err := os.ReadFile(filepath.Join(bin, "sbx"))
	if err != nil {
		t.Fatal(err)
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		rt29Write(t, f.ws, u.uid, map[string]string{"bin/": ""})
		own := filepath.Join(f.ws, "bin", "sbx")
		if err := os.WriteFile(own, src, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Lchown(own, u.uid, u.uid)
		const script = `mv bin/sbx bin/.sbx.old 2>/dev/null; printf '#!/bin/sh\necho UNSANDBOXED\n' > bin/sbx 2>/dev/null && chmod +x bin/sbx 2>/dev/null; echo done`
		argv := []string{own, "run", "--json", "--cwd", f.ws, "--profile", "workspace", "--", "/bin/sh", "-c", script}
		out, _ := rt31As(u, f, argv).Output()
		var r rtResult
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("sbx: %v: %q", err, out)
		}
		if r.SbxError != "" {
			t.Logf("refused: %s", r.SbxError)
		}
		// The host's next run.
		next, _ := rt31As(u, f, []string{own, "run", "--", "/bin/true"}).CombinedOutput()
		if strings.Contains(string(next), "UNSANDBOXED") {
			t.Errorf("sbx's own executable in the workspace was replaced by the command; the host's next sbx run ran the command's script: %q", next)
		}
	})
}

// TestRedTeam31EscHgHookScript: FINDING, as root and as uid 65534. The
// protected .hg keeps .hg/hgrc read-only, but a hook there that runs a
// script of the working tree ([hooks] precommit.lint = sh tools/lint.sh,
// as a project's shared hooks do) left that script the command's to
// rewrite, and the host's next "hg commit" ran it: the Mercurial (and
// Sapling, .sl/config) counterpart of what session 26 closed for git's
// core.hooksPath and command-valued variables. A known limit in red team
// 31; fixed in session 28 (hgconfig.go: hgrc read at binding, what its
// hooks run made read-only). hg is not installed here: the test shows the
// script's write refused, not the host's hg running it.
func TestRedTeam31EscHgHookScript(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		rt29Write(t, f.nogit, u.uid, map[string]string{
			".hg/hgrc":      "[hooks]\nprecommit.lint = sh tools/lint.sh\n",
			".hg/requires":  "store\n",
			"tools/lint.sh": "#!/bin/sh\nexit 0\n",
		})
		r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--cwd", f.nogit, "--profile", "workspace", "--", "/bin/sh", "-c",
			`echo 'id > /tmp/pwned' >> tools/lint.sh 2>/dev/null && echo wrote=script; echo x >> .hg/hgrc 2>/dev/null && echo wrote=hgrc; echo done`}})
		if !strings.Contains(r.Stdout, "done") {
			t.Fatalf("the command did not run: %q %q", r.Stdout, r.Stderr)
		}
		if strings.Contains(r.Stdout, "wrote=hgrc") {
			t.Errorf(".hg/hgrc itself was written: %q", r.Stdout)
		}
		if strings.Contains(r.Stdout, "wrote=script") {
			t.Errorf("the script .hg/hgrc's precommit hook runs was rewritten; the host's next hg commit runs it: %q", r.Stdout)
		}
	})
}

// TestRedTeam31EscStowStartupLink: FINDING (known limit), as root and as
// uid 65534. A home directory's start-up files kept in a dotfiles
// repository and linked into place (GNU stow: ~/.bashrc ->
// dotfiles/bash/.bashrc, ~/.ssh -> dotfiles/ssh/.ssh) are as writable as
// the repository: with --cwd ~/dotfiles the command appends to the
// .bashrc every new shell of the user's sources, or to ~/.ssh/config.
// The binding refuses roots at, above or inside the start-up locations
// (TestRedTeam31EscHomeStartupRoots) and makes the user's git
// configuration read-only through its link
// (TestRedTeam31EscGlobalGitConfigLink), but does not follow every
// start-up path's links into the writable roots: doing so costs every
// run a walk of some forty paths below the home directory (their links
// resolved) on the start path. Skipped unless SBX_RT31_HOLES=1.
func TestRedTeam31EscStowStartupLink(t *testing.T) {
	if os.Getenv("SBX_RT31_HOLES") != "1" {
		t.Skip("known limit: start-up files linked into a writable root (GNU stow's ~/.bashrc -> dotfiles/bash/.bashrc) are writable there; the binding does not resolve every start-up path's links (SBX_RT31_HOLES=1 reproduces)")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		rt29Write(t, f.home, u.uid, map[string]string{"dotfiles/bash/.bashrc": "# bashrc\n", "dotfiles/ssh/.ssh/config": "Host *\n"})
		os.RemoveAll(f.home + "/.ssh")
		for link, target := range map[string]string{".bashrc": "dotfiles/bash/.bashrc", ".ssh": "dotfiles/ssh/.ssh"} {
			if err := os.Symlink(target, filepath.Join(f.home, link)); err != nil {
				t.Fatal(err)
			}
			os.Lchown(filepath.Join(f.home, link), u.uid, u.uid)
		}
		r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--cwd", f.home + "/dotfiles", "--profile", "workspace", "--", "/bin/sh", "-c",
			`echo 'id > /tmp/pwned' >> bash/.bashrc 2>/dev/null && echo wrote=bashrc; echo 'ProxyCommand sh -c "id > /tmp/pwned"' >> ssh/.ssh/config 2>/dev/null && echo wrote=sshconfig; echo done`}})
		for _, w := range []string{"bashrc", "sshconfig"} {
			if strings.Contains(r.Stdout, "wrote="+w) {
				t.Errorf("a start-up file linked into the workspace (%s) was written: %q", w, r.Stdout)
			}
		}
	})
}

// rt31As is argv as u's command (through setpriv for uid 65534), in the
// fixture's workspace with its home.
func rt31As(u user, f *fixture, argv []string) *exec.Cmd {
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "HOME=" + f.home}
	cmd.Dir = f.ws
	return cmd
}

// rt31Guarded tries every way below to create the missing guarded names
// .mcp.json and .git in the working directory; each line is NAME=ok or
// NAME=fail.
const rt31Guarded = `import os, socket, time, ctypes
libc = ctypes.CDLL(None, use_errno=True)
def t(name, f):
    try:
        f(); print(name + "=ok")
    except Exception:
        print(name + "=fail")
    for n in (".mcp.json", ".git"):
        if os.path.lexists(n):
            print("created=" + n + "-by-" + name)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(w); os.read(r, 1); os._exit(0)
os.close(r)
d = os.open(".", os.O_RDONLY)
t("sibling-cwd", lambda: open("/proc/%d/cwd/.mcp.json" % pid, "w").write("x"))
t("devfd", lambda: open("/dev/fd/%d/.mcp.json" % d, "w").write("x"))
t("procfd", lambda: open("/proc/%d/fd/%d/.mcp.json" % (os.getpid(), d), "w").write("x"))
t("selffd-mkdir", lambda: os.mkdir("/proc/self/fd/%d/.git" % d))
t("mkfifo", lambda: os.mkfifo(".mcp.json"))
def bind():
    s = socket.socket(socket.AF_UNIX)
    s.bind(".git")
t("bind", bind)
def tmpfile():
    fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o644)
    os.write(fd, b"x")
    os.link("/proc/self/fd/%d" % fd, ".mcp.json")
t("tmpfile-link", tmpfile)
def renamedir():
    os.makedirs("deep/.git", exist_ok=True)
    os.rename("deep/.git", ".git")
t("rename-dir", renamedir)
def renamefile():
    open("deep/.mcp.json", "w").write("x")
    if libc.renameat2(-100, b"deep/.mcp.json", -100, b".mcp.json", 1):
        raise OSError(ctypes.get_errno(), "renameat2")
t("renameat2-noreplace", renamefile)
t("control", lambda: open("plain.txt", "w").write("x"))
os.close(w)
os.waitpid(pid, 0)
`

// rt31ReadOnly tries to leave anything behind under the read-only
// profile; it prints the NAME=ok lines only, then "done".
const rt31ReadOnly = `import os, socket, sys
cwd = os.getcwd()
def t(name, f):
    try:
        f(); print(name + "=ok")
    except Exception:
        pass
for d in [cwd] + sys.argv[1:]:
    t("create:" + d, lambda d=d: open(d + "/rt31probe", "w").close())
    t("mkdir:" + d, lambda d=d: os.mkdir(d + "/rt31probed"))
    t("fifo:" + d, lambda d=d: os.mkfifo(d + "/rt31fifo"))
    def b(d=d):
        s = socket.socket(socket.AF_UNIX)
        s.bind(d + "/rt31sock")
    t("bind:" + d, b)
t("utime", lambda: os.utime(cwd))
t("chmod", lambda: os.chmod(cwd, 0o755))
t("xattr", lambda: os.setxattr(cwd, "user.rt31", b"x"))
print("done")
`

// TestRedTeam31EscHeld: what held, as root and as uid 65534 (see the
// header). Each part has a control showing that it can fail: the same
// script creates the guarded names under network-off, which protects
// nothing; kill -9 $$ is reported as SIGKILL; the read-only battery
// writes the working directory under the workspace profile.
func TestRedTeam31EscHeld(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is missing")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		env := []string{"HOME=" + f.home}
		t.Run("guarded", func(t *testing.T) {
			r := rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", f.nogit, "--profile", "workspace", "--", "python3", "-c", rt31Guarded}})
			got := rt11Fields(r.Stdout)
			if r.SbxError != "" || got["control"] != "ok" {
				t.Fatalf("control failed: %q %q %q", r.SbxError, r.Stdout, r.Stderr)
			}
			for k, v := range got {
				if k != "control" && v == "ok" || k == "created" {
					t.Errorf("guarded name created: %s=%s (stdout %q)", k, v, r.Stdout)
				}
			}
			for _, n := range []string{".mcp.json", ".git"} {
				if fileExists(filepath.Join(f.nogit, n)) {
					t.Errorf("%s exists in the workspace", n)
				}
			}
			// Control: without the guard (network-off protects nothing),
			// the same script creates the names.
			os.RemoveAll(f.nogit + "/deep")
			r = rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", f.nogit, "--profile", "network-off", "--", "python3", "-c", rt31Guarded}})
			if !strings.Contains(r.Stdout, "created=") {
				t.Errorf("control: the script created nothing without the guard: %q %q", r.Stdout, r.Stderr)
			}
		})
		t.Run("init-signals", func(t *testing.T) {
			r := rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", f.ws, "--profile", "workspace", "--", "/bin/sh", "-c",
				`for s in TERM INT HUP QUIT USR1 TSTP STOP CONT PIPE ALRM XCPU; do kill -s $s 1 2>/dev/null && echo "sent=$s"; done; echo done`}})
			if r.SbxError != "" || r.ExitCode != 0 || strings.Contains(r.Stdout, "sent=") || !strings.Contains(r.Stdout, "done") {
				t.Errorf("a signal reached the sandbox's init: exit %d %q %q %q", r.ExitCode, r.SbxError, r.Stdout, r.Stderr)
			}
			r = rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", f.ws, "--profile", "workspace", "--", "/bin/sh", "-c", "exit 137"}})
			if r.ExitCode != 137 || r.Signal != "" {
				t.Errorf("exit 137: reported exit %d signal %q", r.ExitCode, r.Signal)
			}
			r = rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", f.ws, "--profile", "workspace", "--", "/bin/sh", "-c", "kill -9 $$"}})
			if r.Signal != "SIGKILL" {
				t.Errorf("control: kill -9 $$ reported signal %q", r.Signal)
			}
		})
		t.Run("read-only", func(t *testing.T) {
			before := rt31Tree(t, f.ws)
			r := rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", f.ws, "--profile", "read-only", "--", "python3", "-c", rt31ReadOnly, "/tmp", "/var/tmp", "/dev/shm", "/run"}})
			if r.SbxError != "" || !strings.Contains(r.Stdout, "done") {
				t.Fatalf("read-only run: %q %q %q", r.SbxError, r.Stdout, r.Stderr)
			}
			if strings.Contains(r.Stdout, "=ok") {
				t.Errorf("the read-only profile left something behind: %q", r.Stdout)
			}
			if after := rt31Tree(t, f.ws); after != before {
				t.Errorf("the workspace changed under read-only:\nbefore %s\nafter  %s", before, after)
			}
			for _, d := range []string{"/tmp", "/var/tmp"} {
				for _, n := range []string{"rt31probe", "rt31probed", "rt31fifo", "rt31sock"} {
					if p := filepath.Join(d, n); fileExists(p) {
						os.RemoveAll(p)
						t.Errorf("%s created under read-only", p)
					}
				}
			}
			// Control: the workspace profile writes the working directory
			// (only it: files appearing directly in /tmp would change
			// what concurrent tests' runs bind there).
			r = rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", f.ws, "--profile", "workspace", "--", "python3", "-c", rt31ReadOnly}})
			if !strings.Contains(r.Stdout, "create:"+f.ws+"=ok") {
				t.Errorf("control: the workspace profile did not write the working directory: %q %q", r.Stdout, r.Stderr)
			}
			for _, d := range []string{"/tmp", "/var/tmp"} {
				for _, n := range []string{"rt31probe", "rt31probed", "rt31fifo", "rt31sock"} {
					os.RemoveAll(filepath.Join(d, n))
				}
			}
		})
	})
}
