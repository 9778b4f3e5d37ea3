//go:build linux && amd64

package launch_test

// Red team 12: escape classes the earlier batteries do not cover, through
// the real sbx binary (built by TestMain), as root and as uid 65534, with
// the C helper testdata/redteam12/rt12.c (also built as an LD_PRELOAD
// library that reports the credentials a program runs with):
//
//   - executing code from paths the profile does not let the command
//     execute. The profile language has no readable-but-not-executable or
//     writable-but-not-executable path (read and write both grant
//     Landlock's execute right: landlock.ReadRights), so the paths that
//     cannot be executed are the denied ones (Landlock alone in profiles
//     that do not read /, masks in those that do) and writable roots on a
//     host mount that is noexec; every route is tried on them: execve, the
//     dynamic loader, execveat(AT_EMPTY_PATH) on O_PATH and O_RDONLY
//     descriptors, /proc/self/fd/N, a #! script whose interpreter is
//     there, mmap(PROT_EXEC), mprotect(PROT_EXEC), a copy in /dev/shm; and
//     the mount flags of the built-in profiles' views;
//   - privilege through set-id and file-capability programs: every set-id
//     program on the machine (through LD_PRELOAD, which the loader honours
//     only when the exec gained nothing), set-id and setcap copies placed
//     in a writable root by the host (writable roots keep the host's
//     flags: no nosuid there);
//   - persistence: files that host processes run later (shell start-up
//     files, authorized_keys, autostart, systemd and cron units,
//     ld.so.preload, binfmt_misc, core_pattern, git hooks and config in
//     the protected .git and in a repository outside the writable roots),
//     checked by running git on the host afterwards; --cwd at or above
//     $HOME; and the ways around the protected .git: a writable root that
//     is $HOME or inside .git through TMPDIR or --cwd, a .git file whose
//     gitdir lies in the workspace, a submodule's gitfile, a repository
//     one level below the writable root, a .git that is a symbolic link;
//   - the caller's terminal: sbx on a pseudo-terminal that is its
//     controlling terminal; /dev/tty, its /dev/pts entry, the standard
//     streams, TIOCSCTTY; and, in profiles that do not read / (no /dev
//     mask, hence no private devpts), the host's /dev/pts;
//   - device nodes the host left in a writable root (writable roots are
//     not nodev);
//   - POSIX message queues and /dev/shm as channels to host processes;
//   - the sbx binary itself, reachable and runnable inside (nested runs,
//     its hidden supervisor mode);
//   - found on the way, not an escape: a file created through the
//     supervisor and executed at once fails with ETXTBSY.
//
//	go test -count=1 -run 'TestRedTeam12[^F]' ./targets/landlock/launch
//
// Tests that reproduce a real hole skip unless SBX_RT12_HOLES=1.

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/compiler/target"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// rt12Holes skips a test that reproduces a known hole unless
// SBX_RT12_HOLES=1.
func rt12Holes(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("SBX_RT12_HOLES") != "1" {
		t.Skip("HOLE: " + what + " (SBX_RT12_HOLES=1 to run)")
	}
}

// rt12Helper builds testdata/redteam12/rt12.c into bin once.
func rt12Helper(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("testdata/redteam12/rt12.c")
	if err != nil {
		t.Fatal(err)
	}
	return cHelper(t, "rt12", string(src))
}

var (
	rt12PreOnce sync.Once
	rt12PreErr  error
)

// rt12Preload builds rt12.c as the LD_PRELOAD library bin/rt12pre.so once.
func rt12Preload(t *testing.T) string {
	t.Helper()
	p := filepath.Join(bin, "rt12pre.so")
	rt12PreOnce.Do(func() {
		gcc, err := exec.LookPath("gcc")
		if err != nil {
			rt12PreErr = err
			return
		}
		if out, err := exec.Command(gcc, "-O1", "-shared", "-fPIC", "-DRT12_PRELOAD", "-o", p, "testdata/redteam12/rt12.c").CombinedOutput(); err != nil {
			rt12PreErr = fmt.Errorf("gcc: %v\n%s", err, out)
			return
		}
		rt12PreErr = os.Chmod(p, 0o755)
	})
	if rt12PreErr != nil {
		t.Skipf("cannot build the preload library: %v", rt12PreErr)
	}
	return p
}

// rt12ProfileSrc: a profile that reads only the system directories and
// writes the workspace, a tighter variant of the built-in workspace
// profile that a careful user might write. No rule covers /dev.
const rt12ProfileSrc = `
profile "rt12-defaults" {
  filesystem {
    read    = [platform_defaults]
    write   = [cwd]
    protect = [".git"]
  }
  network { mode = "none" }
}
`

var (
	rt12ArtOnce sync.Once
	rt12ArtErr  error
)

// rt12Artifact compiles rt12ProfileSrc into bin once and returns the
// artifact of the profile name.
func rt12Artifact(t *testing.T, name string) string {
	t.Helper()
	rt12ArtOnce.Do(func() {
		res, ds := compiler.CompileSources([]compiler.Source{{Name: "rt12.hcl", Data: []byte(rt12ProfileSrc)}})
		if ds.HasErrors() {
			rt12ArtErr = fmt.Errorf("compiling: %v", ds)
			return
		}
		for _, p := range res.Profiles {
			a, ds := target.Build(p, "test", []target.Target{landlock.Target{}})
			if ds.HasErrors() {
				rt12ArtErr = fmt.Errorf("artifact %s: %v", p.Name, ds)
				return
			}
			data, err := a.Encode()
			if err == nil {
				err = os.WriteFile(filepath.Join(bin, p.Name+".json"), data, 0o644)
			}
			if err != nil {
				rt12ArtErr = err
				return
			}
		}
	})
	if rt12ArtErr != nil {
		t.Fatal(rt12ArtErr)
	}
	return filepath.Join(bin, name+".json")
}

// rt12Prof turns a profile name ("@name": an artifact in bin, "%name": one
// of rt12ProfileSrc) into sbx arguments.
func rt12Prof(t *testing.T, p string) []string {
	t.Helper()
	switch {
	case strings.HasPrefix(p, "@"):
		return []string{"--artifact", filepath.Join(bin, p[1:]+".json")}
	case strings.HasPrefix(p, "%"):
		return []string{"--artifact", rt12Artifact(t, p[1:])}
	}
	return []string{"--profile", p}
}

// rt12Run runs argv under profile in cwd as u with HOME=home (and env),
// and fails on an sbx error.
func rt12Run(t *testing.T, u user, home string, env []string, profile, cwd string, argv ...string) rtResult {
	t.Helper()
	a := append(append(append([]string{"--timeout", "20s"}, rt12Prof(t, profile)...), "--cwd", cwd, "--"), argv...)
	r := rtRun(t, rtOpts{u: u, args: a, env: append([]string{"HOME=" + home}, env...)})
	if r.SbxError != "" {
		t.Fatalf("sbx %v failed: %s", a, r.SbxError)
	}
	return r
}

// rt12As is argv run directly (unsandboxed) as u, with a minimal
// environment and env.
func rt12As(u user, env []string, argv ...string) *exec.Cmd {
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}, env...)
	return cmd
}

// rt12Out runs argv unsandboxed as u and returns its output, trimmed.
func rt12Out(u user, env []string, argv ...string) string {
	out, _ := rt12As(u, env, argv...).CombinedOutput()
	return strings.TrimSpace(string(out))
}

// rt12Copy copies src to dst with mode, owned by uid.
func rt12Copy(t *testing.T, src, dst string, mode os.FileMode, uid int) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(dst)
	if err := os.WriteFile(dst, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dst, uid, uid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dst, mode); err != nil { // after chown, which clears set-id bits
		t.Fatal(err)
	}
}

// rt12Git runs git as u in dir, with HOME=home and no system config.
func rt12Git(u user, home, dir string, args ...string) (string, error) {
	cmd := rt12As(u, []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=rt12", "GIT_AUTHOR_EMAIL=rt12@example.com",
		"GIT_COMMITTER_NAME=rt12", "GIT_COMMITTER_EMAIL=rt12@example.com"}, append([]string{"git", "-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// rt12Repo makes dir a git repository owned by u with one commit.
func rt12Repo(t *testing.T, u user, home, dir string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	os.WriteFile(dir+"/README", []byte("rt12\n"), 0o644)
	os.Chown(dir, u.uid, u.uid)
	os.Chown(dir+"/README", u.uid, u.uid)
	for _, a := range [][]string{{"init", "-q"}, {"add", "README"}, {"commit", "-qm", "init"}} {
		if out, err := rt12Git(u, home, dir, a...); err != nil {
			t.Fatalf("git %v in %s: %v\n%s", a, dir, err, out)
		}
	}
}

// rt12NeedGit skips without git.
func rt12NeedGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is missing")
	}
}

// rt12Evil is a core.fsmonitor value: git runs it (through the shell,
// with its arguments after the comment) on every "git status".
func rt12Evil(marker string) string { return "touch " + marker + "; false #" }

// rt12HostStatus runs "git status" in dir on the host, as u, the way the
// user or an editor would after the run.
func rt12HostStatus(u user, home, dir string) string {
	out, _ := rt12Git(u, home, dir, "status", "--porcelain")
	return out
}

// ---------------------------------------------------------------------------
// 1. Executing code from paths the profile does not let the command execute.

const rt12AllRoutesOK = "execve=ok ldso=ok opath=ok fexecve=ok procfd=ok script=ok mmap=ok mprotect=ok shm=ok"

// rt12RoutesBut is rt12AllRoutesOK with shm=v (the sandbox has no writable
// /dev/shm: masked with /dev, or read-only and not granted).
func rt12RoutesBut(v string) string { return strings.Replace(rt12AllRoutesOK, "shm=ok", "shm="+v, 1) }

// TestRedTeam12ExecDeniedPaths: a program on a path the profile denies
// cannot be run by any route: execve, the dynamic loader
// (ld-linux-x86-64.so.2 PATH), execveat(AT_EMPTY_PATH) on an O_PATH and
// an O_RDONLY descriptor, execve of /proc/self/fd/N, a #! script in the
// workspace whose interpreter is the program, mmap(PROT_EXEC) and
// mprotect(PROT_EXEC) of it, copying it to /dev/shm. The paths: a
// directory no rule covers in t-narrow (read and write the workspace) and
// rt12-defaults (read the system, write the workspace), where Landlock
// alone denies it (O_PATH opens succeed, every exec is EACCES); a denied
// file and a program in a denied directory under t-carve's masks. Must
// hold: every route EACCES (the O_PATH open of a mask succeeds, its exec
// does not; the "O_PATH in a denied directory" of t-carve fails at the
// open already). t-narrow does not read the system directories, so there
// the loader itself is denied and its route fails for every target (a
// static copy of the helper is the program); rt12-defaults shows the
// loader refused on the program. Controls: the same programs run by every
// route without the sandbox, and by every route but /dev/shm (and the
// loader in t-narrow) from the workspace inside it.
func TestRedTeam12ExecDeniedPaths(t *testing.T) {
	rt := rt12Helper(t)
	const allDenied = "execve=EACCES ldso=EACCES opath=EACCES fexecve=EACCES procfd=EACCES script=EACCES mmap=EACCES mprotect=EACCES shm=EACCES"
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		// The helper inside the workspace: t-narrow reads nothing else,
		// not even the system directories (so a static target there, and
		// the loader is denied too: its route fails for every target).
		in := f.ws + "/rt12"
		rt12Copy(t, rt, in, 0o755, u.uid)
		for _, p := range []string{f.outside + "/sprog", f.ws + "/sub/sprog"} {
			rt12Copy(t, rt, p, 0o755, u.uid)
		}
		for _, p := range []string{f.outside + "/prog", f.ws + "/sub/prog", f.ws + "/secret", f.home + "/.ssh/prog"} {
			rt12Copy(t, "/bin/echo", p, 0o755, u.uid)
		}
		for _, p := range []string{f.outside + "/prog", f.outside + "/sprog", f.ws + "/secret", f.home + "/.ssh/prog"} {
			if got := rt12Out(u, nil, rt, "routes", p, rt12Script(t, f, p)); got != rt12AllRoutesOK {
				t.Fatalf("control (no sandbox) %s: %q", p, got)
			}
		}
		narrowOK := strings.Replace(rt12RoutesBut("EROFS"), "ldso=ok", "ldso=EACCES", 1)
		for _, c := range []struct {
			profile, target, want string
		}{
			{"@t-narrow", f.ws + "/sub/sprog", narrowOK},
			{"%rt12-defaults", f.ws + "/sub/prog", rt12RoutesBut("EROFS")},
			{"@t-carve", f.ws + "/sub/prog", rt12RoutesBut("ENOENT")},
			{"@t-narrow", f.outside + "/sprog", allDenied},
			{"%rt12-defaults", f.outside + "/prog", allDenied},
			{"@t-carve", f.ws + "/secret", allDenied},
			{"@t-carve", f.home + "/.ssh/prog", allDenied},
		} {
			r := rt12Run(t, u, f.home, nil, c.profile, f.ws, in, "routes", c.target, rt12Script(t, f, c.target))
			if got := strings.TrimSpace(r.Stdout); got != c.want {
				t.Errorf("%s %s:\n got %s\nwant %s (stderr %q)", c.profile, c.target, got, c.want, r.Stderr)
			}
		}
	})
}

// rt12Script writes an executable "#!TARGET ran" script in f's workspace
// (written from outside: nothing is created during the run) and returns
// its path.
func rt12Script(t *testing.T, f *fixture, target string) string {
	t.Helper()
	p := f.ws + "/sub/rt12-script" + strings.NewReplacer("/", "_", ".", "_").Replace(strings.TrimPrefix(target, f.base))
	if err := os.WriteFile(p, []byte("#!"+target+" ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chown(p, f.u.uid, f.u.uid)
	return p
}

// TestRedTeam12NoNonExecutableGrant: the premise of the class. The
// profile language cannot make a path readable or writable without making
// it executable (Landlock's execute right comes with read_file in every
// grant), so there is no readable-but-not-executable path for the loader,
// mmap(PROT_EXEC) or a copy to exploit: the only granted paths without
// execute are the standard devices. Checked on the bound Landlock rules
// (sbx run --dry-run --json) of the built-in sandboxed profiles and the
// narrow test profiles. Must hold: every rule with read_file and without
// execute is a standard device.
func TestRedTeam12NoNonExecutableGrant(t *testing.T) {
	f := newFixture(t, users[0])
	dev := map[string]bool{}
	for _, d := range landlock.StandardDevices {
		dev[d] = true
	}
	for _, p := range []string{"workspace", "workspace-net", "read-only", "network-off", "@t-carve", "@t-narrow", "%rt12-defaults"} {
		args := append(append([]string{"--dry-run"}, rt12Prof(t, p)...), "--cwd", f.ws, "--", "true")
		out, err := rtCmd(rtOpts{u: users[0], args: args, env: []string{"HOME=" + f.home}}).Output()
		var d struct {
			Sandbox struct {
				Rules []struct {
					Path   string   `json:"path"`
					Rights []string `json:"rights"`
				} `json:"landlock_rules"`
			} `json:"sandbox"`
		}
		if jerr := json.Unmarshal(out, &d); jerr != nil || len(d.Sandbox.Rules) == 0 {
			t.Fatalf("%s: dry run: %v %v %.300s", p, err, jerr, out)
		}
		executable := 0
		for _, r := range d.Sandbox.Rules {
			rights := "," + strings.Join(r.Rights, ",") + ","
			if strings.Contains(rights, ",read_file,") && !strings.Contains(rights, ",execute,") && !dev[r.Path] {
				t.Errorf("%s: %s is readable but not executable: %v", p, r.Path, r.Rights)
			}
			if strings.Contains(rights, ",read_file,") && strings.Contains(rights, ",execute,") {
				executable++
			}
		}
		if executable == 0 {
			t.Errorf("%s: no readable rule at all: %+v", p, d.Sandbox.Rules)
		}
	}
}

// TestRedTeam12NoexecWritableRoot: the one way a writable root is not
// executable is the host's own mount flags, which sbx promises to keep
// ("writable roots keep the host's own flags"). A workspace on a tmpfs
// mounted noexec,nosuid,nodev (in a private mount namespace of the test):
// inside, the view's clone of it keeps the three flags, and no route
// runs a program from it (execve, execveat, /proc/self/fd/N, a script:
// EACCES; mmap(PROT_EXEC): EPERM; mprotect(PROT_EXEC): EACCES; the
// loader fails). The control: the same routes on the fixture's workspace
// (an exec mount) all run. (A copy in another writable root, /tmp in the
// workspace profile, runs: noexec on one root is no boundary, as for any
// process.)
func TestRedTeam12NoexecWritableRoot(t *testing.T) {
	rt := rt12Helper(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare is missing")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		rt12Copy(t, "/bin/echo", f.ws+"/sub/prog", 0o755, u.uid)
		if r := rt12Run(t, u, f.home, nil, "workspace", f.ws, rt, "routes", f.ws+"/sub/prog", rt12Script(t, f, f.ws+"/sub/prog")); strings.TrimSpace(r.Stdout) != rt12RoutesBut("ENOENT") {
			t.Fatalf("control (exec workspace): %q %q", r.Stdout, r.Stderr)
		}
		d := f.base + "/nx"
		os.Mkdir(d, 0o755)
		runAs := ""
		if u.uid != 0 {
			runAs = fmt.Sprintf("setpriv --reuid=%d --regid=%d --clear-groups", u.uid, u.uid)
		}
		sbxRun := runAs + ` "$SBX" run --json --timeout 20s --profile workspace --cwd "$D/ws" -- `
		script := `set -e
mount -t tmpfs -o noexec,nosuid,nodev,mode=755 rt12nx "$D"
mkdir "$D/ws"; cp /bin/echo "$D/ws/prog"; printf '#!%s ran\n' "$D/ws/prog" > "$D/ws/script"; chmod 755 "$D/ws/script"; chown -R $U:$U "$D"
` + sbxRun + `"$RT" routes "$D/ws/prog" "$D/ws/script"
echo
` + sbxRun + `/bin/sh -c 'grep " $0 " /proc/self/mountinfo | tail -n 1; cp "$0/prog" /tmp/rt12-nx-$$ && /tmp/rt12-nx-$$ ran-from-tmp; rm -f /tmp/rt12-nx-$$' "$D/ws"
`
		cmd := exec.Command("unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script)
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "HOME=" + f.home, "D=" + d, "U=" + strconv.Itoa(u.uid), "SBX=" + filepath.Join(bin, "sbx"), "RT=" + rt}
		out, err := cmd.Output()
		var rs []rtResult
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "{") {
				var r rtResult
				if json.Unmarshal([]byte(l), &r) == nil {
					rs = append(rs, r)
				}
			}
		}
		if len(rs) != 2 {
			t.Fatalf("unshare: %v\n%s", err, out)
		}
		got := rt11Fields(rs[0].Stdout)
		for _, k := range []string{"execve", "ldso", "opath", "fexecve", "procfd", "script", "mmap", "mprotect"} {
			if got[k] == "ok" || got[k] == "" {
				t.Errorf("noexec workspace: %s ran the program: %q", k, rs[0].Stdout)
			}
		}
		for k, want := range map[string]string{"execve": "EACCES", "opath": "EACCES", "fexecve": "EACCES", "procfd": "EACCES", "script": "EACCES", "mmap": "EPERM", "mprotect": "EACCES"} {
			if got[k] != want {
				t.Errorf("noexec workspace: %s=%s, want %s (%q)", k, got[k], want, rs[0].Stdout)
			}
		}
		lines := strings.Split(strings.TrimSpace(rs[1].Stdout), "\n")
		fields := strings.Fields(lines[0])
		if len(fields) < 6 || fields[4] != d+"/ws" {
			t.Fatalf("the workspace's mount inside: %q %q", rs[1].Stdout, rs[1].Stderr)
		}
		opts := map[string]bool{}
		for _, o := range strings.Split(fields[5], ",") {
			opts[o] = true
		}
		for _, o := range []string{"rw", "noexec", "nosuid", "nodev"} {
			if !opts[o] {
				t.Errorf("the workspace's clone lost the host's %s: %s", o, fields[5])
			}
		}
		t.Logf("copy to /tmp: %q", strings.Join(lines[1:], " "))
	})
}

// rt12Mount is one line of /proc/self/mountinfo.
type rt12Mount struct {
	point, fstype string
	opts          map[string]bool
}

func rt12Mounts(s string) []rt12Mount {
	var ms []rt12Mount
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(l)
		if len(f) < 10 {
			continue
		}
		m := rt12Mount{point: f[4], opts: map[string]bool{}}
		for _, o := range strings.Split(f[5], ",") {
			m.opts[o] = true
		}
		for i, x := range f {
			if x == "-" && i+1 < len(f) {
				m.fstype = f[i+1]
				break
			}
		}
		ms = append(ms, m)
	}
	return ms
}

// rt12Top returns the topmost mount on point (the last one listed).
func rt12Top(ms []rt12Mount, point string) (rt12Mount, bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].point == point {
			return ms[i], true
		}
	}
	return rt12Mount{}, false
}

// rt12Under returns the mount a path lies on (the longest mount point
// above it, topmost).
func rt12Under(ms []rt12Mount, p string) rt12Mount {
	best := rt12Mount{}
	for _, m := range ms {
		if (p == m.point || strings.HasPrefix(p, strings.TrimSuffix(m.point, "/")+"/")) && len(m.point) >= len(best.point) {
			best = m
		}
	}
	return best
}

// TestRedTeam12MountFlags: the mount flags of the built-in profiles'
// views (workspace, read-only) and t-carve's masks, as the command sees
// them in /proc/self/mountinfo. Must hold: every mount outside the
// writable roots is read-only, except the private devpts; / is nosuid;
// the /dev mask, the masks of denied paths and the fresh /proc are
// nosuid,nodev,noexec; the private devpts is nosuid,noexec; the writable
// roots are read-write with exactly the host's nosuid/nodev/noexec flags
// (on this machine: none, so set-id files and device nodes there are
// stopped only by no_new_privs and by there being none: see
// TestRedTeam12SetIDCopy and TestRedTeam12DeviceNodeInWritableRoot).
func TestRedTeam12MountFlags(t *testing.T) {
	host, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	hostMounts := rt12Mounts(string(host))
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, p := range []string{"workspace", "read-only", "@t-carve"} {
			r := rt12Run(t, u, f.home, nil, p, f.ws, "/bin/cat", "/proc/self/mountinfo")
			ms := rt12Mounts(r.Stdout)
			if len(ms) < 5 {
				t.Fatalf("%s: mountinfo: %q %q", p, r.Stdout, r.Stderr)
			}
			writable := []string{}
			if p != "read-only" {
				writable = []string{f.ws, "/tmp"}
			}
			inWritable := func(pt string) bool {
				for _, w := range writable {
					if pt == w || strings.HasPrefix(pt, w+"/") {
						return true
					}
				}
				return false
			}
			for _, m := range ms {
				if inWritable(m.point) || m.point == "/dev/pts" || m.point == "/dev/ptmx" {
					continue
				}
				if !m.opts["ro"] {
					t.Errorf("%s: %s (%s) is writable: %v", p, m.point, m.fstype, m.opts)
				}
			}
			want := map[string][]string{
				"/":         {"ro", "nosuid"},
				"/dev":      {"ro", "nosuid", "nodev", "noexec"},
				"/proc":     {"ro", "nosuid", "nodev", "noexec"},
				"/dev/pts":  {"nosuid", "noexec"},
				"/dev/ptmx": {"nosuid", "noexec"},
				"/dev/null": {"ro", "nosuid"},
			}
			if p == "@t-carve" {
				want[f.home+"/.ssh"] = []string{"ro", "nosuid", "nodev", "noexec"}
				want[f.ws+"/secret"] = []string{"ro", "nosuid", "nodev", "noexec"}
			}
			for pt, flags := range want {
				m, ok := rt12Top(ms, pt)
				if !ok {
					t.Errorf("%s: no mount on %s", p, pt)
					continue
				}
				for _, fl := range flags {
					if !m.opts[fl] {
						t.Errorf("%s: %s (%s) lacks %s: %v", p, pt, m.fstype, fl, m.opts)
					}
				}
			}
			if m, _ := rt12Top(ms, "/dev"); m.fstype != "tmpfs" {
				t.Errorf("%s: /dev is %s, not the mask", p, m.fstype)
			}
			for _, w := range writable {
				m, ok := rt12Top(ms, w)
				if !ok {
					t.Errorf("%s: the writable root %s is no mount point", p, w)
					continue
				}
				hm := rt12Under(hostMounts, w)
				if !m.opts["rw"] {
					t.Errorf("%s: the writable root %s is read-only: %v", p, w, m.opts)
				}
				// nosuid and nodev always (device nodes found in a writable
				// root are no devices inside: TestRedTeam12DeviceNodeInWritableRoot);
				// noexec as the host's.
				for _, fl := range []string{"nosuid", "nodev"} {
					if !m.opts[fl] {
						t.Errorf("%s: the writable root %s lacks %s: %v", p, w, fl, m.opts)
					}
				}
				if m.opts["noexec"] != hm.opts["noexec"] {
					t.Errorf("%s: the writable root %s: noexec is %v, the host's %s has %v", p, w, m.opts["noexec"], hm.point, hm.opts["noexec"])
				}
				t.Logf("%s: writable root %s: nosuid=%v nodev=%v noexec=%v", p, w, m.opts["nosuid"], m.opts["nodev"], m.opts["noexec"])
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 2. Privilege through set-id and file-capability programs.

// rt12Status is the credentials line of "rt12 status" (or of the preload
// library), as fields.
type rt12Status map[string]string

// unprivileged reports what in s shows a gain over user u's own
// credentials inside the sandbox, or "".
func (s rt12Status) unprivileged(u user) string {
	id := strconv.Itoa(u.uid)
	all := id + "," + id + "," + id + "," + id
	const none = "0000000000000000"
	want := map[string]string{"uid": all, "gid": all, "prm": none, "eff": none, "inh": none, "bnd": none, "amb": none, "nnp": "1", "secure": "0", "secbits": "0xef"}
	var bad []string
	for k, v := range want {
		if s[k] != v {
			bad = append(bad, fmt.Sprintf("%s=%s (want %s)", k, s[k], v))
		}
	}
	return strings.Join(bad, " ")
}

// rt12SetIDPrograms lists the dynamically linked set-id programs in the
// system directories whose bits would change u's ids.
func rt12SetIDPrograms(u user) []string {
	seen := map[[2]uint64]bool{}
	var out []string
	for _, root := range []string{"/usr/bin", "/usr/sbin", "/usr/lib", "/usr/libexec", "/bin", "/sbin"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			var st unix.Stat_t
			if unix.Stat(p, &st) != nil || st.Mode&(unix.S_ISUID|unix.S_ISGID) == 0 || seen[[2]uint64{st.Dev, st.Ino}] {
				return nil
			}
			seen[[2]uint64{st.Dev, st.Ino}] = true
			gains := (st.Mode&unix.S_ISUID != 0 && int(st.Uid) != u.uid) || (st.Mode&unix.S_ISGID != 0 && int(st.Gid) != u.uid)
			if !gains || st.Mode&0o001 == 0 {
				return nil
			}
			e, err := elf.Open(p)
			if err != nil {
				return nil
			}
			defer e.Close()
			for _, ph := range e.Progs {
				if ph.Type == elf.PT_INTERP {
					out = append(out, p)
					break
				}
			}
			return nil
		})
	}
	return out
}

// TestRedTeam12SetIDSystemPrograms: every dynamically linked set-id
// program on the machine that would change the user's ids (su, passwd,
// mount, umount, chsh, chfn, gpasswd, newgrp, chage, expiry, ssh-agent,
// ssh-keysign, unix_chkpwd, ... as found) is run inside the workspace
// sandbox with LD_PRELOAD of a library that prints the credentials the
// program runs with and exits before its main. The loader honours
// LD_PRELOAD (a path with a slash) only when the kernel did not mark the
// exec secure, that is when the program gained nothing. Must hold: for
// each program the library ran (AT_SECURE 0) and reports the user's own
// uid and gid in all four slots, empty permitted, effective, inheritable,
// bounding and ambient sets, no_new_privs and the locked securebits. The
// controls: each program is set-id, owned by another uid or gid, on a
// mount without nosuid; and without the sandbox the loader ignores the
// library for one of them (the exec is secure: the bits take effect).
func TestRedTeam12SetIDSystemPrograms(t *testing.T) {
	pre := rt12Preload(t)
	asUser(t, func(t *testing.T, u user) {
		progs := rt12SetIDPrograms(u)
		if len(progs) == 0 {
			t.Skip("no set-id program that would change this user's ids")
		}
		for _, p := range progs {
			var sfs unix.Statfs_t
			if err := unix.Statfs(p, &sfs); err != nil || sfs.Flags&unix.ST_NOSUID != 0 {
				t.Fatalf("control: %s is on a nosuid mount (%v): the bits would not act anyway", p, err)
			}
		}
		// Control: a secure exec outside the sandbox (usage only: these
		// programs print it and exit).
		controlled := false
		for _, p := range progs {
			switch filepath.Base(p) {
			case "chage", "passwd", "chsh", "chfn", "gpasswd", "expiry":
			default:
				continue
			}
			out := rt12Out(u, nil, "env", "LD_PRELOAD="+pre, p, "--help")
			if strings.Contains(out, "preload ") {
				t.Fatalf("control: %s loaded the library without the sandbox: the exec was not secure: %q", p, out)
			}
			controlled = true
			break
		}
		if !controlled && u.uid != 0 {
			t.Logf("no program for the unsandboxed control among %v", progs)
		}
		f := newFixture(t, u)
		script := `for p in "$@"; do r=$(timeout 5 env LD_PRELOAD=` + pre + ` "$p" </dev/null 2>&1 | grep -m1 '^preload '); echo "$p|$r"; done`
		r := rt12Run(t, u, f.home, nil, "workspace", f.ws, append([]string{"/bin/sh", "-c", script, "sh"}, progs...)...)
		got := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			if p, v, ok := strings.Cut(l, "|"); ok {
				got[p] = v
			}
		}
		for _, p := range progs {
			line := got[p]
			if !strings.HasPrefix(line, "preload ") {
				t.Errorf("%s: the library did not run (a secure exec: the set-id bits acted?): %q", p, line)
				continue
			}
			if bad := rt12Status(rt11Fields(line)).unprivileged(u); bad != "" {
				t.Errorf("%s gained privilege in the sandbox: %s", p, bad)
			}
		}
		t.Logf("%d set-id programs: %v", len(progs), progs)
	})
}

// TestRedTeam12SetIDCopy: programs the host placed in a writable root (the
// workspace keeps the host's mount flags, so not nosuid): a copy of the
// helper set-uid and set-gid to another user (root's for uid 65534,
// nobody's for root: mode 6755), a copy with the permitted file
// capabilities cap_net_raw,cap_dac_override+p, and one with them also
// effective (+ep). Each reports its credentials and opens a file of the
// other user's with mode 0600. Must hold: inside the workspace sandbox the
// set-id and +p copies run with the user's own ids, no capability, and
// cannot open the file (EACCES); the +ep copy does not run at all (the
// kernel refuses to start a capability-dumb program without the
// capabilities it is marked with: EPERM, exit 126). The controls: without
// the sandbox the set-id copy runs with the other user's effective and
// saved ids and opens the file, and (as uid 65534) the +p copy has the two
// capabilities permitted and the +ep copy effective, opening the file.
func TestRedTeam12SetIDCopy(t *testing.T) {
	rt := rt12Helper(t)
	if _, err := exec.LookPath("setcap"); err != nil {
		t.Skip("setcap is missing (libcap2-bin)")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		other := 0
		if u.uid == 0 {
			other = 65534
		}
		secret := f.base + "/rt12-secret"
		if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chown(secret, other, other)
		suid, capsP, capsEP := f.ws+"/rt12-setid", f.ws+"/rt12-caps-p", f.ws+"/rt12-caps-ep"
		rt12Copy(t, rt, suid, 0o755, other)
		if err := unix.Chmod(suid, 0o6755); err != nil {
			t.Fatal(err)
		}
		for p, c := range map[string]string{capsP: "cap_net_raw,cap_dac_override+p", capsEP: "cap_net_raw,cap_dac_override+ep"} {
			rt12Copy(t, rt, p, 0o755, u.uid)
			if out, err := exec.Command("setcap", c, p).CombinedOutput(); err != nil {
				t.Skipf("setcap: %v %s", err, out)
			}
		}
		o := strconv.Itoa(other)
		ctl := rt11Fields(rt12Out(u, nil, suid, "status", secret))
		if !strings.HasSuffix(ctl["uid"], ","+o+","+o+","+o) || !strings.HasSuffix(ctl["gid"], ","+o+","+o+","+o) || ctl["dac"] != "ok" {
			t.Fatalf("control (no sandbox): the set-id copy did not change ids: %v", ctl)
		}
		if u.uid != 0 {
			if ctl := rt11Fields(rt12Out(u, nil, capsP, "status", secret)); ctl["prm"] != "0000000000002002" || ctl["eff"] != "0000000000000000" {
				t.Fatalf("control (no sandbox): the +p copy: %v", ctl)
			}
			if ctl := rt11Fields(rt12Out(u, nil, capsEP, "status", secret)); ctl["eff"] != "0000000000002002" || ctl["dac"] != "ok" {
				t.Fatalf("control (no sandbox): the +ep copy: %v", ctl)
			}
		}
		for _, p := range []string{rt, suid, capsP} {
			r := rt12Run(t, u, f.home, nil, "workspace", f.ws, p, "status", secret)
			s := rt12Status(rt11Fields(r.Stdout))
			if bad := s.unprivileged(u); bad != "" {
				t.Errorf("%s: gained privilege in the sandbox: %s (%q %q)", filepath.Base(p), bad, r.Stdout, r.Stderr)
			}
			if s["dac"] != "EACCES" {
				t.Errorf("%s: the other user's 0600 file: %q", filepath.Base(p), s["dac"])
			}
		}
		// The +ep copy: refused at exec under no_new_privs (EPERM, 126),
		// or, on the nosuid writable root where file capabilities are
		// ignored, run without any.
		r := rt12Run(t, u, f.home, nil, "workspace", f.ws, "/bin/sh", "-c", `"$0" status "$1"; echo rc=$?`, capsEP, secret)
		refused := strings.TrimSpace(r.Stdout) == "rc=126" && strings.Contains(r.Stderr, "Operation not permitted")
		if s := rt12Status(rt11Fields(r.Stdout)); !refused && (s.unprivileged(u) != "" || s["dac"] != "EACCES" || !strings.Contains(r.Stdout, "rc=0")) {
			t.Errorf("the +ep copy in the sandbox: %q %q", r.Stdout, r.Stderr)
		}
	})
}

// ---------------------------------------------------------------------------
// 3. Persistence: what host processes run later.

// rt12PersistScript tries, one per line, to leave something that a host
// process runs later, and prints "name=ok", "name=EROFS", "name=EACCES"
// (from the error message) or "name=denied". h lines
// change host-global state and never run unsandboxed (SAFE=1). The
// arguments are the workspace repository, a repository outside the
// writable roots and the command to plant (arguments, since the profile's
// environment policy passes only the core variables).
const rt12PersistScript = `
export REPO="$1" EXT="$2" EVIL="$3"
t() {
  n="$1"; shift
  if e=$( ( "$@" ) 2>&1 >/dev/null ); then echo "$n=ok"; return; fi
  case "$e" in
  *"Read-only file system"*) echo "$n=EROFS" ;;
  *"Permission denied"*) echo "$n=EACCES" ;;
  *) echo "$n=denied" ;;
  esac
}
h() { [ -n "$SAFE" ] || t "$@"; }
t bashrc          sh -c 'echo rt12 >> "$HOME/.bashrc"'
t profile         sh -c 'echo rt12 >> "$HOME/.profile"'
t zshenv          sh -c 'echo rt12 >> "$HOME/.zshenv"'
t authorized-keys sh -c 'echo "ssh-ed25519 AAAA rt12" >> "$HOME/.ssh/authorized_keys"'
t ssh-config      sh -c 'echo "Host * ProxyCommand $EVIL" >> "$HOME/.ssh/config"'
t autostart       sh -c 'mkdir -p "$HOME/.config/autostart" && echo "[Desktop Entry]" > "$HOME/.config/autostart/rt12.desktop"'
t systemd-user    sh -c 'mkdir -p "$HOME/.config/systemd/user" && echo "[Service]" > "$HOME/.config/systemd/user/rt12.service"'
t environment-d   sh -c 'mkdir -p "$HOME/.config/environment.d" && echo "LD_PRELOAD=/tmp/x" > "$HOME/.config/environment.d/rt12.conf"'
t git-global      git config --global core.fsmonitor "$EVIL"
t git-xdg         sh -c 'mkdir -p "$HOME/.config/git" && printf "[core]\n\tfsmonitor = x\n" > "$HOME/.config/git/config"'
t repo-hook       sh -c 'printf "#!/bin/sh\n%s\n" "$EVIL" > "$REPO/.git/hooks/pre-commit" && chmod +x "$REPO/.git/hooks/pre-commit"'
t repo-fsmonitor  git -C "$REPO" config core.fsmonitor "$EVIL"
t repo-hookspath  git -C "$REPO" config core.hooksPath "$REPO/sub"
t repo-append     sh -c 'printf "[core]\n\tfsmonitor = %s\n" "$EVIL" >> "$REPO/.git/config"'
t repo-attributes sh -c 'echo "* filter=rt12" > "$REPO/.git/info/attributes"'
t ext-hook        sh -c 'printf "#!/bin/sh\n%s\n" "$EVIL" > "$EXT/.git/hooks/post-checkout"'
t ext-fsmonitor   git -C "$EXT" config core.fsmonitor "$EVIL"
h ld-so-preload   sh -c 'echo /tmp/rt12.so >> /etc/ld.so.preload'
h profile-d       sh -c 'echo rt12 > /etc/profile.d/rt12.sh'
h cron-d          sh -c 'echo "* * * * * root true" > /etc/cron.d/rt12'
h cron-spool      sh -c 'mkdir -p /var/spool/cron/crontabs && echo x > /var/spool/cron/crontabs/rt12'
h systemd-system  sh -c 'echo "[Service]" > /etc/systemd/system/rt12.service'
h binfmt-misc     sh -c 'echo ":rt12:E::rt12::/bin/sh:" > /proc/sys/fs/binfmt_misc/register'
h core-pattern    sh -c 'echo "|/bin/sh" > /proc/sys/kernel/core_pattern'
h modprobe        sh -c 'echo /tmp/rt12 > /proc/sys/kernel/modprobe'
h uevent-helper   sh -c 'echo /tmp/rt12 > /sys/kernel/uevent_helper'
`

// TestRedTeam12Persistence: under the workspace profile (the workspace a
// git repository), the command tries to leave code for host processes:
// shell start-up files, authorized_keys, ssh_config's ProxyCommand,
// autostart entries, systemd user units, environment.d, the global and
// XDG git config, hooks, core.fsmonitor and core.hooksPath in the
// workspace's protected .git (through git itself and by appending), a
// repository outside the writable roots, and host-global hooks
// (ld.so.preload, profile.d, cron, systemd, binfmt_misc, core_pattern,
// modprobe, uevent_helper). Must hold: every attempt fails (EROFS: the
// read-only view; EACCES for /proc/sys), nothing is created or changed, and "git status" on the host afterwards (in the
// workspace and in the outside repository) runs nothing. The controls:
// without the sandbox every non-global attempt succeeds and the host's
// "git status" then runs the planted core.fsmonitor.
func TestRedTeam12Persistence(t *testing.T) {
	rt12NeedGit(t)
	script := rtFile(t, "rt12-persist.sh", rt12PersistScript)
	asUser(t, func(t *testing.T, u user) {
		setup := func() (f *fixture, repo, ext, marker string) {
			f = newFixture(t, u)
			repo, ext, marker = f.base+"/repo", f.base+"/ext", f.base+"/rt12-marker"
			rt12Repo(t, u, f.home, repo)
			rt12Repo(t, u, f.home, ext)
			os.MkdirAll(repo+"/sub", 0o755)
			os.Chown(repo+"/sub", u.uid, u.uid)
			return
		}
		// Control: without the sandbox.
		f, repo, ext, marker := setup()
		out := rt12Out(u, []string{"HOME=" + f.home, "SAFE=1"}, "/bin/sh", script, repo, ext, rt12Evil(marker))
		for _, l := range strings.Fields(out) {
			if !strings.HasSuffix(l, "=ok") {
				t.Errorf("control (no sandbox): %s", l)
			}
		}
		rt12HostStatus(u, f.home, repo)
		if !fileExists(marker) {
			t.Fatalf("control: the host's git status did not run the planted core.fsmonitor")
		}
		// In the sandbox.
		f, repo, ext, marker = setup()
		cfg, _ := os.ReadFile(repo + "/.git/config")
		r := rt12Run(t, u, f.home, nil, "workspace", repo, "/bin/sh", script, repo, ext, rt12Evil(marker))
		lines := strings.Fields(r.Stdout)
		if len(lines) != strings.Count(rt12PersistScript, "\nt ")+strings.Count(rt12PersistScript, "\nh ") || len(lines) < 25 {
			t.Fatalf("short output: %q %q", r.Stdout, r.Stderr)
		}
		// /proc/sys has no write right in Landlock's /proc rule (and no
		// binfmt_misc in the fresh /proc); everything else is the
		// read-only view.
		eacces := map[string]bool{"binfmt-misc": true, "core-pattern": true, "modprobe": true}
		for _, l := range lines {
			name, got, _ := strings.Cut(l, "=")
			want := "EROFS"
			if eacces[name] {
				want = "EACCES"
			}
			if got != want {
				t.Errorf("sandboxed: %s=%s, want %s", name, got, want)
			}
		}
		for _, p := range []string{".bashrc", ".profile", ".zshenv", ".ssh/authorized_keys", ".ssh/config", ".config", ".gitconfig"} {
			if fileExists(f.home + "/" + p) {
				t.Errorf("~/%s was created", p)
			}
		}
		if now, _ := os.ReadFile(repo + "/.git/config"); !bytes.Equal(now, cfg) {
			t.Errorf("the workspace's .git/config changed: %q", now)
		}
		for _, p := range []string{repo + "/.git/hooks/pre-commit", repo + "/.git/info/attributes", ext + "/.git/hooks/post-checkout"} {
			if fileExists(p) {
				t.Errorf("%s was created", p)
			}
		}
		rt12HostStatus(u, f.home, repo)
		rt12HostStatus(u, f.home, ext)
		if fileExists(marker) {
			t.Errorf("the host's git status ran code the sandbox planted")
		}
	})
}

// TestRedTeam12CwdHome: a workspace profile's writable {cwd} at $HOME or
// at any directory containing it would make the user's start-up files,
// SSH keys and credentials writable. Must hold: sbx refuses (exit 125,
// naming the home directory) for --cwd $HOME, its parent, its grandparent,
// a symlink to it, $HOME written with a trailing slash, workspace-net, and
// (as root) $HOME unset with --cwd at the password database's home; the
// command never runs and ~/.bashrc is not created. The controls: a
// subdirectory of $HOME and the read-only profile at $HOME run.
func TestRedTeam12CwdHome(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		sub := f.home + "/proj"
		os.Mkdir(sub, 0o755)
		os.Chown(sub, u.uid, u.uid)
		link := f.base + "/homelink"
		os.Symlink(f.home, link)
		const cmd = `echo rt12 >> "$HOME/.bashrc"; echo ran`
		for _, c := range []struct {
			name, profile, cwd, home string
			refused                  bool
		}{
			{"subdirectory of home", "workspace", sub, f.home, false},
			{"read-only at home", "read-only", f.home, f.home, false},
			{"home", "workspace", f.home, f.home, true},
			{"parent of home", "workspace", f.base, f.home, true},
			{"grandparent of home", "workspace", filepath.Dir(f.base), f.home, true},
			{"symlink to home", "workspace", link, f.home, true},
			{"home with a trailing slash", "workspace", f.home, f.home + "/", true},
			{"workspace-net at home", "workspace-net", f.home, f.home, true},
			{"passwd home, HOME unset", "workspace", "/root", "", true},
		} {
			if c.home == "" && u.uid != 0 {
				continue
			}
			env := []string{}
			if c.home != "" {
				env = append(env, "HOME="+c.home)
			}
			r := rtRun(t, rtOpts{u: u, env: env, args: []string{"--timeout", "20s", "--profile", c.profile, "--cwd", c.cwd, "--", "/bin/sh", "-c", cmd}})
			if !c.refused {
				if r.SbxError != "" || r.ExitCode != 0 || !strings.Contains(r.Stdout, "ran") {
					t.Errorf("%s: control did not run: %d %q %q", c.name, r.ExitCode, r.SbxError, r.Stdout)
				}
				continue
			}
			if r.ExitCode != 125 || !strings.Contains(r.SbxError, "home directory") || strings.Contains(r.Stdout, "ran") {
				t.Errorf("%s (--cwd %s): exit %d, error %q, stdout %q; want 125 and a refusal naming the home directory", c.name, c.cwd, r.ExitCode, r.SbxError, r.Stdout)
			}
		}
		if fileExists(f.home + "/.bashrc") {
			t.Errorf("~/.bashrc was created")
		}
	})
}

// TestRedTeam12TmpdirHome: the refusal of a writable {cwd} at or above
// $HOME (TestRedTeam12CwdHome) has no counterpart for the other writable
// anchors the workspace profile binds from the caller's environment:
// {tmpdir} from $TMPDIR (checked only against / and system directories)
// and {slash_tmp} (/tmp) when $HOME lies below it (CI containers, service
// accounts with HOME=/tmp/...). With TMPDIR=$HOME, TMPDIR at a parent of
// $HOME, or HOME below /tmp, the command appends to ~/.bashrc and
// ~/.ssh/authorized_keys: code and keys that act outside the sandbox.
// Must hold: sbx refuses (125) or the files stay as they were. The
// control: with TMPDIR unset and HOME outside /tmp, both appends fail.
func TestRedTeam12TmpdirHome(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		const cmd = `echo rt12 >> "$HOME/.bashrc" && echo rt12 >> "$HOME/.ssh/authorized_keys" && echo wrote`
		prep := func(home string) {
			os.MkdirAll(home+"/.ssh", 0o700)
			os.WriteFile(home+"/.bashrc", []byte("orig\n"), 0o644)
			os.WriteFile(home+"/.ssh/authorized_keys", []byte("orig\n"), 0o600)
			for _, p := range []string{home, home + "/.ssh", home + "/.bashrc", home + "/.ssh/authorized_keys"} {
				os.Chown(p, u.uid, u.uid)
			}
		}
		changed := func(home string) bool {
			a, _ := os.ReadFile(home + "/.bashrc")
			b, _ := os.ReadFile(home + "/.ssh/authorized_keys")
			return string(a) != "orig\n" || string(b) != "orig\n"
		}
		f := newFixture(t, u)
		prep(f.home)
		r := rt12Run(t, u, f.home, nil, "workspace", f.ws, "/bin/sh", "-c", cmd)
		if strings.Contains(r.Stdout, "wrote") || changed(f.home) {
			t.Fatalf("control: the home directory is writable without TMPDIR: %q", r.Stdout)
		}
		// Found by this battery, now fixed (was skipped as a hole).
		tmpHome, err := os.MkdirTemp("/tmp", "rt12home")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(tmpHome)
		os.Chmod(tmpHome, 0o755)
		for _, c := range []struct {
			name, home string
			env        []string
		}{
			{"TMPDIR=$HOME", f.home, []string{"TMPDIR=" + f.home}},
			{"TMPDIR=parent of $HOME", f.home, []string{"TMPDIR=" + f.base}},
			{"HOME below /tmp", tmpHome, nil},
		} {
			prep(c.home)
			r := rtRun(t, rtOpts{u: u, env: append([]string{"HOME=" + c.home}, c.env...), args: []string{"--timeout", "20s", "--profile", "workspace", "--cwd", f.ws, "--", "/bin/sh", "-c", cmd}})
			if r.ExitCode == 125 && r.SbxError != "" {
				continue // refused
			}
			if changed(c.home) {
				t.Errorf("%s: the command changed ~/.bashrc and ~/.ssh/authorized_keys (exit %d, %q)", c.name, r.ExitCode, r.Stdout)
			}
		}
	})
}

// TestRedTeam12WritableRootInProtected: the protected names (.git, ...)
// are carved out read-only directly below each writable root; a writable
// root that is itself the protected directory, or lies inside it, is not
// refused. An agent harness that passes the command's requested working
// directory to --cwd (or a caller's TMPDIR) then makes the repository's
// config and hooks writable: --cwd REPO/.git, --cwd REPO/.git/hooks, and
// TMPDIR=REPO/.git with --cwd REPO. The command plants core.fsmonitor (or
// a hook), and the host's next "git status" in REPO runs it. Must hold:
// sbx refuses, or nothing in .git changes and the host's git runs
// nothing. The control: with --cwd REPO and no TMPDIR the same writes
// fail (EROFS) and the host's git runs nothing.
func TestRedTeam12WritableRootInProtected(t *testing.T) {
	rt12NeedGit(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		repo, marker := f.base+"/repo", f.base+"/rt12-marker"
		rt12Repo(t, u, f.home, repo)
		os.MkdirAll(repo+"/.git/hooks", 0o755)
		os.Chown(repo+"/.git/hooks", u.uid, u.uid)
		plant := `git config -f "$1/.git/config" core.fsmonitor "$2" && echo planted-config; printf '#!/bin/sh\n%s\n' "$2" > "$1/.git/hooks/post-checkout" && chmod +x "$1/.git/hooks/post-checkout" && echo planted-hook`
		cfg, _ := os.ReadFile(repo + "/.git/config")
		r := rt12Run(t, u, f.home, nil, "workspace", repo, "/bin/sh", "-c", plant, "sh", repo, rt12Evil(marker))
		rt12HostStatus(u, f.home, repo)
		if strings.Contains(r.Stdout, "planted") || fileExists(marker) || fileExists(repo+"/.git/hooks/post-checkout") {
			t.Fatalf("control: .git is writable with --cwd at the repository: %q", r.Stdout)
		}
		// Found by this battery, now fixed (was skipped as a hole).
		for _, c := range []struct {
			name, cwd string
			env       []string
		}{
			{"--cwd REPO/.git", repo + "/.git", nil},
			{"--cwd REPO/.git/hooks", repo + "/.git/hooks", nil},
			{"TMPDIR=REPO/.git", repo, []string{"TMPDIR=" + repo + "/.git"}},
		} {
			os.Remove(marker)
			r := rtRun(t, rtOpts{u: u, env: append([]string{"HOME=" + f.home}, c.env...),
				args: []string{"--timeout", "20s", "--profile", "workspace", "--cwd", c.cwd, "--", "/bin/sh", "-c", plant, "sh", repo, rt12Evil(marker)}})
			if r.ExitCode == 125 && r.SbxError != "" {
				continue // refused
			}
			now, _ := os.ReadFile(repo + "/.git/config")
			rt12HostStatus(u, f.home, repo)
			if !bytes.Equal(now, cfg) || fileExists(repo+"/.git/hooks/post-checkout") || fileExists(marker) {
				t.Errorf("%s: the command planted code in the repository (%q); the host's git status ran it: %v", c.name, strings.TrimSpace(r.Stdout), fileExists(marker))
			}
			os.WriteFile(repo+"/.git/config", cfg, 0o644)
			os.Remove(repo + "/.git/hooks/post-checkout")
		}
	})
}

// TestRedTeam12GitdirFile: a workspace whose .git is a file ("gitdir:
// ./.bare", the bare-repository-plus-worktrees layout) keeps its
// repository in a directory of another name inside the workspace. The
// protected .git (the file) is read-only, but the repository it points
// to, with its config and hooks, is writable: the command sets
// core.fsmonitor there and the host's next "git status" runs it. Must
// hold: the repository's config stays as it was and the host's git runs
// nothing. The controls: the .git file itself cannot be changed inside
// (EROFS), and without the sandbox the same config runs on the host's
// git status.
func TestRedTeam12GitdirFile(t *testing.T) {
	rt12NeedGit(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		mk := func(dir string) {
			os.MkdirAll(dir, 0o755)
			os.Chown(dir, u.uid, u.uid)
			for _, a := range [][]string{{"init", "-q", "--bare", ".bare"}, {"--git-dir=.bare", "config", "core.bare", "false"}} {
				if out, err := rt12Git(u, f.home, dir, a...); err != nil {
					t.Fatalf("git %v: %v %s", a, err, out)
				}
			}
			os.WriteFile(dir+"/.git", []byte("gitdir: ./.bare\n"), 0o644)
			os.WriteFile(dir+"/README", []byte("x\n"), 0o644)
			os.Chown(dir+"/.git", u.uid, u.uid)
			os.Chown(dir+"/README", u.uid, u.uid)
			for _, a := range [][]string{{"add", "README"}, {"commit", "-qm", "init"}} {
				if out, err := rt12Git(u, f.home, dir, a...); err != nil {
					t.Fatalf("git %v: %v %s", a, err, out)
				}
			}
		}
		// Control: the planted config runs without the sandbox.
		ctlDir, ctlMarker := f.base+"/ctl", f.base+"/rt12-ctl-marker"
		mk(ctlDir)
		if out, err := rt12Git(u, f.home, ctlDir, "config", "core.fsmonitor", rt12Evil(ctlMarker)); err != nil {
			t.Fatalf("control: %v %s", err, out)
		}
		rt12HostStatus(u, f.home, ctlDir)
		if !fileExists(ctlMarker) {
			t.Fatalf("control: core.fsmonitor in .bare did not run on the host's git status")
		}
		dir, marker := f.base+"/wt", f.base+"/rt12-marker"
		mk(dir)
		cfg, _ := os.ReadFile(dir + "/.bare/config")
		script := `(echo x >> .git) 2>/dev/null && echo dotgit-writable; git config core.fsmonitor "$1" && echo planted`
		r := rt12Run(t, u, f.home, nil, "workspace", dir, "/bin/sh", "-c", script, "sh", rt12Evil(marker))
		if strings.Contains(r.Stdout, "dotgit-writable") {
			t.Errorf("the protected .git file is writable")
		}
		t.Logf("sandboxed: %q", strings.TrimSpace(r.Stdout))
		rt12HostStatus(u, f.home, dir)
		now, _ := os.ReadFile(dir + "/.bare/config")
		if !bytes.Equal(now, cfg) || fileExists(marker) {
			// Found by this battery, now fixed (was skipped as a hole).
			t.Errorf("the repository behind the protected .git file was changed (%q) and the host's git status ran it: %v", strings.TrimSpace(r.Stdout), fileExists(marker))
		}
	})
}

// TestRedTeam12SubmoduleGitfile: in a repository with a submodule, the
// submodule's repository lives in the protected .git/modules/NAME, and
// the submodule's working tree holds a gitfile (sub/.git: "gitdir:
// ../.git/modules/sub") that is not directly below the writable root, so
// not protected. The command copies the module's repository into the
// workspace, sets core.fsmonitor (and core.worktree) in the copy and
// points the gitfile at it; the host's next "git status" at the top of
// the repository recurses into the submodule and runs the planted
// command. Must hold: the host's git status runs nothing. The controls:
// .git/modules is read-only inside (EROFS), and the same planting without
// the sandbox runs on the host's git status.
func TestRedTeam12SubmoduleGitfile(t *testing.T) {
	rt12NeedGit(t)
	const plant = `(echo x >> .git/modules/sub/config) 2>/dev/null && echo modules-writable
mkdir evil && cp -R .git/modules/sub/. evil/ && git config -f evil/config core.worktree ../sub && git config -f evil/config core.fsmonitor "$1" && echo "gitdir: ../evil" > sub/.git && echo planted`
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		mk := func(name string) string {
			src, top := f.base+"/"+name+"-src", f.base+"/"+name
			rt12Repo(t, u, f.home, src)
			rt12Repo(t, u, f.home, top)
			for _, a := range [][]string{{"-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "sub"}, {"commit", "-qm", "sub"}} {
				if out, err := rt12Git(u, f.home, top, a...); err != nil {
					t.Fatalf("git %v: %v %s", a, err, out)
				}
			}
			return top
		}
		ctl, ctlMarker := mk("ctl"), f.base+"/rt12-ctl-marker"
		if out := rt12Out(u, []string{"HOME=" + f.home, "GIT_CONFIG_NOSYSTEM=1"}, "/bin/sh", "-c", "cd "+ctl+" && "+plant, "sh", rt12Evil(ctlMarker)); !strings.Contains(out, "planted") {
			t.Fatalf("control: planting without the sandbox: %q", out)
		}
		rt12HostStatus(u, f.home, ctl)
		if !fileExists(ctlMarker) {
			t.Fatalf("control: the host's git status did not run the submodule's planted core.fsmonitor")
		}
		top, marker := mk("top"), f.base+"/rt12-marker"
		r := rt12Run(t, u, f.home, nil, "workspace", top, "/bin/sh", "-c", plant, "sh", rt12Evil(marker))
		if strings.Contains(r.Stdout, "modules-writable") {
			t.Errorf("the protected .git/modules is writable")
		}
		t.Logf("sandboxed: %q", strings.TrimSpace(r.Stdout))
		rt12HostStatus(u, f.home, top)
		if fileExists(marker) {
			rt12Holes(t, "a submodule's gitfile (sub/.git) is writable: pointed at a copy of the module's repository, its config runs on the host's git status at the top")
			t.Errorf("the host's git status at the top of the repository ran code the sandbox planted through the submodule's gitfile")
		}
	})
}

// TestRedTeam12NestedRepository: protect keeps the names read-only
// "directly below every writable root" only. A working directory that
// contains repositories rather than being one (a directory of checkouts,
// a repository vendored in a subdirectory, a nested repository the
// command creates itself) leaves every deeper .git writable: the command
// sets core.fsmonitor in DIR/repo/.git/config and the host's next "git
// status" in DIR/repo runs it. Documented as the scope of protect, listed
// because the consequence is the one protect exists to prevent. Must
// hold: the nested repository's config stays as it was. The control: the
// same write with --cwd at the repository itself fails (EROFS).
func TestRedTeam12NestedRepository(t *testing.T) {
	rt12NeedGit(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		dir := f.base + "/src"
		repo, marker := dir+"/repo", f.base+"/rt12-marker"
		os.Mkdir(dir, 0o755)
		os.Chown(dir, u.uid, u.uid)
		rt12Repo(t, u, f.home, repo)
		cfg, _ := os.ReadFile(repo + "/.git/config")
		plant := `git -C "$0" config core.fsmonitor "$1" && echo planted`
		r := rt12Run(t, u, f.home, nil, "workspace", repo, "/bin/sh", "-c", plant, repo, rt12Evil(marker))
		if strings.Contains(r.Stdout, "planted") || !strings.Contains(r.Stderr, "Read-only file system") {
			t.Fatalf("control (--cwd at the repository): %q %q", r.Stdout, r.Stderr)
		}
		r = rt12Run(t, u, f.home, nil, "workspace", dir, "/bin/sh", "-c", plant, repo, rt12Evil(marker))
		rt12HostStatus(u, f.home, repo)
		if now, _ := os.ReadFile(repo + "/.git/config"); !bytes.Equal(now, cfg) || fileExists(marker) {
			rt12Holes(t, "protect covers only names directly below a writable root: a repository one level down (--cwd at a directory of checkouts) has a writable .git whose config runs on the host")
			t.Errorf("--cwd %s: the nested repository's config was changed (%q) and the host's git status ran it: %v", dir, strings.TrimSpace(r.Stdout), fileExists(marker))
		}
	})
}

// TestRedTeam12SymlinkedGitDir: a workspace whose .git is a symbolic link
// to a directory inside it (.git -> realgit). The plan re-grants write on
// the link's target (an existing real subdirectory of a directory that
// loses creation rights) while the protected name is the link. Must hold:
// the repository behind the link cannot be changed by the command, nor
// its config run on the host: the run is refused, or realgit stays as it
// was. (Today the run is refused, with and without the supervisor, with a
// misleading message: ".git was created after the profile was bound ...:
// bad file descriptor": such a workspace cannot be used at all.) The
// control: the same planting without the sandbox runs on the host's git
// status.
func TestRedTeam12SymlinkedGitDir(t *testing.T) {
	rt12NeedGit(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		mk := func(dir string) {
			rt12Repo(t, u, f.home, dir)
			if err := os.Rename(dir+"/.git", dir+"/realgit"); err != nil {
				t.Fatal(err)
			}
			os.Symlink("realgit", dir+"/.git")
			os.Lchown(dir+"/.git", u.uid, u.uid)
		}
		plant := `git config core.fsmonitor "$0" && echo planted`
		ctl, ctlMarker := f.base+"/ctl", f.base+"/rt12-ctl-marker"
		mk(ctl)
		if out := rt12Out(u, []string{"HOME=" + f.home}, "/bin/sh", "-c", "cd "+ctl+" && "+plant, rt12Evil(ctlMarker)); !strings.Contains(out, "planted") {
			t.Fatalf("control: %q", out)
		}
		rt12HostStatus(u, f.home, ctl)
		if !fileExists(ctlMarker) {
			t.Fatalf("control: the host's git status did not run the planted core.fsmonitor")
		}
		dir, marker := f.base+"/wt", f.base+"/rt12-marker"
		mk(dir)
		cfg, _ := os.ReadFile(dir + "/realgit/config")
		for _, env := range [][]string{nil, {"SBX_LANDLOCK_NO_SUPERVISOR=1"}} {
			r := rtRun(t, rtOpts{u: u, env: append([]string{"HOME=" + f.home}, env...), args: []string{"--timeout", "20s", "--profile", "workspace", "--cwd", dir, "--", "/bin/sh", "-c", plant, rt12Evil(marker)}})
			rt12HostStatus(u, f.home, dir)
			if now, _ := os.ReadFile(dir + "/realgit/config"); !bytes.Equal(now, cfg) || fileExists(marker) {
				t.Errorf("%v: the repository behind the .git link was changed (%q) and the host's git status ran it: %v", env, strings.TrimSpace(r.Stdout), fileExists(marker))
			}
			t.Logf("%v: exit %d %q %q", env, r.ExitCode, strings.TrimSpace(r.Stdout), r.SbxError)
		}
	})
}

// ---------------------------------------------------------------------------
// 4. The terminal and the session.

// rt12Pty is a pseudo-terminal whose slave is owned by uid (a user's own
// terminal, as a login leaves it), with its master drained into a buffer.
type rt12Pty struct {
	master, slave *os.File
	path          string
	mu            sync.Mutex
	out           bytes.Buffer
}

func rt12NewPty(t *testing.T, uid int) *rt12Pty {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip(err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	p := &rt12Pty{master: m, path: fmt.Sprintf("/dev/pts/%d", n)}
	if p.slave, err = os.OpenFile(p.path, os.O_RDWR|syscall.O_NOCTTY, 0); err != nil {
		t.Fatal(err)
	}
	os.Chown(p.path, uid, uid)
	os.Chmod(p.path, 0o620)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		p.slave.Close()
		m.Close()
		<-done
	})
	return p
}

// typed puts a line in the terminal's input, as if the user typed it, and
// drops whatever was there.
func (p *rt12Pty) typed(t *testing.T, s string) {
	t.Helper()
	unix.IoctlSetInt(int(p.slave.Fd()), unix.TCFLSH, unix.TCIFLUSH)
	if _, err := p.master.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// output returns what reached the terminal so far: a fresh sentinel is
// written through the terminal after everything else, and output waits
// (up to 5 s) until the reader has it, so no write made before the call
// is still in flight.
func (p *rt12Pty) output() string {
	tok := "<<rt12-sync-" + strconv.FormatInt(time.Now().UnixNano(), 10) + ">>"
	if _, err := p.slave.Write([]byte(tok)); err != nil {
		return "(sentinel: " + err.Error() + ")"
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		p.mu.Lock()
		s := p.out.String()
		p.mu.Unlock()
		if i := strings.Index(s, tok); i >= 0 {
			return s[:i] + s[i+len(tok):]
		}
		if time.Now().After(deadline) {
			return s + "(sentinel never arrived)"
		}
		time.Sleep(time.Millisecond)
	}
}

// onTerminal runs cmd with the pty as its controlling terminal and
// standard input (sbx started from that terminal) and returns stdout.
func (p *rt12Pty) onTerminal(t *testing.T, cmd *exec.Cmd) []byte {
	t.Helper()
	cmd.Stdin = p.slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	var out []byte
	var err error
	done := make(chan struct{})
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v hung", cmd.Args)
	}
	if err != nil && len(out) == 0 {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return out
}

// rt12OnTerminal runs argv under profile in cwd as u, with sbx on the pty.
func (p *rt12Pty) sbx(t *testing.T, u user, home, profile, cwd string, argv ...string) rtResult {
	t.Helper()
	a := append(append(append([]string{"--timeout", "20s"}, rt12Prof(t, profile)...), "--cwd", cwd, "--"), argv...)
	out := p.onTerminal(t, rtCmd(rtOpts{u: u, args: a, env: []string{"HOME=" + home}}))
	var r rtResult
	if err := json.Unmarshal(out, &r); err != nil || r.SbxError != "" {
		t.Fatalf("sbx %v: %v %q %q", a, err, out, r.SbxError)
	}
	return r
}

// TestRedTeam12CallerTerminal: sbx runs on a pseudo-terminal that is its
// controlling terminal and standard input (started from a shell on it),
// with a line of the user's typed and waiting in the input. Under the
// profiles that read / (workspace, read-only, t-carve) the command gets
// no controlling terminal (/dev/tty: ENXIO), no terminal among its
// descriptors, cannot make its stdin a controlling terminal (ENOTTY: it
// is /dev/null), and the terminal's /dev/pts entry does not exist in its
// view (ENOENT: a private devpts); it cannot open the terminal to read the
// typed line or write to it (rt12 pty: open=ENOENT), and nothing it does
// reaches the terminal's output. The control: the same helpers run on the
// terminal without the sandbox reach it (devtty=ok, pts=ok, the typed
// line read, the marker written).
func TestRedTeam12CallerTerminal(t *testing.T) {
	rt := rt12Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		p := rt12NewPty(t, u.uid)
		marker := "RT12-MARK-" + u.name
		p.typed(t, "typed-secret\n")
		ctl := rt11Fields(string(p.onTerminal(t, rt12As(u, nil, rt, "session", p.path))))
		if ctl["devtty"] != "ok" || ctl["pts"] != "ok" || ctl["ttyfds"] == "0" {
			t.Fatalf("control (no sandbox) session: %v", ctl)
		}
		ctl = rt11Fields(string(p.onTerminal(t, rt12As(u, nil, rt, "pty", p.path, marker+"-ctl"))))
		if ctl["open"] != "ok" || ctl["write"] != "ok" || !strings.HasPrefix(ctl["read"], "typed-secret") || !strings.Contains(p.output(), marker+"-ctl") {
			t.Fatalf("control (no sandbox) pty: %v", ctl)
		}
		for _, prof := range []string{"workspace", "read-only", "@t-carve"} {
			p.typed(t, "typed-secret\n")
			r := p.sbx(t, u, f.home, prof, f.ws, rt, "session", p.path)
			if got := strings.TrimSpace(r.Stdout); got != "devtty=ENXIO ttyfds=0 sctty=ENOTTY pts=ENOENT" {
				t.Errorf("%s: session: %q", prof, got)
			}
			r = p.sbx(t, u, f.home, prof, f.ws, rt, "pty", p.path, marker)
			if got := strings.TrimSpace(r.Stdout); got != "open=ENOENT" {
				t.Errorf("%s: the caller's terminal: %q", prof, got)
			}
		}
		if out := p.output(); strings.Count(out, marker) != 1 {
			t.Errorf("the sandboxed command wrote to the caller's terminal: %q", out)
		}
	})
}

// TestRedTeam12HostPtyNarrowProfile: a profile with no rule covering /dev
// (t-narrow: read and write the workspace; rt12-defaults: read the system
// directories, write the workspace: tighter than the built-in workspace
// profile) does not get the /dev mask, and with it not the private
// devpts: the base allowance's Landlock rule on /dev/pts (read, write,
// device ioctl) then grants the host's devpts. Started from a terminal,
// the command opens the caller's terminal by name (/dev/pts/N), reads the
// line the user typed, writes to the terminal (around sbx's output
// capture) and changes its window size and modes; it reaches any other
// terminal of the user's the same way (as root: every root session's).
// Must hold: the open
// fails (ENOENT with a private devpts, or EACCES), nothing reaches the
// terminal and the typed line stays unread. The control: the same
// profiles have no controlling terminal (/dev/tty: ENXIO), so the
// terminal is reached only by name; TestRedTeam12CallerTerminal shows the
// read-/ profiles hold.
func TestRedTeam12HostPtyNarrowProfile(t *testing.T) {
	rt := rt12Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		in := f.ws + "/rt12"
		rt12Copy(t, rt, in, 0o755, u.uid)
		p := rt12NewPty(t, u.uid)
		for _, prof := range []string{"@t-narrow", "%rt12-defaults"} {
			r := p.sbx(t, u, f.home, prof, f.ws, in, "session", p.path)
			if got := rt11Fields(r.Stdout); got["devtty"] != "ENXIO" || got["ttyfds"] != "0" {
				t.Errorf("%s: the command has a controlling terminal: %q", prof, r.Stdout)
			}
		}
		// Found by this battery: profiles without a rule covering /dev
		// reached the host's /dev/pts (the caller's terminal and, as root,
		// every root terminal, readable and writable by name); /dev/pts is
		// now a private devpts instance there too (MountDevpts).
		// Another terminal of the user's (another session), not sbx's.
		other := rt12NewPty(t, u.uid)
		for _, prof := range []string{"@t-narrow", "%rt12-defaults"} {
			for _, q := range []*rt12Pty{p, other} {
				marker := "RT12-NARROW-" + u.name + "-" + prof[1:]
				q.typed(t, "typed-secret\n")
				r := p.sbx(t, u, f.home, prof, f.ws, in, "pty", q.path, marker)
				got := rt11Fields(r.Stdout)
				what := "the caller's terminal"
				if q == other {
					what = "another terminal of the user's"
				}
				if got["open"] != "ENOENT" && got["open"] != "EACCES" {
					t.Errorf("%s: the command opened %s %s: %q", prof, what, q.path, strings.TrimSpace(r.Stdout))
				}
				if strings.Contains(q.output(), marker) {
					t.Errorf("%s: the command wrote to %s", prof, what)
				}
				if strings.HasPrefix(got["read"], "typed") {
					t.Errorf("%s: the command read what the user typed on %s: %q", prof, what, got["read"])
				}
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 5. Device nodes, IPC channels, the sbx binary.

// TestRedTeam12DeviceNodeInWritableRoot: writable roots keep the host's
// mount flags and are not made nodev, so a device node that exists in a
// writable root (created outside the sandbox: a root filesystem built in
// the workspace, an extracted image, a host tool) is opened as a device
// inside: Landlock's write rights on the workspace include reading and
// writing its files, and only device ioctls are withheld. As root (uid 0
// without capabilities, the owner of root's device nodes) a block node of
// the disk the fixture lives on reads the raw disk, which the /dev mask
// exists to prevent ("raw block devices (readable by a root caller without
// capabilities)"), bypassing every path rule. The command cannot make such
// a node itself (mknod and RENAME_WHITEOUT: EPERM; links across mounts:
// EXDEV), so this needs the host's help. Must hold: the node cannot be
// opened (EACCES: nodev). The controls: without the sandbox the nodes
// read (the zero device, the disk's first kilobytes as the host reads
// them), and inside /dev/zero works while the view has no raw disk node.
func TestRedTeam12DeviceNodeInWritableRoot(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		zero := f.ws + "/rt12-zero"
		if err := unix.Mknod(zero, unix.S_IFCHR|0o600, int(unix.Mkdev(1, 5))); err != nil {
			t.Skip(err)
		}
		os.Chown(zero, u.uid, u.uid)
		read := `for d in "$@"; do printf '%s=' "${d##*/}"; dd if="$d" bs=1024 skip=1 count=1 2>/dev/null | od -An -v -tx1 | tr -d ' \n' | cut -c1-64; echo; done`
		nodes := []string{zero}
		var st unix.Stat_t
		unix.Stat(f.ws, &st)
		if u.uid == 0 && unix.Major(st.Dev) != 0 {
			disk := f.ws + "/rt12-disk"
			if err := unix.Mknod(disk, unix.S_IFBLK|0o600, int(st.Dev)); err == nil {
				nodes = append(nodes, disk)
			}
		}
		ctl := rt11Fields(rt12Out(u, nil, append([]string{"/bin/sh", "-c", read, "sh"}, nodes...)...))
		if ctl["rt12-zero"] != strings.Repeat("0", 64) {
			t.Fatalf("control (no sandbox): %v", ctl)
		}
		if len(nodes) > 1 && len(ctl["rt12-disk"]) != 64 {
			// The host itself cannot open the disk (a device cgroup or an
			// outer sandbox): only the zero device shows the missing nodev.
			t.Logf("the host cannot read %s: %v", nodes[1], ctl)
			nodes = nodes[:1]
		}
		r := rt12Run(t, u, f.home, nil, "workspace", f.ws, "/bin/sh", "-c", read+`; ls /dev | tr '\n' ' '`, "sh", "/dev/zero")
		if !strings.Contains(r.Stdout, "zero="+strings.Repeat("0", 64)) || strings.Contains(r.Stdout, "vda") || strings.Contains(r.Stdout, "sda") {
			t.Fatalf("control (sandbox): /dev/zero or the mask: %q", r.Stdout)
		}
		// Found by this battery, now fixed (was skipped as a hole).
		r = rt12Run(t, u, f.home, nil, "workspace", f.ws, append([]string{"/bin/sh", "-c", read, "sh"}, nodes...)...)
		got := rt11Fields(r.Stdout)
		for _, n := range nodes {
			k := filepath.Base(n)
			if got[k] != "" {
				t.Errorf("%s: the device node in the workspace was read inside: %s (host: %s)", k, got[k], ctl[k])
			}
		}
	})
}

// TestRedTeam12IPCChannels: POSIX message queues and /dev/shm as channels
// between the command and host processes. A queue a host process created
// (with a message in it) and a shared-memory file a host process left in
// /dev/shm: the command cannot open either (the queue is not in its IPC
// namespace: ENOENT; /dev/shm is masked in the workspace profile and not
// granted in rt12-defaults, which does not read /); a queue the command
// creates is refused (EACCES: the IPC namespace's mqueue mount is under no
// Landlock rule) and never appears on the host, nor does a /dev/shm file.
// The controls: without the sandbox the helper reads the host's queue and
// the file.
func TestRedTeam12IPCChannels(t *testing.T) {
	rt := rt12Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		in := f.ws + "/rt12"
		rt12Copy(t, rt, in, 0o755, u.uid)
		tag := fmt.Sprintf("%d-%s", os.Getpid(), u.name)
		hostQ, sbxQ := "/rt12-host-"+tag, "/rt12-sbx-"+tag
		if got := rt12Out(u, nil, rt, "mq", hostQ, "create"); got != "mq=ok" {
			t.Skipf("mq_open on the host: %q", got)
		}
		defer rt12Out(u, nil, rt, "mq", hostQ, "unlink")
		shm, sbxShm := "/dev/shm/rt12-host-"+tag, "/dev/shm/rt12-sbx-"+tag
		if err := os.WriteFile(shm, []byte("shm-secret"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chown(shm, u.uid, u.uid)
		defer os.Remove(shm)
		defer os.Remove(sbxShm)
		if got := rt12Out(u, nil, rt, "mq", hostQ, "open"); got != "mq=ok msg=rt12-msg" {
			t.Fatalf("control (no sandbox): the host's queue: %q", got)
		}
		// The control consumed the message: put another one.
		rt12Out(u, nil, rt, "mq", hostQ, "unlink")
		rt12Out(u, nil, rt, "mq", hostQ, "create")
		if got := rt12Out(u, nil, "cat", shm); got != "shm-secret" {
			t.Fatalf("control (no sandbox): %s: %q", shm, got)
		}
		script := `"$0" mq "$1" open; "$0" mq "$2" create; cat "$3" 2>&1 | grep -c shm-secret; (echo x > "$4") 2>/dev/null && echo shm-created || echo shm-denied`
		for _, prof := range []string{"workspace", "%rt12-defaults"} {
			r := rt12Run(t, u, f.home, nil, prof, f.ws, "/bin/sh", "-c", script, in, hostQ, sbxQ, shm, sbxShm)
			if got := strings.Fields(r.Stdout); len(got) != 4 || got[0] != "mq=ENOENT" || got[1] != "mq=EACCES" || got[2] != "0" || got[3] != "shm-denied" {
				t.Errorf("%s: %q %q", prof, r.Stdout, r.Stderr)
			}
			if got := rt12Out(u, nil, rt, "mq", sbxQ, "open"); got != "mq=ENOENT" {
				t.Errorf("%s: the command's queue appeared on the host: %q", prof, got)
				rt12Out(u, nil, rt, "mq", sbxQ, "unlink")
			}
			if fileExists(sbxShm) {
				t.Errorf("%s: the command's /dev/shm file appeared on the host", prof)
			}
		}
	})
}

// TestRedTeam12CreatedFileExec: a program that writes an executable and
// runs it at once (open with O_CREAT, write, close, execve: a compiler
// driver, a test harness, an installer). Under the supervisor (any
// workspace with a missing protected name, the default case) every
// O_CREAT open is performed by the supervisor, which installs the
// descriptor in the caller and replies in one step
// (SECCOMP_ADDFD_FLAG_SEND) and closes its own copy only afterwards
// (supervisor.inject's close came after its reply): until it did, the file is open
// for writing in another process and the command's execve fails with
// ETXTBSY, "Text file busy". Not an escape: a fault of the supervised
// path, found by this battery (11 to 22% of 200 attempts on this machine;
// 1 in 200 from Python). Must hold: every execve succeeds. The controls:
// without the sandbox, and in the sandbox without the supervisor
// (SBX_LANDLOCK_NO_SUPERVISOR=1: an existing subdirectory stays
// creatable), none fails.
func TestRedTeam12CreatedFileExec(t *testing.T) {
	rt := rt12Helper(t)
	const n = "150"
	const want = "ok=" + n + " etxtbsy=0 other=0"
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		if got := rt12Out(u, nil, rt, "create-exec", f.ws+"/sub", n); got != want {
			t.Fatalf("control (no sandbox): %q", got)
		}
		if r := rt12Run(t, u, f.home, []string{"SBX_LANDLOCK_NO_SUPERVISOR=1"}, "workspace", f.ws, rt, "create-exec", f.ws+"/sub", n); strings.TrimSpace(r.Stdout) != want {
			t.Fatalf("control (no supervisor): %q %q", r.Stdout, r.Stderr)
		}
		// Found by this battery; the supervisor now closes its copy before
		// it replies.
		if r := rt12Run(t, u, f.home, nil, "workspace", f.ws, rt, "create-exec", f.ws+"/sub", n); strings.TrimSpace(r.Stdout) != want {
			t.Errorf("supervised: %q %q", r.Stdout, r.Stderr)
		}
	})
}

// TestRedTeam12NestedSbx: the sbx binary is readable and runnable inside
// the sandbox. Running it there gains nothing: a nested run of
// danger-full-access (--allow-degraded, since the sandbox cannot give it
// a PID namespace or a cgroup) runs, but still cannot write outside the
// outer sandbox's writable roots (EROFS) and its command has no
// privilege; nested network-off and workspace runs refuse (125: clone3
// and the Landlock calls are ENOSYS in the sandbox); its hidden
// supervisor mode (__sbx-landlock-helper supervise) fails at once (125:
// unshare(CLONE_FS) is denied) and nothing is created. The control: the
// nested danger-full-access run without the outer sandbox writes the
// file.
func TestRedTeam12NestedSbx(t *testing.T) {
	rt := rt12Helper(t)
	sbx := filepath.Join(bin, "sbx")
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		out := f.outside + "/file"
		write := `echo nested >> "$0" && echo wrote; "$1" status`
		inner := func(profile string) []string {
			return []string{sbx, "run", "--json", "--allow-degraded", "--timeout", "10s", "--profile", profile, "--cwd", f.ws, "--", "/bin/sh", "-c", write, out, rt}
		}
		// Control: without the outer sandbox the nested command writes.
		ctlOut := rt12Out(u, []string{"HOME=" + f.home}, inner("danger-full-access")...)
		if !strings.Contains(ctlOut, `wrote`) {
			t.Fatalf("control (no outer sandbox): %q", ctlOut)
		}
		os.WriteFile(out, []byte("out"), 0o644)
		for _, p := range []string{"danger-full-access", "network-off"} {
			r := rt12Run(t, u, f.home, nil, "workspace", f.ws, inner(p)...)
			var ir rtResult
			json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), &ir)
			if strings.Contains(ir.Stdout, "wrote") {
				t.Errorf("nested %s wrote outside the writable roots: %q", p, ir.Stdout)
			}
			if strings.Contains(ir.Stdout, "uid=") {
				if bad := rt12Status(rt11Fields(ir.Stdout[strings.Index(ir.Stdout, "uid="):])).unprivileged(u); bad != "" {
					t.Errorf("nested %s: privilege: %s", p, bad)
				}
			}
			t.Logf("nested %s: exit %d %q %q", p, ir.ExitCode, strings.TrimSpace(ir.Stdout), ir.SbxError)
		}
		r := rt12Run(t, u, f.home, nil, "workspace", f.ws, sbx, "run", "--json", "--profile", "workspace", "--cwd", f.ws, "--", "/bin/sh", "-c", "echo ran")
		var ir rtResult
		json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), &ir)
		if ir.ExitCode != 125 || strings.Contains(ir.Stdout, "ran") {
			t.Errorf("a nested sandboxed run: exit %d %q %q", ir.ExitCode, ir.Stdout, ir.SbxError)
		}
		for _, args := range [][]string{{"supervise", "-", "0"}, {"supervise", "-ra", "1", f.nogit + "/.git"}} {
			r := rt12Run(t, u, f.home, nil, "workspace", f.nogit, append([]string{sbx, "__sbx-landlock-helper"}, args...)...)
			if r.ExitCode != 125 {
				t.Errorf("the supervisor mode inside %v: exit %d %q %q", args, r.ExitCode, r.Stdout, r.Stderr)
			}
		}
		if data, _ := os.ReadFile(out); string(data) != "out" {
			t.Errorf("the outside file changed: %q", data)
		}
		if fileExists(f.nogit + "/.git") {
			t.Errorf("%s/.git was created", f.nogit)
		}
	})
}
