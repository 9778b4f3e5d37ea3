//go:build linux && amd64

package launch_test

// Red team 14: escape classes the earlier batteries do not cover, through
// the real sbx binary (built by TestMain), as root and as uid 65534, with
// the C helper testdata/redteam14/rt14.c:
//
//   - file-system ioctls that create directory entries or copy trees
//     without any path hook: btrfs subvolumes and snapshots
//     (BTRFS_IOC_SUBVOL_CREATE, BTRFS_IOC_SNAP_CREATE_V2), which neither
//     Landlock (no security_path_mkdir in btrfs_mksubvol) nor the
//     supervisor (an ioctl is not a creation system call) see, on a btrfs
//     file system the test makes on a loop device;
//   - metadata of paths outside every readable rule (lstat, readlink,
//     getxattr, listxattr), which Landlock does not mediate, in a profile
//     without a read rule on / (t-narrow), and the masks of denied paths
//     in a readable tree (t-carve);
//   - the kernel's trace buffers in /sys/kernel/tracing, readable by a
//     root-run command (tracefs is mode 0700 root: the owner check needs no
//     capability);
//   - 6.x kernel interfaces and odd system call entries: pidfd namespace
//     ioctls on the init and on the command itself, NS_GET_PARENT,
//     NS_MNT_GET_NEXT, open_tree_attr, x32 and int 0x80 entries, clone3,
//     high words in the arguments the filter inspects (ioctl, prlimit64,
//     personality), RLIMIT_CORE raised again, Landlock's ABI 7 flags.
//
//	go test -count=1 -run 'RedTeam14[^F]' -v ./targets/landlock/launch
//	SBX_RT14_HOLES=1 go test -count=1 -run 'RedTeam14[^F]' -v ./targets/landlock/launch

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/compiler"
)

// rx14Holes skips a test that reproduces a hole unless SBX_RT14_HOLES=1
// (then the test goes on and fails on the hole).
func rx14Holes(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("SBX_RT14_HOLES") != "1" {
		t.Skip("HOLE: " + what + " (SBX_RT14_HOLES=1 to run)")
	}
}

// rx14Helper builds testdata/redteam14/rt14.c into bin once.
func rx14Helper(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("testdata/redteam14/rt14.c")
	if err != nil {
		t.Fatal(err)
	}
	return cHelper(t, "rx14", string(src))
}

// rx14Int80 caches rx14Int80Faults's control run.
var rx14Int80 struct {
	sync.Once
	faults bool
	out    string
	err    error
}

// rx14Int80Faults reports whether int 0x80 faults on this machine without
// any sandbox (rt14 int80, run directly: a getpid through the 32-bit
// entry). Some virtual machines have no such entry at all (a PVM guest
// raises a general-protection fault for it, CONFIG_IA32_EMULATION or
// not): then there is nothing to escape through, in a sandbox or out of
// one, and the tests of that entry can only check that it faults there
// too. Any other answer than ok or FAULT fails the test.
func rx14Int80Faults(t *testing.T) bool {
	t.Helper()
	rt := rx14Helper(t)
	rx14Int80.Do(func() {
		out, err := exec.Command(rt, "int80").Output()
		rx14Int80.out, rx14Int80.err = strings.TrimSpace(string(out)), err
		rx14Int80.faults = rx14Int80.out == "int80=FAULT"
	})
	if rx14Int80.err != nil || (rx14Int80.out != "int80=ok" && !rx14Int80.faults) {
		t.Fatalf("control: rt14 int80 without a sandbox: %q, %v", rx14Int80.out, rx14Int80.err)
	}
	return rx14Int80.faults
}

// rx14Run runs argv under profile ("@file.json": an artifact in bin; else
// a built-in name) in cwd as u, with HOME=home and extra environment for
// sbx, and fails on an sbx error.
func rx14Run(t *testing.T, u user, home, profile, cwd string, env []string, argv ...string) rtResult {
	t.Helper()
	args := []string{"--timeout", "30s", "--cwd", cwd}
	if strings.HasPrefix(profile, "@") {
		args = append(args, "--artifact", filepath.Join(bin, profile[1:]))
	} else {
		args = append(args, "--profile", profile)
	}
	args = append(args, "--")
	r := rtRun(t, rtOpts{u: u, args: append(args, argv...), env: append([]string{"HOME=" + home}, env...), timeout: 60 * time.Second})
	if r.SbxError != "" {
		t.Fatalf("sbx %v: %s", argv, r.SbxError)
	}
	return r
}

// rx14Field runs argv under profile and returns the value of key in its
// output ("" when missing).
func rx14Field(t *testing.T, u user, home, profile, cwd string, env []string, key string, argv ...string) string {
	t.Helper()
	r := rx14Run(t, u, home, profile, cwd, env, argv...)
	v, ok := rx13Fields(r.Stdout)[key]
	if !ok {
		t.Fatalf("%v: no %s in the output (exit %d): stdout %q stderr %q", argv, key, r.ExitCode, r.Stdout, r.Stderr)
	}
	return v
}

// rx14Mkdirs creates dirs (and parents) owned by uid.
func rx14Mkdirs(t *testing.T, uid int, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
}

// rx14Write writes a file owned by uid.
func rx14Write(t *testing.T, uid int, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, uid, uid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// ---------------------------------------------------------------------------
// 1. btrfs: subvolumes and snapshots.

// rx14Btrfs makes a btrfs file system on a loop device and mounts it below
// /var/tmp for the test (removed at its end); it skips where that is not
// possible (not root, no mkfs.btrfs, no btrfs in the kernel, no loop
// device).
func rx14Btrfs(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("making a btrfs file system needs root")
	}
	mkfs, err := exec.LookPath("mkfs.btrfs")
	if err != nil {
		t.Skip("mkfs.btrfs is missing (Debian: btrfs-progs)")
	}
	if fs, err := os.ReadFile("/proc/filesystems"); err != nil || !bytes.Contains(fs, []byte("\tbtrfs\n")) {
		t.Skip("the kernel has no btrfs")
	}
	base, err := os.MkdirTemp("/var/tmp", "sbxrt14bt")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(base, 0o755)
	img, mnt := base+"/img", base+"/mnt"
	t.Cleanup(func() {
		if err := exec.Command("umount", mnt).Run(); err != nil {
			exec.Command("umount", "-l", mnt).Run()
		}
		os.RemoveAll(base)
	})
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 256<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mkfs, "-q", img).CombinedOutput(); err != nil {
		t.Skipf("mkfs.btrfs: %v\n%s", err, out)
	}
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		t.Skipf("mounting the btrfs image: %v\n%s", err, out)
	}
	os.Chmod(mnt, 0o755)
	return mnt
}

// rx14Vol is a subvolume of the user's own (as a home directory on btrfs
// is, or a project checked out into a subvolume), holding
//
//	home/.ssh/id_rsa   the secret (0600; denied by rx14-btrfs)
//	ws/, ws2/          workspaces without .git
//	outside/           readable, outside every writable root
type rx14Vol struct {
	vol, home, ws, ws2, outside, secret string
}

func rx14NewVol(t *testing.T, rt, mnt string, u user) rx14Vol {
	t.Helper()
	name := "vol-" + u.name
	out, err := exec.Command(rt, "subvol", mnt, name).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "subvol=ok" {
		t.Fatalf("creating the subvolume: %v %s", err, out)
	}
	v := rx14Vol{vol: mnt + "/" + name}
	v.home, v.ws, v.ws2, v.outside = v.vol+"/home", v.vol+"/ws", v.vol+"/ws2", v.vol+"/outside"
	v.secret = "btrfs-secret-" + u.name
	os.Chown(v.vol, u.uid, u.uid)
	rx14Mkdirs(t, u.uid, v.home, v.home+"/.ssh", v.ws, v.ws+"/sub", v.ws2, v.ws2+"/sub", v.outside)
	os.Chmod(v.home+"/.ssh", 0o700)
	rx14Write(t, u.uid, v.home+"/.ssh/id_rsa", v.secret+"\n", 0o600)
	rx14Write(t, u.uid, v.outside+"/file", "out\n", 0o644)
	return v
}

const rx14BtrfsProfile = `
profile "rx14-btrfs" {
  filesystem {
    read    = [root]
    write   = [cwd]
    deny    = ["~/.ssh"]
    protect = [".git"]
  }
  network { mode = "none" }
}
`

// TestRedTeam14BtrfsSubvolumeGuard: was a HOLE, fixed: the seccomp filter
// now refuses btrfs's ioctls (EPERM) but FICLONE, FICLONERANGE and
// FIDEDUPERANGE, so the ioctl below fails for any name. A guarded name (a protected
// name missing directly below a writable root: .git in a fresh workspace)
// is created with the ioctl BTRFS_IOC_SUBVOL_CREATE when the workspace is
// on btrfs. btrfs_mksubvol looks the name up and checks btrfs_may_create
// (DAC) only: no security_path_mkdir, so Landlock's make_dir right is not
// asked for, and an ioctl is not a creation system call, so the seccomp
// filter does not send it to the supervisor (it sends mkdir, mknod,
// symlink, link, rename, bind and O_CREAT opens). The same ioctl also
// creates .git where the supervisor is unavailable
// (SBX_LANDLOCK_NO_SUPERVISOR=1) and the restrictive fallback took the
// creation rights from the whole workspace top (mkdir of any name there
// fails with EACCES).
//
// Reproducer: on btrfs, in an empty directory, `sbx run -- rt14 subvol .
// .git` (the workspace profile; any profile with protect and a missing
// name), as root and as any user: subvol=ok, and the host has DIR/.git,
// a directory the command filled (a config with core.fsmonitor or hooks
// would then run on the host's next git command there: the persistence
// protect exists to prevent). Controls: mkdir .git fails with EACCES in
// the same run; the ioctl makes an ordinary subvolume.
//
// Impact: every protected or denied name that is missing (.git, .hg,
// .svn, .jj, .agents in the workspace profile) can be created as a
// directory on btrfs (Fedora's and openSUSE's default file system), and
// without the supervisor the no_create restriction is void too.
func TestRedTeam14BtrfsSubvolumeGuard(t *testing.T) {
	rt := rx14Helper(t)
	mnt := rx14Btrfs(t)
	asUser(t, func(t *testing.T, u user) {
		v := rx14NewVol(t, rt, mnt, u)
		for _, c := range []struct {
			name, ws string
			env      []string
		}{
			{"supervised", v.ws, nil},
			{"no-supervisor", v.ws2, []string{"SBX_LANDLOCK_NO_SUPERVISOR=1"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				// Controls: mkdir .git is refused; an ordinary subvolume
				// is made (supervised) or refused like any creation at
				// the top (no-supervisor).
				if got := rx14Field(t, u, v.home, "workspace", c.ws, c.env, "mkdir", rt, "mkdir", ".git"); got != "EACCES" {
					t.Fatalf("control: mkdir .git = %s, want EACCES", got)
				}
				if c.env != nil {
					if got := rx14Field(t, u, v.home, "workspace", c.ws, c.env, "mkdir", rt, "mkdir", "plain"); got != "EACCES" {
						t.Fatalf("control: mkdir plain = %s, want EACCES (the restrictive fallback)", got)
					}
				}
				// An ordinary subvolume is refused by the filter too.
				if got := rx14Field(t, u, v.home, "workspace", c.ws, c.env, "subvol", rt, "subvol", ".", "plain"); got != "EPERM" {
					t.Errorf("an ordinary subvolume: %s, want EPERM (the filter)", got)
				}
				got := rx14Field(t, u, v.home, "workspace", c.ws, c.env, "subvol", rt, "subvol", ".", ".git")
				_, err := os.Lstat(c.ws + "/.git")
				if got != "EPERM" || err == nil {
					t.Errorf("BTRFS_IOC_SUBVOL_CREATE of .git: %s, want EPERM; on the host: %v", got, err)
				}
			})
		}
	})
}

// TestRedTeam14BtrfsSnapshotDenied: was a HOLE, fixed: the filter refuses
// BTRFS_IOC_SNAP_CREATE_V2 (EPERM) like every btrfs ioctl that is not a
// generic clone or dedupe. A denied path (a mask over
// ~/.ssh) is read through a snapshot: BTRFS_IOC_SNAP_CREATE_V2 on a
// writable directory, with a descriptor of a subvolume the user owns
// (opened for reading, which read = [root] allows), copies the whole
// subvolume, masked paths included (the mask is a mount in the view, the
// snapshot copies the file system's tree), to a new name in the
// workspace, where no rule and no mask applies. Unprivileged users may
// snapshot subvolumes they own (inode_owner_or_capable), root every
// subvolume root owns, i.e. all of them.
//
// Reproducer: HOME on a subvolume of the user's (or / on btrfs for root),
// a profile that denies ~/.ssh and writes the cwd, in the cwd: `rt14
// snap $HOME/.. . s; cat s/home/.ssh/id_rsa` prints the key, while `cat
// ~/.ssh/id_rsa` fails with EACCES. Both users.
//
// Impact: on btrfs, deny and deny_glob protect nothing that lies in a
// subvolume the user owns and shares a file system with a writable root
// (a snapshot costs nothing and is instant).
func TestRedTeam14BtrfsSnapshotDenied(t *testing.T) {
	rt := rx14Helper(t)
	mnt := rx14Btrfs(t)
	art := rx13Artifact(t, "rx14-btrfs.json", "rx14-btrfs", compiler.Source{Name: "rx14.hcl", Data: []byte(rx14BtrfsProfile)})
	prof := "@" + filepath.Base(art)
	asUser(t, func(t *testing.T, u user) {
		v := rx14NewVol(t, rt, mnt, u)
		if got := rx14Field(t, u, v.home, prof, v.ws, nil, "cat", rt, "cat", v.home+"/.ssh/id_rsa"); got != "EACCES" {
			t.Fatalf("control: the denied key reads %q, want EACCES", got)
		}
		got := rx14Field(t, u, v.home, prof, v.ws, nil, "snap", rt, "snap", v.vol, ".", "snap")
		read := ""
		if got == "ok" {
			read = rx14Field(t, u, v.home, prof, v.ws, nil, "cat", rt, "cat", "snap/home/.ssh/id_rsa")
		}
		if got != "EPERM" || strings.Contains(read, v.secret) {
			t.Errorf("snapshot of the user's subvolume: %s, want EPERM; the denied key read through it: %q", got, read)
		}
	})
}

// TestRedTeam14BtrfsReadOnlyHeld: no subvolume or snapshot anywhere. Both
// ioctls take mnt_want_write_file on the destination, so the view's
// read-only mounts held them (EROFS) before the filter refused every btrfs
// ioctl; now the filter answers first (EPERM) in a directory outside the
// writable roots (outside/), an existing protected .git (a read-only
// bind), a read-only carve-out and the workspace itself, and nothing
// appears on the host.
func TestRedTeam14BtrfsReadOnlyHeld(t *testing.T) {
	rt := rx14Helper(t)
	mnt := rx14Btrfs(t)
	// rx14-btrfs with a read-only carve-out, ws/ro, as in t-carve.
	src := strings.Replace(rx14BtrfsProfile, `"rx14-btrfs"`, `"rx14-btrfs-ro"`, 1)
	src = strings.Replace(src, `read    = [root]`, `read    = [root, path(cwd, "ro")]`, 1)
	art := rx13Artifact(t, "rx14-btrfs-ro.json", "rx14-btrfs-ro", compiler.Source{Name: "rx14ro.hcl", Data: []byte(src)})
	prof := "@" + filepath.Base(art)
	asUser(t, func(t *testing.T, u user) {
		v := rx14NewVol(t, rt, mnt, u)
		rx14Mkdirs(t, u.uid, v.ws+"/.git", v.ws+"/ro")
		rx14Write(t, u.uid, v.ws+"/.git/config", "cfg\n", 0o644)
		for _, dst := range []string{v.outside, v.ws + "/.git", v.ws + "/ro", v.ws} {
			if got := rx14Field(t, u, v.home, prof, v.ws, nil, "subvol", rt, "subvol", dst, "x"); got != "EPERM" {
				t.Errorf("subvolume in %s: %s, want EPERM", dst, got)
			}
			if got := rx14Field(t, u, v.home, prof, v.ws, nil, "snap", rt, "snap", v.vol, dst, "s"); got != "EPERM" {
				t.Errorf("snapshot into %s: %s, want EPERM", dst, got)
			}
			for _, n := range []string{"x", "s"} {
				if _, err := os.Lstat(dst + "/" + n); err == nil {
					t.Errorf("%s/%s exists on the host", dst, n)
				}
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 2. Metadata outside the readable rules.

// TestRedTeam14MetadataOutsideReadable: HOLE, now a documented limit
// (README, Known limits: metadata outside the read rules). In a profile
// without a read rule on / (t-narrow: read and write the cwd only), paths
// outside every rule are not masked, and Landlock mediates opens, not
// lookups: lstat tells whether any path exists and gives its size, mode,
// owner and times; readlink returns a symlink's target; getxattr and
// listxattr return extended attributes' names and values (user.* values
// are data: a downloaded file's origin URL, tags, checksums). The open
// fails (EACCES), as the profile says. The README covers the same class
// for inotify (watches on unreadable directories go to the supervisor,
// "which would reveal the names created there") but not for these calls.
//
// Reproducer: `sbx run --artifact t-narrow.json -- ./rt14 meta
// /var/tmp/x/outside/file /var/tmp/x/outside/lnk`: lstat=ok:size=..,
// readlink=ok:/target-TOKEN, getxattr=ok:TOKEN, open=EACCES. Both users.
//
// Impact: existence, size and times of any guessable path (home
// directories, other projects, credentials), symlink targets and xattr
// values outside the profile's readable paths.
func TestRedTeam14MetadataOutsideReadable(t *testing.T) {
	rt := rx14Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		tok := "rx14-" + rt6Token()
		file, lnk := f.outside+"/file", f.outside+"/lnk"
		if err := unix.Lsetxattr(file, "user.rx14", []byte(tok), 0); err != nil {
			t.Skipf("user xattrs unsupported here: %v", err)
		}
		if err := os.Symlink("/target-"+tok, lnk); err != nil {
			t.Fatal(err)
		}
		os.Lchown(lnk, u.uid, u.uid)
		rt12Copy(t, rt, f.ws+"/rx14", 0o755, u.uid)
		r := rx14Run(t, u, f.home, "@t-narrow.json", f.ws, nil, f.ws+"/rx14", "meta", file, lnk)
		got := rx13Fields(r.Stdout)
		if got["open1"] != "EACCES" {
			t.Fatalf("control: the outside file opens (%s): %q", got["open1"], r.Stdout)
		}
		var leaks []string
		if strings.HasPrefix(got["lstat1"], "ok") {
			leaks = append(leaks, "lstat "+got["lstat1"])
		}
		if strings.Contains(got["getxattr1"], tok) {
			leaks = append(leaks, "getxattr "+got["getxattr1"])
		}
		if strings.Contains(got["readlink2"], tok) {
			leaks = append(leaks, "readlink "+got["readlink2"])
		}
		if len(leaks) > 0 {
			rx14Holes(t, "lstat, readlink and getxattr reach paths outside every readable rule (t-narrow)")
			t.Errorf("metadata outside the readable rules: %v", leaks)
		}
	})
}

// TestRedTeam14MetadataMaskedHeld: in a profile that reads / (t-carve),
// a denied path is a mode-000 mask: lstat, readlink, getxattr and
// listxattr below a denied directory fail with EACCES, and a denied file
// shows the mask's empty mode-000 inode, not the file (size 0, no xattr).
// Controls: the same calls on the readable outside/file work and return
// the xattr.
func TestRedTeam14MetadataMaskedHeld(t *testing.T) {
	rt := rx14Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		tok := "rx14-" + rt6Token()
		key, secret := f.home+"/.ssh/id_rsa", f.ws+"/secret"
		for _, p := range []string{key, secret, f.outside + "/file"} {
			if err := unix.Lsetxattr(p, "user.rx14", []byte(tok), 0); err != nil {
				t.Skipf("user xattrs unsupported here: %v", err)
			}
		}
		r := rx14Run(t, u, f.home, "@t-carve.json", f.ws, nil, rt, "meta", key, secret, f.outside+"/file")
		got := rx13Fields(r.Stdout)
		if !strings.Contains(got["getxattr3"], tok) || !strings.HasPrefix(got["lstat3"], "ok") || got["open3"] != "ok" {
			t.Fatalf("control: outside/file: %q", r.Stdout)
		}
		for _, k := range []string{"lstat1", "readlink1", "getxattr1", "listxattr1", "open1", "open2"} {
			if got[k] != "EACCES" {
				t.Errorf("%s = %q, want EACCES", k, got[k])
			}
		}
		if got["lstat2"] != "ok:size=0:mode=0" {
			t.Errorf("the denied file's lstat shows %q, want the mask's (ok:size=0:mode=0)", got["lstat2"])
		}
		if strings.Contains(got["getxattr2"], tok) {
			t.Errorf("the denied file's xattr was read: %q", got["getxattr2"])
		}
	})
}

// ---------------------------------------------------------------------------
// 3. The kernel's trace buffers.

// TestRedTeam14TracefsHost: was a HOLE for root-run commands, fixed: sbx
// run by root detaches /sys/kernel/tracing and /sys/kernel/debug from the
// view when they are mounted (mode 0700; BindOptions.Root). The fresh /proc
// hides other processes, but /sys is the host's (read-only), and
// /sys/kernel/tracing is tracefs: mode 0700, owner root, so uid 0 passes
// the permission check without any capability. A root-run command (in
// every built-in profile, which all read /) reads the host's trace
// buffers: what the kernel traced of other processes (syscalls with their
// arguments, process names and pids, exec'd file names, trace_marker
// lines of the host's tools), and can consume them through trace_pipe so
// that the host's tracer never sees them. The test writes a marker into a
// trace instance of its own (not the host's global buffer) and reads it
// from the sandbox. Held for uid 65534: EACCES.
//
// Reproducer: as root, `sbx run -- cat /sys/kernel/tracing/trace` (this
// machine's global buffer held 88,000 syscall events of host processes
// when it was found).
//
// Impact: for root-run commands, disclosure of other processes' activity
// and destruction of the host's trace data; the same holds for debugfs
// (/sys/kernel/debug) where the host mounts it.
func TestRedTeam14TracefsHost(t *testing.T) {
	rt := rx14Helper(t)
	const tracing = "/sys/kernel/tracing"
	if _, err := os.Stat(tracing + "/instances"); err != nil {
		t.Skipf("no tracefs instances here: %v", err)
	}
	inst := tracing + "/instances/sbxrt14-" + strconv.Itoa(os.Getpid())
	if err := os.Mkdir(inst, 0o700); err != nil {
		t.Skipf("cannot make a trace instance: %v", err)
	}
	t.Cleanup(func() { os.Remove(inst) })
	tok := "rx14-host-marker-" + rt6Token()
	if err := os.WriteFile(inst+"/tracing_on", []byte("1\n"), 0); err != nil {
		t.Skipf("tracing_on: %v", err)
	}
	if err := os.WriteFile(inst+"/trace_marker", []byte(tok+"\n"), 0); err != nil {
		t.Skipf("trace_marker: %v", err)
	}
	if b, err := os.ReadFile(inst + "/trace"); err != nil || !bytes.Contains(b, []byte(tok)) {
		t.Skipf("the marker is not in the instance's buffer (%v)", err)
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, prof := range []string{"workspace", "read-only"} {
			r := rx14Run(t, u, f.home, prof, f.ws, nil, rt, "cat", inst+"/trace")
			got := rx13Fields(r.Stdout)["cat"]
			if u.uid != 0 {
				if got != "EACCES" {
					t.Errorf("%s: the trace instance as uid %d: %q, want EACCES", prof, u.uid, got)
				}
				continue
			}
			// cat prints the first line only: read the whole buffer.
			r = rx14Run(t, u, f.home, prof, f.ws, nil, "/bin/cat", inst+"/trace")
			if strings.Contains(r.Stdout, tok) {
				t.Errorf("%s: the host's trace marker was read in the sandbox", prof)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 4. 6.x kernel interfaces and odd system call entries.

// TestRedTeam14KernelInterfacesHeld: under the workspace profile (the
// supervisor's filter: .git missing) and t-ports (no supervisor), as both
// users, each of these fails with the errno given:
//
//   - int 0x80 mkdir (i386 table) and x32 mkdirat/getpid: ENOSYS, nothing
//     created (int 0x80: a fault where it faults without a sandbox too,
//     see rx14Int80Faults);
//   - open_tree_attr (6.15): EPERM; clone3: ENOSYS; clone(CLONE_NEWUSER):
//     EPERM;
//   - pidfd of the init (outside the command's Landlock domain):
//     PIDFD_GET_MNT/USER/NET_NAMESPACE (6.11) EACCES, pidfd_send_signal
//     and pidfd_getfd EPERM, setns on it EPERM;
//   - the command's own pidfd: its user namespace's parent (NS_GET_PARENT)
//     EPERM, NS_MNT_GET_NEXT (6.12, other mount namespaces) refused, the
//     PID namespace's parent refused, setns on its own namespaces EPERM;
//   - TIOCSTI with garbage in the high word of the command (the kernel
//     takes an unsigned int): EPERM; prlimit64 on pid 1+2^32 (pid_t is the
//     low word): EPERM; raising RLIMIT_CORE: EPERM; personality with a
//     high word: EPERM;
//   - landlock_restrict_self(-1, LOG_SUBDOMAINS_OFF), ABI 7's only call
//     without a ruleset: ENOSYS under the supervisor (nesting is
//     unavailable there; it serves bind() in every network mode); without
//     it (SBX_LANDLOCK_NO_SUPERVISOR, mode none in a network namespace of
//     its own), it succeeds, and only silences the audit records of
//     domains the command nests later (its own).
func TestRedTeam14KernelInterfacesHeld(t *testing.T) {
	rt := rx14Helper(t)
	want := map[string]string{
		"int80_mkdir": "ENOSYS", "x32_mkdirat": "ENOSYS", "x32_getpid": "ENOSYS",
		"open_tree_attr": "EPERM", "clone3": "ENOSYS", "clone_newuser": "EPERM",
		"pidfd_open1": "ok", "pidfd1_mntns": "EACCES", "pidfd1_userns": "EACCES", "pidfd1_netns": "EACCES",
		"pidfd1_signal": "EPERM", "pidfd1_getfd": "EPERM", "setns_pidfd1": "EPERM",
		"self_userns": "ok", "self_userns_parent": "EPERM", "setns_self_userns": "EPERM",
		"self_mntns": "ok", "setns_self_mntns": "EPERM",
		"tiocsti_high": "EPERM", "tiocsti": "EPERM", "prlimit_init_high": "EPERM",
		"rlimit_core_raise": "EPERM", "personality_high": "EPERM",
	}
	if rx14Int80Faults(t) {
		// No 32-bit entry on this machine: the instruction faults in the
		// sandbox as it does outside (nothing may be created either way).
		want["int80_mkdir"] = "FAULT"
	}
	refused := []string{"mntns_next", "mntns_prev", "pidns_parent"}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, c := range []struct {
			name, prof, cwd string
			env             []string
			landlock        string
		}{
			{"workspace", "workspace", f.nogit, nil, "ENOSYS"},
			{"t-ports", "@t-ports.json", f.ws, nil, "ENOSYS"}, // the supervisor serves bind()
			{"read-only, no supervisor", "read-only", f.ws, []string{"SBX_LANDLOCK_NO_SUPERVISOR=1"}, "ok"},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := rx14Run(t, u, f.home, c.prof, c.cwd, c.env, rt, "misc")
				got := rx13Fields(r.Stdout)
				for k, w := range want {
					if got[k] != w {
						t.Errorf("%s = %q, want %s", k, got[k], w)
					}
				}
				for _, k := range refused {
					if v, ok := got[k]; !ok || v == "ok" {
						t.Errorf("%s = %q, want a refusal", k, v)
					}
				}
				if got["landlock_restrict_log"] != c.landlock {
					t.Errorf("landlock_restrict_log = %q, want %s", got["landlock_restrict_log"], c.landlock)
				}
				for _, n := range []string{"rx14-int80", "rx14-x32"} {
					if _, err := os.Lstat(filepath.Join(c.cwd, n)); err == nil {
						t.Errorf("%s was created", n)
					}
				}
			})
		}
	})
}

// ---------------------------------------------------------------------------
// 5. Leases on read-only files.

// TestRedTeam14LeaseReadOnly: was a HOLE (denial of service, bounded),
// fixed: the filter refuses F_SETLEASE (EPERM). Landlock
// and the read-only view leave fcntl alone: a command may take a read
// lease (F_SETLEASE F_RDLCK) on any file it can open for reading and owns
// (root: every root-owned file, /etc/passwd included; a user: the user's
// own files outside the writable roots, dotfiles, other projects). Every
// host process that then opens the file for writing (or truncates it)
// blocks until the command gives the lease up or the kernel's
// lease-break-time (45 s by default) has passed; the command, ignoring
// SIGIO, can take it again once the writer has closed the file. The test holds a
// lease from the sandbox on outside/file (read-only in the workspace
// profile) and times a host open for writing.
//
// Reproducer: `sbx run -- rt14 lease ~/.bashrc 60` and, on the host, `echo
// >> ~/.bashrc`: it hangs until the run ends (or 45 s). Both users.
//
// Impact: a sandboxed command stalls host processes writing files it may
// only read (a read-only profile included), for the run's duration; no
// data changes.
func TestRedTeam14LeaseReadOnly(t *testing.T) {
	rt := rx14Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		target := f.outside + "/file"
		cmd := rt6Cmd(u, []string{"HOME=" + f.home}, "--timeout", "30s", "--cwd", f.ws, "--profile", "workspace", "--", rt, "lease", target, "4")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		line := make(chan string, 1)
		go func() {
			b := make([]byte, 256)
			n, _ := out.Read(b)
			line <- strings.TrimSpace(string(b[:n]))
			for {
				if _, err := out.Read(b); err != nil {
					return
				}
			}
		}()
		var got string
		select {
		case got = <-line:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatal("the command never reported its lease")
		}
		if got == "lease=EPERM" {
			return // refused by the filter: the fix
		}
		if got != "lease=ok" {
			t.Fatalf("the lease: %q, want lease=EPERM", got)
		}
		start := time.Now()
		w, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
		blocked := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		t.Logf("a host open for writing waited %v", blocked)
		if blocked > 2*time.Second {
			t.Errorf("a host writer of a read-only file was blocked %v by the sandbox's lease", blocked)
		}
	})
}
