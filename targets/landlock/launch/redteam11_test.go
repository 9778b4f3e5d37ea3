//go:build linux && amd64

package launch_test

// Red team 11: classes the earlier batteries do not cover, through the real
// sbx binary (built by TestMain), as root and as uid 65534, with the C
// helper testdata/redteam11/rt11.c:
//
//   - descriptors the command holds that come from sbx's (the host's) mount
//     namespace: its stdin is the host's /dev/null, opened by the executor,
//     on the host's read-write devtmpfs, not the sandbox's read-only view;
//   - metadata changes (fchmodat2, utimensat, fchownat with AT_EMPTY_PATH,
//     setxattr through /proc/self/fd/N) through O_PATH descriptors on
//     read-only files, carve-outs and masks;
//   - hard links made from an O_PATH descriptor (linkat AT_EMPTY_PATH, and
//     /proc/self/fd/N with AT_SYMLINK_FOLLOW), supervised and not;
//   - a user-notification filter of the command's own, nested in the
//     sandbox's, whose listener would win the supervised calls and answer
//     them with CONTINUE;
//   - the network namespace the early init predicts for degraded runs (no
//     Landlock scopes): an abstract name bound inside is not the host's;
//   - the init's descriptor links raced from the command's first
//     instruction (the init holds a copy of sbx's table until the exec).
//
//	go test -count=1 -run 'TestRedTeam11' ./targets/landlock/launch
//
// Tests that reproduce a real hole skip unless SBX_RT11_HOLES=1.

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rt11Helper builds testdata/redteam11/rt11.c into bin once.
func rt11Helper(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("testdata/redteam11/rt11.c")
	if err != nil {
		t.Fatal(err)
	}
	return cHelper(t, "rt11", string(src))
}

// rt11Run runs argv under sbx (args before "--": profile, cwd, ...) as u
// with HOME at the fixture's home, and fails on an sbx error.
func rt11Run(t *testing.T, f *fixture, env []string, args []string, argv ...string) rtResult {
	t.Helper()
	a := append(append(append([]string{"--timeout", "20s"}, args...), "--"), argv...)
	r := rtRun(t, rtOpts{u: f.u, args: a, env: append([]string{"HOME=" + f.home}, env...)})
	if r.SbxError != "" {
		t.Fatalf("sbx %v failed: %s", a, r.SbxError)
	}
	return r
}

// rt11Unsandboxed runs argv directly as f's user (the control).
func rt11Unsandboxed(t *testing.T, u user, argv ...string) string {
	t.Helper()
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
	}
	out, _ := rtCmdRaw(argv...).CombinedOutput()
	return strings.TrimSpace(string(out))
}

// rtCmdRaw is argv with the tests' minimal environment.
func rtCmdRaw(argv ...string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}
	return cmd
}

// rt11Fields parses "k=v k=v" into a map.
func rt11Fields(s string) map[string]string {
	m := map[string]string{}
	for _, w := range strings.Fields(s) {
		if k, v, ok := strings.Cut(w, "="); ok {
			m[k] = v
		}
	}
	return m
}

const rt11AllOK = "chmod=ok utime=ok touch=ok chown=ok xattr=ok"

// TestRedTeam11StdinHostDevNull: the command's standard input is the null
// device, but not the host's /dev/null that the executor opens in sbx's
// own mount namespace (a read-write devtmpfs outside the view: Landlock
// does not mediate metadata changes, and the seccomp filter refuses only
// set-id bits). Through it the command used to change the host's /dev/null
// (found by this battery): as root its mode (chmod 600 /proc/self/fd/0
// broke /dev/null for every other user) and times, as anyone its times
// (utimensat with NULL times). Now stdin is the view's read-only
// /dev/null, or, where the profile masks /dev (t-nodev), a private
// read-only clone of the host's: every change fails (EROFS; Landlock's
// EACCES for the opens of the detached clone), and stdin is still the null
// device (character device 1:3, end of file at once).
func TestRedTeam11StdinHostDevNull(t *testing.T) {
	rt := rt11Helper(t)
	var before unix.Stat_t
	if err := unix.Stat("/dev/null", &before); err != nil {
		t.Fatal(err)
	}
	defer func() {
		// Put the host's /dev/null back as it was (the helper restores
		// what it changes when it may; nobody cannot reset the times).
		var now unix.Stat_t
		unix.Stat("/dev/null", &now)
		if now.Mode&0o7777 != before.Mode&0o7777 {
			os.Chmod("/dev/null", os.FileMode(before.Mode&0o777))
		}
		unix.UtimesNano("/dev/null", []unix.Timespec{before.Atim, before.Mtim})
	}()
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		// Control: the helper changes everything on a file it may change
		// (a workspace file it owns).
		if r := rt11Run(t, f, nil, []string{"--profile", "workspace", "--cwd", f.ws}, rt, "meta", f.ws+"/sub/file"); strings.TrimSpace(r.Stdout) != rt11AllOK {
			t.Fatalf("control: meta on a workspace file: %q %q", r.Stdout, r.Stderr)
		}
		// Control: /dev/null inside the view is the read-only clone.
		if r := rt11Run(t, f, nil, []string{"--profile", "workspace", "--cwd", f.ws}, rt, "meta", "/dev/null"); !strings.HasPrefix(strings.TrimSpace(r.Stdout), "chmod=EROFS") {
			t.Errorf("meta on the view's /dev/null: %q", r.Stdout)
		}
		for _, prof := range [][]string{{"--profile", "workspace"}, {"--artifact", filepath.Join(bin, "t-nodev.json")}} {
			args := append(prof, "--cwd", f.ws)
			var pre unix.Stat_t
			unix.Stat("/dev/null", &pre)
			r := rt11Run(t, f, nil, args, rt, "meta", "fd0")
			got := rt11Fields(r.Stdout)
			for _, k := range []string{"chmod", "utime", "touch", "chown", "xattr"} {
				if got[k] == "ok" || got[k] == "" {
					t.Errorf("%v: %s of the command's stdin: %q %q", prof, k, strings.TrimSpace(r.Stdout), r.Stderr)
				}
			}
			var post unix.Stat_t
			unix.Stat("/dev/null", &post)
			if post.Ctim != pre.Ctim || post.Mtim != pre.Mtim || post.Mode != pre.Mode {
				t.Errorf("%v: the host's /dev/null changed during the run: mode %o -> %o, ctime %v -> %v, mtime %v -> %v", prof, pre.Mode, post.Mode, pre.Ctim, post.Ctim, pre.Mtim, post.Mtim)
			}
			// Still the null device, at end of file.
			r = rt11Run(t, f, nil, args, "/bin/sh", "-c", `stat -L -c %t:%T /proc/self/fd/0; wc -c`)
			if got := strings.Fields(r.Stdout); len(got) != 2 || got[0] != "1:3" || got[1] != "0" {
				t.Errorf("%v: stdin is not the null device at end of file: %q %q", prof, r.Stdout, r.Stderr)
			}
		}
	})
}

// TestRedTeam11OPathMetadata: metadata changes through an O_PATH
// descriptor (fchmodat2, utimensat and fchownat with AT_EMPTY_PATH; "touch"
// and setxattr through /proc/self/fd/N) on a file outside the writable
// roots, on the protected .git/config, on a read-only carve-out, on a
// denied (masked) directory and on / itself: EROFS for every call. The
// controls: the same calls on a workspace file inside the sandbox, and on
// the outside file without the sandbox, all succeed.
func TestRedTeam11OPathMetadata(t *testing.T) {
	rt := rt11Helper(t)
	const allROFS = "chmod=EROFS utime=EROFS touch=EROFS chown=EROFS xattr=EROFS"
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		if got := rt11Unsandboxed(t, u, rt, "meta", f.outside+"/file"); got != rt11AllOK {
			t.Fatalf("control (no sandbox): %q", got)
		}
		carve := []string{"--artifact", filepath.Join(bin, "t-carve.json"), "--cwd", f.ws}
		work := []string{"--profile", "workspace", "--cwd", f.ws}
		if r := rt11Run(t, f, nil, work, rt, "meta", f.ws+"/sub/file"); strings.TrimSpace(r.Stdout) != rt11AllOK {
			t.Fatalf("control (workspace file): %q %q", r.Stdout, r.Stderr)
		}
		for _, c := range []struct {
			args []string
			path string
		}{
			{work, f.outside + "/file"},
			{work, f.outside},
			{work, f.ws + "/.git/config"},
			{work, f.ws + "/.git"},
			{work, "/"},
			{carve, f.ws + "/ro/f"},
			{carve, f.home + "/.ssh"},
			{carve, f.ws + "/secret"},
		} {
			r := rt11Run(t, f, nil, c.args, rt, "meta", c.path)
			if got := strings.TrimSpace(r.Stdout); got != allROFS {
				t.Errorf("%s (%s): %q, want %q", c.path, c.args[0], got, allROFS)
			}
		}
	})
}

// TestRedTeam11LinkThroughDescriptor: hard links from an O_PATH descriptor
// (linkat(fd, "", AT_EMPTY_PATH), which the supervisor performs through its
// worker's /proc/thread-self/fd entry at the top of a workspace, and
// linkat("/proc/self/fd/N", AT_SYMLINK_FOLLOW)) to the protected
// .git/config and to a file outside the writable roots: EXDEV, in a
// subdirectory and at the supervised top, and nothing is created. The
// controls: the same links to a workspace file succeed, and to the outside
// file without the sandbox.
func TestRedTeam11LinkThroughDescriptor(t *testing.T) {
	rt := rt11Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		if got := rt11Unsandboxed(t, u, rt, "link-fd", f.outside+"/file", f.base+"/ctl"); got != "empty=ok proc=ok" {
			t.Fatalf("control (no sandbox): %q", got)
		}
		os.WriteFile(f.nogit+"/.gitfile", []byte("x"), 0o644)
		os.Lchown(f.nogit+"/.gitfile", u.uid, u.uid)
		for _, c := range []struct {
			cwd, src, dst, want string
			dst2                string // the second link's name (dst.2 if empty)
		}{
			{f.ws, f.ws + "/sub/file", f.ws + "/sub/ok", "empty=ok proc=ok", ""},
			{f.nogit, f.nogit + "/file", f.nogit + "/ok", "empty=ok proc=ok", ""},
			{f.ws, f.ws + "/.git/config", f.ws + "/sub/l", "empty=EXDEV proc=EXDEV", ""},
			{f.ws, f.outside + "/file", f.ws + "/sub/o", "empty=EXDEV proc=EXDEV", ""},
			{f.nogit, f.outside + "/file", f.nogit + "/o", "empty=EXDEV proc=EXDEV", ""},
			{f.ws, f.outside + "/file", f.ws + "/o", "empty=EXDEV proc=EXDEV", ""},
			// A supervised guarded name, from a workspace file: refused by
			// name (EACCES).
			{f.nogit, f.nogit + "/.gitfile", f.nogit + "/.git", "empty=EACCES proc=EACCES", f.nogit + "/.hg"},
		} {
			argv := []string{rt, "link-fd", c.src, c.dst}
			if c.dst2 == "" {
				c.dst2 = c.dst + ".2"
			} else {
				argv = append(argv, c.dst2)
			}
			r := rt11Run(t, f, nil, []string{"--profile", "workspace", "--cwd", c.cwd}, argv...)
			if got := strings.TrimSpace(r.Stdout); got != c.want {
				t.Errorf("link %s -> %s: %q, want %q (stderr %q)", c.src, c.dst, got, c.want, r.Stderr)
			}
			if !strings.Contains(c.want, "ok") {
				for _, p := range []string{c.dst, c.dst2} {
					if _, err := os.Lstat(p); err == nil {
						t.Errorf("%s was created", p)
					}
				}
			}
		}
	})
}

// TestRedTeam11NestedListener: the command installs a user-notification
// filter of its own (SECCOMP_FILTER_FLAG_NEW_LISTENER) for the calls the
// sandbox supervises, forks, and answers its child's notifications with
// CONTINUE. When two filters both notify, the kernel hands the call to the
// newest one's listener: the supervisor would be bypassed and the kernel
// would perform mkdir(.git), connect() to an unlisted socket or bind() of a
// host abstract name. The kernel refuses a second listener in one filter
// chain (EBUSY), and without the supervisor (no listener, so the nested one
// is accepted) the outer filter's verdicts still win. The control: the
// nested listener works without the sandbox.
func TestRedTeam11NestedListener(t *testing.T) {
	rt := rt11Helper(t)
	// An unlisted pathname socket (t-sock lists bin/listed.sock only).
	dir, err := os.MkdirTemp("/var/tmp", "sbxrt11sock")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	sock := dir + "/other.sock"
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.Chmod(sock, 0o777)
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		ctl := filepath.Join(f.base, "ctl")
		if got := rt11Unsandboxed(t, u, rt, "nest", "mkdir", ctl); got != "ok notified=1" {
			t.Fatalf("control (no sandbox): nested listener: %q", got)
		}
		if got := rt11Unsandboxed(t, u, rt, "nest", "connect", sock); got != "ok notified=1" {
			t.Fatalf("control (no sandbox): nested listener, connect: %q", got)
		}
		<-accepted
		abs := "@sbxrt11-nest-" + strconv.Itoa(os.Getpid()) + "-" + u.name
		for _, c := range []struct {
			name string
			env  []string
			args []string
			op   []string
			gone string // a path that must not exist afterwards
		}{
			{"mkdir .git", nil, []string{"--profile", "workspace", "--cwd", f.nogit}, []string{"mkdir", ".git"}, f.nogit + "/.git"},
			{"creat .hg", nil, []string{"--profile", "workspace", "--cwd", f.nogit}, []string{"creat", f.nogit + "/.hg"}, f.nogit + "/.hg"},
			{"symlink .jj", nil, []string{"--profile", "workspace", "--cwd", f.nogit}, []string{"symlink", f.nogit + "/.jj"}, f.nogit + "/.jj"},
			{"no supervisor: mkdir .git", []string{"SBX_LANDLOCK_NO_SUPERVISOR=1"}, []string{"--profile", "workspace", "--cwd", f.nogit}, []string{"mkdir", ".git"}, f.nogit + "/.git"},
			{"unlisted socket", nil, []string{"--artifact", filepath.Join(bin, "t-sock.json"), "--cwd", f.ws}, []string{"connect", sock}, ""},
			{"none: unix connect", nil, []string{"--profile", "workspace", "--cwd", f.ws}, []string{"connect", sock}, ""},
			{"abstract bind", nil, []string{"--profile", "read-only", "--cwd", f.ws}, []string{"bind", abs}, ""},
		} {
			stop := make(chan string, 1)
			if c.op[0] == "bind" {
				go func() {
					deadline := time.Now().Add(3 * time.Second)
					for time.Now().Before(deadline) {
						if conn, err := net.Dial("unix", abs); err == nil {
							conn.Close()
							stop <- "the host connected to " + abs
							return
						}
						time.Sleep(20 * time.Millisecond)
					}
					stop <- ""
				}()
			}
			r := rt11Run(t, f, c.env, c.args, append([]string{rt, "nest"}, c.op...)...)
			out := strings.TrimSpace(r.Stdout)
			if strings.HasPrefix(out, "ok") || strings.Contains(out, "bound") {
				t.Errorf("%s: the nested listener's CONTINUE went through: %q", c.name, out)
			}
			if c.gone != "" {
				if _, err := os.Lstat(c.gone); err == nil {
					t.Errorf("%s: %s was created", c.name, c.gone)
				}
			}
			if c.op[0] == "bind" {
				if s := <-stop; s != "" {
					t.Errorf("%s: %s", c.name, s)
				}
			}
			select {
			case <-accepted:
				t.Errorf("%s: the host's unlisted socket accepted a connection (%q)", c.name, out)
			default:
			}
			t.Logf("%s: %s", c.name, out)
		}
	})
}

// TestRedTeam11DegradedAbstractBind: with Landlock capped below ABI 6 (no
// scopes; --allow-degraded), network none needs a network namespace of its
// own, which the early init predicts from the plan and the options
// (landlock.Plan.NeedsNetNamespace) and creates in its first part. An
// abstract name the command binds must then not be the host's: once the
// command reports it bound, the host binds the same name, which succeeds
// (EADDRINUSE would mean the name is taken in the host's namespace). The
// control: the same helper without the sandbox takes the host's name.
func TestRedTeam11DegradedAbstractBind(t *testing.T) {
	rt := rt11Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, c := range []struct {
			name string
			args []string
			env  []string
		}{
			{"control", nil, nil},
			{"abi 5", []string{"--allow-degraded", "--landlock-abi-cap", "5", "--profile", "workspace", "--cwd", f.nogit}, nil},
			{"abi 4", []string{"--allow-degraded", "--landlock-abi-cap", "4", "--profile", "read-only", "--cwd", f.ws}, nil},
			{"abi 5 no supervisor", []string{"--allow-degraded", "--landlock-abi-cap", "5", "--profile", "workspace", "--cwd", f.nogit}, []string{"SBX_LANDLOCK_NO_SUPERVISOR=1"}},
		} {
			name := "@sbxrt11-abs-" + strconv.Itoa(os.Getpid()) + "-" + u.name + "-" + strings.ReplaceAll(c.name, " ", "-")
			if rt11AbstractTaken(t, name) {
				t.Fatalf("%s is already bound on the host", name)
			}
			// The helper holds the name until this file exists (3 s at
			// most): in the run's working directory, which every profile
			// here lets it see.
			dir := f.ws
			if i := slices.Index(c.args, "--cwd"); i >= 0 {
				dir = c.args[i+1]
			}
			release := filepath.Join(dir, "rt11-release")
			os.Remove(release)
			var cmd *exec.Cmd
			if c.args == nil {
				argv := []string{rt, "bind", name, release}
				if u.uid != 0 {
					argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
				}
				cmd = rtCmdRaw(argv...)
			} else {
				// --events: the output arrives while the command runs.
				cmd = rt6Cmd(u, append([]string{"HOME=" + f.home}, c.env...), append(append([]string{"--events", "--timeout", "20s"}, c.args...), "--", rt, "bind", name, release)...)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The helper prints "bound" right after its bind and keeps the
			// socket until the release file exists; reading ends with the
			// run.
			var seen strings.Builder
			bound, taken := false, false
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				seen.WriteString(sc.Text() + "\n")
				if !bound && strings.Contains(sc.Text(), "bound") {
					bound = true
					taken = rt11AbstractTaken(t, name)
					os.WriteFile(release, nil, 0o644)
				}
			}
			cmd.Wait()
			os.Remove(release)
			if !bound {
				t.Errorf("%s: the command did not bind: %q", c.name, seen.String())
				continue
			}
			if c.args == nil && !taken {
				t.Errorf("control: the name the helper bound without the sandbox was free on the host (%s)", name)
			}
			if c.args != nil && taken {
				t.Errorf("%s: the abstract name the sandbox bound is the host's (%s)", c.name, name)
			}
		}
	})
}

// rt11AbstractTaken reports whether the abstract Unix name (@NAME) is
// bound in the test's network namespace: its own bind fails with
// EADDRINUSE (a successful bind is released at once).
func rt11AbstractTaken(t *testing.T, name string) bool {
	t.Helper()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	err = unix.Bind(fd, &unix.SockaddrUnix{Name: name})
	if err != nil && err != unix.EADDRINUSE {
		t.Fatalf("bind %s: %v", name, err)
	}
	return err == unix.EADDRINUSE
}

// TestRedTeam11InitFdsAtStart: the early init is a clone of sbx and holds a
// copy of sbx's descriptor table (here with a descriptor sbx inherited on a
// file outside the view) until the command has exec'd. The command's first
// instructions loop over /proc/1/fd/0..63 (readlink, open for reading and
// writing) while the init may still hold them: none is reachable (the init
// is outside the command's Landlock domain), though the numbers are listed.
// The control: the same loop reaches a process of the user's own without
// the sandbox.
func TestRedTeam11InitFdsAtStart(t *testing.T) {
	rt := rt11Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		secret, err := os.Open(f.outside + "/file")
		if err != nil {
			t.Fatal(err)
		}
		defer secret.Close()
		// Control: a sleeping process of the user's, with the file open.
		argv := []string{"sleep", "5"}
		if u.uid != 0 {
			argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
		}
		sl := rtCmdRaw(argv...)
		sl.ExtraFiles = []*os.File{secret}
		if err := sl.Start(); err != nil {
			t.Fatal(err)
		}
		// setpriv execs sleep in the same process (until then, having
		// changed its ids, it is not dumpable): wait until it has.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if b, _ := os.ReadFile("/proc/" + strconv.Itoa(sl.Process.Pid) + "/comm"); strings.TrimSpace(string(b)) == "sleep" {
				break
			}
		}
		got := rt11Fields(rt11Unsandboxed(t, u, rt, "proc-fds", strconv.Itoa(sl.Process.Pid), "1"))
		sl.Process.Kill()
		sl.Wait()
		if got["reached"] == "0" || got["reached"] == "" {
			t.Fatalf("control: %v", got)
		}
		for _, p := range []string{"workspace", "read-only"} {
			for i := 0; i < 5; i++ {
				r := rtRun(t, rtOpts{u: u, extra: []*os.File{secret}, env: []string{"HOME=" + f.home},
					args: []string{"--timeout", "20s", "--profile", p, "--cwd", f.ws, "--", rt, "proc-fds", "1", "300"}})
				got := rt11Fields(r.Stdout)
				// listed=0: the sandbox's /proc hides the init
				// altogether (hidepid=invisible, red team 26); the
				// control above shows the probe reaches what it lists.
				if r.SbxError != "" || got["reached"] != "0" || got["listed"] == "" {
					t.Errorf("%s: %q %q", p, r.Stdout, r.SbxError)
				}
			}
		}
	})
}
