//go:build linux && amd64

package launch_test

// Red team 25, after the fix of TestRedTeam25SupAncestorRepository
// (ir.Bound.ProtectedBetween: protected names also in every writable
// directory strictly between a writable root and another one nested in
// it). Through the real sbx binary (built by TestMain), as root and as uid
// 65534. Every probe has a control: the same steps without the sandbox (or
// the host's git before the run).
//
//   - HOLE (fixed: the built-in workspace profiles protect HEAD too): git
//     also discovers a *bare* repository: in every directory it
//     walks up through, after looking for .git, it checks whether the
//     directory itself is a git directory (HEAD, objects/, refs/). The
//     command writes HEAD, objects/, refs/ and a config (core.bare=false,
//     core.worktree = the workspace, core.fsmonitor) straight into
//     /tmp/X/mid, no protected name involved; the host's `git status` in
//     the workspace runs the command's fsmonitor
//     (TestRedTeam25BetweenBareRepository; also in $TMPDIR, in a root
//     itself and in the workspace itself, which the name guard does not
//     cover either);
//   - HOLE (fixed: the protected names between roots join the rules
//     before links are handled): a .git that already exists in a directory
//     between the roots as
//     a symbolic link (to a repository elsewhere in /tmp) is pinned, and
//     the dry run says "the rule applies to what it points to", but its
//     target gets no rule: ProtectBetween ran after resolveRules, so the
//     new protect rules are never followed through links. The command
//     writes core.fsmonitor into the linked repository's config (or, for
//     a dangling link, creates the repository) and the host's `git
//     status` in the workspace runs it (TestRedTeam25BetweenGitLink);
//   - held: creating .git in a directory between the roots by mkdir,
//     open(O_CREAT), symlink, mkfifo, link, rename of a directory,
//     linkat of an O_TMPFILE (AT_EMPTY_PATH and /proc/self/fd), bind of a
//     Unix socket, through /proc/self/cwd; renaming the directories in
//     between (EBUSY); ordinary files and directories stay creatable and
//     removable there; workspaces at depths 2 and 5 below /tmp, below
//     $TMPDIR in /var/tmp (TMPDIR's read-only parent stays read-only),
//     reached through a symbolic link, at --landlock-abi-cap 3; without the
//     supervisor (SBX_LANDLOCK_NO_SUPERVISOR=1) the names are refused and
//     the directories are reported under no_create; an ancestor that is a
//     real repository: its .git is read-only (EROFS) and cannot be
//     renamed (EBUSY), `git status` still works inside
//     (TestRedTeam25BetweenHeld).
//
//	go test -count=1 -run TestRedTeam25Between -v ./targets/landlock/launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rt25bwC tries to create name in dir every way it can, prints k=ok or
// k=ERRNO for each, removes what it made, and then checks that ordinary
// names can still be created and removed there and whether dir itself can
// be renamed (renamed back when it could).
const rt25bwC = `
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static const char *pre;
static void rep(const char *k, int r) {
	printf("%s.%s=%s\n", pre, k, r == 0 ? "ok" : strerrorname_np(errno));
	fflush(stdout);
}
static char p[4096];
static int made(void) { struct stat st; return lstat(p, &st) == 0; }
static void clean(const char *k) {
	if (made()) { printf("%s.%s.made=yes\n", pre, k); fflush(stdout); }
	unlink(p); rmdir(p);
}

int main(int argc, char **argv) {
	if (argc < 5) return 2;
	pre = argv[1];
	const char *d = argv[2], *n = argv[3], *s = argv[4];
	char t[4096], q[4096];
	snprintf(p, sizeof p, "%s/%s", d, n);
	snprintf(t, sizeof t, "%s/rt25bw-src-%d", s, getpid());
	int fd;
	rep("mkdir", mkdir(p, 0755)); clean("mkdir");
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	rep("creat", fd < 0 ? -1 : 0); if (fd >= 0) close(fd); clean("creat");
	rep("symlink", symlink("x", p)); clean("symlink");
	rep("mkfifo", mkfifo(p, 0644)); clean("mkfifo");
	fd = open(t, O_CREAT | O_WRONLY | O_CLOEXEC, 0644); if (fd >= 0) close(fd);
	rep("link", link(t, p)); clean("link"); unlink(t);
	mkdir(t, 0755);
	rep("rename", rename(t, p)); clean("rename"); rmdir(t);
	fd = open(d, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	rep("tmpfile", fd < 0 ? -1 : linkat(fd, "", AT_FDCWD, p, AT_EMPTY_PATH)); clean("tmpfile");
	if (fd >= 0) close(fd);
	fd = open(d, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	snprintf(q, sizeof q, "/proc/self/fd/%d", fd);
	rep("tmpfile2", fd < 0 ? -1 : linkat(AT_FDCWD, q, AT_FDCWD, p, AT_SYMLINK_FOLLOW)); clean("tmpfile2");
	if (fd >= 0) close(fd);
	int sk = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(p) < sizeof sa.sun_path) {
		strcpy(sa.sun_path, p);
		rep("bind", sk < 0 ? -1 : bind(sk, (struct sockaddr *)&sa, sizeof sa)); clean("bind");
	}
	if (sk >= 0) close(sk);
	if (chdir(d) == 0) {
		snprintf(q, sizeof q, "/proc/self/cwd/%s", n);
		rep("proccwd", mkdir(q, 0755)); clean("proccwd");
	}
	/* ordinary names */
	snprintf(q, sizeof q, "%s/rt25bw-ok", d);
	fd = open(q, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	rep("okfile", fd < 0 ? -1 : 0); if (fd >= 0) close(fd);
	rep("okunlink", unlink(q));
	rep("okmkdir", mkdir(q, 0755));
	rep("okrmdir", rmdir(q));
	/* the directory itself */
	snprintf(q, sizeof q, "%s-rt25bw-moved", d);
	int r = rename(d, q);
	rep("mvdir", r);
	if (r == 0) rename(q, d);
	return 0;
}
`

func rt25bwHelper(t *testing.T) string {
	t.Helper()
	return cHelper(t, "rt25bw", rt25bwC)
}

// rt25bwTree makes base/rel (MkdirAll) owned by u from base down.
func rt25bwTree(t *testing.T, u user, base, rel string) string {
	t.Helper()
	d := filepath.Join(base, rel)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for p := d; ; p = filepath.Dir(p) {
		os.Lchown(p, u.uid, u.uid)
		os.Chmod(p, 0o755)
		if p == base {
			break
		}
	}
	return d
}

// rt25bwRepo writes a minimal git directory at dir (HEAD, objects/,
// refs/heads/, config) owned by u; extra is appended to its [core].
func rt25bwRepo(t *testing.T, u user, dir, extra string) {
	t.Helper()
	for _, d := range []string{dir + "/objects", dir + "/refs/heads"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(dir+"/HEAD", []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(dir+"/config", []byte("[core]\n\trepositoryformatversion = 0\n\tbare = false\n"+extra), 0o644)
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
}

// rt25bwGit runs the host's git as u in dir.
func rt25bwGit(u user, home, git, dir string, args ...string) (string, error) {
	cmd := rt12As(u, []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1"}, append([]string{git, "-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestRedTeam25BetweenBareRepository: HOLE. The fix protects the *names*
// .git, .hg, .svn, .jj and .agents in the directories between /tmp and a
// workspace in /tmp/X/mid/ws. But git's discovery (setup.c,
// setup_git_directory_gently_1) checks, in each directory it walks up
// through, first DIR/.git and then whether DIR itself is a git directory
// (is_git_directory: HEAD, objects/, refs/): a bare repository. With the
// default safe.bareRepository=all, and core.bare=false plus core.worktree
// in its config, the host's git in the workspace uses it with the
// workspace as work tree, and `git status` runs its core.fsmonitor.
//
// Reproducer (any user; git 2.39 on the host):
//
//	mkdir -p /tmp/X/mid/ws && cd /tmp/X/mid/ws
//	sbx run -- sh -c 'mkdir ../.git   # Permission denied: the fix holds
//	  mkdir -p ../objects ../refs/heads; echo "ref: refs/heads/main" > ../HEAD
//	  printf "[core]\n\tbare = false\n\tworktree = /tmp/X/mid/ws\n\tfsmonitor = touch /tmp/X/PWNED; false\n" > ../config'
//	git rev-parse --absolute-git-dir   # /tmp/X/mid
//	git status; ls /tmp/X/PWNED        # created by the host's git
//
// Subtests: between_slash_tmp (the repository is /tmp/X/mid, the fix's own
// layout), between_tmpdir (TMPDIR=BASE/tmp, ws=$TMPDIR/proj/ws, the
// repository is $TMPDIR/proj), root_tmpdir ($TMPDIR itself, a writable
// root, ws=$TMPDIR/ws: the same route was open before the fix) and
// workspace (the workspace itself, which has no .git and whose .git the
// supervisor refuses). Control: before the run the host's git finds no
// repository from the workspace, and inside the run mkdir of the
// protected .git at the same place is refused (the guard is active).
// Must hold: the host's git finds no repository the command made, and
// runs nothing of it. Observed: rev-parse names the planted directory and
// the marker is created by the host's `git status`.
//
// Root cause: the protection is by name (ir/bind.go ProtectedBetween adds
// D/.git etc.; targets/landlock/layout.go guards the missing names), and
// a git directory need not be named .git. Fix direction: also guard
// HEAD (or HEAD and one of objects/refs) in the directories where .git is
// guarded above the workspace, or refuse to create them there; in the
// workspace and its roots a bare repository is harder to rule out (set
// safe.bareRepository=explicit on the host, or document it).
func TestRedTeam25BetweenBareRepository(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is missing on the host")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, c := range []string{"between_slash_tmp", "between_tmpdir", "root_tmpdir", "workspace"} {
			t.Run(c, func(t *testing.T) {
				parent := "/tmp"
				if c != "between_slash_tmp" {
					parent = f.base
				}
				base, err := os.MkdirTemp(parent, "sbxrt25bw")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(base) })
				os.Lchown(base, u.uid, u.uid)
				os.Chmod(base, 0o755)
				var ws, repo string
				var env []string
				switch c {
				case "between_slash_tmp":
					ws = rt25bwTree(t, u, base, "mid/ws")
					repo = base + "/mid"
				case "between_tmpdir":
					ws = rt25bwTree(t, u, base, "tmp/proj/ws")
					repo = base + "/tmp/proj"
					env = []string{"TMPDIR=" + base + "/tmp"}
				case "root_tmpdir":
					ws = rt25bwTree(t, u, base, "tmp/ws")
					repo = base + "/tmp"
					env = []string{"TMPDIR=" + base + "/tmp"}
				case "workspace":
					ws = rt25bwTree(t, u, base, "tmp/ws")
					repo = ws
					env = []string{"TMPDIR=" + base + "/tmp"}
				}
				marker := base + "/PWNED"
				if out, err := rt25bwGit(u, f.home, git, ws, "rev-parse", "--absolute-git-dir"); err == nil {
					t.Fatalf("control: the host's git already finds a repository for %s: %s", ws, out)
				}
				script := `r=` + repo + `
mkdir "$r/.git" 2>/dev/null && { echo guard=missing; rmdir "$r/.git"; } || echo guard=refused
mkdir -p "$r/objects" "$r/refs/heads" && echo 'ref: refs/heads/main' > "$r/HEAD" &&
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ` + ws + `\n\tfsmonitor = touch ` + marker + `; false\n' > "$r/config" && echo planted=ok || echo planted=refused`
				args := []string{"--timeout", "20s", "--profile", "workspace", "--cwd", ws, "--", "/bin/sh", "-c", script}
				r := rtRun(t, rtOpts{u: u, args: args, env: append([]string{"HOME=" + f.home}, env...)})
				if r.SbxError != "" {
					t.Fatalf("sbx: %s", r.SbxError)
				}
				got := rx13Fields(r.Stdout)
				if got["guard"] != "refused" {
					t.Fatalf("control: %s/.git was not refused inside (%q %q): the guard is not active here", repo, r.Stdout, r.Stderr)
				}
				gitDir, gerr := rt25bwGit(u, f.home, git, ws, "rev-parse", "--absolute-git-dir")
				rt25bwGit(u, f.home, git, ws, "status", "--porcelain")
				if gerr == nil && gitDir == repo {
					t.Errorf("HOLE: the command made %s a bare git directory (HEAD, objects/, refs/, config: planted=%s) while %s/.git is refused; the host's git in the workspace %s now uses it (%s)", repo, got["planted"], repo, ws, c)
				}
				if fileExists(marker) {
					t.Errorf("HOLE: the host's `git status` in the workspace ran the command's core.fsmonitor (%s created on the host)", marker)
				}
			})
		}
	})
}

// TestRedTeam25BetweenGitLink: HOLE. A directory between /tmp and the
// workspace (/tmp/X/mid, with ws = /tmp/X/mid/ws) has a .git that is a
// symbolic link to a repository elsewhere in /tmp (/tmp/X/other/repo/.git;
// or a link whose target is missing). The fix binds "read
// /tmp/X/mid/.git"; the layout pins the link and the dry run says "the
// rule applies to what it points to", but no rule is bound on the target:
// ProtectedBetween (before the fix: targets/landlock/bind.go:768) ran after resolveRules
// (bind.go:767), which is what turns a protect rule on a link into a rule
// on its target (for the workspace's own .git link the target is
// read-only). The target stays writable through /tmp.
//
// Reproducer (root):
//
//	mkdir -p /tmp/X/mid/ws /tmp/X/other && git init -q /tmp/X/other/repo
//	ln -s /tmp/X/other/repo/.git /tmp/X/mid/.git
//	cd /tmp/X/mid/ws && sbx run -- git config core.fsmonitor 'touch /tmp/X/PWNED; false'
//	git status; ls /tmp/X/PWNED        # created by the host's git
//
// Subtests: existing (the linked repository exists: the command appends
// core.fsmonitor to its config through the link) and dangling (the link's
// target is missing: the command creates a repository there). Control:
// before the run the host's git in the workspace resolves the link
// (existing: names the target; dangling: finds nothing); the same write
// through a .git link directly in the workspace (a root) is refused.
// Must hold: the command cannot change (or create) the repository the
// host's git takes for the workspace. Observed: it can, and the host's
// `git status` creates the marker.
func TestRedTeam25BetweenGitLink(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is missing on the host")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, c := range []string{"existing", "dangling"} {
			t.Run(c, func(t *testing.T) {
				base, err := os.MkdirTemp("/tmp", "sbxrt25bl")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(base) })
				os.Lchown(base, u.uid, u.uid)
				os.Chmod(base, 0o755)
				ws := rt25bwTree(t, u, base, "mid/ws")
				rt25bwTree(t, u, base, "other")
				target := base + "/other/repo"
				if c == "existing" {
					rt25bwRepo(t, u, target, "")
				}
				if err := os.Symlink(target, base+"/mid/.git"); err != nil {
					t.Fatal(err)
				}
				os.Lchown(base+"/mid/.git", u.uid, u.uid)
				// The control's workspace: the same link directly in a root.
				ctlws := rt25bwTree(t, u, base, "ctl/ws")
				ctltarget := base + "/other/ctlrepo"
				rt25bwRepo(t, u, ctltarget, "")
				os.Symlink(ctltarget, ctlws+"/.git")
				os.Lchown(ctlws+"/.git", u.uid, u.uid)

				marker := base + "/PWNED"
				gitDir, gerr := rt25bwGit(u, f.home, git, ws, "rev-parse", "--absolute-git-dir")
				if c == "existing" && (gerr != nil || gitDir != target) {
					t.Fatalf("control: the host's git in %s does not use the linked repository %s: %q %v", ws, target, gitDir, gerr)
				}
				if c == "dangling" && gerr == nil {
					t.Fatalf("control: the host's git already finds a repository for %s: %s", ws, gitDir)
				}
				line := `printf '\tfsmonitor = touch ` + marker + `; false\n'`
				ctl := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--timeout", "20s", "--profile", "workspace", "--cwd", ctlws, "--",
					"/bin/sh", "-c", line + ` >> .git/config && echo ctl=wrote || echo ctl=refused`}})
				if ctl.SbxError != "" {
					t.Fatalf("sbx: %s", ctl.SbxError)
				}
				if rx13Fields(ctl.Stdout)["ctl"] != "refused" {
					t.Fatalf("control: the workspace's own .git link's target was writable (%q %q)", ctl.Stdout, ctl.Stderr)
				}
				var script string
				if c == "existing" {
					script = line + ` >> ../.git/config && echo wrote=ok || echo wrote=refused`
				} else {
					script = `t=` + target + `
mkdir -p "$t/objects" "$t/refs/heads" && echo 'ref: refs/heads/main' > "$t/HEAD" &&
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n' > "$t/config" && ` + line + ` >> "$t/config" && echo wrote=ok || echo wrote=refused`
				}
				r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--timeout", "20s", "--profile", "workspace", "--cwd", ws, "--", "/bin/sh", "-c", script}})
				if r.SbxError != "" {
					t.Fatalf("sbx: %s", r.SbxError)
				}
				gitDir, _ = rt25bwGit(u, f.home, git, ws, "rev-parse", "--absolute-git-dir")
				rt25bwGit(u, f.home, git, ws, "status", "--porcelain")
				if rx13Fields(r.Stdout)["wrote"] == "ok" {
					t.Errorf("HOLE: %s/mid/.git is a link to %s (%s): the command wrote core.fsmonitor into it; the host's git in %s uses %q", base, target, c, ws, gitDir)
				}
				if fileExists(marker) {
					t.Errorf("HOLE: the host's `git status` in the workspace ran the command's core.fsmonitor (%s created on the host)", marker)
				}
			})
		}
	})
}

// TestRedTeam25BetweenHeld: what held. For each layout, the helper tries
// every creation route for .git (and .hg, .jj) in each directory between
// the outer root and the workspace, and ordinary names there, first
// unsandboxed in a copy of the layout (control: every route creates the
// name, the directory can be renamed), then inside.
func TestRedTeam25BetweenHeld(t *testing.T) {
	h := rt25bwHelper(t)
	routes := []string{"mkdir", "creat", "symlink", "mkfifo", "link", "rename", "tmpfile", "tmpfile2", "bind", "proccwd"}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		type layout struct {
			name    string
			parent  string // where the base is made
			rel     string // the workspace below the base
			between []string
			tmpdir  string // relative to base, "" for none
			link    bool   // --cwd through a symbolic link base/L
			extra   []string
			env     []string
			nosup   bool
		}
		layouts := []layout{
			{name: "depth2", parent: "/tmp", rel: "ws", between: []string{""}},
			{name: "depth5", parent: "/tmp", rel: "a/b/c/ws", between: []string{"", "a", "a/b", "a/b/c"}},
			{name: "tmpdir", parent: f.base, rel: "t/a/b", between: []string{"t/a"}, tmpdir: "t"},
			{name: "symlinked_cwd", parent: "/tmp", rel: "mid/ws", between: []string{"", "mid"}, link: true},
			{name: "abi3", parent: "/tmp", rel: "mid/ws", between: []string{"", "mid"}, extra: []string{"--allow-degraded", "--landlock-abi-cap", "3"}},
			{name: "no_supervisor", parent: "/tmp", rel: "mid/ws", between: []string{"", "mid"}, env: []string{"SBX_LANDLOCK_NO_SUPERVISOR=1"}, nosup: true},
		}
		for _, l := range layouts {
			t.Run(l.name, func(t *testing.T) {
				mk := func() (string, string) {
					base, err := os.MkdirTemp(l.parent, "sbxrt25bh")
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { os.RemoveAll(base) })
					os.Lchown(base, u.uid, u.uid)
					os.Chmod(base, 0o755)
					return base, rt25bwTree(t, u, base, l.rel)
				}
				script := func(base, ws string) string {
					var b strings.Builder
					for i, rel := range l.between {
						d := filepath.Join(base, rel)
						for _, n := range []string{".git", ".hg", ".jj"} {
							b.WriteString(h + " " + strings.TrimPrefix(n, ".") + strings.Repeat("i", i) + " " + d + " " + n + " " + ws + "\n")
						}
					}
					return b.String()
				}
				// control
				cbase, cws := mk()
				cmd := rt12As(u, nil, "/bin/sh", "-c", script(cbase, cws))
				cmd.Dir = cws
				out, _ := cmd.CombinedOutput()
				ctl := rx13Fields(string(out))
				for k, v := range ctl {
					if strings.HasSuffix(k, ".made") {
						continue
					}
					if v != "ok" {
						t.Logf("control: %s=%s", k, v)
					}
				}
				base, ws := mk()
				cwd := ws
				if l.link {
					if err := os.Symlink(ws, base+"/L"); err != nil {
						t.Fatal(err)
					}
					cwd = base + "/L"
				}
				env := append([]string{"HOME=" + f.home}, l.env...)
				if l.tmpdir != "" {
					env = append(env, "TMPDIR="+filepath.Join(base, l.tmpdir))
				}
				args := append([]string{"--timeout", "30s", "--profile", "workspace", "--cwd", cwd}, l.extra...)
				sc := script(base, ws)
				if l.tmpdir != "" {
					// TMPDIR's parent (the base) is not writable at all.
					sc += "mkdir " + base + "/.git 2>/dev/null && echo parent=ok || echo parent=refused\n"
				}
				args = append(args, "--", "/bin/sh", "-c", sc)
				r := rtRun(t, rtOpts{u: u, args: args, env: env, timeout: 60 * time.Second})
				if r.SbxError != "" {
					t.Fatalf("sbx: %s", r.SbxError)
				}
				got := rx13Fields(r.Stdout)
				for i, rel := range l.between {
					d := filepath.Join(base, rel)
					for _, n := range []string{".git", ".hg", ".jj"} {
						pre := strings.TrimPrefix(n, ".") + strings.Repeat("i", i)
						if got[pre+".mkdir"] == "" || ctl[pre+".mkdir"] == "" {
							t.Fatalf("%s: the helper did not run for %s/%s: control %q, inside %q %q", l.name, d, n, out, r.Stdout, r.Stderr)
						}
						for _, k := range routes {
							key := pre + "." + k
							if ctl[key] != "ok" {
								continue // the route does not exist here (control)
							}
							if got[key] == "ok" || got[key+".made"] == "yes" {
								t.Errorf("%s: %s/%s created by %s inside (%s)", l.name, d, n, k, got[key])
							}
						}
						if fileExists(d + "/" + n) {
							t.Errorf("%s: %s/%s exists after the run", l.name, d, n)
						}
						if got[pre+".mvdir"] == "ok" {
							t.Errorf("%s: %s could be renamed inside", l.name, d)
						}
						if ctl[pre+".mvdir"] != "ok" {
							t.Errorf("control: %s could not be renamed without the sandbox (%s)", d, ctl[pre+".mvdir"])
						}
						if !l.nosup {
							for _, k := range []string{"okfile", "okunlink", "okmkdir", "okrmdir"} {
								if got[pre+"."+k] != "ok" {
									t.Errorf("over-restricted: %s: ordinary %s in %s: %s", l.name, k, d, got[pre+"."+k])
								}
							}
						}
					}
				}
				if l.tmpdir != "" && got["parent"] != "refused" {
					t.Errorf("%s: %s/.git (TMPDIR's parent) was created: %q", l.name, base, r.Stdout)
				}
				if l.nosup {
					rep := r.Sandbox.String()
					for _, rel := range l.between {
						d := filepath.Join(base, rel)
						if !strings.Contains(rep, `"dir":"`+d+`"`) && !strings.Contains(rep, `"dir": "`+d+`"`) {
							t.Errorf("no_supervisor: %s is not reported under no_create: %.3000s", d, rep)
						}
					}
				}
				// the workspace behaves as before
				if !fileExists(ws) {
					t.Errorf("%s: the workspace is gone", l.name)
				}
			})
		}
		// An ancestor that is a real repository: its .git is read-only
		// and cannot be renamed, git still works inside (read-only).
		t.Run("ancestor_repo", func(t *testing.T) {
			git, err := exec.LookPath("git")
			if err != nil {
				t.Skip("git is missing")
			}
			base, err := os.MkdirTemp("/tmp", "sbxrt25ba")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(base) })
			os.Lchown(base, u.uid, u.uid)
			ws := rt25bwTree(t, u, base, "R/sub/ws")
			repo := base + "/R"
			if out, err := rt12As(u, []string{"HOME=" + f.home, "GIT_CONFIG_NOSYSTEM=1"}, git, "init", "-q", repo).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			before, _ := os.ReadFile(repo + "/.git/config")
			script := `echo '[core]' >> ` + repo + `/.git/config 2>/dev/null && echo cfg=ok || echo cfg=refused
mv ` + repo + `/.git ` + repo + `/.gitx 2>/dev/null && echo mv=ok || echo mv=refused
git status --porcelain >/dev/null 2>&1 && echo status=ok || echo status=failed
touch ` + repo + `/plain && rm ` + repo + `/plain && echo plain=ok || echo plain=refused
touch newfile && rm newfile && echo ws=ok || echo ws=refused`
			r := rtRun(t, rtOpts{u: u, args: []string{"--timeout", "20s", "--profile", "workspace", "--cwd", ws, "--", "/bin/sh", "-c", script},
				env: []string{"HOME=" + f.home, "GIT_CONFIG_NOSYSTEM=1"}})
			if r.SbxError != "" {
				t.Fatalf("sbx: %s", r.SbxError)
			}
			got := rx13Fields(r.Stdout)
			after, _ := os.ReadFile(repo + "/.git/config")
			if got["cfg"] != "refused" || string(after) != string(before) {
				t.Errorf("ancestor repository's config writable: %q", r.Stdout)
			}
			if got["mv"] != "refused" || !fileExists(repo+"/.git") {
				t.Errorf("ancestor repository's .git renamed: %q", r.Stdout)
			}
			if got["status"] != "ok" || got["plain"] != "ok" || got["ws"] != "ok" {
				t.Errorf("over-restricted: %q %q", r.Stdout, r.Stderr)
			}
		})
	})
}

// TestRedTeam25BetweenInnerLink: was a HOLE until session 26 (older than
// red team 25's fix; the fix's new read-only .git above the workspace had
// it too; a known limit, skipped unless SBX_RT25_HOLES=1, until the
// binding protected what a repository's config, config.worktree and
// hooks links lead to: gitConfigTargets in package landlock). A protected
// .git that exists is a read-only bind mount, but a symbolic link *inside* it is
// followed: .git/config -> /tmp/X/other/cfg (a config kept elsewhere, as
// dotfile managers do) points into a writable root, so the command
// rewrites the repository's configuration through the read-only .git and
// the host's next `git status` in the workspace runs its core.fsmonitor.
// The protection bound rules on the .git path and on links on the way to
// it, not on links below it; it now also binds a read rule on where the
// config, config.worktree and hooks links lead inside a writable root.
//
// Reproducer (root):
//
//	mkdir -p /tmp/X/mid/ws /tmp/X/other && git init -q /tmp/X/mid
//	mv /tmp/X/mid/.git/config /tmp/X/other/cfg && ln -s /tmp/X/other/cfg /tmp/X/mid/.git/config
//	cd /tmp/X/mid/ws && sbx run -- sh -c 'printf "\tfsmonitor = touch /tmp/X/PWNED; false\n" >> ../.git/config'
//	git status; ls /tmp/X/PWNED
//
// Subtests: between (the repository is /tmp/X/mid, above the workspace)
// and workspace (the workspace's own .git; also with the binary before
// the fix). Control: inside, writing .git/HEAD (a regular file in the
// same .git) is refused (EROFS: the mount is there). Must hold: the
// repository's configuration cannot be changed from inside. Observed
// before the fix: the append succeeded and the host's git created the
// marker.
func TestRedTeam25BetweenInnerLink(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is missing on the host")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, c := range []string{"between", "workspace"} {
			t.Run(c, func(t *testing.T) {
				base, err := os.MkdirTemp("/tmp", "sbxrt25bi")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(base) })
				os.Lchown(base, u.uid, u.uid)
				os.Chmod(base, 0o755)
				ws := rt25bwTree(t, u, base, "mid/ws")
				rt25bwTree(t, u, base, "other")
				repo := base + "/mid"
				if c == "workspace" {
					repo = ws
				}
				rt25bwRepo(t, u, repo+"/.git", "")
				cfg := base + "/other/cfg"
				if err := os.Rename(repo+"/.git/config", cfg); err != nil {
					t.Fatal(err)
				}
				os.Symlink(cfg, repo+"/.git/config")
				os.Lchown(repo+"/.git/config", u.uid, u.uid)
				if d, err := rt25bwGit(u, f.home, git, ws, "rev-parse", "--absolute-git-dir"); err != nil || d != repo+"/.git" {
					t.Fatalf("control: the host's git in %s does not use %s/.git: %q %v", ws, repo, d, err)
				}
				marker := base + "/PWNED"
				script := `g=` + repo + `/.git
echo x >> "$g/HEAD" 2>/dev/null && echo head=ok || echo head=refused
printf '\tfsmonitor = touch ` + marker + `; false\n' >> "$g/config" && echo wrote=ok || echo wrote=refused`
				r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--timeout", "20s", "--profile", "workspace", "--cwd", ws, "--", "/bin/sh", "-c", script}})
				if r.SbxError != "" {
					t.Fatalf("sbx: %s", r.SbxError)
				}
				got := rx13Fields(r.Stdout)
				if got["head"] != "refused" {
					t.Fatalf("control: %s/.git/HEAD was writable inside (%q %q): %s/.git is not protected here", repo, r.Stdout, r.Stderr, repo)
				}
				rt25bwGit(u, f.home, git, ws, "status", "--porcelain")
				if got["wrote"] == "ok" {
					t.Errorf("HOLE: the command appended core.fsmonitor to %s/.git/config (a link to %s) through the read-only %s/.git (%s)", repo, cfg, repo, c)
				}
				if fileExists(marker) {
					t.Errorf("HOLE: the host's `git status` in the workspace ran the command's core.fsmonitor (%s created on the host)", marker)
				}
			})
		}
	})
}
