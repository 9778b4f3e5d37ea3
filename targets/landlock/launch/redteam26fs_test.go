//go:build linux && amd64

package launch_test

// Red team 26 (filesystem escapes that earlier batteries do not name),
// through the real sbx binary (built by TestMain), as root and as uid
// 65534, with the C helper rt26FsC. Nothing here escaped; every case is in
// TestRedTeam26FsHeld, with a control outside the sandbox:
//
//   - an O_TMPFILE linked in under a protected name that is missing
//     (HEAD) or into the protected .git, through AT_EMPTY_PATH,
//     /proc/self/fd/N and /dev/fd/N (AT_SYMLINK_FOLLOW);
//   - renameat2 RENAME_EXCHANGE and RENAME_NOREPLACE onto a missing and an
//     existing protected name; a Unix socket bound, and a FIFO, a socket
//     node and a regular file made with mknod, under protected names
//     (one with a trailing slash);
//   - data into a read-only file (the protected .git/config, a carve-out
//     {cwd}/ro/f): copy_file_range, sendfile, FICLONE, splice, fallocate
//     (punch hole, collapse and zero range), a shared writable mapping of a
//     read-only descriptor; through an O_PATH descriptor's magic link:
//     reopen for writing, truncate, O_CREAT (the supervisor's reopen),
//     utimensat, setxattr, linkat (AT_EMPTY_PATH and AT_SYMLINK_FOLLOW)
//     into the writable root, and a rename out;
//   - fchdir into the protected directory through an O_PATH descriptor,
//     then creations relative to it;
//   - the new mount API and file handles (fsopen, fspick, open_tree,
//     name_to_handle_at);
//   - a path longer than PATH_MAX and one just under it made of "./"
//     components ending in a protected name;
//   - protected names that are dangling links into $TMPDIR (the target's
//     parent pinned, the target guarded; a target below a missing
//     directory makes $TMPDIR's top non-creatable), and the links
//     themselves (pinned);
//   - file systems the host mounted inside the read-only carve-out and
//     inside the protected .git (read-only in the view; the writable
//     root's bind carries them rw, but shadowed);
//   - a symlink race against the supervisor: one thread flips "lnk"
//     between a subdirectory and "." (or the read-only carve-out) while
//     another creates lnk/HEAD (mkdir, open O_CREAT, mkfifo) thousands of
//     times: the protected name (or a file in the carve-out) never
//     appears.
//
//	go test -count=1 -run TestRedTeam26Fs -v ./targets/landlock/launch

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const rt26FsC = `#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <linux/fs.h>
#include <stddef.h>
#include <sys/ioctl.h>

static const char *lbl = "";
static void rep(const char *k, long r) { printf("%s%s=%s\n", lbl, k, r < 0 ? strerrorname_np(errno) : "ok"); fflush(stdout); }

static volatile int stop;
static const char *rdir, *tgtA = "sub", *tgtB = ".";
static void *flipper(void *arg) {
	char tmp[4096], lnk[4096];
	snprintf(tmp, sizeof tmp, "%s/lnk.tmp", rdir);
	snprintf(lnk, sizeof lnk, "%s/lnk", rdir);
	for (int i = 0; !stop; i++) {
		unlink(tmp);
		symlink(i & 1 ? tgtB : tgtA, tmp);
		rename(tmp, lnk);
	}
	return NULL;
}

int main(int argc, char **argv) {
	if (argc < 3) return 2;
	const char *op = argv[1], *a = argv[2], *b = argc > 3 ? argv[3] : "";
	if (getenv("RT26_LABEL")) lbl = getenv("RT26_LABEL");
	if (!strcmp(op, "tmpfile")) { /* dir name */
		int fd = open(a, O_TMPFILE | O_RDWR, 0644);
		rep("tmpfile_open", fd);
		if (fd < 0) return 0;
		write(fd, "PWN\n", 4);
		char p[64], n[4096];
		snprintf(n, sizeof n, "%s/%s", a, b);
		rep("tmpfile_empty", linkat(fd, "", AT_FDCWD, n, AT_EMPTY_PATH));
		snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
		rep("tmpfile_proc", linkat(AT_FDCWD, p, AT_FDCWD, n, AT_SYMLINK_FOLLOW));
		snprintf(p, sizeof p, "/dev/fd/%d", fd);
		rep("tmpfile_devfd", linkat(AT_FDCWD, p, AT_FDCWD, n, AT_SYMLINK_FOLLOW));
		return 0;
	}
	if (!strcmp(op, "exch")) { rep("exch", syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)); return 0; }
	if (!strcmp(op, "noreplace")) { rep("noreplace", syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_NOREPLACE)); return 0; }
	if (!strcmp(op, "bind")) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		strncpy(sa.sun_path, a, sizeof sa.sun_path);
		socklen_t len = strlen(a) >= sizeof sa.sun_path ? sizeof sa : offsetof(struct sockaddr_un, sun_path) + strlen(a) + 1;
		rep("bind", bind(s, (struct sockaddr *)&sa, len));
		return 0;
	}
	if (!strcmp(op, "mknod")) { /* path kind */
		mode_t m = !strcmp(b, "fifo") ? S_IFIFO : !strcmp(b, "sock") ? S_IFSOCK : S_IFREG;
		rep("mknod", mknod(a, m | 0644, 0));
		return 0;
	}
	if (!strcmp(op, "hardlink")) { rep("hardlink", link(a, b)); int fd = open(b, O_WRONLY | O_APPEND); rep("hardlink_write", fd); if (fd >= 0) write(fd, "PWN\n", 4); return 0; }
	if (!strcmp(op, "datacopy")) { /* src dst: into a read-only dst */
		int in = open(a, O_RDONLY), ro = open(b, O_RDONLY);
		rep("dst_wronly", open(b, O_WRONLY));
		rep("dst_rdwr", open(b, O_RDWR));
		loff_t o1 = 0, o2 = 0;
		rep("copy_file_range", copy_file_range(in, &o1, ro, &o2, 4, 0));
		rep("sendfile", sendfile(ro, in, NULL, 4));
		rep("ficlone", ioctl(ro, FICLONE, in));
		rep("punch", fallocate(ro, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 1));
		rep("collapse", fallocate(ro, FALLOC_FL_COLLAPSE_RANGE, 0, 4096));
		rep("zero", fallocate(ro, FALLOC_FL_ZERO_RANGE, 0, 1));
		void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0);
		rep("mmap_shared_w", m == MAP_FAILED ? -1 : 0);
		int pfd[2]; pipe(pfd); write(pfd[1], "PWN\n", 4);
		rep("splice", splice(pfd[0], NULL, ro, NULL, 4, 0));
		int op = open(b, O_PATH);
		char p[64]; snprintf(p, sizeof p, "/proc/self/fd/%d", op);
		rep("opath_reopen_w", open(p, O_WRONLY | O_APPEND));
		rep("opath_truncate", truncate(p, 1));
		rep("opath_creat", open(p, O_WRONLY | O_CREAT | O_APPEND, 0644));
		rep("opath_utime", utimensat(AT_FDCWD, p, NULL, 0));
		rep("opath_xattr", setxattr(p, "user.rt26", "v", 1, 0));
		rep("opath_link", linkat(op, "", AT_FDCWD, "rt26hl", AT_EMPTY_PATH));
		rep("opath_proclink", linkat(AT_FDCWD, p, AT_FDCWD, "rt26hl2", AT_SYMLINK_FOLLOW));
		rep("rename_out", rename(b, "rt26mv"));
		return 0;
	}
	if (!strcmp(op, "fchdircreat")) { /* dir name */
		int d = open(a, O_PATH | O_DIRECTORY);
		rep("fchdir", fchdir(d));
		rep("fchdir_creat", open(b, O_WRONLY | O_CREAT, 0644));
		rep("fchdir_mkdir", mkdir("rt26d", 0755));
		return 0;
	}
	if (!strcmp(op, "mountapi")) {
		rep("fsopen", syscall(SYS_fsopen, "tmpfs", 0));
		rep("fspick", syscall(SYS_fspick, AT_FDCWD, a, 0));
		rep("open_tree", syscall(SYS_open_tree, AT_FDCWD, a, 1 /* OPEN_TREE_CLONE */));
		rep("name_to_handle", syscall(SYS_name_to_handle_at, AT_FDCWD, a, NULL, NULL, 0));
		rep("statmount_ok", 0);
		return 0;
	}
	if (!strcmp(op, "longpath")) { /* dir name: a path over PATH_MAX, and one just under it */
		char *p = malloc(8192); size_t n = 0;
		n += sprintf(p, "%s/", a);
		while (n < 4200) { p[n++] = '.'; p[n++] = '/'; }
		strcpy(p + n, b);
		rep("long_mkdir", mkdir(p, 0755));
		n = sprintf(p, "%s/", a);
		while (n + strlen(b) + 3 < 4095) { p[n++] = '.'; p[n++] = '/'; }
		strcpy(p + n, b);
		rep("near_mkdir", mkdir(p, 0755));
		rep("near_creat", open(p, O_WRONLY | O_CREAT, 0644));
		return 0;
	}
	if (!strcmp(op, "race")) { /* dir name iterations: mkdir dir/lnk/name while lnk flips between sub and . */
		rdir = a;
		if (argc > 6) { tgtA = argv[5]; tgtB = argv[6]; }
		char sub[4096], path[4096], top[4096];
		snprintf(sub, sizeof sub, "%s/%s", a, tgtA);
		mkdir(sub, 0755);
		snprintf(path, sizeof path, "%s/lnk/%s", a, b);
		snprintf(top, sizeof top, "%s/%s/%s", a, tgtB, b);
		pthread_t th; pthread_create(&th, NULL, flipper, NULL);
		int ok = 0, top_hit = 0, n = argc > 4 ? atoi(argv[4]) : 2000;
		for (int i = 0; i < n; i++) {
			int r = i % 3 == 0 ? mkdir(path, 0755) : i % 3 == 1 ? open(path, O_WRONLY | O_CREAT, 0644) : mknod(path, S_IFIFO | 0644, 0);
			if (r >= 0) {
				ok++;
				if (i % 3 == 1) close(r);
				struct stat st;
				if (lstat(top, &st) == 0) { top_hit++; break; }
				char s2[4096]; snprintf(s2, sizeof s2, "%s/%s/%s", a, tgtA, b);
				if (rmdir(s2) && unlink(s2)) {}
			}
		}
		stop = 1; pthread_join(th, NULL);
		char l[4096]; snprintf(l, sizeof l, "%s/lnk", a); unlink(l);
		printf("%srace_created=%d\n%srace_top=%d\n", lbl, ok, lbl, top_hit);
		return 0;
	}
	return 2;
}
`

// TestRedTeam26FsHeld: held (see the file's comment).
func TestRedTeam26FsHeld(t *testing.T) {
	rt := cHelper(t, "rt26fs", rt26FsC, "-pthread")
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)

		// Controls: the same calls outside the sandbox succeed.
		ctl := filepath.Join(f.base, "ctl")
		os.MkdirAll(filepath.Join(ctl, ".git"), 0o755)
		os.WriteFile(filepath.Join(ctl, ".git", "config"), []byte("cfg"), 0o644)
		os.WriteFile(filepath.Join(ctl, "src"), []byte("data"), 0o644)
		filepath.Walk(ctl, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
		c := rx13Fields(rt16As(u, nil, ctl, strings.Join([]string{
			"RT26_LABEL=t1_ " + rt + " tmpfile . HEAD",
			"RT26_LABEL=t2_ " + rt + " tmpfile . .git/x",
			"RT26_LABEL=b_ " + rt + " bind .hg",
			"RT26_LABEL=m_ " + rt + " mknod .jj fifo",
			"touch x .svn; " + rt + " exch x .svn",
			"cp .git/config cfg; " + rt + " datacopy src cfg",
			"RT26_LABEL=l_ " + rt + " hardlink .git/config cfgl",
		}, "; ")))
		// The racing creation's control is a race too: under load (CI
		// runs packages in parallel on 2 CPUs) the flipping thread may
		// not run during one round's tries, so up to five rounds, each
		// in a fresh directory.
		for round := 0; round < 5 && c["race_top"] != "1"; round++ {
			d := filepath.Join(f.base, "ctl-race"+strconv.Itoa(round))
			os.MkdirAll(d, 0o755)
			os.Lchown(d, u.uid, u.uid)
			for k, v := range rx13Fields(rt16As(u, nil, d, rt+" race . .agents 3000")) {
				c[k] = v
			}
		}
		for _, k := range []string{"t1_tmpfile_empty", "t2_tmpfile_empty", "b_bind", "m_mknod", "exch", "dst_wronly", "opath_reopen_w", "opath_truncate", "opath_creat", "l_hardlink", "l_hardlink_write"} {
			if c[k] != "ok" {
				t.Fatalf("control: %s=%q outside the sandbox: %v", k, c[k], c)
			}
		}
		if c["race_top"] != "1" {
			t.Fatalf("control: the racing creation never reached the top outside the sandbox: %v", c)
		}

		// The workspace profile: .git exists (a read-only bind), HEAD,
		// .hg, .jj, .svn and .agents are missing (the supervisor guards
		// them).
		gitcfg := filepath.Join(f.ws, ".git", "config")
		script := strings.Join([]string{
			"cd " + f.ws,
			"RT26_LABEL=t1_ " + rt + " tmpfile . HEAD",
			"RT26_LABEL=t2_ " + rt + " tmpfile . .git/x",
			"RT26_LABEL=t3_ " + rt + " tmpfile " + f.ws + " .agents",
			"touch x",
			"RT26_LABEL=e1_ " + rt + " exch x HEAD",
			"RT26_LABEL=e2_ " + rt + " exch x .git",
			"RT26_LABEL=n1_ " + rt + " noreplace x HEAD",
			"RT26_LABEL=n2_ " + rt + " noreplace x .hg",
			"RT26_LABEL=b1_ " + rt + " bind HEAD",
			"RT26_LABEL=b2_ " + rt + " bind ./.hg/",
			"RT26_LABEL=m1_ " + rt + " mknod HEAD fifo",
			"RT26_LABEL=m2_ " + rt + " mknod .jj sock",
			"RT26_LABEL=m3_ " + rt + " mknod .svn reg",
			"RT26_LABEL=l_ " + rt + " hardlink .git/config cfgl",
			"RT26_LABEL=g_ " + rt + " datacopy sub/file .git/config",
			"RT26_LABEL=ga_ " + rt + " datacopy sub/file " + gitcfg,
			"RT26_LABEL=c_ " + rt + " fchdircreat .git HEAD",
			"RT26_LABEL=k_ " + rt + " mountapi .git",
			"RT26_LABEL=p_ " + rt + " longpath . HEAD",
			"RT26_LABEL=r_ " + rt + " race . HEAD 3000",
			"RT26_LABEL=r2_ " + rt + " race " + f.ws + " .hg 3000",
		}, "; ")
		r := rt11Run(t, f, nil, []string{"--profile", "workspace", "--cwd", f.ws}, "/bin/sh", "-c", script)
		got := rx13Fields(r.Stdout)
		t.Logf("workspace: %v %s", got, r.Stderr)
		rt26Refused(t, "workspace", got, "t1_tmpfile_empty", "t1_tmpfile_proc", "t1_tmpfile_devfd",
			"t2_tmpfile_empty", "t2_tmpfile_proc", "t2_tmpfile_devfd", "t3_tmpfile_empty", "t3_tmpfile_proc",
			"e1_exch", "e2_exch", "n1_noreplace", "n2_noreplace", "b1_bind", "b2_bind",
			"m1_mknod", "m2_mknod", "m3_mknod", "l_hardlink", "l_hardlink_write")
		for _, p := range []string{"g_", "ga_"} {
			rt26Refused(t, "workspace "+p, got, p+"dst_wronly", p+"dst_rdwr", p+"copy_file_range", p+"sendfile", p+"ficlone",
				p+"punch", p+"collapse", p+"zero", p+"mmap_shared_w", p+"splice", p+"opath_reopen_w", p+"opath_truncate",
				p+"opath_creat", p+"opath_utime", p+"opath_xattr", p+"opath_link", p+"opath_proclink", p+"rename_out")
		}
		rt26Refused(t, "workspace", got, "c_fchdir_creat", "c_fchdir_mkdir", "k_fsopen", "k_fspick", "k_open_tree",
			"k_name_to_handle", "p_long_mkdir", "p_near_mkdir", "p_near_creat")
		if got["r_race_created"] == "" || got["r_race_created"] == "0" || got["r_race_top"] != "0" || got["r2_race_top"] != "0" {
			t.Errorf("symlink race: created %s below the subdirectory, %s/%s at the top (want many, 0): %v", got["r_race_created"], got["r_race_top"], got["r2_race_top"], got)
		}
		for _, n := range []string{"HEAD", ".hg", ".jj", ".svn", ".agents", ".git/x", ".git/rt26d", "cfgl"} {
			if fileExists(filepath.Join(f.ws, n)) {
				t.Errorf("ESCAPE: %s was created in the workspace", n)
			}
		}
		if b, _ := os.ReadFile(gitcfg); string(b) != "cfg" {
			t.Errorf("ESCAPE: .git/config changed: %q", b)
		}

		// A read-only carve-out in the workspace ({cwd}/ro, t-carve).
		ro := filepath.Join(f.ws, "ro")
		script = strings.Join([]string{
			"cd " + f.ws,
			"RT26_LABEL=ct_ " + rt + " tmpfile ro x",
			"RT26_LABEL=cd_ " + rt + " datacopy sub/file ro/f",
			"RT26_LABEL=cl_ " + rt + " hardlink ro/f rl",
			"RT26_LABEL=cr_ " + rt + " race . newf 3000 sub ro",
		}, "; ")
		r = rt11Run(t, f, nil, []string{"--artifact", filepath.Join(bin, "t-carve.json"), "--cwd", f.ws}, "/bin/sh", "-c", script)
		got = rx13Fields(r.Stdout)
		t.Logf("t-carve: %v %s", got, r.Stderr)
		rt26Refused(t, "t-carve", got, "ct_tmpfile_open", "cd_dst_wronly", "cd_dst_rdwr", "cd_copy_file_range", "cd_sendfile",
			"cd_ficlone", "cd_punch", "cd_collapse", "cd_zero", "cd_mmap_shared_w", "cd_splice", "cd_opath_reopen_w",
			"cd_opath_truncate", "cd_opath_creat", "cd_opath_utime", "cd_opath_xattr", "cd_opath_link", "cd_opath_proclink",
			"cd_rename_out", "cl_hardlink", "cl_hardlink_write")
		if got["cr_race_created"] == "" || got["cr_race_created"] == "0" || got["cr_race_top"] != "0" {
			t.Errorf("symlink race into the carve-out: %v", got)
		}
		if b, _ := os.ReadFile(filepath.Join(ro, "f")); string(b) != "rofile" {
			t.Errorf("ESCAPE: the read-only carve-out's file changed: %q", b)
		}
		if fileExists(filepath.Join(ro, "newf")) || fileExists(filepath.Join(ro, "x")) {
			t.Errorf("ESCAPE: a file was created in the read-only carve-out")
		}

		// Protected names that are dangling links into the writable
		// $TMPDIR: the target's parent is pinned and the target guarded,
		// and a target whose parent is missing makes $TMPDIR's top
		// non-creatable.
		tmp := filepath.Join(f.base, "tmp")
		dl := filepath.Join(f.base, "dl")
		for _, d := range []string{filepath.Join(tmp, "x"), dl} {
			os.MkdirAll(d, 0o755)
		}
		os.Symlink(filepath.Join(tmp, "x", "gd"), filepath.Join(dl, ".git"))
		os.Symlink(filepath.Join(tmp, "none", "hd"), filepath.Join(dl, ".hg"))
		filepath.Walk(f.base, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
		script = "cd " + tmp + "; mkdir x/gd; mv x y; mkdir -p none/hd; rm " + dl + "/.git; mkdir " + dl + "/.git; ls -A " + dl + " | tr '\\n' ' '"
		r = rt11Run(t, f, []string{"TMPDIR=" + tmp}, []string{"--profile", "workspace", "--cwd", dl}, "/bin/sh", "-c", script)
		t.Logf("dangling: %q %q", r.Stdout, r.Stderr)
		for _, p := range []string{filepath.Join(tmp, "x", "gd"), filepath.Join(tmp, "y"), filepath.Join(tmp, "none")} {
			if fileExists(p) {
				t.Errorf("ESCAPE: %s was created (the target of a protected dangling link, or its pinned parent moved)", p)
			}
		}
		if fi, err := os.Lstat(filepath.Join(dl, ".git")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("ESCAPE: the protected .git link was replaced: %v %v", fi, err)
		}

		// A file system the host mounted inside the read-only carve-out
		// and inside the protected .git: the view makes them read-only too
		// (the writable root's bind carries them rw, shadowed).
		sub := filepath.Join(ro, "sub")
		gmnt := filepath.Join(f.ws, ".git", "mnt")
		os.MkdirAll(sub, 0o755)
		os.MkdirAll(gmnt, 0o755)
		os.Chown(sub, u.uid, u.uid)
		os.Chown(gmnt, u.uid, u.uid)
		own := strconv.Itoa(u.uid)
		setup := "mount -t tmpfs rt26 " + sub + "\nmount -t tmpfs rt26g " + gmnt + "\n" +
			"echo orig > " + sub + "/x; echo orig > " + gmnt + "/y; chown " + own + " " + sub + " " + gmnt + " " + sub + "/x " + gmnt + "/y\n" +
			rt23Setpriv(u, "sh -c 'echo ok > "+sub+"/ctl'") + "\n"
		post := "echo CTL=$(cat " + sub + "/ctl); echo AFTER_X=$(cat " + sub + "/x); echo AFTER_Y=$(cat " + gmnt + "/y); ls " + sub + " | tr '\\n' ' '"
		r, after := rt17RunPost(t, u, f.home, setup, post, "--artifact", filepath.Join(bin, "t-carve.json"), "--cwd", f.ws, "--",
			"/bin/sh", "-c", "echo pwn >> ro/sub/x; echo pwn >> .git/mnt/y; echo pwn > ro/sub/new; grep -c tmpfs /proc/self/mountinfo")
		t.Logf("submounts: %q %q %q", r.Stdout, r.Stderr, after)
		if !strings.Contains(after, "CTL=ok") {
			t.Fatalf("control: the tmpfs in the carve-out is not writable outside the sandbox: %q", after)
		}
		if !strings.Contains(after, "AFTER_X=orig\n") || !strings.Contains(after, "AFTER_Y=orig\n") || strings.Contains(after, "new") {
			t.Errorf("ESCAPE: a host mount inside the read-only carve-out or the protected .git was written: %q", after)
		}
	})
}

// rt26Refused fails for each key whose call succeeded (or never ran).
func rt26Refused(t *testing.T, what string, got map[string]string, keys ...string) {
	t.Helper()
	for _, k := range keys {
		switch got[k] {
		case "":
			t.Errorf("%s: %s did not run: %v", what, k, got)
		case "ok":
			t.Errorf("ESCAPE (%s): %s succeeded", what, k)
		}
	}
}
