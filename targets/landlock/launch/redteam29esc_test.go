//go:build linux && amd64

package launch_test

// Red team 29 (escape), through the real sbx binary (built by TestMain),
// as root and as uid 65534:
//
//   - FINDING (fixed): read-only carve-outs, masks and pinned links are
//     mounts, and a mount covers one dentry. On a file system whose server
//     folds names (virtiofs and 9p serving a macOS or Windows host's
//     directories: Lima, Docker Desktop, OrbStack, WSL's /mnt/c; CIFS;
//     FUSE file systems such as ciopfs), a lookup of another spelling
//     (".GIT", ".ENV") returns the same file under a dentry of its own,
//     which no mount covers, with the writable root's rights (Landlock's
//     rules add up: the carve-out's read rule does not narrow the root's
//     write rule). The supervisor already folds names it refuses to
//     create (red teams 14 and 15); what existed was not covered. Shown
//     with a small case-insensitive FUSE server (testdata/rt29cifuse, as
//     this kernel has no CONFIG_UNICODE, vfat, CIFS or 9p): under the
//     workspace profile in a git worktree (".git" a link file), the command
//     rewrote the protected ".git" through ".GIT" to point at a repository
//     of its own, whose core.fsmonitor the host's git runs; a profile
//     denying ".env" read it as ".ENV"; and where the server gives each
//     spelling a node of its own (libfuse's path API, as ciopfs and sshfs
//     use), ".GIT/hooks/pre-commit" was created in a protected ".git"
//     directory. Every start, for both users (deterministic: 12 of 12).
//     Fixed: the binding probes each carve-out, mask and pinned link with
//     its name's case swapped and refuses the run (125) when that is the
//     same file (targets/landlock checkSpellings)
//     (TestRedTeam29EscCaseAlias);
//   - FINDING (fixed): the same per-spelling server mounted inside a
//     writable root (/tmp): the supervisor knew a guarded directory by
//     device and inode only, and "../WS" is the workspace under another
//     inode: `mkdir ../WS/.git` created the workspace's .git. On FUSE the
//     directory's path, folded, is compared too (fuseAlias)
//     (TestRedTeam29EscCaseAliasGuardedDir);
//   - FINDING (fixed): the guard folded names as Unicode does, but NTFS
//     compares their upper case (".g\u0131t", the dotless i, is ".git")
//     and Windows' Win32 layer drops trailing dots and spaces (".git." is
//     ".git"): on servers that compare so, both made the workspace's .git
//     (guardKey) (TestRedTeam29EscWindowsNames);
//   - held (TestRedTeam29EscHeld, TestRedTeam29EscHeldFastOpen): set-id mode bits spelled with high bits
//     in chmod, fchmodat, fchmodat2, fchmod, open, openat, creat, mknod and
//     mknodat (the kernel truncates the mode to 16 bits; the filter
//     compares the low word); socket() with high bits in its family, type
//     or protocol; writing or truncating sbx's own binary when it lies in
//     the workspace (the supervisor is re-executed from it: ETXTBSY while
//     sbx runs); TCP Fast Open to a denied port in ports mode.
//
//	go test -count=1 -run 'TestRedTeam29Esc' -v ./targets/landlock/launch

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

var rt29Fuse struct {
	once sync.Once
	path string
	err  error
}

// rt29CIFuse mounts a fresh backing directory through the case-insensitive
// FUSE server (perPath: a node per spelling) and returns both paths; the
// mount is detached when the test ends.
func rt29CIFuse(t *testing.T, perPath bool) (backing, mnt string) {
	return rt29CIFuseIn(t, perPath, "/var/tmp")
}

// rt29CIFuseIn is rt29CIFuse with the mount point in parent.
func rt29CIFuseIn(t *testing.T, perPath bool, parent string) (backing, mnt string) {
	var flags []string
	if perPath {
		flags = append(flags, "-p")
	}
	return rt29CIFuseFlags(t, parent, flags...)
}

// rt29CIFuseFlags mounts the server with flags, the mount point in parent.
func rt29CIFuseFlags(t *testing.T, parent string, flags ...string) (backing, mnt string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (mounts a FUSE file system)")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse")
	}
	rt29Fuse.once.Do(func() {
		rt29Fuse.path = filepath.Join(bin, "rt29cifuse")
		cmd := exec.Command("go", "build", "-o", rt29Fuse.path, "./testdata/rt29cifuse")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			rt29Fuse.err = err
			t.Logf("%s", out)
		}
	})
	if rt29Fuse.err != nil {
		t.Fatalf("building the FUSE server: %v", rt29Fuse.err)
	}
	var err error
	if backing, err = os.MkdirTemp("/var/tmp", "rt29cib"); err != nil {
		t.Fatal(err)
	}
	if mnt, err = os.MkdirTemp(parent, "rt29cim"); err != nil {
		t.Fatal(err)
	}
	os.Chmod(backing, 0o755)
	os.Chmod(mnt, 0o755)
	args := append(flags, backing, mnt)
	srv := exec.Command(rt29Fuse.path, args...)
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- line
	}()
	select {
	case line := <-ready:
		if strings.TrimSpace(line) != "ready" {
			srv.Process.Kill()
			srv.Wait()
			t.Fatalf("FUSE server: %q", line)
		}
	case <-time.After(10 * time.Second):
		srv.Process.Kill()
		srv.Wait()
		t.Fatal("FUSE server did not mount")
	}
	t.Cleanup(func() {
		unix.Unmount(mnt, unix.MNT_DETACH)
		srv.Process.Kill()
		srv.Wait()
		os.RemoveAll(backing)
		os.Remove(mnt)
	})
	return backing, mnt
}

// rt29Write writes files (relative to dir) owned by uid.
func rt29Write(t *testing.T, dir string, uid int, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
		} else {
			os.MkdirAll(filepath.Dir(full), 0o755)
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, uid, uid) })
}

// rt29Refused tells whether r is the refusal of a carve-out reachable by
// another spelling.
func rt29Refused(r rtResult) bool {
	return r.ExitCode == 125 && strings.Contains(r.SbxError, "other spellings")
}

// TestRedTeam29EscCaseAlias: FINDING (fixed), as root and as uid 65534,
// on a case-insensitive FUSE mount of a directory on ext4:
//
//   - gitlink: the built-in workspace profile in a git worktree whose
//     ".git" is a link file ("gitdir: ..."), protected read-only by a
//     bind mount of the file. The command writes ".GIT": before the fix
//     the host's .git named /tmp/evil afterwards (a repository the command
//     makes, whose core.fsmonitor and hooks the host's git runs);
//   - deny: a profile denying {cwd}/.env (a mode-000 mask over the file):
//     before the fix `cat .ENV` printed the secret;
//   - dir: with a node per spelling (libfuse's path API), the workspace
//     profile with a ".git" directory: before the fix `mkdir .GIT/hooks`
//     and a pre-commit hook were created in the protected .git.
//
// Each run must now be refused (125, naming the rule and the other
// spelling) with nothing written or read. Control: the same workspace
// through its backing directory (ext4, case-sensitive) runs (0), and its
// ".GIT" is a file of its own.
func TestRedTeam29EscCaseAlias(t *testing.T) {
	denyArt := rt28Artifact(t, "rt29deny", `
profile "rt29deny" {
  filesystem {
    read    = [root]
    write   = [cwd]
    deny    = [path(cwd, ".env")]
    protect = [".git"]
  }
  network { mode = "none" }
}`)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		env := []string{"HOME=" + f.home}
		backing, mnt := rt29CIFuse(t, false)
		rt29Write(t, backing, u.uid, map[string]string{
			"repo.git/": "", "wt/.git": "gitdir: " + mnt + "/repo.git\n", "cwt/.git": "gitdir: " + mnt + "/repo.git\n",
			"sec/.env": "TOKEN=secret\n", "sec/.git/": "",
		})
		t.Run("gitlink", func(t *testing.T) {
			r := rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", mnt + "/wt", "--profile", "workspace", "--",
				"/bin/sh", "-c", "printf 'gitdir: /tmp/evil\\n' > .GIT; cat .git"}})
			got, _ := os.ReadFile(backing + "/wt/.git")
			if strings.Contains(string(got), "evil") {
				t.Errorf("HOLE: the command rewrote the protected .git link file through .GIT: it now reads %q (exit %d, %q %q)", got, r.ExitCode, r.Stdout, r.Stderr)
			}
			if !rt29Refused(r) {
				t.Errorf("want the run refused (125, other spellings): exit %d, sbx_error %q", r.ExitCode, r.SbxError)
			}
		})
		t.Run("deny", func(t *testing.T) {
			r := rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", mnt + "/sec", "--artifact", denyArt, "--",
				"/bin/sh", "-c", "cat .env; cat .ENV"}})
			if strings.Contains(r.Stdout, "secret") {
				t.Errorf("HOLE: the denied .env was read as .ENV: %q", r.Stdout)
			}
			if !rt29Refused(r) {
				t.Errorf("want the run refused (125, other spellings): exit %d, sbx_error %q", r.ExitCode, r.SbxError)
			}
		})
		t.Run("control", func(t *testing.T) {
			// The backing directory itself is case-sensitive: ".GIT" is
			// a new file there, and the run goes ahead.
			r := rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", backing + "/cwt", "--profile", "workspace", "--",
				"/bin/sh", "-c", "printf 'gitdir: /tmp/evil\\n' > .GIT; cat .git"}})
			if r.ExitCode != 0 || !strings.Contains(r.Stdout, "repo.git") {
				t.Errorf("control: the run on a case-sensitive directory should work: exit %d, %q %q %s", r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
			}
		})
	})
	t.Run("dir", func(t *testing.T) {
		asUser(t, func(t *testing.T, u user) {
			f := newFixture(t, u)
			backing, mnt := rt29CIFuse(t, true)
			rt29Write(t, backing, u.uid, map[string]string{"ws/.git/config": "[core]\n"})
			r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--cwd", mnt + "/ws", "--profile", "workspace", "--",
				"/bin/sh", "-c", "mkdir .GIT/hooks; printf '#!/bin/sh\\n' > .GIT/hooks/pre-commit"}})
			if _, err := os.Lstat(backing + "/ws/.git/hooks"); err == nil {
				t.Errorf("HOLE: the command created hooks in the protected .git directory through .GIT (exit %d, %q)", r.ExitCode, r.Stderr)
			}
			if !rt29Refused(r) {
				t.Errorf("want the run refused (125, other spellings): exit %d, sbx_error %q", r.ExitCode, r.SbxError)
			}
		})
	})
}

// rt29HeldC tries set-id mode bits and socket arguments spelled with high
// bits, and writing to a running executable given as argv[1].
const rt29HeldC = `#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

static void r(const char *n, long v) { printf("%s=%s\n", n, v >= 0 ? "ok" : strerrorname_np(errno)); }

int main(int argc, char **argv) {
	int fd = open("sf", O_CREAT | O_WRONLY, 0755);
	close(fd);
	r("chmod", syscall(SYS_chmod, "sf", 0x10000UL | 04755));
	r("fchmodat", syscall(SYS_fchmodat, AT_FDCWD, "sf", 0xffffffff00000000UL | 04755));
	r("fchmodat2", syscall(452, AT_FDCWD, "sf", 0x10000UL | 02755, 0));
	fd = open("sf", O_RDONLY);
	r("fchmod", syscall(SYS_fchmod, fd, 0x10000UL | 04755));
	r("open", syscall(SYS_open, "sf2", O_CREAT | O_WRONLY, 0x10000UL | 04755));
	r("openat", syscall(SYS_openat, AT_FDCWD, "sf3", O_CREAT | O_WRONLY, 0xffff0000UL | 04755));
	r("creat", syscall(SYS_creat, "sf4", 0x10000UL | 06755));
	r("mknod", syscall(SYS_mknod, "sf5", 0x10000UL | S_IFREG | 04755, 0));
	r("mknodat", syscall(SYS_mknodat, AT_FDCWD, "sf6", 0xffffffff00000000UL | S_IFREG | 04755, 0));
	struct stat st;
	int setid = 0;
	const char *fs[] = {"sf", "sf2", "sf3", "sf4", "sf5", "sf6"};
	for (int i = 0; i < 6; i++)
		if (stat(fs[i], &st) == 0 && (st.st_mode & 06000)) setid++;
	printf("setid_files=%d\n", setid);
	r("socket_proto", syscall(SYS_socket, AF_INET, SOCK_STREAM, 0x100000000UL | 6));
	r("socket_family", syscall(SYS_socket, 0x100000000UL | AF_INET, SOCK_STREAM, 0));
	r("socket_type", syscall(SYS_socket, AF_UNIX, 0x100000000UL | SOCK_DGRAM, 0));
	r("write_exe", open(argv[1], O_WRONLY | O_APPEND));
	r("truncate_exe", truncate(argv[1], 100));
	return 0;
}
`

// TestRedTeam29EscHeld: attempts that held, as root and as uid 65534, under
// the workspace profile, with sbx's binary copied into the workspace and
// run from there.
func TestRedTeam29EscHeld(t *testing.T) {
	helper := cHelper(t, "rt29held", rt29HeldC)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		data, err := os.ReadFile(filepath.Join(bin, "sbx"))
		if err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(f.ws, "sbx")
		if err := os.WriteFile(exe, data, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Lchown(exe, u.uid, u.uid)
		argv := []string{exe, "run", "--json", "--cwd", f.ws, "--profile", "workspace", "--", helper, exe}
		if u.uid != 0 {
			argv = append([]string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, argv...)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = []string{"HOME=" + f.home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}
		out, _ := cmd.Output()
		var r rtResult
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("sbx: %v\n%s", err, out)
		}
		got := rt11Fields(r.Stdout)
		want := map[string]string{
			"chmod": "EPERM", "fchmodat": "EPERM", "fchmodat2": "EPERM", "fchmod": "EPERM",
			"open": "EPERM", "openat": "EPERM", "creat": "EPERM", "mknod": "EPERM", "mknodat": "EPERM",
			"setid_files":  "0",
			"socket_proto": "EACCES", "socket_family": "EACCES", "socket_type": "EACCES",
			"write_exe": "ETXTBSY", "truncate_exe": "ETXTBSY",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: got %q, want %q (stdout %q, stderr %q, %s)", k, got[k], v, r.Stdout, r.Stderr, r.SbxError)
			}
		}
	})
}

// TestRedTeam29EscCaseAliasGuardedDir: FINDING (fixed), as root and as uid
// 65534. A case-insensitive FUSE file system whose server gives each
// spelling a node of its own (libfuse's path API, as ciopfs) mounted
// inside a writable root (/tmp here, writable in the workspace profile),
// the workspace a directory "ws" on it without .git. The supervisor
// refuses a guarded name in a guarded directory identified by device and
// inode; "../WS" is the workspace under another inode, so before the fix
// `mkdir ../WS/.git` created the host's ws/.git (whose hooks and
// configuration the host's git runs), every time. Now refused (EACCES):
// on FUSE the directory's path, folded, is compared as well. Control: a
// nested repository (sub/.git) is still created.
func TestRedTeam29EscCaseAliasGuardedDir(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		backing, mnt := rt29CIFuseIn(t, true, "/tmp")
		rt29Write(t, backing, u.uid, map[string]string{"ws/": ""})
		r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--cwd", mnt + "/ws", "--profile", "workspace", "--",
			"/bin/sh", "-c", "mkdir ../WS/.git; mkdir ../Ws/.GIT; printf x > ../wS/HEAD; mkdir sub sub/.git; echo done"}})
		if r.SbxError != "" || !strings.Contains(r.Stdout, "done") {
			t.Fatalf("run: exit %d, %q %q %s", r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
		}
		for _, name := range []string{".git", ".GIT", "HEAD"} {
			if _, err := os.Lstat(backing + "/ws/" + name); err == nil {
				t.Errorf("HOLE: the command created the protected %s in the workspace through another spelling of its directory (stderr %q)", name, r.Stderr)
			}
		}
		if _, err := os.Stat(backing + "/ws/sub/.git"); err != nil {
			t.Errorf("control: sub/.git was not created: %v (stderr %q)", err, r.Stderr)
		}
	})
}

// rt29TFOC sends with MSG_FASTOPEN (which connects without connect(), the
// call Landlock's port rules check) through sendto, sendmsg and sendmmsg,
// the flags also spelled with high bits, to the port in argv[1].
const rt29TFOC = `#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>

int main(int argc, char **argv) {
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1]))};
	a.sin_addr.s_addr = htonl(0x7f000001);
	unsigned long flags[] = {MSG_FASTOPEN, 0x100000000UL | MSG_FASTOPEN, 0xffffffff00000000UL | MSG_FASTOPEN | MSG_NOSIGNAL};
	for (int i = 0; i < 3; i++) {
		struct iovec io = {"hi", 2};
		struct msghdr m = {.msg_name = &a, .msg_namelen = sizeof a, .msg_iov = &io, .msg_iovlen = 1};
		struct mmsghdr mm = {.msg_hdr = m};
		long r = syscall(SYS_sendto, socket(AF_INET, SOCK_STREAM, 0), "hi", 2, flags[i], &a, sizeof a);
		printf("sendto%d=%s\n", i, r >= 0 ? "ok" : strerrorname_np(errno));
		r = syscall(SYS_sendmsg, socket(AF_INET, SOCK_STREAM, 0), &m, flags[i]);
		printf("sendmsg%d=%s\n", i, r >= 0 ? "ok" : strerrorname_np(errno));
		r = syscall(SYS_sendmmsg, socket(AF_INET, SOCK_STREAM, 0), &mm, 1, flags[i]);
		printf("sendmmsg%d=%s\n", i, r >= 0 ? "ok" : strerrorname_np(errno));
	}
	return 0;
}
`

// TestRedTeam29EscHeldFastOpen: held, as root and as uid 65534. In ports
// mode with one allowed port, TCP Fast Open to a denied port (a listener
// with TCP_FASTOPEN set) through sendto, sendmsg and sendmmsg, the flags
// spelled with high bits too (the kernel takes 32 bits): every call
// EACCES and nothing connects.
func TestRedTeam29EscHeldFastOpen(t *testing.T) {
	tfo := cHelper(t, "rt29tfo", rt29TFOC)
	art := rt28Artifact(t, "rt29ports", `
profile "rt29ports" {
  filesystem {
    read    = [root]
    write   = [cwd]
    protect = [".git"]
  }
  network {
    mode        = "ports"
    reason      = "test"
    connect_tcp = [1]
  }
}`)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if rc, err := l.(*net.TCPListener).SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_FASTOPEN, 5) })
		}
		accepted := make(chan bool, 1)
		go func() {
			c, err := l.Accept()
			if err == nil {
				c.Close()
			}
			accepted <- err == nil
		}()
		port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--cwd", f.ws, "--artifact", art, "--", tfo, port}})
		got := rt11Fields(r.Stdout)
		for _, call := range []string{"sendto", "sendmsg", "sendmmsg"} {
			for i := 0; i < 3; i++ {
				if k := call + strconv.Itoa(i); got[k] != "EACCES" {
					t.Errorf("%s: got %q, want EACCES (stdout %q, %s)", k, got[k], r.Stdout, r.SbxError)
				}
			}
		}
		l.Close()
		if <-accepted {
			t.Errorf("HOLE: a connection to the denied port %s was made", port)
		}
	})
}

// TestRedTeam29EscWindowsNames: FINDING (fixed), as root and as uid 65534,
// on a FUSE mount that compares names as NTFS does (each letter mapped to
// its upper case: Windows' file systems, served to WSL and over SMB), the
// workspace without .git. The supervisor refuses a guarded name's other
// spellings by Unicode case folding, under which the dotless i (U+0131)
// is a letter of its own; its upper case is "I", so NTFS takes ".g\u0131t"
// for ".git": before the fix `mkdir .g\u0131t` made the workspace's .git as
// the host's git sees it, every time (and "\u0130", whose simple lower
// case is "i", likewise where a server lowercases). Likewise Windows'
// Win32 layer drops trailing dots and spaces (".git." is ".git"; git for
// Windows refuses such names in trees for that reason): on a server that
// does (-w), `mkdir .git.` made .git. Now refused (EACCES).
func TestRedTeam29EscWindowsNames(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, c := range []struct{ name, flags, script string }{
			{"dotless-i", "-u", "mkdir .g\u0131t; mkdir .G\u0130T; mkdir .GIT; echo done"},
			{"trailing-dots", "-w", "mkdir .git.; mkdir '.git '; mkdir '.GIT. .'; echo done"},
		} {
			t.Run(c.name, func(t *testing.T) { rt29Windows(t, u, f, c.flags, c.script) })
		}
	})
}

// rt29Windows runs script in a workspace without .git on a FUSE mount
// with flags, and fails if the host's view then has a .git.
func rt29Windows(t *testing.T, u user, f *fixture, flags, script string) {
	{
		backing, mnt := rt29CIFuseFlags(t, "/var/tmp", flags)
		rt29Write(t, backing, u.uid, map[string]string{"ws/": ""})
		r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--cwd", mnt + "/ws", "--profile", "workspace", "--",
			"/bin/sh", "-c", script}})
		if r.SbxError != "" || !strings.Contains(r.Stdout, "done") {
			t.Fatalf("run: exit %d, %q %q %s", r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
		}
		if _, err := os.Stat(mnt + "/ws/.git"); err == nil {
			ents, _ := os.ReadDir(backing + "/ws")
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("HOLE: the workspace has a .git as the host sees it, created by the command as %q (stderr %q)", names, r.Stderr)
		}
	}
}
