//go:build linux && amd64

package launch_test

// Red team 17 (profile semantics against enforcement): profiles written
// for these tests, compiled by the real sbc binary (built once into bin),
// run by the real sbx binary (built by TestMain), as root and as uid
// 65534. Each test states what the profile language (README "The profile
// language": the most specific rule wins, deny beats write beats read at
// equal specificity, a path no rule covers is denied) and the dry run
// say, and checks what the command can really do to each path class.
//
// Found (failing tests): a read rule on a symbolic link to a denied
// directory makes it readable by its own name (SymlinkReadRule); deny and
// read-only rules are bound to the inode found at start, so a denied path
// the host creates or replaces during the run reads, and a read-only file
// it saves atomically becomes writable (DenyChangedDuringRun); deny rules
// on /proc paths are masks under the fresh procfs (DenyInProc); FIFOs in
// read-only carve-outs open for writing (FIFOInReadOnlyCarveOut); a write
// rule on a file, and rules on symbolic links, refuse the run with
// misleading errors (WriteFileRule, SymlinkRuleTargets); every deny_glob
// is refused as partial in strict mode (DenyGlobStrict); max_depth counts
// from / (GlobDepthAnchored); a newline in a path forges dry-run lines
// (DryRunSpoof); the IR decoder accepts values sbc refuses (ArtifactIR).
// Held: Nesting, ExtendsNetwork, HostLayouts.
//
//	go test -count=1 -run 'TestRedTeam17Prof' -v ./targets/landlock/launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/compiler/target"
	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

var (
	rt17pSbcOnce sync.Once
	rt17pSbcErr  error
)

// rt17pSbc builds cmd/sbc into bin once and returns its path.
func rt17pSbc(t *testing.T) string {
	t.Helper()
	p := filepath.Join(bin, "sbc")
	rt17pSbcOnce.Do(func() {
		cmd := exec.Command("go", "build", "-o", p, "../../../cmd/sbc")
		if out, err := cmd.CombinedOutput(); err != nil {
			rt17pSbcErr = fmt.Errorf("go build sbc: %v\n%s", err, out)
		}
	})
	if rt17pSbcErr != nil {
		t.Fatal(rt17pSbcErr)
	}
	return p
}

// rt17pCompile compiles src (HCL) with sbc, without the built-in policy
// rules (they refuse some of the unusual profiles here, which is not what
// is tested), into a world-readable directory, and returns the path of
// the artifact of profile name and sbc's diagnostics.
func rt17pCompile(t *testing.T, src, name string) (string, string) {
	t.Helper()
	sbc := rt17pSbc(t)
	dir, err := os.MkdirTemp(bin, "rt17art")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	hcl := filepath.Join(dir, "rt17.hcl")
	if err := os.WriteFile(hcl, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sbc, "compile", "-no-builtin", "-o", dir, hcl).CombinedOutput()
	if err != nil {
		t.Fatalf("sbc compile: %v\n%s", err, out)
	}
	art := filepath.Join(dir, name+".sbx.json")
	if _, err := os.Stat(art); err != nil {
		t.Fatalf("no artifact for %s: %v\n%s", name, err, out)
	}
	return art, string(out)
}

// rt17pTree makes a tree under /var/tmp owned by u: files (relative path
// -> content), dirs (relative paths) and symlinks (relative path ->
// target). It returns the base directory.
func rt17pTree(t *testing.T, u user, files map[string]string, dirs []string, links map[string]string) string {
	t.Helper()
	base, err := os.MkdirTemp("/var/tmp", "rt17fx")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, c := range files {
		full := filepath.Join(base, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, target := range links {
		full := filepath.Join(base, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.Symlink(target, full); err != nil {
			t.Fatal(err)
		}
	}
	filepath.Walk(base, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
	return base
}

// rt17pRun runs script with /bin/sh under the artifact art, with HOME at
// home and the working directory cwd; flags go before "--".
func rt17pRun(t *testing.T, u user, art, home, cwd, script string, flags []string, env ...string) rtResult {
	t.Helper()
	args := append([]string{"--cwd", cwd, "--artifact", art}, flags...)
	args = append(args, "--", "/bin/sh", "-c", script)
	return rtRun(t, rtOpts{u: u, args: args, env: append([]string{"HOME=" + home}, env...)})
}

// rt17pDryRun prints sbx's dry run (text) of art as u.
func rt17pDryRun(t *testing.T, u user, art, home, cwd string, flags ...string) (string, error) {
	t.Helper()
	argv := append([]string{filepath.Join(bin, "sbx"), "run", "--dry-run", "--cwd", cwd, "--artifact", art}, flags...)
	argv = append(argv, "--", "/bin/true")
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// rt17pProbeScript is a shell prelude: pf FILE prints "F FILE RWTMN" and pd
// DIR prints "D DIR LCD", a letter for each operation that succeeded and
// "-" for each refused one: R read, W append, T truncate, M chmod, N
// rename within its directory (and back); L list, C create a file, D
// make a directory (both removed again).
const rt17pProbeScript = `
pf() {
  r=
  cat "$1" >/dev/null 2>&1 && r=${r}R || r=${r}-
  (echo x >>"$1") 2>/dev/null && r=${r}W || r=${r}-
  truncate -s 2 "$1" 2>/dev/null && r=${r}T || r=${r}-
  chmod 644 "$1" 2>/dev/null && r=${r}M || r=${r}-
  if mv "$1" "$1.rt17mv" 2>/dev/null; then r=${r}N; mv "$1.rt17mv" "$1"; else r=${r}-; fi
  echo "F $1 $r"
}
pd() {
  r=
  ls "$1" >/dev/null 2>&1 && r=${r}L || r=${r}-
  if touch "$1/rt17new" 2>/dev/null; then r=${r}C; rm -f "$1/rt17new"; else r=${r}-; fi
  if mkdir "$1/rt17dir" 2>/dev/null; then r=${r}D; rmdir "$1/rt17dir"; else r=${r}-; fi
  echo "D $1 $r"
}
`

// Expected verdicts by access (the profile language's semantics).
const (
	rt17pFileWrite = "RWTMN"
	rt17pFileRead  = "R----"
	rt17pFileDeny  = "-----"
	rt17pDirWrite  = "LCD"
	rt17pDirRead   = "L--"
	rt17pDirDeny   = "---"
)

// rt17pWant maps an access to the verdicts of a file and of a directory.
var rt17pWant = map[string][2]string{"write": {rt17pFileWrite, rt17pDirWrite}, "read": {rt17pFileRead, rt17pDirRead}, "deny": {rt17pFileDeny, rt17pDirDeny}}

// rt17pVerdicts parses the probe's lines into "F path" / "D path" -> verdict.
func rt17pVerdicts(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && (f[0] == "F" || f[0] == "D") {
			m[f[0]+" "+f[1]] = f[2]
		}
	}
	return m
}

// rt17pProbe runs the probe on each path (kind "F" or "D") under art and
// returns the verdicts and the run's result.
func rt17pProbe(t *testing.T, u user, art, home, cwd string, paths [][2]string, flags ...string) (map[string]string, rtResult) {
	t.Helper()
	var b strings.Builder
	b.WriteString(rt17pProbeScript)
	for _, p := range paths {
		fmt.Fprintf(&b, "p%s %q\n", strings.ToLower(p[0]), p[1])
	}
	r := rt17pRun(t, u, art, home, cwd, b.String(), flags)
	return rt17pVerdicts(r.Stdout), r
}

// rt17pUnsandboxed runs script as u without a sandbox (controls).
func rt17pUnsandboxed(u user, dir, script string) string {
	argv := []string{"/bin/sh", "-c", script}
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// ---------------------------------------------------------------------------

// TestRedTeam17ProfNesting (held): rules nested six levels deep, deny in
// read in write in deny in read in write (each kept path carried through
// the mask of the level above), and rules on regular files (a read-only
// file and a denied file in a writable root, a readable file kept below a
// denied directory). Every path class gets exactly the access of its most
// specific rule, by read, append, truncate, chmod, rename, list, create
// and mkdir; the dry run lists each of them.
func TestRedTeam17ProfNesting(t *testing.T) {
	const src = `
profile "rt17-nest" {
  filesystem {
    read    = [root, path(cwd, "d1", "r2"), path(cwd, "d1", "r2", "w3", "d4", "w5", "r6"), path(cwd, "ro.txt"), path(cwd, "dd", "keep.txt")]
    write   = [cwd, path(cwd, "d1", "r2", "w3"), path(cwd, "d1", "r2", "w3", "d4", "w5")]
    deny    = [path(cwd, "d1"), path(cwd, "d1", "r2", "w3", "d4"), path(cwd, "deny.txt"), path(cwd, "dd")]
    protect = [".git"]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt17-nest")
	levels := []struct{ dir, access string }{
		{"", "write"}, {"d1", "deny"}, {"d1/r2", "read"}, {"d1/r2/w3", "write"},
		{"d1/r2/w3/d4", "deny"}, {"d1/r2/w3/d4/w5", "write"}, {"d1/r2/w3/d4/w5/r6", "read"},
	}
	asUser(t, func(t *testing.T, u user) {
		files := map[string]string{"home/readme": "h", "ws/ro.txt": "ro", "ws/deny.txt": "deny", "ws/dd/keep.txt": "keep", "ws/dd/other": "o"}
		for _, l := range levels {
			files[filepath.Join("ws", l.dir, "f")] = "data"
			files[filepath.Join("ws", l.dir, "sub", "g")] = "g"
		}
		base := rt17pTree(t, u, files, nil, nil)
		ws := base + "/ws"
		var paths [][2]string
		want := map[string]string{}
		for _, l := range levels {
			dir := filepath.Join(ws, l.dir)
			paths = append(paths, [2]string{"F", dir + "/f"}, [2]string{"F", dir + "/sub/g"}, [2]string{"D", dir + "/sub"})
			v := rt17pWant[l.access]
			want["F "+dir+"/f"], want["F "+dir+"/sub/g"], want["D "+dir+"/sub"] = v[0], v[0], v[1]
		}
		for p, v := range map[string]string{"ro.txt": rt17pFileRead, "deny.txt": rt17pFileDeny, "dd/keep.txt": rt17pFileRead, "dd/other": rt17pFileDeny} {
			paths = append(paths, [2]string{"F", ws + "/" + p})
			want["F "+ws+"/"+p] = v
		}
		dry, err := rt17pDryRun(t, u, art, base+"/home", ws)
		if err != nil {
			t.Fatalf("dry run: %v\n%s", err, dry)
		}
		for _, l := range levels {
			if !strings.Contains(dry, fmt.Sprintf("%-5s %s", l.access, filepath.Join(ws, l.dir))) {
				t.Errorf("dry run does not list %s %s:\n%s", l.access, filepath.Join(ws, l.dir), dry)
			}
		}
		got, r := rt17pProbe(t, u, art, base+"/home", ws, paths)
		if r.SbxError != "" {
			t.Fatalf("sbx failed: %s", r.SbxError)
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: got %q, the profile says %q", k, got[k], w)
			}
		}
		// The control: without the sandbox every operation succeeds.
		ctl := rt17pVerdicts(rt17pUnsandboxed(u, ws, rt17pProbeScript+"pf "+ws+"/d1/f\npd "+ws+"/d1/r2/sub\n"))
		if ctl["F "+ws+"/d1/f"] != rt17pFileWrite || ctl["D "+ws+"/d1/r2/sub"] != rt17pDirWrite {
			t.Errorf("control: %v", ctl)
		}
	})
}

// TestRedTeam17ProfSymlinkReadRule: ESCAPE. A read rule whose path is a
// symbolic link to a denied directory, in a profile without a read rule on
// / (here platform_defaults and "~/notes", a link to ~/.ssh; or a read
// rule on a link to the home directory itself): the dry run lists
// "deny {home}/.ssh" and no mask for it (Landlock alone denies what no rule
// covers), but Landlock's rule is opened through the link and attached to
// the target's inode, so ~/.ssh/id_rsa reads and ~/.ssh lists, by their
// own names. By the profile's semantics ~/.ssh/id_rsa is covered by
// "deny ~/.ssh" (the most specific rule) and must be refused. sbx
// canonicalises the anchors and refuses writable roots through symlinks,
// but binds read rules on links unresolved. (With read = [root] the deny
// is a mask, a mount, and holds through the link: the control.)
func TestRedTeam17ProfSymlinkReadRule(t *testing.T) {
	const src = `
profile "rt17-lnk-notes" {
  filesystem {
    read    = [platform_defaults, "~/notes"]
    write   = [cwd]
    deny    = ["~/.ssh"]
    protect = [".git"]
  }
}

profile "rt17-lnk-home" {
  filesystem {
    read    = [platform_defaults, "LINKDIR/homelink"]
    write   = [cwd]
    deny    = ["~/.ssh"]
    protect = [".git"]
  }
}

profile "rt17-lnk-rootread" {
  filesystem {
    read    = [root, "~/notes"]
    write   = [cwd]
    deny    = ["~/.ssh"]
    protect = [".git"]
  }
}
`
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"home/.ssh/id_rsa": "RT17-SSH-KEY", "ws/file": "w"}, nil,
			map[string]string{"home/notes": ".ssh"})
		os.Symlink(base+"/home", base+"/homelink")
		os.Lchown(base+"/homelink", u.uid, u.uid)
		arts := map[string]string{}
		for _, n := range []string{"rt17-lnk-notes", "rt17-lnk-home", "rt17-lnk-rootread"} {
			arts[n], _ = rt17pCompile(t, strings.ReplaceAll(src, "LINKDIR", base), n)
		}
		home, ws := base+"/home", base+"/ws"
		if out := rt17pUnsandboxed(u, ws, "cat "+home+"/.ssh/id_rsa"); !strings.Contains(out, "RT17-SSH-KEY") {
			t.Fatalf("control: the key does not read without the sandbox: %q", out)
		}
		script := `cat "$HOME/.ssh/id_rsa" 2>&1; ls "$HOME/.ssh" >/dev/null 2>&1 && echo LISTED-SSH`
		r := rt17pRun(t, u, arts["rt17-lnk-rootread"], home, ws, script, nil)
		if r.SbxError != "" || strings.Contains(r.Stdout, "RT17-SSH-KEY") || strings.Contains(r.Stdout, "LISTED-SSH") {
			t.Errorf("control (read = [root]): the mask must hold: %+v", r)
		}
		for _, n := range []string{"rt17-lnk-notes", "rt17-lnk-home"} {
			t.Run(n, func(t *testing.T) {
				dry, _ := rt17pDryRun(t, u, arts[n], home, ws)
				if !strings.Contains(dry, "deny  "+home+"/.ssh") {
					t.Errorf("the dry run does not list the deny:\n%s", dry)
				}
				r := rt17pRun(t, u, arts[n], home, ws, script, nil)
				if r.SbxError != "" {
					t.Fatalf("sbx failed: %s", r.SbxError)
				}
				if strings.Contains(r.Stdout, "RT17-SSH-KEY") || strings.Contains(r.Stdout, "LISTED-SSH") {
					t.Errorf("ESCAPE: %s denies ~/.ssh (dry run: deny %s/.ssh, no mask), but a read rule on a symlink to it made ~/.ssh/id_rsa readable by its own name: %q", n, home, r.Stdout)
				}
			})
		}
	})
}

// TestRedTeam17ProfWriteFileRule: FIDELITY. A write rule on a regular file
// (the profile language takes any path: "read, and also modify") in a
// read-only tree, and on a file kept below a denied directory: the dry
// run lists "read-write FILE" (and "mask DIR keeping FILE") and calls the
// rule exact, but the run is refused: the launcher resolves every
// writable root with O_DIRECTORY ("resolving FILE without symlinks (a
// symlink on the way: the path changed since the profile was bound, or is
// not canonical): not a directory"), a misleading error for a legal
// profile. Must hold: the run starts; the file reads, appends, truncates
// and changes mode (it is a writable mount), it cannot be renamed (its
// directory is read-only); the denied directory's other files stay denied.
func TestRedTeam17ProfWriteFileRule(t *testing.T) {
	const src = `
profile "rt17-wfile" {
  filesystem {
    read    = [root]
    write   = [cwd, "BASE/out/ro/w.txt", "BASE/out/dd/w.txt"]
    deny    = ["BASE/out/dd"]
    protect = [".git"]
  }
}
`
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"out/ro/w.txt": "a", "out/ro/other": "b", "out/dd/w.txt": "c", "out/dd/other": "d", "ws/f": "e"}, []string{"home"}, nil)
		art, _ := rt17pCompile(t, strings.ReplaceAll(src, "BASE", base), "rt17-wfile")
		dry, _ := rt17pDryRun(t, u, art, base+"/home", base+"/ws")
		if !strings.Contains(dry, "read-write      "+base+"/out/ro/w.txt") {
			t.Errorf("the dry run does not list the writable file:\n%s", dry)
		}
		got, r := rt17pProbe(t, u, art, base+"/home", base+"/ws", [][2]string{
			{"F", base + "/out/ro/w.txt"}, {"F", base + "/out/ro/other"}, {"F", base + "/out/dd/w.txt"}, {"F", base + "/out/dd/other"}})
		if r.SbxError != "" {
			t.Fatalf("FIDELITY: a write rule on a regular file refuses the run (the dry run lists it as read-write): %s", r.SbxError)
		}
		for p, w := range map[string]string{"out/ro/w.txt": "RWTM-", "out/ro/other": rt17pFileRead, "out/dd/w.txt": "RWTM-", "out/dd/other": rt17pFileDeny} {
			if g := got["F "+base+"/"+p]; g != w {
				t.Errorf("%s: got %q, the profile says %q", p, g, w)
			}
		}
	})
}

// TestRedTeam17ProfSymlinkRuleTargets: FIDELITY. Rules whose path is a
// symbolic link, in legal profiles, are refused at start with errors that
// do not name the cause: a deny rule on a link in a readable tree (the
// README's own "dev" example, extends workspace and denies ~/.ssh, run by
// a user whose ~/.ssh is a link into a dotfiles directory, as GNU stow
// and other dotfile managers make it: "mask ~/.ssh (deny): invalid
// argument", so that profile cannot run at all), and a read rule on a
// link in a writable root ("LINK was created after the profile was bound
// (bind it again: a new sandbox): bad file descriptor", although the link
// existed before sbx started). Writable roots through links are refused with a
// message that says so ("a symlink on the way"); these should either be
// enforced (deny LINK: LINK/... refused) or refused naming the link.
func TestRedTeam17ProfSymlinkRuleTargets(t *testing.T) {
	const src = `
profile "rt17-deny-link" {
  extends = "workspace"

  filesystem {
    deny = ["~/.ssh", "~/.aws", path(cwd, ".env")]
  }
}

profile "rt17-read-link" {
  filesystem {
    read    = [root, path(cwd, "lnk")]
    write   = [cwd]
    protect = [".git"]
  }
}
`
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"dotfiles/ssh/id_rsa": "RT17-KEY", "ws/real/f": "r"}, []string{"home"},
			map[string]string{"home/.ssh": "../dotfiles/ssh", "ws/lnk": "real"})
		home, ws := base+"/home", base+"/ws"
		for name, c := range map[string]struct{ script, bad string }{
			"rt17-deny-link": {`cat "$HOME/.ssh/id_rsa"`, "RT17-KEY"},
			"rt17-read-link": {`echo x >>lnk/f && echo WROTE`, "WROTE"},
		} {
			t.Run(name, func(t *testing.T) {
				art, _ := rt17pCompile(t, src, name)
				r := rt17pRun(t, u, art, home, ws, c.script, nil)
				if strings.Contains(r.Stdout, c.bad) {
					t.Errorf("%s: the path the rule names is reachable: %q", name, r.Stdout)
				}
				if r.SbxError != "" && !strings.Contains(r.SbxError, "symlink") && !strings.Contains(r.SbxError, "symbolic link") {
					t.Errorf("FIDELITY: a rule on a symbolic link refuses the run without naming the link as the cause: %s", r.SbxError)
				}
			})
		}
	})
}

// TestRedTeam17ProfDenyChangedDuringRun: ESCAPE (host-timed). A deny rule
// is bound to the dentry it finds when the command starts:
//
//   - a denied path that is missing then ("exact ... does not exist" in
//     the dry run) and that the host creates during the run (a user
//     running "aws configure" while an agent works) reads in the sandbox;
//   - a denied file that the host replaces by rename during the run (an
//     editor's atomic save of .env, a tool rewriting its credentials):
//     the rename unlinks the masked dentry, the kernel detaches the mask
//     in the sandbox's namespace, and the new content reads;
//   - the same for a denied directory replaced by the host;
//   - and for a read-only file carve-out in the workspace (read =
//     [path(cwd, "ro.txt")]) that the host saves atomically: the
//     read-only bind goes with the old inode, and the command then
//     rewrites the new file, which outlives the run.
//
// The profile says these paths are denied for the whole run. The README's
// limits cover globs ("files created later that match are not denied")
// and renames of a protected path's parent between runs, not this.
// Controls: each path is refused at the start of the same run, and reads
// without the sandbox.
func TestRedTeam17ProfDenyChangedDuringRun(t *testing.T) {
	rt17Holes(t, "masks and read-only carve-outs are bound when the command starts: a denied path the host creates, replaces or renames during the run is not the masked one (README, Known limits)")
	const src = `
profile "rt17-deny-race" {
  filesystem {
    read    = [root, path(cwd, "ro.txt")]
    write   = [cwd]
    deny    = ["~/.ssh", "~/.aws", path(cwd, ".env")]
    protect = [".git"]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt17-deny-race")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"home/.ssh/id_rsa": "OLD-KEY", "ws/.env": "OLD-ENV", "ws/ro.txt": "OLD-RO"}, nil, nil)
		home, ws := base+"/home", base+"/ws"
		dry, _ := rt17pDryRun(t, u, art, home, ws)
		if !strings.Contains(dry, home+"/.aws does not exist") {
			t.Logf("dry run:\n%s", dry)
		}
		paths := []string{home + "/.aws/credentials", ws + "/.env", home + "/.ssh/id_rsa"}
		script := `for p in "$@"; do cat "$p" >/dev/null 2>&1 && echo "BEFORE-READ $p"; done
echo x >>ro.txt 2>/dev/null && echo RO-WRITABLE-AT-START
: >ready
i=0; while [ ! -e go ] && [ $i -lt 200 ]; do sleep 0.02; i=$((i+1)); done
for p in "$@"; do echo "AFTER $p $(cat "$p" 2>&1)"; done
echo EVIL >>ro.txt 2>/dev/null && echo RO-WRITTEN`
		args := []string{"--cwd", ws, "--artifact", art, "--", "/bin/sh", "-c", script, "sh"}
		args = append(args, paths...)
		done := make(chan rtResult, 1)
		go func() { done <- rtRun(t, rtOpts{u: u, args: args, env: []string{"HOME=" + home}}) }()
		deadline := time.Now().Add(10 * time.Second)
		for !fileExists(ws+"/ready") && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		// The host's changes, as the user.
		host := `mkdir -p "$1/.aws" && echo NEW-AWS >"$1/.aws/credentials"
echo NEW-ENV >"$2/.env.tmp" && mv "$2/.env.tmp" "$2/.env"
mv "$1/.ssh" "$1/.ssh.old" && mkdir "$1/.ssh" && echo NEW-KEY >"$1/.ssh/id_rsa"
echo NEW-RO >"$2/ro.txt.tmp" && mv "$2/ro.txt.tmp" "$2/ro.txt"
: >"$2/go"`
		if out := rt17pUnsandboxed(u, "/", "set -- "+home+" "+ws+"\n"+host); out != "" {
			t.Fatalf("host changes: %s", out)
		}
		r := <-done
		if r.SbxError != "" {
			t.Fatalf("sbx failed: %s", r.SbxError)
		}
		if strings.Contains(r.Stdout, "BEFORE-READ") || strings.Contains(r.Stdout, "RO-WRITABLE-AT-START") || !strings.Contains(r.Stdout, "AFTER") {
			t.Fatalf("control: denied at the start of the run: %q %q", r.Stdout, r.Stderr)
		}
		for _, leak := range []string{"NEW-AWS", "NEW-ENV", "NEW-KEY"} {
			if strings.Contains(r.Stdout, leak) {
				t.Errorf("ESCAPE: a denied path changed by the host during the run reads in the sandbox (%s): %q", leak, r.Stdout)
			}
		}
		if strings.Contains(r.Stdout, "RO-WRITTEN") {
			t.Errorf("ESCAPE: a read-only file replaced by the host during the run is writable in the sandbox (the host's file now holds %q)", rt17pUnsandboxed(u, "/", "cat "+ws+"/ro.txt"))
		}
		if out := rt17pUnsandboxed(u, "/", "cat "+home+"/.aws/credentials"); !strings.Contains(out, "NEW-AWS") {
			t.Errorf("control: %q", out)
		}
	})
}

// TestRedTeam17ProfDenyGlobStrict: FIDELITY. The README (Fidelity, "Known
// non-exact rules") and sbc say a deny_glob's bounded scan at start is
// the expansion the profile language defines, so it "counts as
// supplementary, not partial" (sbc compile warns "supplementary"). At
// run time sbx marks every deny_glob "partial" (targets/landlock/bind.go,
// expandGlobs: LevelPartial for every glob, also when the scan was not
// cut short), and strict mode refuses every profile with a deny_glob
// ("rule cannot be enforced exactly on Linux ... run with
// --allow-degraded"). Must hold: the run starts without
// --allow-degraded and the match is denied. With --allow-degraded
// (held): a glob-denied directory is not reopened by a more specific
// write rule ("nothing reopens a glob-denied path"), an anchored "**"
// matches zero directories, and an unanchored pattern matches at any
// depth within max_depth.
func TestRedTeam17ProfDenyGlobStrict(t *testing.T) {
	const src = `
profile "rt17-glob" {
  filesystem {
    read      = [root]
    write     = [cwd, path(cwd, "secrets", "pub")]
    deny_glob = ["{cwd}/**/*.key", "**/secrets", "{cwd}/**/id_*"]
    protect   = [".git"]
  }
}
`
	art, diags := rt17pCompile(t, src, "rt17-glob")
	if !strings.Contains(diags, "deny_glob") || strings.Contains(diags, "partial") {
		t.Logf("sbc diagnostics:\n%s", diags)
	}
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"ws/a.key": "K1", "ws/x/y/b.key": "K2", "ws/secrets/pub/p": "P", "ws/secrets/priv": "S",
			"ws/id_rsa": "I1", "ws/x/id_ed": "I2", "ws/plain": "ok"}, []string{"home"}, nil)
		home, ws := base+"/home", base+"/ws"
		script := `for f in a.key x/y/b.key secrets/pub/p secrets/priv id_rsa x/id_ed plain; do echo "$f $(cat $f 2>/dev/null || echo DENIED)"; done
echo new >secrets/pub/n 2>/dev/null && echo CREATED-IN-GLOB-DIR`
		t.Run("strict", func(t *testing.T) {
			r := rt17pRun(t, u, art, home, ws, "cat a.key 2>&1; cat plain", nil)
			if r.SbxError != "" {
				t.Errorf("FIDELITY: sbc and the README call a deny_glob supplementary (the defined expansion), but sbx refuses it as partial in strict mode: %.400s", r.SbxError)
			}
			if strings.Contains(r.Stdout, "K1") {
				t.Errorf("ESCAPE: a glob match reads: %q", r.Stdout)
			}
		})
		t.Run("degraded", func(t *testing.T) {
			r := rt17pRun(t, u, art, home, ws, script, []string{"--allow-degraded"})
			if r.SbxError != "" {
				t.Fatalf("sbx failed: %s", r.SbxError)
			}
			for _, l := range []string{"a.key DENIED", "x/y/b.key DENIED", "secrets/pub/p DENIED", "secrets/priv DENIED", "id_rsa DENIED", "x/id_ed DENIED", "plain ok"} {
				if !strings.Contains(r.Stdout, l+"\n") {
					t.Errorf("want %q: %q", l, r.Stdout)
				}
			}
			if strings.Contains(r.Stdout, "CREATED-IN-GLOB-DIR") {
				t.Errorf("a write rule reopened a glob-denied directory: %q", r.Stdout)
			}
		})
	})
}

// TestRedTeam17ProfExtendsNetwork (held): a three-level extends chain.
// The parent denies {cwd}/sec and allows TCP connect to two ports and a
// range; the middle profile writes {cwd}/sec (equal specificity: deny
// wins), reads {cwd}/sec/pub (more specific: read), replaces connect_tcp
// with the range's port only and unsets A* variables; the leaf sets mode
// none. Checked with real connections to listeners on the host and the
// environment.
func TestRedTeam17ProfExtendsNetwork(t *testing.T) {
	var ports []int
	for i := 0; i < 4; i++ {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go acceptAndClose(l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	// The parent allows ports[0], ports[1] and a range holding ports[2];
	// ports[3] is never allowed.
	src := fmt.Sprintf(`
profile "rt17-base" {
  filesystem {
    read    = [root]
    write   = [cwd]
    deny    = [path(cwd, "sec")]
    protect = [".git"]
  }
  network {
    mode        = "ports"
    reason      = "test"
    connect_tcp = [%d, %d, "%d-%d"]
  }
  process {
    env {
      set = { A17 = "a", B17 = "b" }
    }
  }
}

profile "rt17-mid" {
  extends = "rt17-base"
  filesystem {
    write = [path(cwd, "sec")]
    read  = [path(cwd, "sec", "pub")]
  }
  network {
    connect_tcp = [%d]
  }
  process {
    env {
      unset = ["A*"]
    }
  }
}

profile "rt17-leaf" {
  extends = "rt17-mid"
  network {
    mode = "none"
  }
}
`, ports[0], ports[1], ports[2], ports[2], ports[2])
	arts := map[string]string{}
	for _, n := range []string{"rt17-base", "rt17-mid", "rt17-leaf"} {
		arts[n], _ = rt17pCompile(t, src, n)
	}
	probe := filepath.Join(bin, "probe")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"ws/sec/s": "S", "ws/sec/pub/p": "P", "ws/f": "f"}, []string{"home"}, nil)
		home, ws := base+"/home", base+"/ws"
		script := fmt.Sprintf(`echo "sec $(cat sec/s 2>/dev/null || echo DENIED)"
echo "pub $(cat sec/pub/p 2>/dev/null || echo DENIED)"
echo x >>sec/pub/p 2>/dev/null && echo PUB-WRITTEN
echo "env A17=${A17-unset} B17=${B17-unset}"
for p in %d %d %d %d; do echo "port$p $(%s tcp-connect 127.0.0.1:$p)"; done`, ports[0], ports[1], ports[2], ports[3], probe)
		want := map[string][]string{
			"rt17-base": {"sec DENIED", "pub DENIED", "env A17=a B17=b", fmt.Sprintf("port%d ok", ports[0]), fmt.Sprintf("port%d ok", ports[1]), fmt.Sprintf("port%d ok", ports[2]), fmt.Sprintf("port%d EACCES", ports[3])},
			"rt17-mid":  {"sec DENIED", "pub P", "env A17=unset B17=b", fmt.Sprintf("port%d EACCES", ports[0]), fmt.Sprintf("port%d EACCES", ports[1]), fmt.Sprintf("port%d ok", ports[2]), fmt.Sprintf("port%d EACCES", ports[3])},
			"rt17-leaf": {"sec DENIED", "pub P", "env A17=unset B17=b", fmt.Sprintf("port%d EACCES", ports[0]), fmt.Sprintf("port%d EACCES", ports[2])},
		}
		for n, lines := range want {
			r := rt17pRun(t, u, arts[n], home, ws, script, nil, "A17=outer")
			if r.SbxError != "" {
				t.Fatalf("%s: sbx failed: %s", n, r.SbxError)
			}
			for _, l := range lines {
				if !strings.Contains(r.Stdout, l+"\n") {
					t.Errorf("%s: want %q in %q", n, l, r.Stdout)
				}
			}
			if strings.Contains(r.Stdout, "PUB-WRITTEN") {
				t.Errorf("%s: the read-only carve-out was written", n)
			}
		}
	})
}

// TestRedTeam17ProfDryRunSpoof: FIDELITY (review). A path may hold any
// character but NUL, a newline included, and the dry run prints bound
// paths raw: a read rule on "/x\n  write /etc ..." shows, in the "bound
// rules" section a reviewer reads, a line "  write /etc" that no rule of
// the profile has. Must hold: every line of the bound rules is one of the
// profile's rules (control characters escaped or quoted, or the path
// refused by sbc).
func TestRedTeam17ProfDryRunSpoof(t *testing.T) {
	const src = `
profile "rt17-spoof" {
  filesystem {
    read    = [root, "/var/tmp/rt17-none\n  write /etc                                     {root} (rt17.hcl:4:14)"]
    write   = [cwd]
    protect = [".git"]
  }
}
`
	sbc := rt17pSbc(t)
	dir := t.TempDir()
	hcl := filepath.Join(dir, "rt17.hcl")
	os.WriteFile(hcl, []byte(strings.Replace(src, "{root}", "/", 1)), 0o644)
	out, err := exec.Command(sbc, "compile", "-no-builtin", "-o", dir, hcl).CombinedOutput()
	if err != nil {
		t.Logf("sbc refused the path (holds): %s", out)
		return
	}
	os.Chmod(dir, 0o755)
	art := filepath.Join(dir, "rt17-spoof.sbx.json")
	base := rt17pTree(t, users[0], nil, []string{"home", "ws"}, nil)
	dry, _ := rt17pDryRun(t, users[0], art, base+"/home", base+"/ws")
	sec := dry
	if i := strings.Index(sec, "mount namespace:"); i > 0 {
		sec = sec[:i]
	}
	for _, l := range strings.Split(sec, "\n") {
		if strings.HasPrefix(l, "  write /etc") {
			t.Errorf("FIDELITY: the dry run shows a rule the profile does not have (a newline in a path): %q\n%s", l, sec)
		}
	}
}

// TestRedTeam17ProfArtifactIR: VALIDATION (low; mostly held). An
// artifact whose IR was edited after compilation and whose digests and
// Landlock plan were then made consistent again (ir.Decode, then
// target.Build: what an attacker who can write the artifact does; the
// README says artifacts are not authenticated, so a consistent edit is
// enforced) must still be a valid profile: values sbc would refuse (a
// ".." or "*" in a rule path, a non-canonical path, a protected name with
// a slash or "..", a glob with "..", out-of-range ports and depths, an
// unknown access or mode) are refused by the decoder, by the build, or by
// sbx (125), and never enforced (runs with --allow-degraded, so that only
// validation refuses). Fails for: a "*" in a literal deny path, a
// deny_glob with ".." (sbc: an error), max_depth 0 and 1000 (sbc: 1 to
// 64). None grants more than a consistent edit that drops the rule would,
// so this is input validation, not an escape.
func TestRedTeam17ProfArtifactIR(t *testing.T) {
	const src = `
profile "rt17-art" {
  filesystem {
    read      = [root]
    write     = [cwd]
    deny      = [path(cwd, "sec")]
    protect   = [".git"]
  }
  network {
    mode        = "ports"
    reason      = "test"
    connect_tcp = [443]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt17-art")
	data, err := os.ReadFile(art)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	irJSON, _ := json.Marshal(doc["ir"])
	fs := func(m map[string]any) map[string]any {
		return m["profile"].(map[string]any)["filesystem"].(map[string]any)
	}
	rule := func(m map[string]any, i int) map[string]any {
		return fs(m)["rules"].([]any)[i].(map[string]any)
	}
	glob := func(m map[string]any, pattern string, depth int) {
		fs(m)["deny_globs"] = []any{map[string]any{"pattern": pattern, "max_depth": depth, "source": rule(m, 0)["source"]}}
	}
	// rules (sorted): 0 write {cwd}, 1 deny {cwd}/sec, 2 read root.
	edits := map[string]func(m map[string]any){
		"write rel dotdot":       func(m map[string]any) { rule(m, 0)["path"].(map[string]any)["rel"] = "sec/../.." },
		"write rel dot":          func(m map[string]any) { rule(m, 0)["path"].(map[string]any)["rel"] = "." },
		"write rel double slash": func(m map[string]any) { rule(m, 0)["path"].(map[string]any)["rel"] = "a//b" },
		"write rel absolute":     func(m map[string]any) { rule(m, 0)["path"].(map[string]any)["rel"] = "/etc" },
		"write rel trailing":     func(m map[string]any) { rule(m, 0)["path"].(map[string]any)["rel"] = "a/" },
		"deny rel glob":          func(m map[string]any) { rule(m, 1)["path"].(map[string]any)["rel"] = "s*" },
		"deny rel nul":           func(m map[string]any) { rule(m, 1)["path"].(map[string]any)["rel"] = "se\x00c" },
		"root rel dotdot":        func(m map[string]any) { rule(m, 2)["path"].(map[string]any)["rel"] = ".." },
		"access execute":         func(m map[string]any) { rule(m, 2)["access"] = "execute" },
		"protect slash":          func(m map[string]any) { fs(m)["protect"].([]any)[0].(map[string]any)["name"] = "sub/.git" },
		"protect dotdot":         func(m map[string]any) { fs(m)["protect"].([]any)[0].(map[string]any)["name"] = ".." },
		"protect dot":            func(m map[string]any) { fs(m)["protect"].([]any)[0].(map[string]any)["name"] = "." },
		"protect empty":          func(m map[string]any) { fs(m)["protect"].([]any)[0].(map[string]any)["name"] = "" },
		"glob dotdot":            func(m map[string]any) { glob(m, "{cwd}/../**", 8) },
		"glob unanchored dotdot": func(m map[string]any) { glob(m, "**/../x", 8) },
		"glob depth 0":           func(m map[string]any) { glob(m, "{cwd}/*.key", 0) },
		"glob depth 1000":        func(m map[string]any) { glob(m, "{cwd}/*.key", 1000) },
		"glob bad class":         func(m map[string]any) { glob(m, "{cwd}/[abc", 8) },
		"port 0": func(m map[string]any) {
			m["profile"].(map[string]any)["network"].(map[string]any)["connect_tcp"].([]any)[0].(map[string]any)["from"] = 0
		},
		"port range reversed": func(m map[string]any) {
			m["profile"].(map[string]any)["network"].(map[string]any)["connect_tcp"].([]any)[0].(map[string]any)["to"] = 1
		},
		"port 70000": func(m map[string]any) {
			m["profile"].(map[string]any)["network"].(map[string]any)["connect_tcp"].([]any)[0].(map[string]any)["to"] = 70000
		},
		"mode bogus": func(m map[string]any) { m["profile"].(map[string]any)["network"].(map[string]any)["mode"] = "open" },
	}
	base := rt17pTree(t, users[0], map[string]string{"ws/sec/s": "S", "ws/f": "f"}, []string{"home"}, nil)
	dir := filepath.Dir(art)
	for name, edit := range edits {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			var m map[string]any
			json.Unmarshal(irJSON, &m)
			edit(m)
			b, _ := json.Marshal(m)
			p, err := ir.Decode(b)
			if err != nil {
				return // refused by the decoder
			}
			a, ds := target.Build(p, "test", []target.Target{landlock.Target{}})
			if ds.HasErrors() {
				return // refused by the build
			}
			out, err := a.Encode()
			if err != nil {
				return
			}
			edited := filepath.Join(dir, "edited.json")
			os.WriteFile(edited, out, 0o644)
			r := rt17pRun(t, users[0], edited, base+"/home", base+"/ws", "echo RAN", []string{"--allow-degraded"})
			if r.SbxError == "" && r.ExitCode != 125 {
				t.Errorf("VALIDATION: an IR value sbc refuses (%s) is accepted by sbx's decoder and build (DecodeArtifact promises a valid IR) and the run goes ahead: exit %d %q %q", name, r.ExitCode, r.Stdout, r.Stderr)
			}
		})
	}
}

// TestRedTeam17ProfFIFOInReadOnlyCarveOut: ESCAPE (low: needs a host
// reader). A read-only carve-out in a writable root (read = [path(cwd,
// "ctl")], and protect = [".git"]) is a read-only bind mount, and Landlock
// keeps the write rights inherited from the writable root: a read-only
// mount refuses writes to regular files (EROFS) but not opening a FIFO
// for writing, which modifies no file. So the command writes into a FIFO
// in a path the profile keeps read-only (a host process's control pipe,
// a FIFO in .git), and a host reader receives the data. Outside writable
// roots Landlock refuses it (no write_file right): the control. Must
// hold: the open for writing is refused (EACCES or EROFS), as for a
// regular file there.
func TestRedTeam17ProfFIFOInReadOnlyCarveOut(t *testing.T) {
	rt17Holes(t, "a FIFO in a read-only carve-out of a writable root opens for writing: a read-only mount does not stop it and Landlock keeps the root's rights (README, Known limits)")
	const src = `
profile "rt17-fifo" {
  filesystem {
    read    = [root, path(cwd, "ctl")]
    write   = [cwd]
    protect = [".git"]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt17-fifo")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"ws/.git/HEAD": "ref", "ws/f": "f"}, []string{"home", "out"}, nil)
		ws := base + "/ws"
		fifos := []string{ws + "/ctl", ws + "/.git/fsmon", base + "/out/fifo"}
		for _, p := range fifos {
			if err := syscall.Mkfifo(p, 0o666); err != nil {
				t.Fatal(err)
			}
			os.Lchown(p, u.uid, u.uid)
		}
		// Host readers: each opens its FIFO non-blocking for reading (so
		// a writer's open does not block) and collects what arrives.
		got := make([]chan string, len(fifos))
		for i, p := range fifos {
			fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			f := os.NewFile(uintptr(fd), p)
			t.Cleanup(func() { f.Close() })
			got[i] = make(chan string, 1)
			go func(i int) {
				var b strings.Builder
				buf := make([]byte, 256)
				deadline := time.Now().Add(8 * time.Second)
				for time.Now().Before(deadline) && !strings.Contains(b.String(), "\n") {
					n, err := f.Read(buf)
					if errors.Is(err, os.ErrClosed) {
						break
					}
					b.Write(buf[:max(n, 0)])
					if n <= 0 {
						time.Sleep(20 * time.Millisecond)
					}
				}
				got[i] <- b.String()
			}(i)
		}
		script := `for p in "$@"; do if (echo "INJECT $p" >"$p") 2>/dev/null; then echo "WROTE $p"; else echo "REFUSED $p"; fi; done
echo x >"$PWD/.git/newfile" 2>/dev/null && echo GIT-FILE-WRITTEN`
		args := append([]string{"--cwd", ws, "--artifact", art, "--", "/bin/sh", "-c", script, "sh"}, fifos...)
		r := rtRun(t, rtOpts{u: u, args: args, env: []string{"HOME=" + base + "/home"}})
		if r.SbxError != "" {
			t.Fatalf("sbx failed: %s", r.SbxError)
		}
		if strings.Contains(r.Stdout, "GIT-FILE-WRITTEN") || !strings.Contains(r.Stdout, "REFUSED "+base+"/out/fifo") {
			t.Fatalf("controls: a regular file in .git and a FIFO outside the writable roots must be refused: %q", r.Stdout)
		}
		for i, p := range fifos[:2] {
			if strings.Contains(r.Stdout, "WROTE "+p) {
				t.Errorf("ESCAPE: a FIFO in a read-only carve-out was opened for writing (a host reader got %q)", <-got[i])
			}
		}
	})
}

// TestRedTeam17ProfHostLayouts (held): unusual host layouts, made in a
// private mount namespace around the whole sbx invocation (nothing is
// mounted on the host): a writable root holding a tmpfs mount point with
// a read-only carve-out and a denied directory inside it, a denied path
// that is itself a tmpfs mount point, a host read-only bind in the
// writable root; and $HOME given as a symbolic link to the real home
// (the deny follows the canonical home). Each path class gets its rule's
// access; the mount points cannot be renamed away.
func TestRedTeam17ProfHostLayouts(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root (unshare -m)")
	}
	const src = `
profile "rt17-layout" {
  filesystem {
    read    = [root, path(cwd, "m", "ro")]
    write   = [cwd]
    deny    = [path(cwd, "dm"), path(cwd, "m", "sec"), "~/.ssh"]
    protect = [".git"]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt17-layout")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"realhome/.ssh/id_rsa": "KEY", "ws/f": "f", "romsrc/f": "ro"}, []string{"ws/m", "ws/dm", "ws/rom"}, map[string]string{"homelink": "realhome"})
		ws := base + "/ws"
		uid := strconv.Itoa(u.uid)
		setup := fmt.Sprintf(`set -e
mount -t tmpfs -o mode=0755,uid=%[2]s,gid=%[2]s rt17a %[1]s/m
mkdir %[1]s/m/ro %[1]s/m/sec %[1]s/m/w && echo R >%[1]s/m/ro/r && echo S >%[1]s/m/sec/s && echo W >%[1]s/m/w/x
chown -R %[2]s:%[2]s %[1]s/m
mount -t tmpfs -o mode=0755,uid=%[2]s,gid=%[2]s rt17b %[1]s/dm && echo DS >%[1]s/dm/s
mount --bind -o ro %[3]s/romsrc %[1]s/rom
`, ws, uid, base)
		probe := rt17pProbeScript + `pf m/ro/r; pf m/sec/s; pf m/w/x; pf dm/s; pf rom/f; pf f; pd m; pd m/w; pd rom; pd dm
cat "$HOME/.ssh/id_rsa" 2>/dev/null && echo HOME-KEY-READ
mv m m2 2>/dev/null && echo MOVED-MOUNT; mv m/ro m/ro2 2>/dev/null && echo MOVED-RO`
		sbxArgv := []string{filepath.Join(bin, "sbx"), "run", "--json", "--cwd", ws, "--artifact", art, "--", "/bin/sh", "-c", probe}
		if u.uid != 0 {
			sbxArgv = append([]string{"setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"}, sbxArgv...)
		}
		var q []string
		for _, a := range sbxArgv {
			q = append(q, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
		}
		cmd := exec.Command("unshare", "-m", "--propagation", "private", "/bin/sh", "-c", setup+"exec "+strings.Join(q, " "))
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "HOME=" + base + "/homelink"}
		out, err := cmd.Output()
		var r rtResult
		if jerr := json.Unmarshal(out, &r); jerr != nil {
			t.Fatalf("%v %v: %s", err, jerr, out)
		}
		if r.SbxError != "" {
			t.Fatalf("sbx failed: %s", r.SbxError)
		}
		got := rt17pVerdicts(r.Stdout)
		for k, w := range map[string]string{"F m/ro/r": rt17pFileRead, "F m/sec/s": rt17pFileDeny, "F m/w/x": rt17pFileWrite, "F dm/s": rt17pFileDeny,
			"F rom/f": rt17pFileRead, "F f": rt17pFileWrite, "D m": rt17pDirWrite, "D m/w": rt17pDirWrite, "D rom": rt17pDirRead, "D dm": rt17pDirDeny} {
			if got[k] != w {
				t.Errorf("%s: got %q, the profile says %q", k, got[k], w)
			}
		}
		for _, bad := range []string{"HOME-KEY-READ", "MOVED-MOUNT", "MOVED-RO"} {
			if strings.Contains(r.Stdout, bad) {
				t.Errorf("%s: %q", bad, r.Stdout)
			}
		}
	})
}

// TestRedTeam17ProfDenyInProc: ESCAPE (dry run vs enforcement). A deny
// rule on a path in /proc (what a profile author writes to hide what the
// README lists as visible, /proc/keys, or /proc/self/mountinfo, which
// shows the host's paths): the dry run lists "mask /proc/keys"
// etc., but the masks are attached to the host's /proc in the view and
// the sandbox's fresh procfs is then mounted over /proc ("proc /proc",
// after them), so every one of them reads. The same profile's deny on
// /sys/kernel/mm (no fresh mount over it) is enforced: the control. Must
// hold: each denied /proc path is refused (the masks attached on the fresh
// procfs, or the rule refused at compile or bind time).
func TestRedTeam17ProfDenyInProc(t *testing.T) {
	const src = `
profile "rt17-proc" {
  filesystem {
    read    = [root]
    write   = [cwd]
    deny    = ["/proc/keys", "/proc/cpuinfo", "/sys/kernel/mm"]
    protect = [".git"]
  }
}

profile "rt17-proc-self" {
  filesystem {
    read    = [root]
    write   = [cwd]
    deny    = ["/proc/self/mountinfo"]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt17-proc")
	self, _ := rt17pCompile(t, src, "rt17-proc-self")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, nil, []string{"home", "ws"}, nil)
		// A process's own entries cannot be masked for every process of
		// the sandbox: the rule is refused (unenforceable), naming it.
		if r := rt17pRun(t, u, self, base+"/home", base+"/ws", "cat /proc/self/mountinfo >/dev/null && echo READ", nil); r.SbxError == "" || !strings.Contains(r.SbxError, "/proc/self/mountinfo") {
			t.Errorf("deny /proc/self/mountinfo: want the run refused naming the rule, got %+v", r)
		}
		dry, _ := rt17pDryRun(t, u, art, base+"/home", base+"/ws")
		for _, m := range []string{"mask            /proc/keys", "mask            /proc/cpuinfo"} {
			if !strings.Contains(dry, m) {
				t.Errorf("the dry run does not show %q:\n%s", m, dry)
			}
		}
		script := `for p in /proc/keys /proc/cpuinfo; do if cat "$p" >/dev/null 2>&1; then echo "READ $p"; else echo "REFUSED $p"; fi; done
ls /sys/kernel/mm >/dev/null 2>&1 && echo "READ /sys/kernel/mm" || echo "REFUSED /sys/kernel/mm"`
		r := rt17pRun(t, u, art, base+"/home", base+"/ws", script, nil)
		if r.SbxError != "" {
			t.Fatalf("sbx failed: %s", r.SbxError)
		}
		if !strings.Contains(r.Stdout, "REFUSED /sys/kernel/mm") {
			t.Fatalf("control: the deny on /sys/kernel/mm must hold: %q", r.Stdout)
		}
		if out := rt17pUnsandboxed(u, "/", "cat /proc/cpuinfo >/dev/null && echo OK"); !strings.Contains(out, "OK") {
			t.Fatalf("control: %q", out)
		}
		for _, p := range []string{"/proc/keys", "/proc/cpuinfo"} {
			if strings.Contains(r.Stdout, "READ "+p) {
				t.Errorf("ESCAPE: %s reads although the profile denies it and the dry run shows a mask on it", p)
			}
		}
	})
}

// TestRedTeam17ProfGlobDepthAnchored: FIDELITY. max_depth is counted from
// the top readable root, not from the pattern's anchor: with read =
// [root], { pattern = "{cwd}/**/*.key", max_depth = 3 } scans / three
// directories deep, so for a workspace at /var/tmp/X/ws nothing in the
// workspace is scanned and {cwd}/a.key, a direct match of the anchored
// pattern, stays readable (the report says "0 existing matches masked").
// The README's own example, { pattern = "{home}/**/id_*", max_depth = 4 },
// reads as "four directories below home"; with read = [root] and a home
// at /home/u it reaches two. Must hold: matches up to max_depth
// directories below the anchor are denied (run with --allow-degraded,
// see TestRedTeam17ProfDenyGlobStrict). The control: the same pattern with
// the default depth (8) denies the file.
func TestRedTeam17ProfGlobDepthAnchored(t *testing.T) {
	const src = `
profile "rt17-gdepth" {
  filesystem {
    read      = [root]
    write     = [cwd]
    deny_glob = [{ pattern = "{cwd}/**/*.key", max_depth = 3 }]
    protect   = [".git"]
  }
}

profile "rt17-gdepth8" {
  filesystem {
    read      = [root]
    write     = [cwd]
    deny_glob = ["{cwd}/**/*.key"]
    protect   = [".git"]
  }
}
`
	shallow, _ := rt17pCompile(t, src, "rt17-gdepth")
	deep, _ := rt17pCompile(t, src, "rt17-gdepth8")
	u := users[0]
	base := rt17pTree(t, u, map[string]string{"ws/a.key": "RT17-KEY", "ws/sub/b.key": "RT17-KEY2"}, []string{"home"}, nil)
	script := `cat a.key sub/b.key 2>/dev/null; echo END`
	r := rt17pRun(t, u, deep, base+"/home", base+"/ws", script, []string{"--allow-degraded"})
	if r.SbxError != "" || strings.Contains(r.Stdout, "RT17-KEY") {
		t.Fatalf("control (max_depth 8): %+v", r)
	}
	r = rt17pRun(t, u, shallow, base+"/home", base+"/ws", script, []string{"--allow-degraded"})
	if r.SbxError != "" {
		t.Fatalf("sbx failed: %s", r.SbxError)
	}
	if strings.Contains(r.Stdout, "RT17-KEY") {
		t.Errorf("FIDELITY: {cwd}/**/*.key with max_depth 3 leaves {cwd}/a.key (0 directories below the anchor) readable: the depth counts from /, %d directories above the workspace: %q",
			strings.Count(base+"/ws", "/"), r.Stdout)
	}
}
