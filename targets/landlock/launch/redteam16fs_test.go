//go:build linux && amd64

package launch_test

// Red team 16 (file system and mount view), through the real sbx binary
// (built by TestMain), as root and as uid 65534:
//
//   - a device node outside /dev in the readable tree (a node planted
//     before the run, or a bind of the host's /dev in a build chroot):
//     the view masks /dev and makes writable roots nodev, but the
//     read-only base view is only RDONLY|NOSUID, so the raw device still
//     reads (TestRedTeam16FSDeviceNodeOutsideDev);
//   - held: submounts of a writable root and of a read-only carve-out
//     (a tmpfs on .git/hooks, a read-only bind in the workspace), a
//     workspace that is itself a tmpfs mount point (missing .git guarded
//     against mkdir, rename of an existing directory, symlink), a gitdir
//     file naming a directory in another writable root (/tmp) or reached
//     through a symlinked directory in the workspace, security.capability
//     and trusted.* xattrs (TestRedTeam16FSHeld).
//
//	go test -count=1 -run 'TestRedTeam16FS' -v ./targets/landlock/launch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// rt16Mount runs mount(8) with args and unmounts target at cleanup.
func rt16Mount(t *testing.T, target string, args ...string) {
	t.Helper()
	if out, err := exec.Command("mount", append(args, target)...).CombinedOutput(); err != nil {
		t.Skipf("mount %v %s: %v %s", args, target, err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", target).Run() })
}

// rt16Loop attaches file read-only to a free loop device and returns the
// device's path and number; it is detached at cleanup.
func rt16Loop(t *testing.T, file string) (string, uint64) {
	t.Helper()
	out, err := exec.Command("losetup", "--find", "--show", "--read-only", file).CombinedOutput()
	if err != nil {
		t.Skipf("losetup: %v %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("losetup", "-d", dev).Run() })
	var st unix.Stat_t
	if err := unix.Stat(dev, &st); err != nil {
		t.Fatal(err)
	}
	return dev, st.Rdev
}

// rt16As runs a shell script as u without the sandbox (the control).
func rt16As(u user, env []string, dir, script string) string {
	argv := []string{"/bin/sh", "-c", script}
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}, env...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// TestRedTeam16FSDeviceNodeOutsideDev: was a HOLE, fixed by compileNodev
// (every mount of the view nodev; the devices kept on purpose attached
// after it with flags of their own). The view masks /dev (raw
// block devices: "readable by a root caller without capabilities") and
// makes writable roots nodev, but the rest of the tree, made read-only by
// mount_setattr(/, AT_RECURSIVE, RDONLY|NOSUID), keeps its device nodes
// usable: a read-only mount stops writes to regular files, not opens of a
// device node, and Landlock's read_file on / covers it. So a block device
// node anywhere readable outside /dev and outside the writable roots
// reads raw, past every mask and every file mode:
//
//   - a bind of the host's /dev in a build chroot (debootstrap, schroot,
//     pbuilder and mock setups do `mount --bind /dev CHROOT/dev`): as root,
//     CHROOT/dev/loopN, sdX, nvme...;
//   - a node left in a tree (an extracted image, or a node a user was given,
//     as udev's uaccess gives the seated user their removable disks): as
//     its owner, root or not.
//
// Here the denied file is a disk image under the fixture's ~/.ssh (denied
// by t-carve, masked), attached read-only to a loop device: `cat` of the
// image is refused, but grep of the loop device's node outside /dev finds
// the secret. The same holds for a file system on such a device (another
// user's mode-0600 files read by a capability-less root) and, for
// terminals, a bind of /dev/pts outside /dev (the host's terminals, which
// the private devpts exists to hide, can be read).
//
// Reproduction (root): truncate -s 64K img; echo SECRET | dd of=img
// conv=notrunc; losetup -f --show -r img (/dev/loop0); mkdir -p c/dev;
// mount --bind /dev c/dev; sbx run --profile read-only -- grep -a SECRET
// c/dev/loop0 → prints SECRET. Must hold: the node is unusable (EACCES:
// nodev on the base view, as on the writable roots). The control: the
// same grep without the sandbox finds the secret; `cat` of the image in
// the sandbox is refused.
func TestRedTeam16FSDeviceNodeOutsideDev(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root (losetup, mknod, mount)")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		secret := fmt.Sprintf("RT16FS-RAW-SECRET-%d-%d", os.Getpid(), u.uid)
		img := f.home + "/.ssh/disk.img"
		data := make([]byte, 64<<10)
		copy(data[4096:], secret)
		if err := os.WriteFile(img, data, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Lchown(img, u.uid, u.uid)
		dev, rdev := rt16Loop(t, img)
		// A node planted in a readable tree outside /dev, owned by u.
		node := f.outside + "/blk"
		if err := unix.Mknod(node, unix.S_IFBLK|0o600, int(rdev)); err != nil {
			t.Fatal(err)
		}
		os.Lchown(node, u.uid, u.uid)
		paths := map[string]string{"planted node": node}
		if u.uid == 0 {
			// The host's /dev bound into a chroot (root's only: loop nodes
			// are root's, mode 0600).
			chdev := f.outside + "/chroot/dev"
			os.MkdirAll(chdev, 0o755)
			rt16Mount(t, chdev, "--bind", "/dev")
			paths["bind of /dev"] = chdev + "/" + filepath.Base(dev)
		}
		for name, p := range paths {
			t.Run(name, func(t *testing.T) {
				script := fmt.Sprintf(`cat "$HOME/.ssh/disk.img" >/dev/null 2>&1 && echo IMAGE-READ
grep -a -o 'RT16FS-RAW-SECRET-[0-9-]*' %q 2>&1 || echo NO-MATCH
echo ZERO:$(head -c 1 /dev/zero | wc -c)`, p)
				if ctl := rt16As(u, nil, f.ws, script); !strings.Contains(ctl, secret) {
					t.Fatalf("control (no sandbox): %q", ctl)
				}
				// t-devrule names /dev itself: /dev is not masked, and the
				// host's /dev (cloned before the view becomes nodev) keeps
				// its devices.
				for _, prof := range []string{"@t-carve", "@t-devrule"} {
					r := rtShell(t, f, prof, f.ws, script)
					out := r.Stdout + r.Stderr
					if strings.Contains(out, "IMAGE-READ") {
						t.Errorf("%s: the denied image was read directly", prof)
					}
					if !strings.Contains(out, "ZERO:1") {
						t.Errorf("%s: /dev/zero no longer reads: %q", prof, strings.TrimSpace(out))
					}
					if strings.Contains(out, secret) {
						t.Errorf("%s: HOLE: the raw device node %s (outside /dev) read the denied %s: %q", prof, p, img, strings.TrimSpace(out))
					}
				}
			})
		}
	})
}

// TestRedTeam16FSHeld: setups of the mount view the earlier batteries did
// not build, each checked with a control.
func TestRedTeam16FSHeld(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root (mount)")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		chown := func(p string) { os.Lchown(p, u.uid, u.uid) }

		// Submounts: a tmpfs on .git/hooks (inside the read-only carve-out)
		// and a read-only bind inside the writable root.
		hooks := f.ws + "/.git/hooks"
		os.MkdirAll(hooks, 0o755)
		rt16Mount(t, hooks, "-t", "tmpfs", "-o", fmt.Sprintf("mode=0755,uid=%d,gid=%d", u.uid, u.uid), "tmpfs")
		os.WriteFile(hooks+"/h", []byte("orig"), 0o644)
		chown(hooks + "/h")
		src, rosub := f.base+"/src", f.ws+"/rosub"
		os.MkdirAll(src, 0o755)
		os.Mkdir(rosub, 0o755)
		os.WriteFile(src+"/f", []byte("orig"), 0o644)
		chown(src)
		chown(src + "/f")
		rt16Mount(t, rosub, "--bind", src)
		if out, err := exec.Command("mount", "-o", "remount,bind,ro", rosub).CombinedOutput(); err != nil {
			t.Fatalf("remount ro: %v %s", err, out)
		}
		// The control: the hooks tmpfs is writable without the sandbox.
		if out := rt16As(u, nil, f.ws, "touch .git/hooks/ctl && echo CTL-OK"); !strings.Contains(out, "CTL-OK") {
			t.Fatalf("control: %q", out)
		}
		os.Remove(hooks + "/ctl")
		script := `echo pwn > .git/hooks/h 2>/dev/null && echo HOOK-WRITTEN
touch .git/hooks/new 2>/dev/null && echo HOOK-CREATED
echo pwn > rosub/f 2>/dev/null && echo ROSUB-WRITTEN
touch rosub/new 2>/dev/null && echo ROSUB-CREATED
python3 - <<'EOF' 2>/dev/null
import os
open("capfile", "w").close()
for n, v in (("security.capability", bytes.fromhex("0100000201000000000000000000000000000000")), ("trusted.rt16", b"1"), ("user.rt16", b"1")):
    try:
        os.setxattr("capfile", n, v); print(n, "ok")
    except OSError as e:
        print(n, e.errno)
EOF
touch sub/ctl && echo CTL-OK`
		r := rtShell(t, f, "workspace", f.ws, script)
		out := r.Stdout
		for _, bad := range []string{"HOOK-WRITTEN", "HOOK-CREATED", "ROSUB-WRITTEN", "ROSUB-CREATED", "security.capability ok", "trusted.rt16 ok"} {
			if strings.Contains(out, bad) {
				t.Errorf("submounts: %s: %q", bad, out)
			}
		}
		if !strings.Contains(out, "CTL-OK") {
			t.Errorf("submounts: the control write in the workspace failed: %q %q", out, r.Stderr)
		}
		if b, _ := os.ReadFile(hooks + "/h"); string(b) != "orig" {
			t.Errorf("submounts: .git/hooks/h = %q", b)
		}

		// A workspace that is itself a tmpfs mount point, .git missing.
		tws := f.base + "/tws"
		os.Mkdir(tws, 0o755)
		rt16Mount(t, tws, "-t", "tmpfs", "-o", fmt.Sprintf("mode=0755,uid=%d,gid=%d", u.uid, u.uid), "tmpfs")
		if out := rt16As(u, nil, tws, "mkdir .git && rmdir .git && echo CTL-OK"); !strings.Contains(out, "CTL-OK") {
			t.Fatalf("control (tmpfs workspace): %q", out)
		}
		os.Mkdir(tws+"/d", 0o755)
		chown(tws + "/d")
		r = rtShell(t, f, "workspace", tws, `mkdir .git 2>/dev/null && echo MKDIR-GIT
mv d .git 2>/dev/null && echo RENAME-GIT
ln -s d .hg 2>/dev/null && echo SYMLINK-HG
mkdir e && echo CTL-OK`)
		if out := r.Stdout; strings.Contains(out, "-GIT") || strings.Contains(out, "-HG") || !strings.Contains(out, "CTL-OK") {
			t.Errorf("tmpfs workspace: %q %q", out, r.Stderr)
		}
		if fileExists(tws+"/.git") || fileExists(tws+"/.hg") {
			t.Errorf("tmpfs workspace: a protected name was created")
		}

		// gitdir files: one naming a repository in /tmp (another writable
		// root), one reached through a symlinked directory of the workspace.
		tmpRepo, err := os.MkdirTemp("/tmp", "rt16repo")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(tmpRepo) })
		os.Mkdir(tmpRepo+"/hooks", 0o755)
		chown(tmpRepo)
		chown(tmpRepo + "/hooks")
		gw := f.base + "/gw"
		for _, d := range []string{gw, gw + "/a", gw + "/real", gw + "/real/repo", gw + "/real/repo/hooks"} {
			os.Mkdir(d, 0o755)
			chown(d)
		}
		os.WriteFile(gw+"/a/.git", []byte("gitdir: "+tmpRepo+"\n"), 0o644)
		os.Symlink("real", gw+"/lnk")
		os.WriteFile(gw+"/.git", []byte("gitdir: lnk/repo\n"), 0o644)
		for _, p := range []string{gw + "/a/.git", gw + "/lnk", gw + "/.git"} {
			chown(p)
		}
		if out := rt16As(u, nil, gw, "touch real/repo/hooks/ctl "+tmpRepo+"/hooks/ctl && echo CTL-OK"); !strings.Contains(out, "CTL-OK") {
			t.Fatalf("control (gitdir): %q", out)
		}
		os.Remove(gw + "/real/repo/hooks/ctl")
		os.Remove(tmpRepo + "/hooks/ctl")
		r = rtShell(t, f, "workspace", gw, `touch real/repo/hooks/pre-commit 2>/dev/null && echo REAL-WRITTEN
touch lnk/repo/hooks/pre-commit 2>/dev/null && echo LNK-WRITTEN
touch real/ctl && echo CTL-OK`)
		if out := r.Stdout; strings.Contains(out, "WRITTEN") || !strings.Contains(out, "CTL-OK") {
			t.Errorf("gitdir through a symlinked directory: %q %q", out, r.Stderr)
		}
		r = rtShell(t, f, "workspace", gw+"/a", fmt.Sprintf(`touch %s/hooks/pre-commit 2>/dev/null && echo TMP-WRITTEN
touch %s.ctl && echo CTL-OK`, tmpRepo, tmpRepo))
		os.Remove(tmpRepo + ".ctl")
		if out := r.Stdout; strings.Contains(out, "WRITTEN") || !strings.Contains(out, "CTL-OK") {
			t.Errorf("gitdir in /tmp: %q %q", out, r.Stderr)
		}
		if fileExists(tmpRepo+"/hooks/pre-commit") || fileExists(gw+"/real/repo/hooks/pre-commit") {
			t.Errorf("gitdir: a hook was planted")
		}
	})
}
