//go:build linux && amd64

package launch_test

// Red team 12, fault battery: the environment and the machine sbx starts
// in, in classes the earlier batteries did not cover.
//
//   - The anchors: $HOME and $TMPDIR spelled through symlinks, with
//     trailing slashes, spaces and newlines, dangling, looping, relative,
//     pointing at the workspace, its parent, the home directory, a
//     protected name or a read-only carve-out, /dev/shm and below; what
//     `--dry-run` shows against what the run enforces; the refusal of a
//     writable cwd that is or contains $HOME.
//   - The working directory: unlinked under sbx, unsearchable, a file, a
//     FIFO, a dangling symlink, longer than PATH_MAX (as --cwd and as the
//     inherited cwd), `..` after a symlink, a tmpfs mount point, a
//     read-only bind mount, /dev/shm.
//   - Unavailable mechanisms: a seccomp filter of the caller's failing
//     landlock_*, unshare, clone3, open_tree, mount_setattr, fsopen,
//     move_mount, mount, seccomp, close_range, pidfd_open, setns or
//     execveat (ENOSYS and EPERM); sbx inside sbx; user namespaces
//     disabled (user.max_user_namespaces=0 in a namespace of the test's)
//     or nested to the kernel's limit; /proc hidden; the supervisor's
//     executable gone or on a mount made noexec after the start.
//   - The sbx binary: replaced (rename over it) or deleted after the start
//     and before the first supervised call, truncation attempted; run
//     through a symlink, a hard link, a path with spaces, a spoofed or
//     empty argv[0], an execute-only file; the hidden helper entry point
//     called by hand.
//   - Resources: 2,000 arguments, 2,000 variables, duplicate variables,
//     an empty argv[0], --timeout 1ms 200 times per user (no process or
//     mount left), a pids cgroup nearly full.
//
// The standard: a clear error (125, naming what is missing and the way
// out), never a panic or a hang; never less enforcement than the profile
// says; the command's own status otherwise. Every case runs as root and as
// uid 65534 where the user matters.
//
//	go test -count=1 -run 'TestRedTeam12Fault' ./targets/landlock/launch
//
// Holes found are skipped unless SBX_RT12_HOLES=1.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/targets/landlock/launch"
)

// ---------------------------------------------------------------------------
// Helpers.

// rt12fHoles skips a test that reproduces a known hole unless
// SBX_RT12_HOLES=1.
func rt12fHoles(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("SBX_RT12_HOLES") != "1" {
		t.Skip("HOLE: " + what + " (SBX_RT12_HOLES=1 to run)")
	}
}

// rt12fNeed skips the test when a program it drives is missing.
func rt12fNeed(t *testing.T, progs ...string) {
	t.Helper()
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is missing", p)
		}
	}
}

// rt12fSetpriv is the prefix that runs the rest as u (nothing for root).
func rt12fSetpriv(u user) []string {
	if u.uid == 0 {
		return nil
	}
	return []string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}
}

// rt12fArgv is: [setpriv as u] WRAP... SBX run ARGS (sbx "" is the one
// TestMain built).
func rt12fArgv(u user, wrap []string, sbx string, args ...string) []string {
	if sbx == "" {
		sbx = filepath.Join(bin, "sbx")
	}
	argv := append(rt12fSetpriv(u), wrap...)
	argv = append(argv, sbx, "run")
	return append(argv, args...)
}

// rt12fCmd runs argv with env appended to a minimal environment (no HOME,
// no TMPDIR unless env sets them).
func rt12fCmd(env []string, argv ...string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}, env...)
	return cmd
}

// rt12fSbx runs sbx run ARGS as u (see rt12fCmd) from dir ("": the test's).
func rt12fSbx(u user, env []string, dir string, args ...string) rt11Out {
	cmd := rt12fCmd(env, rt12fArgv(u, nil, "", args...)...)
	cmd.Dir = dir
	return rt11Wait(cmd, 30*time.Second)
}

// rt12fInNS wraps argv in a private mount namespace of its own (unshare
// -m, propagation private: nothing mounted there reaches the host) where
// setup runs as root first; argv is "$@" of the script.
func rt12fInNS(setup string, argv []string) []string {
	return append([]string{"unshare", "-m", "--propagation", "private", "/bin/sh", "-c", setup + "\nexec \"$@\"", "sh"}, argv...)
}

// rt12fDir is a scratch directory below /var/tmp owned by u (0755).
func rt12fDir(t *testing.T, u user) string {
	t.Helper()
	base, err := os.MkdirTemp("/var/tmp", "sbxrt12f")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	os.Lchown(base, u.uid, u.uid)
	return base
}

// rt12fMkdir creates the directories p (and parents below base) owned by u.
func rt12fMkdir(t *testing.T, u user, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	for d := p; strings.HasPrefix(d, "/var/tmp/sbx"); d = filepath.Dir(d) {
		os.Lchown(d, u.uid, u.uid)
	}
	return p
}

// rt12fWrite writes a file owned by u.
func rt12fWrite(t *testing.T, u user, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Lchown(p, u.uid, u.uid)
}

// rt12fSandbox is the part of the sandbox report these tests read (the
// dry run's and the result's "sandbox").
type rt12fSandbox struct {
	ABI       int  `json:"abi"`
	KernelABI int  `json:"kernel_abi"`
	Degraded  bool `json:"degraded"`
	Mounts    []struct {
		Kind string `json:"kind"`
		Path string `json:"path"`
	} `json:"mounts"`
	Bound []struct {
		Path     string `json:"path"`
		Access   string `json:"access"`
		Symbolic struct {
			Anchor string `json:"anchor"`
			Rel    string `json:"rel"`
		} `json:"symbolic"`
	} `json:"bound_rules"`
	NotEnforced []struct {
		Feature string `json:"feature"`
		Lost    bool   `json:"lost"`
	} `json:"not_enforced"`
}

// rt12fReport is a --json result or dry run with its sandbox report.
type rt12fReport struct {
	ExitCode        int           `json:"exit_code"`
	SbxError        string        `json:"sbx_error"`
	Stdout          string        `json:"stdout"`
	Stderr          string        `json:"stderr"`
	Signal          *string       `json:"signal"`
	Containment     string        `json:"containment"`
	ContainmentNote string        `json:"containment_note"`
	Sandbox         *rt12fSandbox `json:"sandbox"`
}

// rt12fDecode decodes sbx's --json output (fatal when it is not one JSON
// object, or sbx hung or crashed).
func rt12fDecode(t *testing.T, what string, o rt11Out) rt12fReport {
	t.Helper()
	if o.hung || rt11Crashed(o.stderr) {
		t.Fatalf("%s: %v", what, o)
	}
	var r rt12fReport
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil {
		t.Fatalf("%s: invalid JSON (%v): %v", what, err, o)
	}
	return r
}

// mount reports whether the report has a mount of kind on p.
func (s *rt12fSandbox) mount(kind, p string) bool {
	for _, m := range s.Mounts {
		if m.Kind == kind && m.Path == p {
			return true
		}
	}
	return false
}

// bound returns the path the anchor (with no rel) was bound to.
func (s *rt12fSandbox) bound(anchor string) string {
	for _, b := range s.Bound {
		if b.Symbolic.Anchor == anchor && b.Symbolic.Rel == "" {
			return b.Path
		}
	}
	return ""
}

// rt12fMountCount is the number of mounts in the test's namespace.
//
// FUSE mounts are not counted: other packages' tests, which go test runs
// in parallel, mount and unmount FUSE servers of their own (cmd/sbx's
// stuck-process tests; CI once counted one gone as "21 before, 20 after"),
// and sbx makes none on the host.
func rt12fMountCount() int {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	n := 0
	for _, l := range bytes.Split(b, []byte{'\n'}) {
		_, after, ok := bytes.Cut(l, []byte(" - "))
		if ok && !bytes.HasPrefix(after, []byte("fuse")) {
			n++
		}
	}
	return n
}

// rt12fDenySrc: rt12fdeny NR:ERRNO[,NR:ERRNO...] PROG ARGS... installs a
// seccomp filter failing each listed system call with ERRNO (the caller's
// own restriction, inherited by sbx and everything it starts) and execs
// PROG.
const rt12fDenySrc = `#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc < 3) { fprintf(stderr, "usage: rt12fdeny NR:ERRNO,... PROG ARGS...\n"); return 2; }
	struct sock_filter f[256];
	int n = 0;
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (char *tok = strtok(argv[1], ","); tok && n < 250; tok = strtok(NULL, ",")) {
		char *c = strchr(tok, ':');
		if (!c) return 2;
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, atoi(tok), 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (atoi(c + 1) & SECCOMP_RET_DATA));
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = {.len = n, .filter = f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) { perror("no_new_privs"); return 2; }
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) { perror("seccomp"); return 2; }
	execv(argv[2], argv + 2);
	perror("execv");
	return 127;
}
`

// rt12fExecSrc: rt12fexec MODE ... PROG ARGS... execs PROG after:
//
//	gone DIR     entering DIR (created) and removing it: the cwd is unlinked
//	deep BASE N  entering BASE and N nested 200-byte directories (created)
const rt12fExecSrc = `#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc < 4) return 2;
	char **rest;
	if (!strcmp(argv[1], "gone")) {
		mkdir(argv[2], 0755);
		if (chdir(argv[2]) || rmdir(argv[2])) { perror("gone"); return 2; }
		rest = argv + 3;
	} else if (!strcmp(argv[1], "deep")) {
		if (argc < 5 || chdir(argv[2])) { perror("deep"); return 2; }
		char name[201];
		memset(name, 'd', 200);
		name[200] = 0;
		for (int i = atoi(argv[3]); i > 0; i--) {
			mkdir(name, 0755);
			if (chdir(name)) { perror("deep chdir"); return 2; }
		}
		rest = argv + 4;
	} else {
		return 2;
	}
	execv(rest[0], rest);
	perror("execv");
	return 127;
}
`

// rt12fArgv0Src: rt12fargv0 NAME PROG ARGS... execs PROG with argv[0] NAME.
const rt12fArgv0Src = `#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
	if (argc < 3) return 2;
	char *prog = argv[2];
	argv[2] = argv[1];
	execv(prog, argv + 2);
	perror("execv");
	return 127;
}
`

// rt12fSupervisedScript: with the workspace profile in a directory without
// .git, mkdir is performed by the supervisor (sbx re-executed).
const rt12fSupervisedScript = `echo before; mkdir d && echo MADE; mkdir .git; echo git=$?`

// ---------------------------------------------------------------------------
// 1. The environment anchors.

// TestRedTeam12FaultHomeCwdRefusal: the refusal of a writable working
// directory that is or contains $HOME (sbx started in a terminal's first
// directory would make the shell's start-up files writable). Attacked
// with every spelling that canonicalises to the same directory: a trailing
// slash, "/.", a leading "//", "sub/..", $HOME through a symlink, the cwd
// through a symlink, the cwd inherited (no --cwd), a parent of $HOME, and
// the dry run. Each must be 125 with "home directory" in the message and
// the command must not run; a project inside $HOME, read-only and
// network-off profiles and danger-full-access still run. Also HOME=/tmp
// with the cwd /tmp.
func TestRedTeam12FaultHomeCwdRefusal(t *testing.T) {
	{
		base := rt12fDir(t, users[0])
		o := rt12fSbx(users[0], []string{"HOME=" + base}, "", "--json", "--cwd", base, "--", "/bin/true")
		if o.code != 125 || !strings.Contains(o.stderr, "home directory") {
			t.Fatalf("a writable cwd that is $HOME was not refused: %s", o.String())
		}
	}
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		home := rt12fMkdir(t, u, base+"/up/home")
		rt12fMkdir(t, u, home+"/proj")
		rt12fMkdir(t, u, home+"/sub")
		os.Symlink("up/home", base+"/homelink")
		marker := home + "/.rt12f-profile"
		script := "echo ran > " + marker + "; echo ran"
		type c struct {
			name, home, cwd, dir string
			dry                  bool
		}
		cases := []c{
			{"cwd is HOME", home, home, "", false},
			{"HOME with a trailing slash", home + "/", home, "", false},
			{"HOME with /.", home + "/.", home, "", false},
			{"HOME with a leading //", "/" + home, home, "", false},
			{"HOME with sub/..", home + "/sub/..", home, "", false},
			{"HOME through a symlink", base + "/homelink", home, "", false},
			{"cwd through a symlink", home, base + "/homelink", "", false},
			{"cwd through a symlink with a slash", home, base + "/homelink/", "", false},
			{"cwd relative", home, "home", base + "/up", false},
			{"cwd inherited", home, "", home, false},
			{"cwd a parent of HOME", home, base + "/up", "", false},
			{"cwd two levels above HOME", base + "/homelink", base, "", false},
			{"dry run", home, home, "", true},
			{"HOME and cwd /tmp", "/tmp", "/tmp", "", false},
		}
		for _, c := range cases {
			args := []string{"--json", "--profile", "workspace"}
			if c.dry {
				args = append(args, "--dry-run")
			}
			if c.cwd != "" {
				args = append(args, "--cwd", c.cwd)
			}
			args = append(args, "--", "/bin/sh", "-c", script)
			o := rt12fSbx(u, []string{"HOME=" + c.home}, c.dir, args...)
			rt11Refused(t, c.name, o, true)
			if !strings.Contains(o.stderr, "home directory") {
				t.Errorf("%s: the refusal does not name the home directory: %v", c.name, o)
			}
			if fileExists(marker) {
				t.Errorf("%s: the command ran", c.name)
				os.Remove(marker)
			}
		}
		for _, c := range [][2]string{{"workspace", home + "/proj"}, {"read-only", home}, {"network-off", home}, {"danger-full-access", home}} {
			o := rt12fSbx(u, []string{"HOME=" + home}, "", "--json", "--profile", c[0], "--cwd", c[1], "--", "/bin/sh", "-c", "echo ran")
			r := rt12fDecode(t, c[0]+" in "+c[1], o)
			if o.code != 0 || r.Stdout != "ran\n" {
				t.Errorf("%s in %s: %v", c[0], c[1], o)
			}
		}
	})
}

// rt12fFakePasswd writes a copy of /etc/passwd in which each uid of homes
// has that home directory, for a private mount namespace to bind over it.
func rt12fFakePasswd(t *testing.T, dir string, homes map[int]string) string {
	t.Helper()
	data, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Skip(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		f := strings.Split(line, ":")
		if len(f) >= 7 {
			if uid, err := strconv.Atoi(f[2]); err == nil && homes[uid] != "" {
				f[5] = homes[uid]
				line = strings.Join(f, ":")
			}
		}
		out = append(out, line)
	}
	p := filepath.Join(dir, "passwd")
	if err := os.WriteFile(p, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRedTeam12FaultHomeRelative: sbx started in the user's home directory
// (the password database's: a terminal's first directory) with $HOME
// unusable. Unset or empty, sbx falls back to the password database and
// refuses (125, "home directory"): checked first, it must hold. A
// relative $HOME ("rel", "./x", ".") is not bound at all, so the check is
// skipped and the workspace profile makes the real home directory
// writable: the command writes a shell start-up file there (exit 0). A
// relative HOME should fall back like an empty one (or be refused, as a
// deny rule on ~ with a relative HOME already is).
//
// The home comes from a copy of /etc/passwd bound over it in a private
// mount namespace (the host's is untouched).
//
//	cd ~ && HOME=rel sbx run -- sh -c 'echo evil >> .bashrc'   # exit 0
func TestRedTeam12FaultHomeRelative(t *testing.T) {
	rt12fNeed(t, "unshare", "mount")
	passwdBefore, _ := os.ReadFile("/etc/passwd")
	defer func() {
		if after, _ := os.ReadFile("/etc/passwd"); !bytes.Equal(after, passwdBefore) {
			t.Errorf("/etc/passwd changed on the host")
		}
	}()
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		home := rt12fMkdir(t, u, base+"/home")
		fake := rt12fFakePasswd(t, base, map[int]string{u.uid: home})
		marker := home + "/.rt12f-profile"
		run := func(env []string) rt11Out {
			env = append(env, "RT12F_PASSWD="+fake, "RT12F_HOME="+home)
			argv := rt12fInNS(`mount --bind "$RT12F_PASSWD" /etc/passwd && cd "$RT12F_HOME" || exit 99`,
				rt12fArgv(u, nil, "", "--json", "--profile", "workspace", "--", "/bin/sh", "-c", "echo evil >> .rt12f-profile; echo ran"))
			return rt11Wait(rt12fCmd(env, argv...), 30*time.Second)
		}
		// Controls: the fallback to the password database refuses.
		for name, env := range map[string][]string{"HOME unset": nil, "HOME empty": {"HOME="}} {
			o := run(env)
			if o.code == 99 {
				t.Skipf("cannot bind a passwd copy in a private mount namespace: %v", o)
			}
			rt11Refused(t, name, o, true)
			if !strings.Contains(o.stderr, "home directory") {
				t.Errorf("%s: the refusal does not name the home directory: %v", name, o)
			}
			if fileExists(marker) {
				t.Errorf("%s: the command ran in the home directory", name)
				os.Remove(marker)
			}
		}
		if n := strings.Count(rt12fMountinfo(), base); n != 0 {
			t.Errorf("%d mounts of the scratch tree left on the host", n)
		}
		// Found by this battery, now fixed (was skipped as a hole).
		for _, h := range []string{"rel", "./x", "."} {
			o := run([]string{"HOME=" + h})
			if o.code != 125 || fileExists(marker) {
				b, _ := os.ReadFile(marker)
				t.Errorf("HOME=%s in the home directory: the workspace profile ran with the home directory writable (%q written): %v", h, b, o)
				os.Remove(marker)
			}
		}
	})
}

func rt12fMountinfo() string {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	return string(b)
}

// TestRedTeam12FaultTmpdirHome: {tmpdir} is writable in the workspace
// profile and comes from the caller's $TMPDIR, like {cwd} from its working
// directory; sbx refuses a writable cwd that is or contains $HOME, but not
// a $TMPDIR that is or contains it: TMPDIR=$HOME (directly, with a
// trailing slash, through a symlink) or a parent of $HOME makes the shell
// start-up files, SSH keys and credentials writable. Control (must hold):
// a scratch TMPDIR runs and is writable. The fix: the same refusal for
// {tmpdir} (125, naming the home directory).
//
//	HOME=/home/u TMPDIR=/home/u sbx run --cwd ~/proj -- sh -c 'echo evil >> ~/.bashrc'   # exit 0
func TestRedTeam12FaultTmpdirHome(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		home := rt12fMkdir(t, u, base+"/up/home")
		ws := rt12fMkdir(t, u, base+"/ws")
		scratch := rt12fMkdir(t, u, base+"/scratch")
		os.Symlink("up/home", base+"/homelink")
		marker := home + "/.rt12f-rc"
		script := `echo evil >> ` + marker + `; : > "$TMPDIR/rt12f-tmp" && echo tmp-ok`
		o := rt12fSbx(u, []string{"HOME=" + home, "TMPDIR=" + scratch}, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", script)
		r := rt12fDecode(t, "scratch TMPDIR", o)
		if !strings.Contains(r.Stdout, "tmp-ok") || !fileExists(scratch+"/rt12f-tmp") || fileExists(marker) {
			t.Fatalf("control: a scratch TMPDIR: %v", o)
		}
		// Found by this battery, now fixed (was skipped as a hole).
		for name, td := range map[string]string{"TMPDIR is HOME": home, "with a trailing slash": home + "/", "through a symlink": base + "/homelink", "a parent of HOME": base + "/up"} {
			o := rt12fSbx(u, []string{"HOME=" + home, "TMPDIR=" + td}, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", script)
			if o.code != 125 || !strings.Contains(o.stderr, "home") || fileExists(marker) {
				t.Errorf("%s (TMPDIR=%s): not refused, home writable %v: %v", name, td, fileExists(marker), o)
			}
			os.Remove(marker)
		}
	})
}

// TestRedTeam12FaultTmpdirCarveOut: a $TMPDIR inside the workspace at a
// protected name or a read-only carve-out. The profile keeps .git
// read-only (protect) and, for t-carve, {cwd}/ro read-only; {tmpdir} is a
// write rule, more specific than both, so TMPDIR=ws/.git (also with a
// trailing slash, or ws/.git/hooks) and TMPDIR=ws/ro reopen them
// writable: the command rewrites .git/config and writes hooks (which run
// outside the sandbox with the next git command) without a word, and the
// dry run lists `write {tmpdir}` on .git. Held (checked first): a denied
// path stays denied when TMPDIR points into it (TMPDIR=~/.ssh), and
// TMPDIR=cwd or its parent keeps .git read-only. The fix: refuse (125) a
// {tmpdir} that is or lies in a path the profile protects or makes
// read-only, or let the protection win.
//
//	cd ws && TMPDIR=$PWD/.git sbx run -- sh -c 'echo evil > .git/hooks/pre-commit'   # exit 0
func TestRedTeam12FaultTmpdirCarveOut(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		rt12fMkdir(t, u, f.ws+"/.git/hooks")
		carve := "--artifact=" + filepath.Join(bin, "t-carve.json")
		run := func(profile, tmpdir, script string) rt11Out {
			prof := "--profile=" + profile
			if profile == "t-carve" {
				prof = carve
			}
			return rt12fSbx(u, []string{"HOME=" + f.home, "TMPDIR=" + tmpdir}, "", "--json", prof, "--cwd", f.ws, "--", "/bin/sh", "-c", script)
		}
		gitIntact := func(what string, o rt11Out) {
			t.Helper()
			if b, _ := os.ReadFile(f.ws + "/.git/config"); string(b) != "cfg" || fileExists(f.ws+"/.git/hooks/pre-commit") {
				t.Errorf("%s: .git written (config %q, hook %v): %v", what, b, fileExists(f.ws+"/.git/hooks/pre-commit"), o)
				rt12fWrite(t, u, f.ws+"/.git/config", "cfg")
				os.Remove(f.ws + "/.git/hooks/pre-commit")
			}
		}
		gitScript := "echo evil > .git/config; echo evil > .git/hooks/pre-commit; echo done"
		// Held.
		o := run("t-carve", f.home+"/.ssh", `cat "$HOME/.ssh/id_rsa"; ls "$TMPDIR"; echo done`)
		if r := rt12fDecode(t, "TMPDIR=~/.ssh", o); strings.Contains(r.Stdout, "secret") || strings.Contains(r.Stdout, "id_rsa") {
			t.Errorf("TMPDIR=~/.ssh under t-carve: the denied directory was read: %v", o)
		}
		for _, td := range []string{f.ws, f.base} {
			o := run("workspace", td, gitScript)
			rt12fDecode(t, "TMPDIR="+td, o)
			gitIntact("workspace with TMPDIR="+td, o)
		}
		// Found by this battery, now fixed (was skipped as a hole).
		for _, td := range []string{f.ws + "/.git", f.ws + "/.git/", f.ws + "/.git/hooks"} {
			o := run("workspace", td, gitScript)
			if o.code != 125 {
				rt12fDecode(t, "TMPDIR="+td, o)
			}
			gitIntact("workspace with TMPDIR="+td, o)
		}
		o = run("t-carve", f.ws+"/ro", "echo evil > ro/f; echo done")
		if b, _ := os.ReadFile(f.ws + "/ro/f"); string(b) != "rofile" {
			t.Errorf("t-carve with TMPDIR=ws/ro: the read-only carve-out was written (%q): %v", b, o)
		}
	})
}

// TestRedTeam12FaultAnchorsDryRun: what `--dry-run --json` shows for each
// spelling of $HOME and $TMPDIR is what the run enforces. $HOME (under
// t-carve, which denies ~/.ssh): a directory, with a trailing slash, "/.",
// a leading "//", through a symlink, with spaces, with a newline, a
// dangling symlink, a symlink loop, a regular file, "/", nonexistent,
// relative, empty. Where the dry run masks <canonical home>/.ssh, the run
// cannot read the key through $HOME; where the dry run refuses, so does
// the run, and the reverse. $TMPDIR (workspace): a directory, with a
// slash, through a symlink, with spaces, the cwd, /dev/shm, relative,
// empty: the dry run binds {tmpdir} to the canonical path (relative and
// empty to /tmp), and a file the command creates in $TMPDIR lands there
// on the host.
func TestRedTeam12FaultAnchorsDryRun(t *testing.T) {
	carve := filepath.Join(bin, "t-carve.json")
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		ws := rt12fMkdir(t, u, base+"/ws")
		rt12fMkdir(t, u, ws+"/.git")
		homes := map[string]string{}
		for _, h := range []string{"home", "sp ace", "nl\nx"} {
			rt12fMkdir(t, u, base+"/"+h+"/.ssh")
			rt12fWrite(t, u, base+"/"+h+"/.ssh/id_rsa", "secret")
		}
		os.Symlink("home", base+"/homelink")
		os.Symlink("nowhere", base+"/dangle")
		os.Symlink("loop2", base+"/loop1")
		os.Symlink("loop1", base+"/loop2")
		rt12fWrite(t, u, base+"/afile", "x")
		for _, h := range []string{"home", "home/", "home/.", "homelink", "homelink/", "sp ace", "nl\nx", "dangle", "loop1", "afile", "nonexistent"} {
			homes[h] = base + "/" + h
		}
		homes["//"] = "/" + base + "/home"
		homes["root"] = "/"
		homes["relative"] = "rel"
		homes["empty"] = ""
		for name, h := range homes {
			env := []string{"HOME=" + h}
			od := rt12fSbx(u, env, "", "--json", "--dry-run", "--artifact", carve, "--cwd", ws, "--", "/bin/true")
			or := rt12fSbx(u, env, "", "--json", "--artifact", carve, "--cwd", ws, "--", "/bin/sh", "-c", `cat "$HOME/.ssh/id_rsa" 2>/dev/null; echo done`)
			if (od.code == 125) != (or.code == 125) {
				t.Errorf("HOME %s: the dry run and the run disagree: dry %v; run %v", name, od, or)
				continue
			}
			if od.code == 125 {
				rt11Refused(t, "HOME "+name+" dry run", od, true)
				rt11Refused(t, "HOME "+name+" run", or, true)
				continue
			}
			d := rt12fDecode(t, "HOME "+name+" dry run", od)
			r := rt12fDecode(t, "HOME "+name+" run", or)
			if d.Sandbox == nil {
				t.Fatalf("HOME %s: no sandbox report: %v", name, od)
			}
			if canon, err := filepath.EvalSymlinks(h); err == nil && filepath.IsAbs(h) && fileExists(canon+"/.ssh") {
				if !d.Sandbox.mount("mask", canon+"/.ssh") {
					t.Errorf("HOME %s: the dry run does not mask %s/.ssh: %+v", name, canon, d.Sandbox.Mounts)
				}
			}
			if r.Stdout != "done\n" || or.code != 0 {
				t.Errorf("HOME %s: the key was read through $HOME or the run failed: %v", name, or)
			}
		}
		tmp := rt12fMkdir(t, u, base+"/tmp")
		rt12fMkdir(t, u, base+"/t sp")
		os.Symlink("tmp", base+"/tmplink")
		tmps := map[string]string{"dir": tmp, "slash": tmp + "/", "symlink": base + "/tmplink", "spaces": base + "/t sp", "cwd": ws, "/dev/shm": "/dev/shm", "relative": "rel", "empty": ""}
		for name, td := range tmps {
			env := []string{"TMPDIR=" + td}
			od := rt12fSbx(u, env, "", "--json", "--dry-run", "--cwd", ws, "--", "/bin/true")
			d := rt12fDecode(t, "TMPDIR "+name+" dry run", od)
			if od.code != 0 || d.Sandbox == nil {
				t.Errorf("TMPDIR %s: dry run: %v", name, od)
				continue
			}
			want := "/tmp"
			if filepath.IsAbs(td) {
				want, _ = filepath.EvalSymlinks(td)
			}
			if got := d.Sandbox.bound("tmpdir"); got != want {
				t.Errorf("TMPDIR %s: the dry run binds {tmpdir} to %q, want %q", name, got, want)
			}
			if !filepath.IsAbs(td) {
				continue
			}
			probe := fmt.Sprintf("rt12f-probe-%d", os.Getpid())
			or := rt12fSbx(u, env, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", `: > "$TMPDIR/`+probe+`" && echo ok`)
			r := rt12fDecode(t, "TMPDIR "+name, or)
			if or.code != 0 || r.Stdout != "ok\n" || !fileExists(want+"/"+probe) {
				t.Errorf("TMPDIR %s: the command could not create a file in {tmpdir} %s: %v", name, want, or)
			}
			os.Remove(want + "/" + probe)
		}
	})
}

// TestRedTeam12FaultTmpdirShmSubdir: TMPDIR=/dev/shm is accepted (the
// README: "(except /dev/shm)"), but a directory below it, which makes
// strictly less writable, is refused with a false reason: "TMPDIR=
// /dev/shm/x would make /dev writable". Control (must hold): TMPDIR=
// /dev/shm runs and the command's file lands there. The fix: accept
// /dev/shm and what lies in it (or, if refusing, say what is refused and
// why, not that /dev would become writable).
//
//	mkdir /dev/shm/x && TMPDIR=/dev/shm/x sbx run -- true   # 125: would make /dev writable
func TestRedTeam12FaultTmpdirShmSubdir(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		ws := rt12fMkdir(t, u, base+"/ws")
		shm, err := os.MkdirTemp("/dev/shm", "sbxrt12f")
		if err != nil {
			t.Skip(err)
		}
		defer os.RemoveAll(shm)
		os.Lchown(shm, u.uid, u.uid)
		probe := fmt.Sprintf("rt12f-shm-%d-%d", os.Getpid(), u.uid)
		defer os.Remove("/dev/shm/" + probe)
		o := rt12fSbx(u, []string{"TMPDIR=/dev/shm"}, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", `: > "$TMPDIR/`+probe+`" && echo ok`)
		if r := rt12fDecode(t, "TMPDIR=/dev/shm", o); o.code != 0 || r.Stdout != "ok\n" || !fileExists("/dev/shm/"+probe) {
			t.Fatalf("control TMPDIR=/dev/shm: %v", o)
		}
		// Found by this battery, now fixed (was skipped as a hole).
		o = rt12fSbx(u, []string{"TMPDIR=" + shm}, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", `: > "$TMPDIR/f" && echo ok`)
		if o.code != 0 || !fileExists(shm+"/f") {
			t.Errorf("TMPDIR=%s (inside the accepted /dev/shm): %v", shm, o)
		}
	})
}

// ---------------------------------------------------------------------------
// 2. The working directory.

// TestRedTeam12FaultCwdOdd: working directories sbx must refuse with a
// clear 125 (never a hang or a crash; the command never runs): a regular
// file, a FIFO (opening it would block), a dangling symlink, "file/", a
// --cwd longer than PATH_MAX, an inherited cwd nested deeper than
// PATH_MAX, an inherited cwd that was unlinked (also with --cwd . and
// read-only), a directory below an unsearchable one (uid 65534). And ones
// that must just work, with the command in the canonical directory and
// writing there: a symlink to a directory (also with a slash), "dir///",
// "dir/./", "dir/../dir", a relative path, a subdirectory of /dev/shm, a
// tmpfs mount point, and a read-only bind mount (made in a private mount
// namespace) where writes fail with EROFS and reads work. No mount is
// left on the host.
func TestRedTeam12FaultCwdOdd(t *testing.T) {
	helper := cHelper(t, "rt12fexec", rt12fExecSrc)
	mountsBefore := rt12fMountCount()
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		ws := rt12fMkdir(t, u, base+"/ws")
		rt12fMkdir(t, u, ws+"/.git")
		rt12fWrite(t, u, base+"/afile", "x")
		if err := syscall.Mkfifo(base+"/fifo", 0o644); err != nil {
			t.Fatal(err)
		}
		os.Lchown(base+"/fifo", u.uid, u.uid)
		os.Symlink("nowhere", base+"/dangle")
		os.Symlink("ws", base+"/wslink")
		long := base + strings.Repeat("/"+strings.Repeat("d", 200), 22)
		refuse := func(what, want string, o rt11Out) {
			t.Helper()
			rt11Refused(t, what, o, true)
			if want != "" && !strings.Contains(o.stderr, want) {
				t.Errorf("%s: the message does not say %q: %v", what, want, o)
			}
			if fileExists(base + "/ran") {
				t.Errorf("%s: the command ran", what)
				os.Remove(base + "/ran")
			}
		}
		cmd := []string{"--", "/bin/sh", "-c", "echo > " + base + "/ran"}
		for _, c := range [][3]string{
			{"a file", base + "/afile", "not a directory"},
			{"a FIFO", base + "/fifo", "not a directory"},
			{"a dangling symlink", base + "/dangle", "does not exist"},
			{"file/", base + "/afile/", "not a directory"},
			{"longer than PATH_MAX", long, "file name too long"},
		} {
			o := rt12fSbx(u, nil, "", append([]string{"--json", "--cwd", c[1]}, cmd...)...)
			refuse("--cwd "+c[0], c[2], o)
		}
		// Inherited working directories.
		run := func(wrap []string, args ...string) rt11Out {
			return rt11Wait(rt12fCmd(nil, rt12fArgv(u, wrap, "", args...)...), 30*time.Second)
		}
		o := run([]string{helper, "deep", ws, "22"}, append([]string{"--json"}, cmd...)...)
		refuse("inherited cwd deeper than PATH_MAX", "file name too long", o)
		for _, extra := range [][]string{nil, {"--cwd", "."}, {"--profile", "read-only"}} {
			o := run([]string{helper, "gone", base + "/gone"}, append(append([]string{"--json"}, extra...), cmd...)...)
			refuse(fmt.Sprintf("inherited cwd unlinked %v", extra), "", o)
		}
		if u.uid != 0 {
			locked := rt12fMkdir(t, u, base+"/locked/ws")
			os.Chmod(base+"/locked", 0)
			o := rt12fSbx(u, nil, "", append([]string{"--json", "--cwd", locked}, cmd...)...)
			os.Chmod(base+"/locked", 0o755)
			refuse("below an unsearchable directory", "permission denied", o)
		}
		// Working ones.
		canonWS, _ := filepath.EvalSymlinks(ws)
		shm, err := os.MkdirTemp("/dev/shm", "sbxrt12f")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(shm)
		os.Lchown(shm, u.uid, u.uid)
		for _, c := range [][3]string{
			{"a symlink", base + "/wslink", canonWS},
			{"a symlink with a slash", base + "/wslink/", canonWS},
			{"trailing slashes", ws + "///", canonWS},
			{"dir/./", ws + "/./", canonWS},
			{"dir/../dir", ws + "/../ws", canonWS},
			{"relative", "ws", canonWS},
			{"on /dev/shm", shm, shm},
		} {
			o := rt12fSbx(u, nil, base, "--json", "--cwd", c[1], "--", "/bin/sh", "-c", "pwd -P; : > rt12f-w && echo wrote")
			r := rt12fDecode(t, "--cwd "+c[0], o)
			if o.code != 0 || r.Stdout != c[2]+"\nwrote\n" || !fileExists(c[2]+"/rt12f-w") {
				t.Errorf("--cwd %s: want the command in %s, writing: %v", c[0], c[2], o)
			}
			os.Remove(c[2] + "/rt12f-w")
		}
		// Mount points, in a private mount namespace.
		mp := rt12fMkdir(t, u, base+"/mp")
		src := rt12fMkdir(t, u, base+"/rosrc")
		rt12fWrite(t, u, src+"/f", "data")
		ro := rt12fMkdir(t, u, base+"/robind")
		setup := fmt.Sprintf("mount -t tmpfs -o size=1m,mode=0777 none %s && mount --bind %s %s && mount -o remount,bind,ro %s || exit 99", mp, src, ro, ro)
		for _, c := range []struct{ name, cwd, script, want string }{
			{"a tmpfs mount point", mp, "echo x > f && cat f", "x\n"},
			{"a read-only bind mount", ro, "cat f; echo y > g 2>/dev/null || echo erofs-$?", "dataerofs-2\n"},
		} {
			o := rt11Wait(rt12fCmd(nil, rt12fInNS(setup, rt12fArgv(u, nil, "", "--json", "--cwd", c.cwd, "--", "/bin/sh", "-c", c.script))...), 30*time.Second)
			if o.code == 99 {
				t.Skipf("cannot mount in a private namespace: %v", o)
			}
			r := rt12fDecode(t, c.name, o)
			if r.Stdout != c.want {
				t.Errorf("--cwd on %s: %v", c.name, o)
			}
		}
		if fileExists(ro+"/g") || fileExists(src+"/g") {
			t.Errorf("the read-only bind mount was written through")
		}
	})
	if n := rt12fMountCount(); n != mountsBefore {
		t.Errorf("mounts on the host: %d before, %d after", mountsBefore, n)
	}
}

// TestRedTeam12FaultCwdUnsearchable: as uid 65534, --cwd a directory the
// user owns with mode 000: unsandboxed, chdir fails (EACCES) and a
// directory below an unsearchable one is refused by sbx (125, checked in
// TestRedTeam12FaultCwdOdd), but sbx enters this one with the
// capabilities its user namespace gives before the exec and runs the
// command there (exit 0, also under danger-full-access). The command gets
// no access it could not have (lookups below still need the search
// right), but the run reports success where the same command unsandboxed
// cannot start in that directory. The fix: check the caller's search
// permission (faccessat X_OK, in sbx) and refuse with 125.
//
//	mkdir d && chmod 000 d && sbx run --cwd d -- pwd   # as a non-root user: exit 0
func TestRedTeam12FaultCwdUnsearchable(t *testing.T) {
	u := users[1]
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("setpriv is missing")
	}
	base := rt12fDir(t, u)
	d := rt12fMkdir(t, u, base+"/locked")
	os.Chmod(d, 0)
	defer os.Chmod(d, 0o755)
	ctl := rt11Wait(rt12fCmd(nil, append(rt12fSetpriv(u), "/bin/sh", "-c", `cd "$0"`, d)...), 10*time.Second)
	if ctl.code == 0 {
		t.Fatalf("control: uid %d entered a mode-000 directory unsandboxed: %v", u.uid, ctl)
	}
	// Found by this battery, now fixed (was skipped as a hole).
	for _, p := range []string{"workspace", "read-only", "danger-full-access"} {
		o := rt12fSbx(u, nil, "", "--json", "--profile", p, "--cwd", d, "--", "/bin/pwd")
		if o.code != 125 {
			t.Errorf("%s: --cwd a mode-000 directory as uid %d ran (the unsandboxed chdir fails): %v", p, u.uid, o)
		}
	}
}

// TestRedTeam12FaultCwdDotDotSymlink: --cwd link/.. where link is a
// symlink to a directory elsewhere. chdir(2) (and realpath, cd -P) go to
// the parent of the link's target; sbx makes the path absolute lexically
// first (filepath.Abs cleans "link/.." away), so a sandboxed run enters,
// and the workspace profile makes writable, the link's own directory,
// while danger-full-access (chdir in the executor) runs in the target's
// parent: one command line, two working directories. The fix: resolve
// the path the way the kernel does (EvalSymlinks on the joined, uncleaned
// path) before anything else.
//
//	mkdir -p a/deep/proj b && ln -s ../a/deep/proj b/link && cd b
//	sbx run --cwd link/.. -- pwd -P                              # /…/b
//	sbx run --profile danger-full-access --cwd link/.. -- pwd -P # /…/a/deep
func TestRedTeam12FaultCwdDotDotSymlink(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		rt12fMkdir(t, u, base+"/a/deep/proj")
		b := rt12fMkdir(t, u, base+"/b")
		os.Symlink("../a/deep/proj", b+"/link")
		want, err := filepath.EvalSymlinks(b + "/link/..")
		if err != nil || want != base+"/a/deep" {
			t.Fatalf("control: the kernel's link/.. is %q (%v)", want, err)
		}
		o := rt12fSbx(u, nil, b, "--json", "--profile", "danger-full-access", "--cwd", "link/..", "--", "/bin/pwd", "-P")
		if r := rt12fDecode(t, "danger-full-access", o); r.Stdout != want+"\n" {
			t.Fatalf("control: danger-full-access runs in %q, want %q", r.Stdout, want)
		}
		// Found by this battery, now fixed (was skipped as a hole).
		for _, p := range []string{"workspace", "read-only"} {
			o := rt12fSbx(u, nil, b, "--json", "--profile", p, "--cwd", "link/..", "--", "/bin/pwd", "-P")
			if r := rt12fDecode(t, p, o); r.Stdout != want+"\n" {
				t.Errorf("%s: --cwd link/.. runs in %q; chdir(2) and danger-full-access give %q", p, strings.TrimSpace(r.Stdout), want)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 3. Unavailable mechanisms.

// amd64 system call numbers and errnos for rt12fdeny.
const (
	rt12fENOSYS = 38
	rt12fEPERM  = 1
)

// TestRedTeam12FaultSeccompDenied: the caller's own seccomp filter fails
// one system call sbx needs, with ENOSYS and with EPERM, as root and as
// uid 65534: landlock_create_ruleset, landlock_add_rule,
// landlock_restrict_self, unshare, open_tree, mount_setattr, move_mount,
// fsopen, mount, seccomp, close_range. Each must be a refusal (125, one
// JSON failure object, a message naming the step) and the command must
// not run: never a run with less enforcement, never a hang or a crash.
// With landlock_create_ruleset failing and --allow-degraded the run goes
// ahead and its sandbox report says so (degraded, not_enforced lists
// "landlock" as lost); what is left still holds: the directory above the
// workspace is read-only and no TCP connection reaches the host.
func TestRedTeam12FaultSeccompDenied(t *testing.T) {
	deny := cHelper(t, "rt12fdeny", rt12fDenySrc)
	both, eperm := []int{rt12fENOSYS, rt12fEPERM}, []int{rt12fEPERM}
	calls := []struct {
		name   string
		nr     int
		errnos []int
		want   string
	}{
		{"landlock_create_ruleset", 444, both, "Landlock ABI"},
		{"landlock_add_rule", 445, eperm, "landlock_add_rule"},
		{"landlock_restrict_self", 446, eperm, "landlock_restrict_self"},
		{"unshare", 272, both, "unshare"},
		{"open_tree", 428, both, "cloning writable"},
		{"mount_setattr", 442, both, "nosuid and nodev"},
		{"move_mount", 429, eperm, "mask"},
		{"fsopen", 430, eperm, "fsopen"},
		{"mount", 165, eperm, "making / private"},
		{"seccomp", 317, both, "seccomp"},
		{"close_range", 436, both, "close_range"},
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	accepted := make(chan struct{}, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
			accepted <- struct{}{}
		}
	}()
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		ws := rt12fMkdir(t, u, base+"/ws")
		marker := ws + "/ran"
		for _, c := range calls {
			for _, errno := range c.errnos {
				what := fmt.Sprintf("%s %s", c.name, syscall.Errno(errno))
				wrap := []string{deny, fmt.Sprintf("%d:%d", c.nr, errno)}
				o := rt11Wait(rt12fCmd(nil, rt12fArgv(u, wrap, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", "echo > "+marker)...), 30*time.Second)
				rt11Refused(t, what, o, true)
				if !strings.Contains(o.stderr, c.want) {
					t.Errorf("%s: the message does not name %q: %v", what, c.want, o)
				}
				if fileExists(marker) {
					t.Errorf("%s: the command ran", what)
					os.Remove(marker)
				}
			}
		}
		// Landlock unavailable, --allow-degraded.
		script := fmt.Sprintf(`import socket
try: open("../escaped","w"); print("escaped")
except OSError as e: print("ro", e.errno)
try: socket.create_connection(("127.0.0.1",%d),2); print("connected")
except OSError as e: print("nonet")`, port)
		o := rt11Wait(rt12fCmd(nil, rt12fArgv(u, []string{deny, "444:38"}, "", "--json", "--allow-degraded", "--cwd", ws, "--", rt11Python, "-c", script)...), 30*time.Second)
		r := rt12fDecode(t, "degraded without Landlock", o)
		lost := false
		if r.Sandbox != nil {
			for _, n := range r.Sandbox.NotEnforced {
				lost = lost || (n.Feature == "landlock" && n.Lost)
			}
		}
		if o.code != 0 || r.Sandbox == nil || !r.Sandbox.Degraded || r.Sandbox.ABI != 0 || !lost {
			t.Errorf("degraded without Landlock: the report does not say Landlock is lost: %v", o)
		}
		if r.Stdout != "ro 30\nnonet\n" || fileExists(base+"/escaped") {
			t.Errorf("degraded without Landlock: less than the mount view and seccomp enforce: %q (escaped %v)", r.Stdout, fileExists(base+"/escaped"))
		}
		select {
		case <-accepted:
			t.Errorf("degraded without Landlock: a TCP connection reached the host")
		case <-time.After(50 * time.Millisecond):
		}
	})
}

// TestRedTeam12FaultStartErrorAttribution: when the start of the sandbox's
// init fails, the message names a call that did not fail, or a cause that
// is not there. Checked first (must hold): every case is a refusal (125,
// JSON failure object) and the command never runs.
//
//   - pidfd_open failing with ENOSYS (a seccomp filter of the caller's):
//     "clone3: function not implemented (Linux 5.3 or newer is needed)":
//     startInit's pidfd_open error goes through cloneError, which maps any
//     errno as clone3's;
//   - pidfd_open or clone3 failing with EPERM as root: "which needs
//     namespaces (they could not be created: available)": the probe's
//     detail ("available") is given as the reason;
//   - sbx run inside sbx run (the outer seccomp filter fails Landlock and
//     clone3 with ENOSYS): "this kernel provides ABI 0 ... needs Landlock
//     ABI 1 (Linux 5.13)" and, with --allow-degraded, "Linux 5.3 or newer
//     is needed", on a 6.18 kernel with Landlock ABI 7: the way out given
//     (a newer kernel) is wrong.
//
// The fix: report the call that failed (pidfd_open), and when a call the
// running kernel has fails with ENOSYS or EPERM while the caller is under
// a seccomp filter (/proc/self/status Seccomp: 2), say that a seccomp
// filter around sbx (another sandbox, sbx itself) denies it.
//
//	sbx run -- sbx run --allow-degraded -- true   # clone3: ... Linux 5.3 or newer is needed
func TestRedTeam12FaultStartErrorAttribution(t *testing.T) {
	deny := cHelper(t, "rt12fdeny", rt12fDenySrc)
	type outcome struct {
		what string
		o    rt11Out
		msg  string // the sbx_error that is reported
	}
	var got []outcome
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		ws := rt12fMkdir(t, u, base+"/ws")
		marker := ws + "/ran"
		for _, c := range []struct {
			name string
			spec string
		}{{"pidfd_open ENOSYS", "434:38"}, {"pidfd_open EPERM", "434:1"}, {"clone3 EPERM", "435:1"}} {
			what := u.name + " " + c.name
			o := rt11Wait(rt12fCmd(nil, rt12fArgv(u, []string{deny, c.spec}, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", "echo > "+marker)...), 30*time.Second)
			rt11Refused(t, what, o, true)
			if fileExists(marker) {
				t.Errorf("%s: the command ran", what)
				os.Remove(marker)
			}
			got = append(got, outcome{what, o, o.stderr})
		}
		for _, extra := range [][]string{nil, {"--allow-degraded"}} {
			what := fmt.Sprintf("%s sbx in sbx %v", u.name, extra)
			inner := append(append([]string{filepath.Join(bin, "sbx"), "run", "--json"}, extra...), "--", "/bin/sh", "-c", "echo > "+marker)
			o := rt12fSbx(u, nil, "", append([]string{"--json", "--cwd", ws, "--"}, inner...)...)
			r := rt12fDecode(t, what, o)
			var in rt12fReport
			if err := json.Unmarshal([]byte(r.Stdout), &in); err != nil || in.ExitCode != 125 || in.SbxError == "" || o.code != 125 {
				t.Errorf("%s: the inner sbx did not refuse: %v", what, o)
			}
			if fileExists(marker) {
				t.Errorf("%s: the command ran", what)
				os.Remove(marker)
			}
			got = append(got, outcome{what, o, in.SbxError})
		}
	})
	// Found by this battery, now fixed (was skipped as a hole).
	abi := launch.KernelABI()
	for _, g := range got {
		switch {
		case strings.Contains(g.what, "pidfd_open") && !strings.Contains(g.msg, "pidfd_open"):
			t.Errorf("%s: the message does not name pidfd_open: %q", g.what, g.msg)
		case strings.Contains(g.msg, "could not be created: available"):
			t.Errorf("%s: the reason given is that namespaces are available: %q", g.what, g.msg)
		case strings.Contains(g.msg, "Linux 5.3 or newer is needed"):
			t.Errorf("%s: a newer kernel is asked for on %s: %q", g.what, rt12fKernel(), g.msg)
		case abi > 0 && strings.Contains(g.msg, "this kernel provides ABI 0"):
			t.Errorf("%s: the kernel is said to provide ABI 0 (it provides %d): %q", g.what, abi, g.msg)
		}
	}
}

func rt12fKernel() string {
	var u syscall.Utsname
	syscall.Uname(&u)
	var b []byte
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return "Linux " + string(b)
}

// TestRedTeam12FaultSupervisorStartFailure: the seccomp supervisor (sbx
// re-executed through /proc/self/exe on the first supervised call) cannot
// start: setns fails (EPERM) or execveat fails (ENOSYS) under a filter of
// the caller's, /proc is hidden by an empty tmpfs (private mount
// namespace), or the directory holding sbx is remounted noexec after sbx
// started. Checked first, it must hold (fail closed): the supervised mkdir
// never creates anything, the protected .git is never created, the run
// ends (no hang, no crash). Then the hole: the run is reported as the
// command's own death by SIGKILL (exit 137, "signal": "SIGKILL", no
// sbx_error) with sbx's message spliced into the command's stderr; the
// command had already run (its "before" is in stdout). sbx failed, so the
// status must be 125 with an sbx_error; and what can be checked before the
// command runs (/proc/self/exe openable and executable) should be, with a
// refusal or the restrictive layout (as SBX_LANDLOCK_NO_SUPERVISOR=1)
// instead of a kill midway.
//
//	sbx run --json -- sh -c 'echo before; mkdir d'   # under a filter failing execveat: 137, SIGKILL
func TestRedTeam12FaultSupervisorStartFailure(t *testing.T) {
	rt12fNeed(t, "unshare", "mount")
	deny := cHelper(t, "rt12fdeny", rt12fDenySrc)
	type outcome struct {
		what string
		o    rt11Out
	}
	var got []outcome
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		sbxDir := rt12fMkdir(t, u, base+"/bin")
		sbxCopy := sbxDir + "/sbx"
		data, err := os.ReadFile(filepath.Join(bin, "sbx"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(sbxCopy, data, 0o755); err != nil {
			t.Fatal(err)
		}
		mountsBefore := rt12fMountCount()
		for _, c := range []struct {
			name   string
			argv   func(ws string) []string
			script string
		}{
			{"setns EPERM", func(ws string) []string {
				return rt12fArgv(u, []string{deny, "308:1"}, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", rt12fSupervisedScript)
			}, rt12fSupervisedScript},
			{"execveat ENOSYS", func(ws string) []string {
				return rt12fArgv(u, []string{deny, "322:38"}, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", rt12fSupervisedScript)
			}, rt12fSupervisedScript},
			{"/proc hidden", func(ws string) []string {
				return rt12fInNS("mount -t tmpfs none /proc || exit 99", rt12fArgv(u, nil, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", rt12fSupervisedScript))
			}, rt12fSupervisedScript},
			{"noexec after the start", func(ws string) []string {
				script := fmt.Sprintf("mount --bind %[1]s %[1]s || exit 99\n\"$@\" &\np=$!\nsleep 0.5\nmount -o remount,bind,noexec %[1]s || exit 99\nwait $p", sbxDir)
				return append([]string{"unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script, "sh"},
					rt12fArgv(u, nil, sbxCopy, "--json", "--cwd", ws, "--", "/bin/sh", "-c", "sleep 1.5; "+rt12fSupervisedScript)...)
			}, ""},
		} {
			what := u.name + " " + c.name
			ws := rt12fMkdir(t, u, base+"/ws-"+strings.ReplaceAll(strings.ReplaceAll(c.name, " ", "-"), "/", ""))
			o := rt11Wait(rt12fCmd(nil, c.argv(ws)...), 30*time.Second)
			if o.code == 99 {
				t.Skipf("%s: cannot set up: %v", what, o)
			}
			r := rt12fDecode(t, what, o)
			if fileExists(ws+"/d") || fileExists(ws+"/.git") || strings.Contains(r.Stdout, "MADE") || o.code == 0 {
				t.Errorf("%s: without the supervisor something was created (fail open): d %v, .git %v: %v", what, fileExists(ws+"/d"), fileExists(ws+"/.git"), o)
			}
			got = append(got, outcome{what, o})
		}
		if n := rt12fMountCount(); n != mountsBefore {
			t.Errorf("mounts on the host: %d before, %d after", mountsBefore, n)
		}
	})
	// Found by this battery, now fixed (was skipped as a hole).
	for _, g := range got {
		var r rt12fReport
		json.Unmarshal([]byte(g.o.stdout), &r)
		if g.o.code != 125 || r.SbxError == "" || strings.Contains(r.Stderr, "sbx: ") {
			t.Errorf("%s: want 125 with sbx_error, got status %d signal %v sbx_error %q, command stderr %q", g.what, g.o.code, deref(r.Signal), r.SbxError, r.Stderr)
		}
	}
}

// TestRedTeam12FaultUserNSUnavailable: uid 65534 in a user namespace of
// the test's where user.max_user_namespaces is 0 (a per-namespace limit:
// the host's stays as it is), sbx without capabilities: every sandboxed
// profile is refused (125) naming user.max_user_namespaces, also with
// --allow-degraded (the Landlock sandbox needs the namespaces: never a
// run without them), while danger-full-access with --allow-degraded runs
// in degraded process-group containment and says so (containment_note).
func TestRedTeam12FaultUserNSUnavailable(t *testing.T) {
	rt12fNeed(t, "unshare", "setpriv")
	u := users[1]
	before, _ := os.ReadFile("/proc/sys/user/max_user_namespaces")
	defer func() {
		if after, _ := os.ReadFile("/proc/sys/user/max_user_namespaces"); !bytes.Equal(before, after) {
			t.Errorf("the host's user.max_user_namespaces changed: %q -> %q", before, after)
		}
	}()
	if o := rt11Wait(rt12fCmd(nil, append(rt12fSetpriv(u), "unshare", "--user", "--map-current-user", "true")...), 10*time.Second); o.code != 0 {
		t.Skipf("unprivileged user namespaces are not available to the test: %v", o)
	}
	base := rt12fDir(t, u)
	ws := rt12fMkdir(t, u, base+"/ws")
	wrap := []string{"unshare", "--user", "--map-current-user", "--keep-caps", "/bin/sh", "-c",
		`echo 0 > /proc/sys/user/max_user_namespaces || exit 99; exec setpriv --inh-caps=-all --ambient-caps=-all "$@"`, "sh"}
	for _, c := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"--profile", "workspace"}, false},
		{[]string{"--profile", "workspace", "--allow-degraded"}, false},
		{[]string{"--profile", "read-only", "--allow-degraded"}, false},
		{[]string{"--profile", "workspace", "--containment", "process-group", "--allow-degraded"}, false},
		{[]string{"--profile", "danger-full-access"}, false},
		{[]string{"--profile", "danger-full-access", "--allow-degraded"}, true},
	} {
		what := strings.Join(c.args, " ")
		args := append(append([]string{"--json"}, c.args...), "--cwd", ws, "--", "/bin/sh", "-c", "echo ran > ran; echo ran")
		o := rt11Wait(rt12fCmd(nil, rt12fArgv(u, wrap, "", args...)...), 30*time.Second)
		if o.code == 99 {
			t.Skipf("cannot set user.max_user_namespaces in a namespace: %v", o)
		}
		if c.ok {
			r := rt12fDecode(t, what, o)
			if o.code != 0 || r.Stdout != "ran\n" || r.Containment != "process-group" || r.ContainmentNote == "" {
				t.Errorf("%s: want a degraded process-group run that says so: %v", what, o)
			}
			os.Remove(ws + "/ran")
			continue
		}
		rt11Refused(t, what, o, true)
		if !strings.Contains(o.stderr, "max_user_namespaces") {
			t.Errorf("%s: the message does not name user.max_user_namespaces: %v", what, o)
		}
		if fileExists(ws + "/ran") {
			t.Errorf("%s: the command ran", what)
			os.Remove(ws + "/ran")
		}
	}
}

// TestRedTeam12FaultUserNSNesting: uid 65534 at the kernel's nesting limit
// of user namespaces (32 levels): sbx cannot create the one it needs and
// refuses (125, the command does not run: checked first, must hold), but
// the message is "pid-namespace: clone3: no space left on device; ... to
// guarantee that no process outlives the command, enable unprivileged user
// namespaces": they are enabled; the nesting limit is what is in the way.
// The fix: map ENOSPC (and EUSERS) from clone3 with CLONE_NEWUSER to "the
// user namespace limit is reached (nesting depth 32 or
// user.max_user_namespaces)".
//
//	(nest 33 user namespaces) sbx run -- true   # ... no space left on device; ... enable unprivileged user namespaces
func TestRedTeam12FaultUserNSNesting(t *testing.T) {
	rt12fNeed(t, "unshare", "setpriv")
	u := users[1]
	base := rt12fDir(t, u)
	ws := rt12fMkdir(t, u, base+"/ws")
	nest := base + "/nest.sh"
	os.WriteFile(nest, []byte("#!/bin/sh\nn=$1; shift\n[ \"$n\" -le 0 ] && exec \"$@\"\nexec unshare --user --map-current-user \"$0\" $((n-1)) \"$@\"\n"), 0o755)
	depth := 0
	for n := 28; n <= 40; n++ {
		o := rt11Wait(rt12fCmd(nil, append(rt12fSetpriv(u), nest, strconv.Itoa(n), "unshare", "--user", "true")...), 30*time.Second)
		if o.code != 0 {
			depth = n
			break
		}
	}
	if depth == 0 {
		t.Skip("no nesting limit of user namespaces found up to 40")
	}
	o := rt11Wait(rt12fCmd(nil, rt12fArgv(u, []string{nest, strconv.Itoa(depth)}, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", "echo > ran")...), 30*time.Second)
	rt11Refused(t, fmt.Sprintf("at nesting depth %d", depth), o, true)
	if fileExists(ws + "/ran") {
		t.Errorf("the command ran")
	}
	// Found by this battery, now fixed (was skipped as a hole).
	if strings.Contains(o.stderr, "enable unprivileged user namespaces") || !(strings.Contains(o.stderr, "limit") || strings.Contains(o.stderr, "nest")) {
		t.Errorf("at nesting depth %d the message does not name the limit: %v", depth, o)
	}
}

// ---------------------------------------------------------------------------
// 4. The sbx binary and its helper.

// rt12fAwaitExe polls (up to limit) until a process whose command line
// contains token runs exe.
func rt12fAwaitExe(token, exe string, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		for _, s := range rt6Survivors(token) {
			if l, _ := os.Readlink("/proc/" + strings.Fields(s)[0] + "/exe"); l == exe {
				return true
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

// TestRedTeam12FaultBinaryReplaced: the supervisor is sbx re-executed
// through /proc/self/exe on the command's first supervised call. A copy of
// sbx is started (workspace profile in a directory without .git: mkdir is
// supervised); after it runs and before the command's mkdir, the copy on
// disk is replaced by a script (rename over it), deleted, or truncated in
// place (the kernel refuses: ETXTBSY). The supervisor must be the original
// (mkdir works, mkdir .git is refused: only the real supervisor refuses
// it) and the replacement's code must never run. Also run through a
// symlink, a hard link, a path with spaces, a spoofed and an empty
// argv[0], and as an execute-only (0711) file as uid 65534: the supervisor
// runs the same.
func TestRedTeam12FaultBinaryReplaced(t *testing.T) {
	argv0 := cHelper(t, "rt12fargv0", rt12fArgv0Src)
	data, err := os.ReadFile(filepath.Join(bin, "sbx"))
	if err != nil {
		t.Fatal(err)
	}
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		dir := rt12fMkdir(t, u, base+"/bin")
		pwned := base + "/pwned"
		fake := fmt.Sprintf("#!/bin/sh\necho \"$@\" > %s\nexit 0\n", pwned)
		// A fresh inode renamed into place: the previous copy may still be
		// running (an init or supervisor of the last run on its way out),
		// and opening it for writing would fail with ETXTBSY.
		install := func(p string, mode os.FileMode) {
			tmp := p + ".new"
			if err := os.WriteFile(tmp, data, mode); err != nil {
				t.Fatal(err)
			}
			os.Chmod(tmp, mode)
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		}
		check := func(what string, o rt11Out, ws string) {
			t.Helper()
			r := rt12fDecode(t, what, o)
			if o.code != 0 || r.Stdout != "before\nMADE\ngit=1\n" || !fileExists(ws+"/d") || fileExists(ws+"/.git") {
				t.Errorf("%s: the run with the supervisor differs: %v", what, o)
			}
			if fileExists(pwned) {
				b, _ := os.ReadFile(pwned)
				t.Errorf("%s: the replacement ran as the supervisor: %q", what, b)
				os.Remove(pwned)
			}
		}
		for _, mode := range []string{"rename over", "delete", "truncate"} {
			p := dir + "/sbx"
			install(p, 0o755)
			ws := rt12fMkdir(t, u, base+"/ws-"+strings.ReplaceAll(mode, " ", "-"))
			token := rt6Token()
			cmd := rt12fCmd(nil, rt12fArgv(u, nil, p, "--json", "--cwd", ws, "--", "/bin/sh", "-c", "sleep 0.7; "+rt12fSupervisedScript, token)...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if !rt12fAwaitExe(token, p, 5*time.Second) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("%s: sbx did not start", mode)
			}
			switch mode {
			case "rename over":
				os.WriteFile(p+".new", []byte(fake), 0o755)
				if err := os.Rename(p+".new", p); err != nil {
					t.Fatal(err)
				}
			case "delete":
				os.Remove(p)
			case "truncate":
				if err := os.Truncate(p, 0); err == nil {
					t.Logf("truncating the running sbx succeeded on this kernel")
				} else if !strings.Contains(err.Error(), "text file busy") {
					t.Logf("truncating the running sbx: %v", err)
				}
			}
			ok := rt11Exited(cmd, 30*time.Second)
			o := rt11Out{stdout: out.String(), stderr: errb.String(), hung: !ok}
			o.ws = cmd.ProcessState.Sys().(syscall.WaitStatus)
			o.code = o.ws.ExitStatus()
			check("sbx "+mode+" after the start", o, ws)
			rt6NoSurvivors(t, token)
		}
		// Other ways to start it.
		p := dir + "/sbx"
		install(p, 0o755)
		os.Symlink(p, base+"/slink")
		os.Link(p, base+"/hlink")
		sp := rt12fMkdir(t, u, base+"/with space")
		install(sp+"/s b x", 0o755)
		xo := base + "/xonly"
		install(xo, 0o711)
		for _, c := range []struct {
			name string
			wrap []string
			sbx  string
		}{
			{"a symlink", nil, base + "/slink"},
			{"a hard link", nil, base + "/hlink"},
			{"a path with spaces", nil, sp + "/s b x"},
			{"argv[0] spoofed", []string{argv0, "/nonexistent/evil"}, p},
			{"argv[0] empty", []string{argv0, ""}, p},
			{"an execute-only file", nil, xo},
		} {
			ws := rt12fMkdir(t, u, base+"/ws-"+strings.NewReplacer(" ", "-", "[", "", "]", "").Replace(c.name))
			o := rt11Wait(rt12fCmd(nil, rt12fArgv(u, c.wrap, c.sbx, "--json", "--cwd", ws, "--", "/bin/sh", "-c", rt12fSupervisedScript)...), 30*time.Second)
			check("sbx through "+c.name, o, ws)
		}
	})
}

// TestRedTeam12FaultHelperDirect: the hidden entry point of the supervisor
// (sbx __sbx-landlock-helper supervise FLAGS N ...) called by hand. Bad
// arguments are refused (125, "internal to sbx": held, checked first).
// With well-formed arguments and no seccomp listener on descriptor 3
// (closed, or /dev/null), it exits 0 without a word: a call that did
// nothing reports success. The fix: check that descriptor 3 is a seccomp
// listener (and 5 a /proc) before serving, and fail with 125 otherwise.
//
//	sbx __sbx-landlock-helper supervise - 0; echo $?   # 0
func TestRedTeam12FaultHelperDirect(t *testing.T) {
	sbx := filepath.Join(bin, "sbx")
	for _, args := range [][]string{{}, {"run"}, {"supervise"}, {"supervise", "x", "0"}, {"supervise", "-", "9"}, {"supervise", "-", "-1"}} {
		o := rt11Wait(rt12fCmd(nil, append([]string{sbx, launch.HelperArg}, args...)...), 10*time.Second)
		if o.hung || o.code != 125 || !strings.Contains(o.stderr, "internal to sbx") {
			t.Errorf("helper %q: %v", args, o)
		}
	}
	// Found by this battery, now fixed (was skipped as a hole).
	null, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for name, extra := range map[string][]*os.File{"no descriptors": nil, "/dev/null on 3-5": {null, null, null}} {
		cmd := rt12fCmd(nil, sbx, launch.HelperArg, "supervise", "-", "0")
		cmd.ExtraFiles = extra
		o := rt11Wait(cmd, 10*time.Second)
		if o.hung || o.code == 0 || o.stderr == "" {
			t.Errorf("helper with %s: want a failure with a message: %v", name, o)
		}
	}
}

// ---------------------------------------------------------------------------
// 5. Resources and timing.

// TestRedTeam12FaultArgvEnv: 2,000 arguments (with empty ones, "--", "-",
// whitespace, "=") arrive exactly, under workspace and read-only; 2,000
// variables reach a danger-full-access command (it inherits all) and do
// not break a workspace run; duplicate variables: the one sbx binds is the
// one the command sees (TMPDIR=/etc before or after a scratch TMPDIR: the
// run is refused exactly when the command would see /etc; HOME twice with
// one of them the cwd: refused whenever the command would see the cwd as
// HOME); an empty argv[0] is a clear 125 or 127, never a crash.
func TestRedTeam12FaultArgvEnv(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		ws := rt12fMkdir(t, u, base+"/ws")
		rt12fMkdir(t, u, ws+"/.git")
		scratch := rt12fMkdir(t, u, base+"/tmp")
		var args []string
		for i := 0; i < 2000; i++ {
			args = append(args, "a"+strconv.Itoa(i))
		}
		args = append(args, "", " ", "x=y", "--", "-", "\t", "--json")
		for _, p := range []string{"workspace", "read-only"} {
			o := rt12fSbx(u, nil, "", append([]string{"--json", "--profile", p, "--cwd", ws, "--", rt11Python, "-c", "import sys,json; print(json.dumps(sys.argv[1:]))"}, args...)...)
			r := rt12fDecode(t, p+" 2000 args", o)
			var back []string
			if err := json.Unmarshal([]byte(r.Stdout), &back); err != nil || strings.Join(back, "\x00") != strings.Join(args, "\x00") {
				t.Errorf("%s: 2,000 arguments did not arrive exactly (%d back, %v): %.300s", p, len(back), err, o.stderr)
			}
		}
		var env []string
		for i := 0; i < 2000; i++ {
			env = append(env, fmt.Sprintf("RT12FV%d=%s", i, strings.Repeat("v", 16)))
		}
		o := rt12fSbx(u, env, "", "--json", "--profile", "danger-full-access", "--cwd", ws, "--", "/bin/sh", "-c", "env | grep -c ^RT12FV")
		if r := rt12fDecode(t, "2000 variables", o); o.code != 0 || r.Stdout != "2000\n" {
			t.Errorf("danger-full-access: 2,000 variables: %v", o)
		}
		o = rt12fSbx(u, env, "", "--json", "--profile", "workspace", "--cwd", ws, "--", "/bin/true")
		if rt12fDecode(t, "2000 variables workspace", o); o.code != 0 {
			t.Errorf("workspace with 2,000 variables: %v", o)
		}
		// Duplicates.
		for _, pair := range [][2]string{{"/etc", scratch}, {scratch, "/etc"}} {
			env := []string{"TMPDIR=" + pair[0], "TMPDIR=" + pair[1]}
			o := rt12fSbx(u, env, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", `echo "$TMPDIR"`)
			if o.code == 125 {
				rt11Refused(t, "TMPDIR twice", o, true)
				continue
			}
			r := rt12fDecode(t, "TMPDIR twice", o)
			if strings.TrimSpace(r.Stdout) == "/etc" {
				t.Errorf("TMPDIR %q: the command sees TMPDIR=/etc but sbx did not refuse: %v", pair, o)
			}
		}
		for _, pair := range [][2]string{{ws, base}, {base + "/other", ws}} {
			env := []string{"HOME=" + pair[0], "HOME=" + pair[1]}
			o := rt12fSbx(u, env, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", `echo "$HOME"`)
			if o.code == 125 {
				rt11Refused(t, "HOME twice", o, true)
				continue
			}
			r := rt12fDecode(t, "HOME twice", o)
			if strings.TrimSpace(r.Stdout) == ws {
				t.Errorf("HOME %q: the command sees the cwd as HOME but sbx did not refuse: %v", pair, o)
			}
		}
		for _, argv := range [][]string{{""}, {"", "x"}} {
			o := rt12fSbx(u, nil, "", append([]string{"--json", "--cwd", ws, "--"}, argv...)...)
			if o.code != 125 && o.code != 127 {
				t.Errorf("argv %q: want 125 or 127: %v", argv, o)
			}
			rt12fDecode(t, "empty argv[0]", o)
			if !strings.HasPrefix(o.stderr, "sbx: ") {
				t.Errorf("argv %q: no message: %v", argv, o)
			}
		}
	})
}

// TestRedTeam12FaultTinyTimeoutLoop: --timeout 1ms, 200 times per user,
// the deadline passing during the start: plain sleeps, supervised calls
// (mkdir in a directory without .git) and exec'd sleeps, and a command
// that may end first (true). Each ends with 124 and timed_out (or, for
// true, 0), as one JSON object; afterwards no process of the runs is left,
// and the host's mount table is unchanged.
func TestRedTeam12FaultTinyTimeoutLoop(t *testing.T) {
	mounts := rt12fMountCount()
	asUser(t, func(t *testing.T, u user) {
		base := rt12fDir(t, u)
		ws := rt12fMkdir(t, u, base+"/ws")
		token := rt6Token()
		scripts := []string{"sleep 5", "mkdir d$$; sleep 5", "exec sleep 5", "true"}
		codes := map[int]int{}
		for i := 0; i < 200; i++ {
			s := scripts[i%len(scripts)]
			o := rt12fSbx(u, nil, "", "--json", "--timeout", "1ms", "--cwd", ws, "--", "/bin/sh", "-c", s, token)
			codes[o.code]++
			if o.hung || rt11Crashed(o.stderr) {
				t.Fatalf("run %d (%s): %v", i, s, o)
			}
			var r rtResult
			if err := json.Unmarshal([]byte(o.stdout), &r); err != nil {
				t.Errorf("run %d (%s): invalid JSON: %v", i, s, o)
				continue
			}
			switch {
			case o.code == 124 && r.TimedOut:
			case s == "true" && o.code == 0 && !r.TimedOut:
			default:
				t.Errorf("run %d (%s): want 124 (timed out): %v", i, s, o)
			}
		}
		t.Logf("statuses: %v", codes)
		rt6NoSurvivors(t, token)
	})
	deadline := time.Now().Add(3 * time.Second)
	for rt12fMountCount() != mounts && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := rt12fMountCount(); n != mounts {
		t.Errorf("mounts on the host: %d before, %d after", mounts, n)
	}
}

// rt12fPidsCgroup creates a pids cgroup of the test's (v1 controller, or
// v2 where the pids controller is enabled), removed when the test ends,
// and returns its directory.
func rt12fPidsCgroup(t *testing.T) string {
	t.Helper()
	var root string
	if fi, err := os.Stat("/sys/fs/cgroup/pids"); err == nil && fi.IsDir() {
		root = "/sys/fs/cgroup/pids"
	} else if b, err := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control"); err == nil && strings.Contains(string(b), "pids") {
		root = "/sys/fs/cgroup"
	} else {
		t.Skip("no pids cgroup controller")
	}
	cg := filepath.Join(root, fmt.Sprintf("sbxrt12f-%d", os.Getpid()))
	if err := os.Mkdir(cg, 0o755); err != nil {
		t.Skipf("creating a pids cgroup: %v", err)
	}
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for {
			err := os.Remove(cg)
			if err == nil || time.Now().After(deadline) {
				if err != nil {
					t.Errorf("removing %s: %v", cg, err)
				}
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	if _, err := os.Stat(cg + "/pids.max"); err != nil {
		t.Skipf("no pids.max in %s", cg)
	}
	return cg
}

// TestRedTeam12FaultPidsCgroup: sbx in a pids cgroup with little room
// (pids.max 4 to 16; root only, a cgroup of the test's, removed after).
// Each run must be a result: a refusal (125, the JSON failure object) or
// the command's own status (its own fork failing is the command's). Seen:
// with pids.max 4 to 14 sbx often dies of a Go runtime abort ("fatal
// error: newosproc", a stack dump, exit 2, no JSON), and from 12 to 16 the
// supervisor (sbx re-executed) cannot start or aborts the same way, its
// stack dump lands in the command's stderr and the run is reported as
// SIGKILL (137). Checked first (must hold): no run hangs and nothing of
// the runs is left. README documents the abort under a very low
// RLIMIT_NPROC; a pids cgroup (containers, systemd's TasksMax) is neither
// documented nor refused. The fix: refuse at the start (125) when the pids
// cgroup (pids.max - pids.current) or RLIMIT_NPROC leaves less than the
// threads sbx, the init, the command and the supervisor need, as sbx
// already does below 32 open files.
//
//	mkdir /sys/fs/cgroup/pids/x && echo 10 > /sys/fs/cgroup/pids/x/pids.max
//	sh -c 'echo $$ > /sys/fs/cgroup/pids/x/cgroup.procs; exec sbx run --json -- true'   # fatal error: newosproc
func TestRedTeam12FaultPidsCgroup(t *testing.T) {
	cg := rt12fPidsCgroup(t)
	base := rt12fDir(t, users[0])
	ws := rt12fMkdir(t, users[0], base+"/ws")
	type outcome struct {
		max int
		o   rt11Out
	}
	var got []outcome
	token := rt6Token()
	for _, max := range []int{4, 6, 8, 10, 12, 14, 16} {
		if err := os.WriteFile(cg+"/pids.max", []byte(strconv.Itoa(max)), 0o644); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 3; k++ {
			argv := append([]string{"/bin/sh", "-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, cg}, rt12fArgv(users[0], nil, "", "--json", "--cwd", ws, "--", "/bin/sh", "-c", "echo RAN; mkdir d && echo MADE; rmdir d", token)...)
			o := rt11Wait(rt12fCmd(nil, argv...), 30*time.Second)
			if o.hung {
				t.Errorf("pids.max %d: sbx hung: %v", max, o)
			}
			got = append(got, outcome{max, o})
		}
	}
	rt6NoSurvivors(t, token)
	rt12fHoles(t, "sbx aborts (Go runtime) or reports SIGKILL when its pids cgroup is nearly full")
	for _, g := range got {
		var r rt12fReport
		err := json.Unmarshal([]byte(g.o.stdout), &r)
		switch {
		case err != nil || rt11Crashed(g.o.stderr):
			t.Errorf("pids.max %d: sbx crashed (no result): %v", g.max, g.o)
		case rt11Crashed(r.Stderr) || strings.Contains(r.Stderr, "sbx: "):
			t.Errorf("pids.max %d: sbx's failure reported as the command's (status %d): %.300q", g.max, g.o.code, r.Stderr)
		case g.o.code == 125 && r.SbxError == "":
			t.Errorf("pids.max %d: 125 without sbx_error: %v", g.max, g.o)
		}
	}
}
