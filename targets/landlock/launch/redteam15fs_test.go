//go:build linux && amd64

package launch_test

// Red team 15 (file system): escape classes the earlier batteries do not
// cover, through the real sbx binary (built by TestMain), as root and as
// uid 65534, with the C helper rt15fsSource below:
//
//   - a host service's pathname Unix socket in a writable root (here
//     $TMPDIR; /tmp in the workspace profile holds tmux's, ssh-agent's,
//     X11's): the command unlinks it, binds its own there and accepts the
//     host's clients (TestRedTeam15FSSocketHijack);
//   - the supervisor's comparison of guarded names against the kernel's
//     case folding (full Unicode case folding, C+F, in ext4 and tmpfs
//     casefolded directories): names whose folding is a multi-character
//     ASCII sequence, ß -> ss, U+FB01 -> fi (TestRedTeam15FSGuardFullCaseFold);
//   - held: mknod of a regular file (mode S_IFREG and mode 0) on a guarded
//     name, bind() of a guarded name through /proc/self/cwd, "..", /dev/fd/N,
//     O_TMPFILE outside the writable roots and in a read-only carve-out,
//     MAP_SHARED|PROT_WRITE of a read-only file, write locks on it,
//     /proc/self/map_files, FITRIM, acct, quotactl, swapon, chroot
//     (TestRedTeam15FSHeld).
//
//	go test -count=1 -run 'TestRedTeam15FS' -v ./targets/landlock/launch

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
	"sync"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/compiler/target"
	"github.com/sbx-dev/sbx/targets/landlock"
)

const rt15fsSource = `
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static const char *en(long r) {
	if (r >= 0) return "ok";
	const char *n = strerrorname_np(errno);
	return n ? n : "unknown";
}

static long bindat(const char *path) {
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	strncpy(a.sun_path, path, sizeof a.sun_path - 1);
	long r = bind(s, (void *)&a, sizeof a);
	int e = errno;
	close(s);
	errno = e;
	return r;
}

int main(int argc, char **argv) {
	if (argc < 2) return 2;
	// hijack PATH MARKER REPLY: replace the socket at PATH with one of our
	// own, create MARKER, accept one connection, send REPLY, print what the
	// peer sent.
	if (!strcmp(argv[1], "hijack") && argc == 5) {
		alarm(20);
		printf("unlink=%s\n", en(unlink(argv[2])));
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		strncpy(a.sun_path, argv[2], sizeof a.sun_path - 1);
		printf("bind=%s\n", en(bind(s, (void *)&a, sizeof a)));
		printf("listen=%s\n", en(listen(s, 4)));
		fflush(stdout);
		close(open(argv[3], O_CREAT | O_WRONLY, 0644));
		int c = accept(s, 0, 0);
		printf("accept=%s\n", en(c));
		if (c >= 0) {
			char buf[256];
			write(c, argv[4], strlen(argv[4]));
			ssize_t n = read(c, buf, sizeof buf - 1);
			if (n > 0) { buf[n] = 0; printf("peer-sent=%s\n", buf); }
		}
		return 0;
	}
	// mkdir NAME...: "I=result" for each name.
	if (!strcmp(argv[1], "mkdir")) {
		for (int i = 2; i < argc; i++) printf("%d=%s\n", i - 2, en(mkdir(argv[i], 0755)));
		return 0;
	}
	// held OUTFILE GITDIR: in the cwd (a workspace; "file" exists there).
	if (!strcmp(argv[1], "held") && argc == 4) {
		char p[512];
		int safe = getenv("RT15_SAFE") != NULL;
		printf("mknod-reg-git=%s\n", en(mknod(".git", S_IFREG | 0644, 0)));
		printf("mknod-0-git=%s\n", en(mknod(".git", 0, 0)));
		printf("ctl-mknod-0=%s\n", en(mknod("ctl-mknod", 0, 0)));
		printf("bind-proc-cwd-git=%s\n", en(bindat("/proc/self/cwd/.git")));
		printf("bind-dotdot-git=%s\n", en(bindat("sub/../.git")));
		int d = open(".", O_PATH);
		snprintf(p, sizeof p, "/dev/fd/%d/.git", d);
		printf("bind-devfd-git=%s\n", en(bindat(p)));
		printf("ctl-bind=%s\n", en(bindat("ctl.sock")));
		printf("tmpfile-git=%s\n", en(open(argv[3], O_TMPFILE | O_RDWR, 0600)));
		snprintf(p, sizeof p, "%s", argv[2]);
		*strrchr(p, '/') = 0;
		printf("tmpfile-out=%s\n", en(open(p, O_TMPFILE | O_RDWR, 0600)));
		printf("ctl-tmpfile=%s\n", en(open(".", O_TMPFILE | O_RDWR, 0600)));
		int f = open(argv[2], O_RDONLY);
		void *m = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
		printf("mmap-shared-w-out=%s\n", m == MAP_FAILED ? en(-1) : "ok");
		struct flock fl = {.l_type = F_WRLCK};
		printf("fcntl-wrlck-out=%s\n", en(fcntl(f, F_SETLK, &fl)));
		struct flock ofl = {.l_type = F_WRLCK};
		printf("ofd-wrlck-out=%s\n", en(fcntl(f, F_OFD_SETLK, &ofl)));
		int w = open("file", O_RDWR);
		m = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, w, 0);
		printf("ctl-mmap-shared-w=%s\n", m == MAP_FAILED ? en(-1) : "ok");
		FILE *mf = fopen("/proc/self/maps", "r");
		char line[512];
		unsigned long lo = 0, hi = 0;
		if (mf && fgets(line, sizeof line, mf)) sscanf(line, "%lx-%lx", &lo, &hi);
		snprintf(p, sizeof p, "/proc/self/map_files/%lx-%lx", lo, hi);
		printf("map-files=%s\n", en(open(p, O_RDONLY)));
		if (!safe) {
			// Host-wide operations: never run without the sandbox.
			int root = open("/", O_RDONLY);
			struct fstrim_range fr = {0, ~0ULL, 0};
			printf("fitrim=%s\n", en(ioctl(root, FITRIM, &fr)));
			printf("acct=%s\n", en(syscall(SYS_acct, "acct-file")));
			printf("quotactl=%s\n", en(syscall(SYS_quotactl, 0, "/dev/vda", 0, 0)));
			printf("swapon=%s\n", en(syscall(SYS_swapon, "file", 0)));
			printf("chroot=%s\n", en(chroot(".")));
		}
		return 0;
	}
	return 2;
}
`

func rt15fsHelper(t *testing.T) string {
	t.Helper()
	return cHelper(t, "rt15fs", rt15fsSource)
}

// rt15fsKV parses "key=value" lines.
func rt15fsKV(s string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	return m
}

// rt15fsAs runs argv as u (setpriv for a non-root user) with env.
func rt15fsAs(u user, env []string, dir string, argv ...string) *exec.Cmd {
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}, env...)
	cmd.Dir = dir
	return cmd
}

// TestRedTeam15FSSocketHijack: HOLE. A writable root that host processes
// share (the workspace profile's /tmp and $TMPDIR, or a TMPDIR at
// $XDG_RUNTIME_DIR, which sbx accepts) holds the pathname Unix sockets of
// the user's own services: tmux (/tmp/tmux-UID/default), ssh-agent
// (/tmp/ssh-*/agent.PID), X11 (/tmp/.X11-unix/X0), gpg-agent, the D-Bus
// session bus. The command (same uid) unlinks such a socket, binds its own
// at the same path (the supervisor performs pathname binds in writable
// roots), listens and accepts: every host client that connects afterwards
// talks to the sandboxed command instead of the service. The command
// cannot connect() anywhere (network none), so a listening Unix socket in
// the sandbox serves host processes only; the filter refuses abstract
// binds for exactly this reason ("a host process could connect to them,
// or lose its own name"), but not pathname ones.
//
// Reproducer (found by hand, both users): ssh-agent -a $TMPDIR/agent.sock;
// `TMPDIR=... sbx run --artifact t-carve.json -- python3 fake-agent.py
// $TMPDIR/agent.sock` (unlink, bind, listen, accept, save what arrives);
// on the host `ssh-add ~/.ssh/id_ed25519` prints "Identity added" and the
// sandboxed command has written SSH2_AGENTC_ADD_IDENTITY, with the private
// key, into the workspace, although t-carve denies ~/.ssh. A fake tmux
// server can have the host's tmux client open and write any file
// (MSG_WRITE_OPEN) or exec a program (MSG_SHELL) outside the sandbox.
//
// Here: a host service listens on TMPDIR/svc.sock (owned by the user) and
// answers "REAL"; the command replaces it and answers "FROM-SANDBOX". Must
// hold: a host client connecting after the command is ready does not reach
// the command. The control: the same client reaches the service before the
// run.
func TestRedTeam15FSSocketHijack(t *testing.T) {
	h := rt15fsHelper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		tmpd := f.base + "/tmpd"
		if err := os.Mkdir(tmpd, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chown(tmpd, u.uid, u.uid)
		sock := tmpd + "/svc.sock"
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		os.Chown(sock, u.uid, u.uid)
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Write([]byte("REAL"))
				c.Close()
			}
		}()
		dial := func() string {
			c, err := net.DialTimeout("unix", sock, 5*time.Second)
			if err != nil {
				return "dial: " + err.Error()
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			c.Write([]byte("host-data"))
			buf := make([]byte, 64)
			n, _ := c.Read(buf)
			return string(buf[:n])
		}
		if got := dial(); got != "REAL" {
			t.Fatalf("control: the host service answers %q, want REAL", got)
		}
		marker := f.ws + "/sub/hijack-ready"
		cmd := rtCmd(rtOpts{u: u, env: []string{"HOME=" + f.home, "TMPDIR=" + tmpd},
			args: []string{"--profile", "workspace", "--cwd", f.ws, "--timeout", "30s", "--", h, "hijack", sock, marker, "FROM-SANDBOX"}})
		var out bytes.Buffer
		cmd.Stdout = &out
		done := make(chan struct{})
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			defer close(done)
			cmd.Wait()
		}()
		// Wait (bounded) for the command to be ready or to end.
		deadline := time.Now().Add(25 * time.Second)
		for !fileExists(marker) && time.Now().Before(deadline) {
			select {
			case <-done:
				deadline = time.Now()
			case <-time.After(20 * time.Millisecond):
			}
		}
		got := dial()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatal("sbx hung")
		}
		var r rtResult
		json.Unmarshal(out.Bytes(), &r)
		t.Logf("command: %q %q %s", r.Stdout, r.Stderr, r.SbxError)
		if got == "FROM-SANDBOX" {
			t.Errorf("ESCAPE: a host client connecting to %s reached the sandboxed command (it replaced the host service's socket in the writable $TMPDIR and accepted)", sock)
		}
		if got != "REAL" && got != "FROM-SANDBOX" {
			t.Logf("host client after the run: %q (the service's socket is gone: a denial of service, not a hijack)", got)
		}
	})
}

// rt15fsFoldProfile guards names that contain the ASCII sequences the
// kernel's full case folding produces from one character (ss, fi).
const rt15fsFoldProfile = `
profile "t15fs-fold" {
  filesystem {
    read    = [root]
    write   = [cwd]
    deny    = [path(cwd, ".ssh")]
    protect = [".git", "Makefile"]
  }
  network { mode = "none" }
}
`

var (
	rt15fsFoldOnce sync.Once
	rt15fsFoldErr  error
)

func rt15fsFoldArtifact(t *testing.T) string {
	t.Helper()
	p := filepath.Join(bin, "t15fs-fold.json")
	rt15fsFoldOnce.Do(func() {
		res, ds := compiler.CompileSources([]compiler.Source{{Name: "rt15fs.hcl", Data: []byte(rt15fsFoldProfile)}})
		if ds.HasErrors() {
			rt15fsFoldErr = fmt.Errorf("compiling: %v", ds)
			return
		}
		for _, pr := range res.Profiles {
			a, ds := target.Build(pr, "test", []target.Target{landlock.Target{}})
			if ds.HasErrors() {
				rt15fsFoldErr = fmt.Errorf("artifact %s: %v", pr.Name, ds)
				return
			}
			data, err := a.Encode()
			if err == nil {
				err = os.WriteFile(p, data, 0o644)
			}
			rt15fsFoldErr = err
		}
	})
	if rt15fsFoldErr != nil {
		t.Fatal(rt15fsFoldErr)
	}
	return p
}

// TestRedTeam15FSGuardFullCaseFold: HOLE on kernels with CONFIG_UNICODE
// (not this one: it has no casefolding, so nothing escapes here). The
// supervisor refuses a guarded name (a protected or denied name missing
// directly below a writable root) also in the spellings a casefolded
// directory (ext4 or tmpfs, chattr +F) takes for it: foldName folds ASCII
// letters, U+017F and U+212A. But the kernel's casefolding is NFD plus
// Unicode's full case folding (C+F, fs/unicode/mkutf8data.c: "Use the C+F
// casefold"), where one character folds to two ASCII letters: ß and ẞ to
// "ss", U+FB00..FB06 to ff, fi, fl, ffi, ffl, st. In a casefolded
// workspace, mkdir("Make\uFB01le") therefore creates the host's
// "Makefile" (make runs it), and mkdir(".\u00DFh") a denied ".ssh". (On
// 6.9 to 6.11 kernels, whose casefolding still ignored default-ignorable
// code points, ".g\u200Dit" was ".git" itself: not asserted here.) Must
// hold: every spelling that folds to a guarded name is refused (EACCES),
// as ".GIT" and ".ſvn" are on every file system. The controls: the ASCII
// spellings are refused, an unrelated name is created.
func TestRedTeam15FSGuardFullCaseFold(t *testing.T) {
	h := rt15fsHelper(t)
	art := rt15fsFoldArtifact(t)
	names := []struct{ name, folds, want string }{
		{"Makefile", "makefile", "EACCES"},
		{"MAKEFILE", "makefile", "EACCES"},
		{".SSH", ".ssh", "EACCES"},
		{".\u017f\u017fh", ".ssh", "EACCES"},
		{"Make\ufb01le", "makefile", "EACCES"},
		{"MAKE\ufb01LE", "makefile", "EACCES"},
		{".\u00dfh", ".ssh", "EACCES"},
		{".\u1e9eh", ".ssh", "EACCES"},
		{"ok-name", "ok-name", "ok"},
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		dir := f.base + "/foldws"
		os.Mkdir(dir, 0o755)
		os.Chown(dir, u.uid, u.uid)
		argv := []string{"--artifact", art, "--cwd", dir, "--", h, "mkdir"}
		for _, n := range names {
			argv = append(argv, n.name)
		}
		r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: argv})
		if r.SbxError != "" {
			t.Fatalf("sbx: %s", r.SbxError)
		}
		got := rt15fsKV(r.Stdout)
		for i, n := range names {
			if g := got[strconv.Itoa(i)]; g != n.want {
				t.Errorf("mkdir %q (casefolds to the guarded %q): %s, want %s", n.name, n.folds, g, n.want)
			}
		}
	})
}

// TestRedTeam15FSHeld: classes that hold, under the workspace profile in a
// workspace without .git (the supervisor guards it) and under t-carve in
// one with .git (a read-only carve-out). Controls: the ordinary names and
// the workspace's own file work inside; without the sandbox (host-wide
// operations left out) mknod and bind of .git and the tmpfile outside
// succeed, and the locks and mapping fail the same way (they are the
// kernel's, not the sandbox's).
func TestRedTeam15FSHeld(t *testing.T) {
	h := rt15fsHelper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		outFile := f.outside + "/file"
		check := func(t *testing.T, label string, got map[string]string, want map[string]string) {
			t.Helper()
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: %s=%q, want %q", label, k, got[k], v)
				}
			}
		}
		// workspace, .git missing (guarded by the supervisor).
		r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home},
			args: []string{"--profile", "workspace", "--cwd", f.nogit, "--", h, "held", outFile, f.nogit + "/.git"}})
		if r.SbxError != "" {
			t.Fatalf("sbx: %s", r.SbxError)
		}
		check(t, "workspace", rt15fsKV(r.Stdout), map[string]string{
			"mknod-reg-git": "EACCES", "mknod-0-git": "EACCES", "ctl-mknod-0": "ok",
			"bind-proc-cwd-git": "EACCES", "bind-dotdot-git": "EACCES", "bind-devfd-git": "EACCES", "ctl-bind": "ok",
			"tmpfile-out": "EROFS", "ctl-tmpfile": "ok",
			"mmap-shared-w-out": "EACCES", "fcntl-wrlck-out": "EBADF", "ofd-wrlck-out": "EBADF", "ctl-mmap-shared-w": "ok",
			"map-files": "EPERM", "fitrim": "EPERM", "acct": "EPERM", "quotactl": "EPERM", "swapon": "EPERM", "chroot": "EPERM",
		})
		if fileExists(f.nogit + "/.git") {
			t.Errorf("workspace: .git was created")
		}
		// t-carve, .git present (a read-only bind).
		r = rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home},
			args: []string{"--artifact", filepath.Join(bin, "t-carve.json"), "--cwd", f.ws, "--", h, "held", outFile, f.ws + "/.git"}})
		if r.SbxError != "" {
			t.Fatalf("sbx: %s", r.SbxError)
		}
		check(t, "t-carve", rt15fsKV(r.Stdout), map[string]string{
			"tmpfile-git": "EROFS", "tmpfile-out": "EROFS", "ctl-tmpfile": "ok",
			"mmap-shared-w-out": "EACCES", "ctl-mmap-shared-w": "ok", "map-files": "EPERM",
		})
		if ents, _ := os.ReadDir(f.ws + "/.git"); len(ents) != 1 {
			t.Errorf("t-carve: .git holds %d entries, want 1", len(ents))
		}
		// Control without the sandbox, in a fresh fixture.
		f2 := newFixture(t, u)
		cmd := rt15fsAs(u, []string{"RT15_SAFE=1"}, f2.nogit, h, "held", f2.outside+"/file", f2.ws+"/.git")
		out, _ := cmd.Output()
		got := rt15fsKV(string(out))
		check(t, "control (no sandbox)", got, map[string]string{
			"mknod-reg-git": "ok", "ctl-mknod-0": "ok", "tmpfile-out": "ok", "tmpfile-git": "ok",
			"mmap-shared-w-out": "EACCES", "fcntl-wrlck-out": "EBADF", "ctl-mmap-shared-w": "ok",
		})
		if got["bind-dotdot-git"] != "EADDRINUSE" && got["bind-dotdot-git"] != "ok" {
			t.Errorf("control (no sandbox): bind-dotdot-git=%q", got["bind-dotdot-git"])
		}
	})
}
