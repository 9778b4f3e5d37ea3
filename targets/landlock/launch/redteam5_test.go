//go:build linux && amd64

package launch_test

// Fifth red-team pass, against the supervisor's newer services: connect()
// to listed pathname Unix sockets, listen() with bind ports, bind() refusing
// abstract and autobound names without a network namespace,
// inotify_add_watch where part of the tree is unreadable, and nested
// Landlock under the supervisor.
//
//	go test -count=1 -run 'TestRedTeam5' ./targets/landlock/launch/
//
// The first tests reproduce holes (they fail until fixed); the ones after
// "Classes that hold" assert behaviour that held.

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rt5Source is the helper the tests run inside the sandbox (built static
// with gcc into bin once). Every line it prints that starts with "HOLE" is
// an escape; the tests fail on any.
const rt5Source = `// rt5: red-team helper (supervisor network and inotify services).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static void out(const char *k, int r) {
	if (r >= 0) printf("%s=ok\n", k);
	else printf("%s=%s\n", k, strerrorname_np(errno));
	fflush(stdout);
}

// --- connect: the supervisor decides on the address family it read; the
// kernel reads the address again after CONTINUE.
static struct sockaddr_un g_addr;
static volatile int g_stop;

static void *flip_family(void *a) {
	(void)a;
	volatile sa_family_t *f = &g_addr.sun_family;
	while (!g_stop) {
		*f = AF_INET;
		for (volatile int i = 0; i < 50; i++);
		*f = AF_UNIX;
		for (volatile int i = 0; i < 50; i++);
	}
	return 0;
}

static int connrace(const char *path, int iters) {
	memset(&g_addr, 0, sizeof g_addr);
	g_addr.sun_family = AF_UNIX;
	strncpy(g_addr.sun_path, path, sizeof g_addr.sun_path - 1);
	pthread_t th;
	pthread_create(&th, 0, flip_family, 0);
	int eacces = 0, einval = 0, other = 0;
	for (int i = 0; i < iters; i++) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (s < 0) { out("socket", s); return 1; }
		if (connect(s, (struct sockaddr *)&g_addr, sizeof g_addr) == 0) {
			g_stop = 1;
			char buf[64] = {0};
			struct pollfd p = {s, POLLIN, 0};
			if (poll(&p, 1, 2000) > 0) read(s, buf, sizeof buf - 1);
			buf[strcspn(buf, "\n")] = 0;
			printf("HOLE connected to %s after %d tries, peer says %s\n", path, i + 1, buf);
			return 0;
		}
		if (errno == EACCES) eacces++; else if (errno == EINVAL) einval++; else other++;
		close(s);
	}
	g_stop = 1;
	pthread_join(th, 0);
	printf("refused eacces=%d einval=%d other=%d\n", eacces, einval, other);
	return 0;
}

// --- listen: the supervisor checks the socket it duplicated, the kernel
// listens on whatever the descriptor is when the call proceeds.
static volatile int g_u, g_b;
static void *flip_fd(void *a) {
	(void)a;
	while (!g_stop) {
		dup2(g_b, 100);
		dup2(g_u, 100);
	}
	return 0;
}

static int listenrace(const char *ip, int port, int iters) {
	int b = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(b, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, ip, &sa.sin_addr);
	if (bind(b, (struct sockaddr *)&sa, sizeof sa) < 0) { out("bind-listed-port", -1); return 1; }
	int u = socket(AF_INET, SOCK_STREAM, 0);
	out("listen-unbound", listen(u, 1));
	g_b = b; g_u = u;
	dup2(b, 100);
	pthread_t th;
	pthread_create(&th, 0, flip_fd, 0);
	int ok = 0, eacces = 0, other = 0;
	for (int i = 0; i < iters; i++) {
		int r = listen(100, 1);
		if (r == 0) ok++; else if (errno == EACCES) eacces++; else other++;
		int acc = 0; socklen_t l = sizeof acc;
		getsockopt(u, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l);
		if (acc) {
			g_stop = 1;
			struct sockaddr_in got; l = sizeof got;
			getsockname(u, (struct sockaddr *)&got, &l);
			printf("HOLE never-bound socket listening on ephemeral port %d after %d tries\n", ntohs(got.sin_port), i + 1);
			return 0;
		}
	}
	g_stop = 1;
	pthread_join(th, 0);
	printf("held ok=%d eacces=%d other=%d\n", ok, eacces, other);
	return 0;
}

// --- connect variants that must all fail (t-sock).
static int conn_path(const char *k, const char *path, socklen_t extra, int type) {
	int s = socket(AF_UNIX, type, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	memcpy(a.sun_path, path, strlen(path));
	socklen_t len = offsetof(struct sockaddr_un, sun_path) + strlen(path) + extra;
	if (len > sizeof a) len = sizeof a;
	int r = connect(s, (struct sockaddr *)&a, len);
	if (r == 0) {
		char buf[64] = {0};
		struct pollfd p = {s, POLLIN, 0};
		if (poll(&p, 1, 2000) > 0) read(s, buf, sizeof buf - 1);
		buf[strcspn(buf, "\n")] = 0;
		printf("%s=ok:%s\n", k, buf);
		fflush(stdout);
	} else out(k, r);
	close(s);
	return r;
}

static int connvariants(const char *other, const char *listed, const char *ws) {
	char p[512];
	// O_PATH descriptors on both sockets, reached as /proc/self/fd/N etc.
	int fo = open(other, O_PATH), fl = open(listed, O_PATH);
	snprintf(p, sizeof p, "/proc/self/fd/%d", fo); conn_path("procfd-other", p, 0, SOCK_STREAM);
	snprintf(p, sizeof p, "/dev/fd/%d", fo); conn_path("devfd-other", p, 0, SOCK_STREAM);
	snprintf(p, sizeof p, "/proc/thread-self/fd/%d", fo); conn_path("threadfd-other", p, 0, SOCK_STREAM);
	snprintf(p, sizeof p, "/proc/%d/fd/%d", getpid(), fo); conn_path("pidfd-other", p, 0, SOCK_STREAM);
	snprintf(p, sizeof p, "/proc/self/fd/%d", fl); conn_path("procfd-listed", p, 0, SOCK_STREAM);
	// A directory descriptor on the sockets' directory.
	char dir[512]; snprintf(dir, sizeof dir, "%s", other); *strrchr(dir, '/') = 0;
	int fd = open(dir, O_PATH | O_DIRECTORY);
	snprintf(p, sizeof p, "/proc/self/fd/%d/other.sock", fd); conn_path("procdirfd-other", p, 0, SOCK_STREAM);
	snprintf(p, sizeof p, "/proc/self/fd/%d/listed.sock", fd); conn_path("procdirfd-listed", p, 0, SOCK_STREAM);
	// Relative with the cwd in the sockets' directory, "..", "//", "/./".
	chdir(dir);
	conn_path("rel-other", "other.sock", 0, SOCK_STREAM);
	conn_path("rel-dot-other", "./other.sock", 0, SOCK_STREAM);
	snprintf(p, sizeof p, "..%s/other.sock", strrchr(dir, '/')); conn_path("rel-dotdot-other", p, 0, SOCK_STREAM);
	snprintf(p, sizeof p, "/%s//./other.sock", dir); conn_path("slashes-other", p, 0, SOCK_STREAM);
	conn_path("proccwd-other", "/proc/self/cwd/other.sock", 0, SOCK_STREAM);
	conn_path("procroot-other", "/proc/self/root/../other.sock", 0, SOCK_STREAM);
	snprintf(p, sizeof p, "/proc/self/root%s", other); conn_path("procroot-abs-other", p, 0, SOCK_STREAM);
	snprintf(p, sizeof p, "/proc/1/root%s", other); conn_path("proc1root-other", p, 0, SOCK_STREAM);
	conn_path("proc1cwd-other", "/proc/1/cwd/other.sock", 0, SOCK_STREAM);
	// Address length tricks: a listed prefix with the rest cut by the
	// length, a listed path followed by garbage, a length past the NUL.
	snprintf(p, sizeof p, "%s", other);
	conn_path("len-extra-other", p, 40, SOCK_STREAM);
	char trick[256]; snprintf(trick, sizeof trick, "%sX", other);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	memcpy(a.sun_path, trick, strlen(trick));
	out("len-cut-other", connect(s, (struct sockaddr *)&a, offsetof(struct sockaddr_un, sun_path) + strlen(other)));
	close(s);
	// A full 108-byte path without NUL.
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(a.sun_path, '/', sizeof a.sun_path);
	memcpy(a.sun_path + sizeof a.sun_path - strlen(other), other, strlen(other));
	out("nonul-other", connect(s, (struct sockaddr *)&a, sizeof a));
	close(s);
	// AF_UNSPEC on a Unix socket, then other types.
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr sa = {.sa_family = AF_UNSPEC};
	out("unspec", connect(s, &sa, sizeof sa));
	conn_path("seqpacket-other", other, 0, SOCK_SEQPACKET);
	// A hard link and a symlink in the writable workspace, created now.
	snprintf(p, sizeof p, "%s/hl.sock", ws);
	out("hardlink-other-create", link(other, p));
	conn_path("hardlink-other", p, 0, SOCK_STREAM);
	snprintf(p, sizeof p, "%s/sl.sock", ws);
	out("symlink-other-create", symlink(other, p));
	conn_path("symlink-other", p, 0, SOCK_STREAM);
	// A connect on a descriptor that is not a socket.
	int nf = open("/dev/null", O_RDONLY);
	a.sun_family = AF_UNIX; memset(a.sun_path, 0, sizeof a.sun_path); strcpy(a.sun_path, listed);
	out("notsock-listed", connect(nf, (struct sockaddr *)&a, sizeof a));
	// The control: the listed socket itself.
	conn_path("listed", listed, 0, SOCK_STREAM);
	return 0;
}

// --- abstract and autobound names without a network namespace.
static void name_of(const char *k, int s) {
	struct sockaddr_un a; socklen_t l = sizeof a;
	memset(&a, 0, sizeof a);
	if (getsockname(s, (struct sockaddr *)&a, &l) < 0) { printf("%s-name=%s\n", k, strerrorname_np(errno)); return; }
	if (l <= offsetof(struct sockaddr_un, sun_path)) printf("%s-name=unnamed\n", k);
	else if (a.sun_path[0] == 0) printf("HOLE %s-name=abstract @%.*s\n", k, (int)(l - offsetof(struct sockaddr_un, sun_path) - 1), a.sun_path + 1);
	else printf("%s-name=%s\n", k, a.sun_path);
	fflush(stdout);
}

static int sendcreds(int s) {
	char data = 'x';
	struct iovec iov = {&data, 1};
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(struct ucred))]; } u;
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET; c->cmsg_type = SCM_CREDENTIALS; c->cmsg_len = CMSG_LEN(sizeof(struct ucred));
	struct ucred cr = {getpid(), getuid(), getgid()};
	memcpy(CMSG_DATA(c), &cr, sizeof cr);
	return sendmsg(s, &m, 0);
}

static int abstract(const char *ws) {
	int one = 1, sp[2];
	const int types[] = {SOCK_SEQPACKET, SOCK_STREAM};
	const char *tn[] = {"seqpacket", "stream"};
	for (int t = 0; t < 2; t++) {
		char k[64];
		socketpair(AF_UNIX, types[t], 0, sp);
		snprintf(k, sizeof k, "%s-passcred", tn[t]); out(k, setsockopt(sp[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one));
		snprintf(k, sizeof k, "%s-passpidfd", tn[t]); out(k, setsockopt(sp[0], SOL_SOCKET, 76, &one, sizeof one));
		snprintf(k, sizeof k, "%s-passsec", tn[t]); out(k, setsockopt(sp[0], SOL_SOCKET, SO_PASSSEC, &one, sizeof one));
		snprintf(k, sizeof k, "%s-passrights", tn[t]); out(k, setsockopt(sp[0], SOL_SOCKET, 83, &one, sizeof one));
		int v = 0; socklen_t l = sizeof v;
		getsockopt(sp[0], SOL_SOCKET, SO_PASSCRED, &v, &l);
		printf("%s-getpasscred=%d\n", tn[t], v);
		snprintf(k, sizeof k, "%s-scmcreds", tn[t]); out(k, sendcreds(sp[0]));
		snprintf(k, sizeof k, "%s-send", tn[t]); out(k, send(sp[1], "y", 1, 0));
		snprintf(k, sizeof k, "%s-a", tn[t]); name_of(k, sp[0]);
		snprintf(k, sizeof k, "%s-b", tn[t]); name_of(k, sp[1]);
		// setsockopt with the level's upper bits set (the kernel takes an int).
		snprintf(k, sizeof k, "%s-passcred-hilevel", tn[t]);
		out(k, syscall(SYS_setsockopt, sp[0], 0x100000000UL | SOL_SOCKET, 0x100000000UL | SO_PASSCRED, &one, sizeof one));
		sendcreds(sp[0]);
		snprintf(k, sizeof k, "%s-hi-a", tn[t]); name_of(k, sp[0]);
	}
	// Unconnected sockets: connect, listen, bind variants.
	for (int t = 0; t < 2; t++) {
		char k[64];
		int s = socket(AF_UNIX, types[t], 0);
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		strcpy(a.sun_path + 1, "sbx-rt5-abs");
		snprintf(k, sizeof k, "%s-connect-abs", tn[t]); out(k, connect(s, (struct sockaddr *)&a, sizeof a));
		snprintf(k, sizeof k, "%s-listen-unbound", tn[t]); out(k, listen(s, 1));
		snprintf(k, sizeof k, "%s-bind-autobind", tn[t]); out(k, bind(s, (struct sockaddr *)&a, 2));
		snprintf(k, sizeof k, "%s-bind-abs", tn[t]); out(k, bind(s, (struct sockaddr *)&a, sizeof a));
		snprintf(k, sizeof k, "%s-bind-abs3", tn[t]); out(k, bind(s, (struct sockaddr *)&a, 3));
		struct sockaddr_un b = {.sun_family = AF_INET};
		snprintf(k, sizeof k, "%s-bind-inet2", tn[t]); out(k, bind(s, (struct sockaddr *)&b, 2));
		snprintf(k, sizeof k, "%s-bind-0", tn[t]); out(k, bind(s, (struct sockaddr *)&b, 0));
		snprintf(k, sizeof k, "%s-s", tn[t]); name_of(k, s);
		close(s);
	}
	// A pathname bind, then listen and accept from a second socket: the
	// accepted one must not be autobound either.
	int l = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s/sub/rt5.sock", ws);
	out("bind-path", bind(l, (struct sockaddr *)&a, sizeof a));
	out("listen-path", listen(l, 1));
	name_of("path", l);
	snprintf(a.sun_path, sizeof a.sun_path, "%s/.git", ws);
	int g = socket(AF_UNIX, SOCK_STREAM, 0);
	out("bind-git", bind(g, (struct sockaddr *)&a, sizeof a));
	fflush(stdout);
	return 0;
}

// --- inotify on unreadable directories (t-narrow: cwd readable only).
static int g_in;
static void *exchange(void *a) {
	(void)a;
	while (!g_stop) syscall(SYS_renameat2, AT_FDCWD, "sub/a", AT_FDCWD, "sub/b", 2 /* RENAME_EXCHANGE */);
	return 0;
}

static void w(const char *k, const char *p, unsigned mask) {
	int r = inotify_add_watch(g_in, p, mask);
	if (r >= 0) printf("%s=ok(%d)\n", k, r); else printf("%s=%s\n", k, strerrorname_np(errno));
	fflush(stdout);
}

static int watch(const char *unreadable, const char *unreadable2) {
	char p[512];
	g_in = inotify_init1(0);
	w("ctl-cwd", ".", IN_CREATE);
	w("ctl-sub", "sub", IN_CREATE);
	w("abs", unreadable, IN_CREATE);
	w("abs-dontfollow", unreadable, IN_CREATE | IN_DONT_FOLLOW);
	w("abs-onlydir", unreadable, IN_CREATE | IN_ONLYDIR);
	w("abs-maskadd", unreadable, IN_CREATE | IN_MASK_ADD);
	w("abs2", unreadable2, IN_CREATE);
	w("dotdot", "..", IN_CREATE);
	w("dotdot-slash", "sub/../..", IN_CREATE);
	int o = open(unreadable, O_PATH | O_DIRECTORY);
	printf("opath=%d\n", o);
	snprintf(p, sizeof p, "/proc/self/fd/%d", o); w("procfd", p, IN_CREATE);
	snprintf(p, sizeof p, "/proc/self/fd/%d/", o); w("procfd-slash", p, IN_CREATE);
	snprintf(p, sizeof p, "/proc/self/fd/%d/.", o); w("procfd-dot", p, IN_CREATE);
	snprintf(p, sizeof p, "/proc/self/fd/%d", o); w("procfd-dontfollow", p, IN_CREATE | IN_DONT_FOLLOW);
	snprintf(p, sizeof p, "/dev/fd/%d", o); w("devfd", p, IN_CREATE);
	snprintf(p, sizeof p, "/proc/thread-self/fd/%d", o); w("threadfd", p, IN_CREATE);
	snprintf(p, sizeof p, "/proc/%d/fd/%d", getpid(), o); w("pidfd", p, IN_CREATE);
	snprintf(p, sizeof p, "/proc/%d/task/%d/fd/%d", getpid(), gettid(), o); w("taskfd", p, IN_CREATE);
	// The parent of an open directory, through its descriptor.
	int so = open("sub", O_PATH | O_DIRECTORY);
	snprintf(p, sizeof p, "/proc/self/fd/%d/../..", so); w("procfd-dotdot", p, IN_CREATE);
	w("proc1cwd", "/proc/1/cwd", IN_CREATE);
	w("proc1root", "/proc/1/root", IN_CREATE);
	w("ctl-proc1", "/proc/1", IN_CREATE); // readable: the fresh /proc is in the base allowances
	snprintf(p, sizeof p, "/proc/self/root%s", unreadable); w("procroot", p, IN_CREATE);
	// A process of the sandbox whose cwd is unreadable: open an O_PATH
	// cwd and fchdir to it.
	pid_t c = fork();
	if (c == 0) { fchdir(o); pause(); _exit(0); }
	usleep(100000);
	snprintf(p, sizeof p, "/proc/%d/cwd", c); w("child-cwd", p, IN_CREATE);
	kill(c, 9);
	// Our own cwd unreadable: fchdir to the O_PATH descriptor and watch ".".
	int here = open(".", O_PATH | O_DIRECTORY);
	if (fchdir(o) == 0) {
		w("cwd-unreadable", ".", IN_CREATE);
		w("proccwd-unreadable", "/proc/self/cwd", IN_CREATE);
	} else out("fchdir", -1);
	fchdir(here);
	// Symlinks in the writable cwd to the unreadable directory.
	symlink(unreadable, "sub/l");
	w("symlink", "sub/l", IN_CREATE);
	w("symlink-dontfollow", "sub/l", IN_CREATE | IN_DONT_FOLLOW);
	w("symlink-slash", "sub/l/", IN_CREATE | IN_DONT_FOLLOW);
	// Race: sub/a alternates between a readable directory and a symlink
	// to the unreadable one. Any watch that is not the directory's is on
	// the unreadable one.
	mkdir("sub/a", 0755);
	symlink(unreadable, "sub/b");
	int d = open("sub/a", O_RDONLY | O_DIRECTORY);
	snprintf(p, sizeof p, "/proc/self/fd/%d", d);
	int wdd = inotify_add_watch(g_in, p, IN_CREATE);
	printf("race-ctl=%d\n", wdd);
	int known[64], nk = 0;
	// Every watch so far (they are the readable ones or failures).
	pthread_t th;
	pthread_create(&th, 0, exchange, 0);
	int ok = 0, fail = 0, foreign = 0;
	for (int i = 0; i < 3000; i++) {
		int r = inotify_add_watch(g_in, (i & 1) ? "sub/a" : "sub/a/", IN_CREATE);
		if (r < 0) { fail++; continue; }
		ok++;
		if (r != wdd) {
			int seen = 0;
			for (int j = 0; j < nk; j++) seen |= known[j] == r;
			if (!seen && nk < 64) known[nk++] = r;
			foreign++;
		}
	}
	g_stop = 1;
	pthread_join(th, 0);
	for (int j = 0; j < nk; j++) printf("HOLE race watch %d is not the readable directory's (%d)\n", known[j], wdd);
	printf("race ok=%d fail=%d foreign=%d\n", ok, fail, foreign);
	return 0;
}

static int landlock(void) {
	out("ll-create", syscall(SYS_landlock_create_ruleset, 0, 0, 1));
	out("ll-create2", syscall(SYS_landlock_create_ruleset, 0, 0, 0));
	out("ll-add", syscall(SYS_landlock_add_rule, -1, 1, 0, 0));
	out("ll-restrict", syscall(SYS_landlock_restrict_self, -1, 0));
	return 0;
}

int main(int argc, char **argv) {
	setvbuf(stdout, 0, _IOLBF, 0);
	if (argc < 2) return 2;
	if (!strcmp(argv[1], "connrace") && argc == 4) return connrace(argv[2], atoi(argv[3]));
	if (!strcmp(argv[1], "listenrace") && argc == 5) return listenrace(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (!strcmp(argv[1], "connvariants") && argc == 5) return connvariants(argv[2], argv[3], argv[4]);
	if (!strcmp(argv[1], "abstract") && argc == 3) return abstract(argv[2]);
	if (!strcmp(argv[1], "watch") && argc == 4) return watch(argv[2], argv[3]);
	if (!strcmp(argv[1], "landlock")) return landlock();
	return 2;
}
`

func rt5Helper(t *testing.T) string {
	t.Helper()
	return cHelper(t, "rt5", rt5Source, "-pthread")
}

// rt5Sockets listens on bin/listed.sock (listed in t-sock and t-sockports)
// and bin/other.sock (not listed); each accepted connection is told which
// socket it reached.
func rt5Sockets(t *testing.T) {
	t.Helper()
	for _, name := range []string{"listed.sock", "other.sock"} {
		p := filepath.Join(bin, name)
		os.Remove(p)
		l, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		os.Chmod(p, 0o777)
		tag := strings.ToUpper(strings.TrimSuffix(name, ".sock")) + "\n"
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Write([]byte(tag))
				c.Close()
			}
		}()
	}
}

// rt5Run runs the helper under profile (an artifact name) in cwd.
func rt5Run(t *testing.T, f *fixture, profile, cwd string, args ...string) rtResult {
	t.Helper()
	helper := rt5Helper(t)
	if profile == "t-narrow" {
		// t-narrow reads only its cwd: run a copy from there.
		data, err := os.ReadFile(helper)
		if err != nil {
			t.Fatal(err)
		}
		helper = filepath.Join(cwd, "rt5")
		if err := os.WriteFile(helper, data, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chown(helper, f.u.uid, f.u.uid)
	}
	a := []string{"--cwd", cwd, "--artifact", filepath.Join(bin, profile+".json"), "--", helper}
	if !strings.HasPrefix(profile, "t-") {
		a = []string{"--cwd", cwd, "--profile", profile, "--", helper}
	}
	r := rtRun(t, rtOpts{u: f.u, args: append(a, args...), env: []string{"HOME=" + f.home}, timeout: 60 * time.Second})
	t.Logf("%s %v:\n%s%s", profile, args, r.Stdout, r.Stderr)
	if r.SbxError != "" {
		t.Fatalf("sbx failed: %s", r.SbxError)
	}
	return r
}

// rt5Holes reports every HOLE line of the helper's output.
func rt5Holes(t *testing.T, what string, r rtResult) {
	t.Helper()
	for _, line := range strings.Split(r.Stdout, "\n") {
		if strings.HasPrefix(line, "HOLE") {
			t.Errorf("%s: %s", what, line)
		}
	}
}

// rt5Field returns the value printed as key=value.
func rt5Field(out, key string) string {
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && k == key {
			return v
		}
	}
	return "(missing)"
}

// ---------------------------------------------------------------------------
// Holes.

// TestRedTeam5ConnectFamilyTOCTOU: the connect() supervisor decides from
// the address family it read in the caller's memory, not from the socket's
// own family: an address whose family reads AF_INET is answered with
// CONTINUE ("internet addresses proceed: Landlock checks them"), and the
// kernel then copies the address again from memory the command controls.
// A second thread flips sun_family between AF_INET and AF_UNIX; when the
// supervisor reads AF_INET and the kernel AF_UNIX, the command's AF_UNIX
// socket connects to any pathname socket — here the unlisted
// bin/other.sock next to the listed one (t-sock: network none, so every
// socket the command can create is a Unix socket; t-sockports likewise).
//
// Reproducer: sbx run --artifact t-sock.json -- rt5 connrace BIN/other.sock 20000
// (rt5: see rt5Source) prints "HOLE connected to .../other.sock after N
// tries, peer says OTHER". Fix: decide on the socket's family
// (getsockopt(SO_DOMAIN) on the duplicate), never on the address.
func TestRedTeam5ConnectFamilyTOCTOU(t *testing.T) {
	rt5Helper(t)
	rt5Sockets(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, profile := range []string{"t-sock", "t-sockports"} {
			r := rt5Run(t, f, profile, f.ws, "connrace", filepath.Join(bin, "other.sock"), "20000")
			rt5Holes(t, profile, r)
			if !strings.Contains(r.Stdout, "HOLE") && !strings.Contains(r.Stdout, "refused") {
				t.Errorf("%s: unexpected output %q %q", profile, r.Stdout, r.Stderr)
			}
		}
	})
}

// TestRedTeam5ListenFdSwapTOCTOU: the listen() supervisor duplicates the
// caller's descriptor (pidfd_getfd), sees a socket bound to the listed
// port, and answers CONTINUE; the kernel then looks the descriptor number
// up again. A second thread alternates dup2(bound, 100) and
// dup2(never_bound, 100): when the supervisor gets the bound socket and the
// kernel the other one, a never-bound TCP socket listens on an ephemeral
// port that Landlock never checked (t-bind allows binding PORTOK only), on
// the host's network (no network namespace in ports mode).
//
// Reproducer: sbx run --artifact t-bind.json -- rt5 listenrace 127.0.0.2 PORTOK 20000
// prints "HOLE never-bound socket listening on ephemeral port N". Fix: do
// not CONTINUE listen(); perform it on the duplicate that was checked (it
// is the same socket the caller holds) and reply with its result.
func TestRedTeam5ListenFdSwapTOCTOU(t *testing.T) {
	rt5Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		r := rt5Run(t, f, "t-bind", f.ws, "listenrace", "127.0.0.2", strconv.Itoa(portOK), "20000")
		if got := rt5Field(r.Stdout, "listen-unbound"); got != "EACCES" {
			t.Errorf("listen on a never-bound socket: %s, want EACCES", got)
		}
		if got := rt5Field(r.Stdout, "bind-listed-port"); got != "(missing)" {
			t.Fatalf("binding the listed port failed: %s (%q)", got, r.Stderr)
		}
		rt5Holes(t, "t-bind", r)
		if !strings.Contains(r.Stdout, "HOLE") && !strings.Contains(r.Stdout, "held") {
			t.Errorf("unexpected output %q %q", r.Stdout, r.Stderr)
		}
	})
}

// ---------------------------------------------------------------------------
// Classes that hold.

// TestRedTeam5ConnectVariantsHeld: every other way to name the unlisted
// socket fails (EACCES or a resolution error), the listed one works.
func TestRedTeam5ConnectVariantsHeld(t *testing.T) {
	rt5Helper(t)
	rt5Sockets(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, profile := range []string{"t-sock", "t-sockports"} {
			r := rt5Run(t, f, profile, f.ws, "connvariants", filepath.Join(bin, "other.sock"), filepath.Join(bin, "listed.sock"), f.ws)
			if got := rt5Field(r.Stdout, "listed"); got != "ok:LISTED" {
				t.Errorf("%s: control: connect to the listed socket: %s (%q %q)", profile, got, r.Stdout, r.Stderr)
			}
			for _, line := range strings.Split(r.Stdout, "\n") {
				k, v, ok := strings.Cut(line, "=")
				if !ok || k == "listed" || strings.HasSuffix(k, "-create") {
					continue
				}
				if strings.HasPrefix(v, "ok") && (strings.Contains(k, "other") || strings.Contains(v, "OTHER")) {
					t.Errorf("%s: %s reached the unlisted socket (%s)", profile, k, v)
				}
				if k == "notsock-listed" && v != "ENOTSOCK" && v != "EACCES" {
					t.Errorf("%s: connect on /dev/null: %s", profile, v)
				}
			}
		}
	})
}

// TestRedTeam5AbstractNamesHeld: in network none without a network
// namespace (workspace profile), no socket gets an abstract or autobound
// name: SO_PASSCRED/SO_PASSPIDFD are refused (also with the upper bits of
// the level and option set), SCM_CREDENTIALS does not autobind, autobind
// and abstract binds fail, pathname binds work and respect .git.
func TestRedTeam5AbstractNamesHeld(t *testing.T) {
	rt5Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, c := range []struct{ profile, cwd string }{{"workspace", f.nogit}, {"workspace", f.ws}} {
			r := rt5Run(t, f, c.profile, c.cwd, "abstract", c.cwd)
			rt5Holes(t, c.profile, r)
			for _, k := range []string{"seqpacket-passcred", "seqpacket-passpidfd", "stream-passcred", "stream-passpidfd",
				"seqpacket-passcred-hilevel", "stream-passcred-hilevel", "seqpacket-bind-autobind", "seqpacket-bind-abs", "seqpacket-bind-abs3",
				"stream-bind-autobind", "stream-bind-abs", "stream-bind-abs3", "seqpacket-connect-abs", "stream-connect-abs"} {
				if got := rt5Field(r.Stdout, k); got != "EACCES" {
					t.Errorf("%s in %s: %s: %s, want EACCES", c.profile, c.cwd, k, got)
				}
			}
			if got := rt5Field(r.Stdout, "bind-path"); got != "ok" {
				t.Errorf("control: pathname bind: %s", got)
			}
			if c.cwd == f.nogit {
				if got := rt5Field(r.Stdout, "bind-git"); got != "EACCES" {
					t.Errorf("bind on a missing .git: %s, want EACCES", got)
				}
			}
		}
	})
}

// TestRedTeam5InotifyUnreadableHeld: t-narrow reads only its cwd: watches
// on unreadable directories fail through every path form, descriptor,
// symlink and /proc alias, and a rename race that swaps a readable
// directory for a symlink to an unreadable one never yields a watch on it.
func TestRedTeam5InotifyUnreadableHeld(t *testing.T) {
	rt5Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		r := rt5Run(t, f, "t-narrow", f.ws, "watch", f.outside, f.home)
		rt5Holes(t, "t-narrow", r)
		for _, k := range []string{"ctl-cwd", "ctl-sub"} {
			if got := rt5Field(r.Stdout, k); !strings.HasPrefix(got, "ok") {
				t.Errorf("control %s: %s (%q %q)", k, got, r.Stdout, r.Stderr)
			}
		}
		for _, line := range strings.Split(r.Stdout, "\n") {
			k, v, ok := strings.Cut(line, "=")
			if !ok || strings.HasPrefix(k, "ctl-") || strings.HasPrefix(k, "race") || k == "opath" {
				continue
			}
			if strings.HasPrefix(v, "ok") {
				t.Errorf("watch %s on an unreadable directory: %s", k, v)
			}
		}
		if !strings.Contains(r.Stdout, "race ok=") {
			t.Errorf("race did not run: %q %q", r.Stdout, r.Stderr)
		}
	})
}

// TestRedTeam5NestedLandlockHeld: under the supervisor every landlock_*
// system call fails with ENOSYS (a nested domain would not cover the calls
// the supervisor performs).
func TestRedTeam5NestedLandlockHeld(t *testing.T) {
	rt5Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, profile := range []string{"t-sock", "t-bind", "t-narrow", "workspace"} {
			cwd := f.ws
			if profile == "workspace" {
				cwd = f.nogit
			}
			r := rt5Run(t, f, profile, cwd, "landlock")
			for _, k := range []string{"ll-create", "ll-create2", "ll-add", "ll-restrict"} {
				if got := rt5Field(r.Stdout, k); got != "ENOSYS" {
					t.Errorf("%s: %s: %s, want ENOSYS", profile, k, got)
				}
			}
		}
	})
}
