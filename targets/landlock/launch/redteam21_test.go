//go:build linux && amd64

package launch_test

// Red team 21: classes the earlier batteries do not cover, through the real
// sbx binary (built by TestMain), as root and as uid 65534:
//
//   - the supervisor's guard table is built when the supervisor starts
//     (lazily, at the command's first creation call), by stat(2) of each
//     writable root's path with the supervisor's own credentials; a root
//     whose path does not stat is skipped silently ("the writable root is
//     gone"). An unprivileged sbx's supervisor has no DAC capability, so a
//     command that makes an ancestor of the workspace unsearchable before
//     its first creation (chmod 000 on a directory it owns between /tmp or
//     $TMPDIR and the workspace: `mktemp -d` then a clone inside) turns the
//     guard of the workspace off and creates the protected .git
//     (TestRedTeam21GuardRootUnsearchable: was a HOLE for uid 65534, root
//     held; fixed: the command's process identifies the guarded
//     directories in the final view before the command runs, a failure
//     fails the setup, and the supervisor takes those identities);
//   - the refusal of a writable working directory or $TMPDIR that is or
//     contains the home directory knows the home directory from $HOME only
//     (the password database only when $HOME is unset or relative): with
//     HOME=/ (daemons, containers) or HOME pointing elsewhere, --cwd at the
//     account's real home directory runs the workspace profile with the
//     shell start-up files and SSH keys writable
//     (TestRedTeam21HomeRefusalAccountHome: was a HOLE; fixed: the
//     account's home directory from /etc/passwd is refused too);
//   - the refusal of a writable working directory or $TMPDIR that lies in
//     a directory of programs, libraries or configuration the host runs
//     (runDirs) misses such directories outside /etc, /bin, /lib* and
//     /usr/{bin,lib*,libexec}: Perl's library directories /usr/share/perl5
//     and /usr/share/perl (on every perl's @INC: debconf, run by root's
//     apt and dpkg, is Perl), dpkg's maintainer scripts /var/lib/dpkg/info
//     (run by root at every package operation), bash-completion's scripts
//     (sourced by every interactive bash) (TestRedTeam21RunDirsUnrefused:
//     was a HOLE; fixed: all of /usr but /usr/src and /usr/local/src,
//     /var/spool, and the package managers' and system services' state
//     below /var/lib and /var/cache);
//   - held: the pins of the directories between /tmp and the workspace
//     keep the host's submounts below them (a read-only bind stays
//     read-only, a tmpfs covering a directory keeps covering it)
//     (TestRedTeam21HeldPinnedSubmounts); $TMPDIR in /dev/shm carries only
//     that directory through the /dev mask (TestRedTeam21HeldShmTmpdir);
//     SBX_LANDLOCK_NO_SUPERVISOR=1 in sbx's environment falls back to the
//     restrictive layout and a network namespace of the sandbox's own, and
//     says so (TestRedTeam21HeldNoSupervisorEnv).
//
//	go test -count=1 -run TestRedTeam21 -v ./targets/landlock/launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/targets/landlock"
)

// rt21Tree makes dirs (relative to base) owned by u.
func rt21Tree(t *testing.T, u user, base string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	filepath.Walk(base, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
}

// TestRedTeam21GuardRootUnsearchable: was a HOLE (uid 65534). The supervisor
// (supervise_linux.go, runSupervisor) built its guard table when it
// started, at the command's first supervised call, with
// unix.Stat(path.Dir(guarded name)) for every writable root, and skipped a
// root whose stat failed. It runs with the caller's uid and, for an
// unprivileged sbx, only CAP_SETPCAP and CAP_SYS_PTRACE: no
// CAP_DAC_READ_SEARCH. Directories between a writable root that holds the
// workspace ($TMPDIR, /tmp) and the workspace are writable and belong to
// the user, so the command could chmod one of them 000 before it created
// anything; the supervisor's stat of the workspace then failed with EACCES,
// the workspace's guarded names were dropped, and the worker (which
// resolves the name from the caller's cwd and never crosses the
// unsearchable directory) created .git, since the Landlock domain allows
// creation at the top of a supervised root. The command then restored the
// mode and wrote .git/config and hooks, which the host's git runs. Fixed:
// the command's process stats the guarded directories in the final view
// before the command runs (compileCommand) and the supervisor is given
// their device and inode.
//
// Reproducer (as an ordinary user):
//
//	d=$(mktemp -d); mkdir $d/proj
//	sbx run --profile workspace --cwd $d/proj -- sh -c "chmod 000 $d; mkdir .git; chmod 755 $d"
//	ls -d $d/proj/.git     # exists
//
// Two layouts: the workspace two levels below $TMPDIR, and one level below
// a user-owned directory in the default /tmp. Must hold: mkdir .git fails
// (EACCES) and no .git exists afterwards. Root runs hold (the supervisor
// keeps root's capabilities and its stat crosses the 000 directory).
func TestRedTeam21GuardRootUnsearchable(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		tmpBase, err := os.MkdirTemp("/tmp", "rt21g")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(tmpBase, 0o755); os.RemoveAll(tmpBase) })
		rt21Tree(t, u, tmpBase, "proj")
		rt21Tree(t, u, f.base, "tmp/a/proj")
		for _, c := range []struct {
			name, dir, cwd string
			env            []string
		}{
			{"tmpdir", f.base + "/tmp/a", f.base + "/tmp/a/proj", []string{"TMPDIR=" + f.base + "/tmp"}},
			{"slash-tmp", tmpBase, tmpBase + "/proj", nil},
		} {
			t.Run(c.name, func(t *testing.T) {
				script := "chmod 000 " + c.dir + "; mkdir .git; echo mk=$?; chmod 755 " + c.dir +
					"; [ -d .git ] && { echo '[core] fsmonitor = touch pwned' > .git/config; echo wrote=$?; }; true"
				// Control: without the sandbox the same script creates .git.
				if out := rt16As(u, c.env, c.cwd, script); !strings.Contains(out, "mk=0") {
					t.Fatalf("control: %q", out)
				}
				os.RemoveAll(c.cwd + "/.git")
				r := rtShell(t, f, "workspace", c.cwd, script, c.env...)
				t.Logf("%s: %q %q", u.name, r.Stdout, r.Stderr)
				if !strings.Contains(r.Stdout, "mk=1") {
					t.Errorf("mkdir .git in the workspace after chmod 000 on %s: %q (want mk=1, EACCES)", c.dir, r.Stdout)
				}
				if !strings.Contains(r.Stderr, "Permission denied") {
					t.Errorf("mkdir .git: stderr %q, want Permission denied", r.Stderr)
				}
				if fileExists(c.cwd + "/.git") {
					t.Errorf("HOLE: the protected %s/.git was created by the command (the supervisor's guard was skipped)", c.cwd)
				}
			})
		}
	})
}

// TestRedTeam21HomeRefusalAccountHome: was a HOLE (root; the only account here
// whose home directory exists). sbx refuses a writable working directory
// that is or contains the home directory (README, --cwd: "or is or contains
// your home directory"; bind.go CheckWritableRoots), and knows the home
// directory from $HOME, or from the password database when $HOME is unset
// or relative (DefaultBindings). With HOME=/ (skipped explicitly:
// `home != "/"`; daemons and containers often run with it) or HOME set to
// another directory (a CI job's scratch home), the account's own home
// directory is not recognised: `sbx run --cwd /root` runs the workspace
// profile with /root/.bashrc, /root/.profile and /root/.ssh/authorized_keys
// writable, which root's next login runs outside the sandbox.
//
// Reproducer (as root):
//
//	HOME=/ sbx run --profile workspace --cwd /root -- sh -c 'echo evil >> /root/.bashrc'
//
// The test runs /bin/true only (nothing is written). Must hold: 125, the
// refusal naming the home directory, as with HOME=/root (the control).
func TestRedTeam21HomeRefusalAccountHome(t *testing.T) {
	u := users[0]
	home := landlock.AccountHome(u.uid)
	if fi, err := os.Stat(home); home == "" || home == "/" || err != nil || !fi.IsDir() {
		t.Skipf("root's home directory %q is not a directory", home)
	}
	run := func(homeEnv string) rtResult {
		return rtRun(t, rtOpts{u: u, args: []string{"--profile", "workspace", "--cwd", home, "--", "/bin/true"}, env: []string{"HOME=" + homeEnv}})
	}
	// Control: with HOME at the account's home the run is refused.
	if r := run(home); r.ExitCode != 125 || !strings.Contains(r.SbxError, "home directory") {
		t.Fatalf("control HOME=%s: exit %d, %q", home, r.ExitCode, r.SbxError)
	}
	// Another home outside /tmp (one below /tmp is refused for /tmp's sake).
	other, err := os.MkdirTemp("/var/tmp", "rt21h")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(other) })
	for _, h := range []string{"/", other} {
		r := run(h)
		t.Logf("HOME=%s: exit %d %q", h, r.ExitCode, r.SbxError)
		if r.ExitCode != 125 || !strings.Contains(r.SbxError, home) {
			t.Errorf("HOLE: HOME=%s sbx run --profile workspace --cwd %s: exit %d (sbx_error %q); want 125: the account's home directory %s is made writable", h, home, r.ExitCode, r.SbxError, home)
		}
	}
}

// TestRedTeam21RunDirsUnrefused: was a HOLE (root). sbx refuses a writable
// working directory or $TMPDIR that lies in a directory of programs,
// libraries or configuration the host runs outside the sandbox (README,
// --cwd; bind.go runDirs: /etc, /bin, /sbin, /lib*, /usr/bin, /usr/sbin,
// /usr/lib*, /usr/libexec, /usr/local/{bin,sbin,lib,lib64,libexec,etc},
// /var/spool/cron; red team 20 added /usr/local/bin). The list misses
// directories that hold exactly that: Perl's libraries /usr/share/perl5 and
// /usr/share/perl/VERSION and /usr/local/share/perl (on every perl's @INC;
// debconf, which root's apt and dpkg run, is Perl), dpkg's maintainer
// scripts /var/lib/dpkg/info (run by root at the next package operation),
// and /usr/share/bash-completion/completions (sourced by every interactive
// bash). `sbx run --cwd /usr/share/perl5` as root runs the workspace
// profile with the host's Perl modules writable.
//
// Reproducer (as root):
//
//	sbx run --profile workspace --cwd /usr/share/perl5 -- sh -c 'echo "system q(id>/tmp/pwn);1;" > Debconf/Log.pm'
//	TMPDIR=/var/lib/dpkg/info sbx run --profile workspace -- sh -c 'echo "id>/tmp/pwn" >> $TMPDIR/base-files.postinst'
//
// The test runs /bin/true only (nothing is written). Control: /usr/lib/x
// and /usr/local/bin are refused. Must hold: 125 for each directory that
// exists here.
func TestRedTeam21RunDirsUnrefused(t *testing.T) {
	u := users[0]
	runAt := func(cwd string, env ...string) rtResult {
		return rtRun(t, rtOpts{u: u, args: []string{"--profile", "workspace", "--cwd", cwd, "--", "/bin/true"}, env: append([]string{"HOME=/root"}, env...)})
	}
	for _, d := range []string{"/usr/lib", "/usr/local/bin"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			if r := runAt(d); r.ExitCode != 125 {
				t.Fatalf("control: --cwd %s: exit %d", d, r.ExitCode)
			}
		}
	}
	if perl, err := exec.LookPath("perl"); err == nil {
		out, _ := exec.Command(perl, "-e", `print join(":", @INC)`).Output()
		t.Logf("perl @INC: %s", out)
	}
	var dirs []string
	for _, d := range []string{"/usr/share/perl5", "/usr/local/share/perl", "/var/lib/dpkg/info", "/usr/share/bash-completion/completions"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			dirs = append(dirs, d)
		}
	}
	if m, _ := filepath.Glob("/usr/share/perl/5*"); len(m) > 0 {
		dirs = append(dirs, m[0])
	}
	if len(dirs) == 0 {
		t.Skip("none of the directories exists here")
	}
	for _, d := range dirs {
		r := runAt(d)
		t.Logf("--cwd %s: exit %d %q", d, r.ExitCode, r.SbxError)
		if r.ExitCode != 125 {
			t.Errorf("HOLE: sbx run --profile workspace --cwd %s: exit %d, want 125 (the host runs what lies there)", d, r.ExitCode)
		}
	}
	if fi, err := os.Stat("/var/lib/dpkg/info"); err == nil && fi.IsDir() {
		r := runAt("/tmp", "TMPDIR=/var/lib/dpkg/info")
		t.Logf("TMPDIR=/var/lib/dpkg/info: exit %d %q", r.ExitCode, r.SbxError)
		if r.ExitCode != 125 {
			t.Errorf("HOLE: TMPDIR=/var/lib/dpkg/info sbx run --profile workspace: exit %d, want 125", r.ExitCode)
		}
	}
}

// TestRedTeam21HeldPinnedSubmounts: held. The directories between /tmp and
// the workspace are pinned (bound onto themselves) so that the command
// cannot rename them; a pin that were not recursive would drop the host's
// mounts below it: a read-only bind would come back writable and a tmpfs
// the host mounted over a directory would uncover what lies beneath. In a
// private mount namespace (nothing stays mounted), below a pinned
// directory: p/rodir a read-only bind, p/hid a tmpfs over a directory
// holding "secret". Must hold: rodir/f is EROFS, hid shows the tmpfs's
// file and not the covered one.
func TestRedTeam21HeldPinnedSubmounts(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		b, err := os.MkdirTemp("/tmp", "rt21p")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(b) })
		rt21Tree(t, u, b, "p/ws", "p/rodir", "p/hid")
		os.WriteFile(b+"/p/hid/secret", []byte("under"), 0o644)
		os.WriteFile(b+"/p/rodir/f", []byte("ro"), 0o644)
		os.Lchown(b+"/p/hid/secret", u.uid, u.uid)
		os.Lchown(b+"/p/rodir/f", u.uid, u.uid)
		setup := "mount --bind " + b + "/p/rodir " + b + "/p/rodir; mount -o remount,bind,ro " + b + "/p/rodir\n" +
			"mount -t tmpfs -o mode=755 none " + b + "/p/hid; echo top > " + b + "/p/hid/x; chown -R " + strconv.Itoa(u.uid) + " " + b + "/p/hid"
		script := "cat " + b + "/p/hid/secret; ls " + b + "/p/hid; echo w >> " + b + "/p/rodir/f; echo ro=$?; echo w > " + b + "/p/ws/ok; echo ws=$?"
		r := rt17Run(t, u, f.home, setup, "--profile", "workspace", "--cwd", b+"/p/ws", "--", "/bin/sh", "-c", script)
		t.Logf("%q %q", r.Stdout, r.Stderr)
		if strings.Contains(r.Stdout, "under") || !strings.Contains(r.Stderr, "No such file") {
			t.Errorf("the covered directory below a pinned one is uncovered: %q %q", r.Stdout, r.Stderr)
		}
		if !strings.Contains(r.Stdout, "x\n") {
			t.Errorf("the host's tmpfs below a pinned directory is gone: %q", r.Stdout)
		}
		if strings.Contains(r.Stdout, "ro=0") || !strings.Contains(r.Stderr, "Read-only file system") {
			t.Errorf("the host's read-only bind below a pinned directory is writable: %q %q", r.Stdout, r.Stderr)
		}
		if !strings.Contains(r.Stdout, "ws=0") {
			t.Errorf("the workspace is not writable: %q", r.Stdout)
		}
		if b, _ := os.ReadFile(b + "/p/rodir/f"); string(b) != "ro" {
			t.Errorf("rodir/f = %q", b)
		}
	})
}

// TestRedTeam21HeldShmTmpdir: held. $TMPDIR in /dev/shm is accepted (README:
// "except what lies in /dev/shm") and carried through the /dev mask of a
// profile that reads /; the rest of the host's /dev/shm (POSIX shared
// memory of the user's host processes) must stay hidden: the command
// writes its TMPDIR and cannot open a host segment next to it.
func TestRedTeam21HeldShmTmpdir(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		tmp, err := os.MkdirTemp("/dev/shm", "rt21t")
		if err != nil {
			t.Skip(err)
		}
		t.Cleanup(func() { os.RemoveAll(tmp) })
		os.Chown(tmp, u.uid, u.uid)
		seg := tmp + ".seg"
		os.WriteFile(seg, []byte("hostshm"), 0o644)
		os.Chown(seg, u.uid, u.uid)
		t.Cleanup(func() { os.Remove(seg) })
		// Control: the user reads the segment without the sandbox.
		if out := rt16As(u, nil, "/", "cat "+seg); !strings.Contains(out, "hostshm") {
			t.Fatalf("control: %q", out)
		}
		r := rtShell(t, f, "workspace", f.nogit, "echo hi > "+tmp+"/f; echo w=$?; cat "+seg+"; echo r=$?", "TMPDIR="+tmp)
		t.Logf("%q %q", r.Stdout, r.Stderr)
		if !strings.Contains(r.Stdout, "w=0") {
			t.Errorf("TMPDIR in /dev/shm is not writable: %q %q", r.Stdout, r.Stderr)
		}
		if strings.Contains(r.Stdout, "hostshm") || !strings.Contains(r.Stdout, "r=1") {
			t.Errorf("the host's /dev/shm is readable next to TMPDIR: %q", r.Stdout)
		}
	})
}

// TestRedTeam21HeldNoSupervisorEnv: held. SBX_LANDLOCK_NO_SUPERVISOR=1, an
// environment variable sbx honours (tests), must not give less than the
// profile says without saying so: the protected .git cannot be created
// (restrictive layout: the result's no_create lists it), and the Unix
// names the command binds are in a network namespace of the sandbox's own
// (no supervisor to refuse abstract names), not the host's.
func TestRedTeam21HeldNoSupervisorEnv(t *testing.T) {
	host, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Skip(err)
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		r := rtShell(t, f, "workspace", f.nogit, "mkdir .git; echo mk=$?; readlink /proc/self/ns/net", "SBX_LANDLOCK_NO_SUPERVISOR=1")
		t.Logf("%q %q", r.Stdout, r.Stderr)
		if !strings.Contains(r.Stdout, "mk=1") || fileExists(f.nogit+"/.git") {
			t.Errorf("SBX_LANDLOCK_NO_SUPERVISOR=1: .git created: %q", r.Stdout)
		}
		if strings.Contains(r.Stdout, host) {
			t.Errorf("SBX_LANDLOCK_NO_SUPERVISOR=1: the command shares the host's network namespace %s", host)
		}
		if !strings.Contains(r.Sandbox.String(), `"no_create"`) || !strings.Contains(r.Sandbox.String(), `"restrictive"`) {
			t.Errorf("SBX_LANDLOCK_NO_SUPERVISOR=1: the result does not report the restrictive layout: %s", r.Sandbox)
		}
	})
}
