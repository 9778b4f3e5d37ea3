//go:build linux && amd64

package launch_test

// Red team 25 (the seccomp supervisor and filter), through the real sbx
// binary (built by TestMain), as root and as uid 65534, with the C helper
// rt25SupC. The workspace profile runs in the fixture's nogit directory,
// where .git is missing: the supervisor performs every creation system
// call and must refuse .git directly in the workspace. Each test first
// runs the same helper without the sandbox, as the same user, in a copy
// of the tree (control): there each refused route creates .git.
//
//   - HOLE (fixed): the supervisor guards a missing .git only directly below each
//     writable root. A workspace below another writable root with a
//     directory in between (--cwd /tmp/X/mid/ws, as after `mktemp -d`; or
//     below $TMPDIR) has its own .git refused, but the command creates
//     /tmp/X/mid/.git, and git's discovery, run by the host in the
//     workspace after the run, walks up from the workspace (which has no
//     .git) and takes it: its core.fsmonitor runs on the host
//     (TestRedTeam25SupAncestorRepository);
//   - held: threads with a working directory or descriptor table of their
//     own (clone without CLONE_FS, without CLONE_FILES), a vfork child, and
//     another process's /proc/PID/cwd and /proc/PID/root: the supervisor
//     takes the calling thread's cwd (AT_FDCWD, /proc/thread-self/cwd) and
//     descriptors, the thread group leader's for /proc/self, and refuses
//     another process's magic links; and it still creates what the kernel
//     would in the thread's own directory (TestRedTeam25SupHeldThreadContext);
//   - held: a thread rewriting the path (or the socket address) between
//     ".git" and an ordinary name while the call is pending, for mkdir,
//     open(O_CREAT), symlink, mknod, link, rename, renameat2, bind and
//     linkat of an O_TMPFILE: about half of the calls create the ordinary
//     name, none creates .git (TestRedTeam25SupHeldPathRewrite);
//   - held: the host re-pointing a symlinked parent ("lnk" -> sub or ".")
//     while the command creates lnk/.git (TestRedTeam25SupHeldHostRepoint);
//   - held: 300 threads creating .git (five ways, .GIT included) and an
//     ordinary directory at once; 200 blocked FIFO opens occupying the
//     supervisor's blocking helpers while .git is tried; processes killed
//     (SIGKILL) and threads torn down by execve with creations pending;
//     the whole command killing itself with calls pending (no supervisor
//     left behind) (TestRedTeam25SupHeldLoad);
//   - held: paths ending at the last byte of a mapping, a 4095-byte path
//     across a page boundary, an unterminated path before an unmapped page
//     (TestRedTeam25SupHeldPageEdge);
//   - held: the 32-bit entry (int 0x80 mkdir, open, creat, symlink, link,
//     mknod), x32 numbers, openat2 and io_uring_setup
//     (TestRedTeam25SupHeldOtherEntries).
//
//	go test -count=1 -run TestRedTeam25Sup -v ./targets/landlock/launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const rt25SupC = `
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* Raw system calls: no errno (raw clone children share the leader's TLS). */
static long rsys(long n, long a, long b, long c, long d, long e) {
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8) : "rcx", "r11", "memory");
	return ret;
}

static const char *en(long r) {
	if (r >= 0) return "ok";
	const char *s = strerrorname_np((int)-r);
	return s ? s : "E?";
}
static void rep(const char *k, long r) { printf("%s=%s\n", k, en(r)); fflush(stdout); }
static long er(long r) { return r < 0 ? -errno : r; }
static int exists(const char *p) { struct stat st; return lstat(p, &st) == 0; }
static void gitcheck(const char *k) { printf("%s.wsgit=%s\n", k, exists(".git") ? "yes" : "no"); fflush(stdout); }
static void rmgit(void) { unlink(".git"); rmdir(".git"); }

/* ---- clone without CLONE_FS / CLONE_FILES ---- */
static volatile int tdone;
static char wsabs[4096];
static char pbuf[8][4200];
static char wsfile[4200], wsmv[4200];
static long tres[16];
static int tmode;

static char wsgit[4200];
static char wexist[16];
static void tcheck(int i) {
	struct stat st;
	wexist[i] = rsys(SYS_newfstatat, AT_FDCWD, (long)wsgit, (long)&st, AT_SYMLINK_NOFOLLOW, 0) == 0;
	rsys(SYS_unlink, (long)wsgit, 0, 0, 0, 0);
	rsys(SYS_rmdir, (long)wsgit, 0, 0, 0, 0);
}
#define R(i, expr) do { tres[i] = (expr); tcheck(i); } while (0)

static int thr(void *arg) {
	(void)arg;
	long tid = rsys(SYS_gettid, 0, 0, 0, 0, 0);
	long pid = rsys(SYS_getpid, 0, 0, 0, 0, 0);
	long r;
	if (tmode == 0) {
		/* leader in sub, thread at the top */
		rsys(SYS_chdir, (long)"..", 0, 0, 0, 0);
		R(0, rsys(SYS_mkdir, (long)".git", 0755, 0, 0, 0));
		R(1, rsys(SYS_mkdir, (long)"/proc/thread-self/cwd/.git", 0755, 0, 0, 0));
		R(2, (r = rsys(SYS_open, (long)".git", O_CREAT | O_WRONLY | O_CLOEXEC, 0644, 0, 0)) >= 0 ? rsys(SYS_close, r, 0, 0, 0, 0) : r);
		R(3, rsys(SYS_mkdir, (long)"/proc/self/cwd/.git", 0755, 0, 0, 0)); /* leader's cwd: sub */
		rsys(SYS_rmdir, (long)"sub/.git", 0, 0, 0, 0);
		snprintf(pbuf[0], sizeof pbuf[0], "/proc/%ld/task/%ld/cwd/.git", pid, tid);
		R(4, rsys(SYS_mkdir, (long)pbuf[0], 0755, 0, 0, 0));
		long s = rsys(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, 0, 0);
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		strcpy(sa.sun_path, ".git");
		R(5, s < 0 ? s : rsys(SYS_bind, s, (long)&sa, sizeof sa, 0, 0));
		if (s >= 0) rsys(SYS_close, s, 0, 0, 0, 0);
		R(6, rsys(SYS_symlinkat, (long)"x", AT_FDCWD, (long)".git", 0, 0));
	} else if (tmode == 1) {
		/* leader at the top, thread in sub */
		rsys(SYS_chdir, (long)"sub", 0, 0, 0, 0);
		R(0, rsys(SYS_mkdir, (long)".git", 0755, 0, 0, 0)); /* sub/.git: fine */
		rsys(SYS_rmdir, (long)".git", 0, 0, 0, 0);
		R(1, rsys(SYS_mkdir, (long)"/proc/self/cwd/.git", 0755, 0, 0, 0)); /* leader's: top */
		R(2, rsys(SYS_mkdir, (long)"/proc/thread-self/cwd/.git", 0755, 0, 0, 0)); /* sub */
		rsys(SYS_rmdir, (long)".git", 0, 0, 0, 0);
		R(3, (r = rsys(SYS_open, (long)"/proc/self/cwd/.git", O_CREAT | O_WRONLY | O_CLOEXEC, 0644, 0, 0)) >= 0 ? rsys(SYS_close, r, 0, 0, 0, 0) : r);
		R(4, rsys(SYS_mkdir, (long)"../.git", 0755, 0, 0, 0));
	} else if (tmode == 2) {
		/* own descriptor table (no CLONE_FILES): fd 9 is the top here, sub in the leader */
		long top = rsys(SYS_open, (long)wsabs, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
		rsys(SYS_dup2, top, 9, 0, 0, 0);
		R(0, rsys(SYS_mkdirat, 9, (long)".git", 0755, 0, 0));
		R(1, rsys(SYS_mkdir, (long)"/proc/thread-self/fd/9/.git", 0755, 0, 0, 0));
		R(2, rsys(SYS_mkdir, (long)"/proc/self/fd/9/.git", 0755, 0, 0, 0)); /* leader's fd 9: sub */
		rsys(SYS_rmdir, (long)"sub/.git", 0, 0, 0, 0);
		R(3, (r = rsys(SYS_openat, 9, (long)".git", O_CREAT | O_WRONLY | O_CLOEXEC, 0644, 0)) >= 0 ? rsys(SYS_close, r, 0, 0, 0, 0) : r);
		R(4, rsys(SYS_linkat, AT_FDCWD, (long)wsfile, 9, (long)".git", 0));
		R(5, rsys(SYS_renameat2, AT_FDCWD, (long)wsmv, 9, (long)".git", RENAME_NOREPLACE));
	}
	tdone = 1;
	return 0;
}

static int clonefs_main(void) {
	static char stack[1 << 16] __attribute__((aligned(16)));
	getcwd(wsabs, sizeof wsabs);
	snprintf(wsgit, sizeof wsgit, "%s/.git", wsabs);
	snprintf(wsfile, sizeof wsfile, "%s/file", wsabs);
	snprintf(wsmv, sizeof wsmv, "%s/sub/mv", wsabs);
	const char *names[3][7] = {
		{"a.thr_mkdir", "a.thr_threadself", "a.thr_open", "a.thr_self_sub", "a.thr_pidtask", "a.thr_bind", "a.thr_symlink"},
		{"b.thr_sub_mkdir", "b.thr_self", "b.thr_threadself_sub", "b.thr_self_open", "b.thr_dotdot", 0, 0},
		{"c.mkdirat", "c.threadself_fd", "c.self_fd_sub", "c.openat", "c.linkat", "c.renameat2", 0},
	};
	for (tmode = 0; tmode < 3; tmode++) {
		int flags = CLONE_VM | CLONE_THREAD | CLONE_SIGHAND | CLONE_SYSVSEM;
		if (tmode != 2) flags |= CLONE_FILES;
		else {
			int s = open("sub", O_PATH | O_DIRECTORY | O_CLOEXEC);
			dup2(s, 9);
			close(s);
			mkdir("sub/mv", 0755);
		}
		if (tmode == 0) chdir("sub");
		memset(tres, 0, sizeof tres);
		memset(wexist, 0, sizeof wexist);
		tdone = 0;
		if (clone(thr, stack + sizeof stack, flags, 0) < 0) { rep("clone", er(-1)); return 0; }
		while (!tdone) sched_yield();
		for (volatile int i = 0; i < 100000; i++) ; /* the thread's exit after tdone touches no memory of ours */
		if (tmode == 0) chdir("..");
		for (int i = 0; i < 7 && names[tmode][i]; i++) {
			rep(names[tmode][i], tres[i]);
			printf("%s.wsgit=%s\n", names[tmode][i], wexist[i] ? "yes" : "no");
		}
		rmdir("sub/mv");
		close(9);
	}
	return 0;
}

/* ---- vfork child with its own cwd ---- */
static int vchild(void *arg) {
	(void)arg;
	rsys(SYS_chdir, (long)wsabs, 0, 0, 0, 0);
	long r;
	R(0, rsys(SYS_mkdir, (long)".git", 0755, 0, 0, 0));
	R(1, rsys(SYS_mkdir, (long)"/proc/self/cwd/.git", 0755, 0, 0, 0));
	R(2, (r = rsys(SYS_open, (long)".git", O_CREAT | O_WRONLY | O_CLOEXEC, 0644, 0, 0)) >= 0 ? rsys(SYS_close, r, 0, 0, 0, 0) : r);
	return 0;
}

static int vfork_main(void) {
	static char stack[1 << 16] __attribute__((aligned(16)));
	getcwd(wsabs, sizeof wsabs);
	snprintf(wsgit, sizeof wsgit, "%s/.git", wsabs);
	chdir("sub");
	memset(tres, 0, sizeof tres);
	pid_t p = clone(vchild, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, 0);
	if (p < 0) { rep("clone", er(-1)); return 0; }
	waitpid(p, 0, 0);
	chdir("..");
	const char *n[3] = {"v.mkdir", "v.self_cwd", "v.open"};
	for (int i = 0; i < 3; i++) { rep(n[i], tres[i]); printf("%s.wsgit=%s\n", n[i], wexist[i] ? "yes" : "no"); }
	return 0;
}

/* ---- another process's /proc/PID/cwd and /proc/PID/fd ---- */
static int pidcwd_main(void) {
	int p[2], q[2];
	pipe(p);
	pipe(q);
	pid_t c = fork();
	if (c == 0) {
		char b;
		write(p[1], "x", 1);
		read(q[0], &b, 1);
		_exit(0);
	}
	char b;
	read(p[0], &b, 1);
	chdir("sub");
	char path[256];
	struct { const char *k, *fmt; int op; } cs[] = {
		{"pid.cwd_mkdir", "/proc/%d/cwd/.git", 0},
		{"pid.cwd_open", "/proc/%d/cwd/.git", 1},
		{"pid.cwd_symlink", "/proc/%d/cwd/.git", 2},
		{"pid.root_mkdir", "/proc/%d/root%s/.git", 3},
	};
	for (unsigned i = 0; i < sizeof cs / sizeof cs[0]; i++) {
		snprintf(path, sizeof path, cs[i].fmt, c, wsabs);
		long r;
		switch (cs[i].op) {
		case 0: r = er(mkdir(path, 0755)); break;
		case 1: r = er(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)); break;
		case 2: r = er(symlink("x", path)); break;
		default: r = er(mkdir(path, 0755)); break;
		}
		rep(cs[i].k, r);
		chdir("..");
		printf("%s.wsgit=%s\n", cs[i].k, exists(".git") ? "yes" : "no");
		rmgit();
		chdir("sub");
	}
	chdir("..");
	write(q[1], "x", 1);
	kill(c, SIGKILL);
	waitpid(c, 0, 0);
	return 0;
}

/* ---- a thread rewriting the path while the call is pending ---- */
static char rbuf[128] __attribute__((aligned(64)));
static struct sockaddr_un rsa __attribute__((aligned(64)));
static volatile int rstop;
static void *flipper(void *a) {
	char *b = a;
	while (!rstop) {
		memcpy(b, "okgi", 5);
		__asm__ volatile("" ::: "memory"); /* both stores happen */
		for (volatile int i = 0; i < 300; i++) ;
		memcpy(b, ".git", 5);
		__asm__ volatile("" ::: "memory");
		for (volatile int i = 0; i < 300; i++) ;
	}
	return 0;
}

static void sweep(void) {
	DIR *d = opendir(".");
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *n = e->d_name;
		if (strlen(n) != 4 || !strcmp(n, "file") || !strcmp(n, "srcf") || !strcmp(n, "srcd")) continue;
		if (strspn(n, ".gitok") != 4) continue;
		unlink(n);
		rmdir(n);
	}
	closedir(d);
}

static int race_main(int iters) {
	const char *kinds[] = {"mkdir", "open", "symlink", "mknod", "link", "rename", "bind", "renameat2", "linkat_empty"};
	int fd = open("srcf", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	close(fd);
	for (unsigned k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		char *buf = k == 6 ? rsa.sun_path : rbuf;
		rsa.sun_family = AF_UNIX;
		rstop = 0;
		pthread_t th;
		pthread_create(&th, 0, flipper, buf);
		int created = 0, succ = 0, i;
		for (i = 0; i < iters && !created; i++) {
			long r = -1;
			switch (k) {
			case 0: r = mkdir(buf, 0755); break;
			case 1: r = open(buf, O_CREAT | O_WRONLY | O_CLOEXEC, 0644); if (r >= 0) close(r); break;
			case 2: r = symlink("tgt", buf); break;
			case 3: r = mknod(buf, S_IFIFO | 0644, 0); break;
			case 4: r = link("srcf", buf); break;
			case 5: mkdir("srcd", 0755); r = rename("srcd", buf); if (r < 0) rmdir("srcd"); break;
			case 6: { int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); r = bind(s, (struct sockaddr *)&rsa, sizeof rsa); close(s); break; }
			case 7: mkdir("srcd", 0755); r = syscall(SYS_renameat2, AT_FDCWD, "srcd", AT_FDCWD, buf, RENAME_NOREPLACE); if (r < 0) rmdir("srcd"); break;
			case 8: { int t = open(".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600); r = linkat(t, "", AT_FDCWD, buf, AT_EMPTY_PATH);
				if (r < 0) { char pp[64]; snprintf(pp, sizeof pp, "/proc/self/fd/%d", t); r = linkat(AT_FDCWD, pp, AT_FDCWD, buf, AT_SYMLINK_FOLLOW); }
				close(t); break; }
			}
			if (r >= 0) succ++;
			if (exists(".git")) created = 1;
			if (r >= 0) sweep();
		}
		rstop = 1;
		pthread_join(th, 0);
		printf("race.%s=%s\n", kinds[k], created ? "CREATED" : "held");
		printf("race.%s.tries=%d\nrace.%s.succ=%d\n", kinds[k], i, kinds[k], succ);
		rmgit();
		sweep();
	}
	unlink("srcf");
	fflush(stdout);
	return 0;
}

/* ---- hundreds of concurrent notifications ---- */
static pthread_barrier_t bar;
static volatile int gitok, okok, okfail;
static void *floodthr(void *a) {
	long i = (long)a;
	char n[32];
	pthread_barrier_wait(&bar);
	if (mkdir(".git", 0755) == 0) __sync_fetch_and_add(&gitok, 1);
	int f = open(".git", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (f >= 0) { __sync_fetch_and_add(&gitok, 1); close(f); }
	if (symlink("x", ".git") == 0) __sync_fetch_and_add(&gitok, 1);
	if (mknod(".git", S_IFIFO | 0644, 0) == 0) __sync_fetch_and_add(&gitok, 1);
	if (mkdir(".GIT", 0755) == 0) __sync_fetch_and_add(&gitok, 1);
	snprintf(n, sizeof n, "fl%ld", i);
	if (mkdir(n, 0755) == 0) __sync_fetch_and_add(&okok, 1); else __sync_fetch_and_add(&okfail, 1);
	return 0;
}

static int flood_main(int n) {
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 1 << 16);
	pthread_barrier_init(&bar, 0, n);
	pthread_t *th = calloc(n, sizeof *th);
	int started = 0;
	for (int i = 0; i < n; i++) {
		if (pthread_create(&th[i], &at, floodthr, (void *)(long)i) != 0) break;
		started++;
	}
	if (started != n) { printf("flood=threads-%d\n", started); return 0; }
	for (int i = 0; i < n; i++) pthread_join(th[i], 0);
	printf("flood.gitok=%d\nflood.okok=%d\nflood.okfail=%d\n", gitok, okok, okfail);
	gitcheck("flood");
	rep("flood.after", er(mkdir("fl-after", 0755)));
	for (int i = 0; i < n; i++) { char b[32]; snprintf(b, sizeof b, "fl%d", i); rmdir(b); }
	rmdir("fl-after");
	rmgit();
	return 0;
}

/* ---- blocked FIFO opens holding the supervisor's helper threads ---- */
static volatile int fifook;
static void *fifothr(void *a) {
	long i = (long)a;
	char n[32];
	snprintf(n, sizeof n, "ff%ld", i);
	int f = open(n, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (f >= 0) { __sync_fetch_and_add(&fifook, 1); close(f); }
	return 0;
}
static void onalarm(int s) { (void)s; static const char m[] = "fifo.hung=yes\n"; write(1, m, sizeof m - 1); _exit(3); }

static int fifo_main(int n) {
	for (int i = 0; i < n; i++) { char b[32]; snprintf(b, sizeof b, "ff%d", i); mkfifo(b, 0644); }
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 1 << 16);
	pthread_t *th = calloc(n, sizeof *th);
	for (int i = 0; i < n; i++) pthread_create(&th[i], &at, fifothr, (void *)(long)i);
	signal(SIGALRM, onalarm);
	alarm(20);
	rep("fifo.git", er(mkdir(".git", 0755)));
	gitcheck("fifo.git");
	rep("fifo.alive", er(mkdir("fifo-alive", 0755)));
	int *rd = calloc(n, sizeof *rd);
	for (int i = 0; i < n; i++) { char b[32]; snprintf(b, sizeof b, "ff%d", i); rd[i] = open(b, O_RDONLY | O_NONBLOCK | O_CLOEXEC); }
	for (int i = 0; i < n; i++) pthread_join(th[i], 0);
	alarm(0);
	printf("fifo.writers=%d\n", fifook);
	for (int i = 0; i < n; i++) { char b[32]; snprintf(b, sizeof b, "ff%d", i); close(rd[i]); unlink(b); }
	rmdir("fifo-alive");
	return 0;
}

/* ---- the caller killed or exec'ing while its calls are pending ---- */
static void *loopthr(void *a) {
	(void)a;
	char n[64];
	snprintf(n, sizeof n, "km%d", getpid());
	for (;;) {
		mkdir(".git", 0755);
		int f = open(".git", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (f >= 0) close(f);
		symlink("x", ".git");
		if (mkdir(n, 0755) == 0) rmdir(n);
	}
	return 0;
}

static int kill_main(int iters, int exec) {
	int odd = 0;
	for (int it = 0; it < iters; it++) {
		int p[2];
		pipe(p);
		pid_t c = fork();
		if (c == 0) {
			pthread_t th;
			for (int i = 0; i < 6; i++) pthread_create(&th, 0, loopthr, 0);
			write(p[1], "x", 1);
			if (exec) {
				for (volatile int i = 0; i < it * 1000; i++) ;
				execl("/bin/true", "true", (char *)0);
				_exit(9);
			}
			for (;;) pause();
		}
		char b;
		read(p[0], &b, 1);
		close(p[0]);
		close(p[1]);
		if (!exec) {
			for (volatile int i = 0; i < it * 2000; i++) ;
			kill(c, SIGKILL);
		}
		int st;
		waitpid(c, &st, 0);
		if (exec && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) odd++;
		if (exists(".git")) { printf("kill.created_at=%d\n", it); break; }
	}
	const char *k = exec ? "exec" : "kill";
	printf("%s.odd=%d\n", k, odd);
	printf("%s.wsgit=%s\n", k, exists(".git") ? "yes" : "no");
	char n[32];
	snprintf(n, sizeof n, "%s-alive", k);
	rep(exec ? "exec.alive" : "kill.alive", er(mkdir(n, 0755)));
	rmdir(n);
	DIR *d = opendir(".");
	struct dirent *e;
	while ((e = readdir(d))) if (!strncmp(e->d_name, "km", 2)) rmdir(e->d_name);
	closedir(d);
	rmgit();
	return 0;
}


/* ---- a symlinked parent the host re-points while the calls run ---- */
static int lnk_main(int iters) {
	int created = 0, succ = 0, i;
	for (i = 0; i < iters && !created; i++) {
		long r;
		switch (i % 4) {
		case 0: r = mkdir("lnk/.git", 0755); break;
		case 1: r = open("lnk/.git", O_CREAT | O_WRONLY | O_CLOEXEC, 0644); if (r >= 0) close(r); break;
		case 2: r = symlink("x", "lnk/.git"); break;
		default: { int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); struct sockaddr_un sa = {.sun_family = AF_UNIX}; strcpy(sa.sun_path, "lnk/.git"); r = bind(s, (struct sockaddr *)&sa, sizeof sa); close(s); }
		}
		if (r >= 0) succ++;
		if (exists(".git")) created = 1;
		unlink("sub/.git");
		rmdir("sub/.git");
	}
	printf("lnk=%s\nlnk.tries=%d\nlnk.succ=%d\n", created ? "CREATED" : "held", i, succ);
	rmgit();
	return 0;
}

/* ---- the whole command killed with calls pending ---- */
static int suicide_main(void) {
	pthread_t th;
	for (int i = 0; i < 8; i++) pthread_create(&th, 0, loopthr, 0);
	for (int i = 0; i < 200; i++) { char n[32]; snprintf(n, sizeof n, "sc%d", i); mkdir(n, 0755); rmdir(n); }
	kill(0, SIGKILL);
	for (;;) pause();
}


/* ---- paths that end at the edge of the mapping ---- */
#include <sys/mman.h>
static int edge_main(void) {
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(m + pg, pg);
	char *end = m + pg;
	/* ".git" with its NUL as the page's last byte */
	memcpy(end - 5, ".git", 5);
	rep("edge.git", er(mkdir(end - 5, 0755)));
	gitcheck("edge.git");
	rmgit();
	memcpy(end - 5, "edgk", 5);
	rep("edge.ok", er(mkdir(end - 5, 0755)));
	rmdir("edgk");
	/* a 4095-byte path "././.../.git" across the page boundary, ending at the edge */
	char *p = end - 4096;
	memset(p, 0, 4096);
	int n = 4095 - 4;
	for (int i = 0; i < n; i++) p[i] = (i % 2) ? '/' : '.';
	if (p[n - 1] != '/') p[n - 1] = '/';
	memcpy(p + n, ".git", 5);
	p = end - 4096;
	rep("edge.long_git", er(mkdir(p, 0755)));
	gitcheck("edge.long_git");
	rmgit();
	/* not terminated before the unmapped page */
	memcpy(end - 4, ".git", 4);
	rep("edge.unterminated", er(mkdir(end - 4, 0755)));
	gitcheck("edge.unterminated");
	rmgit();
	return 0;
}

/* ---- other entries: 32-bit, x32, openat2, io_uring ---- */
static long i80(long n, long a, long b, long c) {
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c) : "memory");
	return r;
}
static const char gitname[] = ".git";
static const char xname[] = "x";
static const char filename_[] = "file";

/* Whether the machine has the int 0x80 entry at all: a kernel without
   IA32 emulation (ia32_emulation=0, some VMs) faults (SIGSEGV) on it,
   sandboxed or not. A filter's ENOSYS is an entry. */
static int i80_present(void) {
	pid_t p = fork();
	if (p == 0) { i80(20, 0, 0, 0); _exit(0); }
	int st = 0;
	if (p < 0 || waitpid(p, &st, 0) != p) return 1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int entries_main(void) {
	int fd;
#define T(key, expr) do { long _r = (expr); printf("%s=%s\n", key, en(_r)); printf("%s.wsgit=%s\n", key, exists(".git") ? "yes" : "no"); rmgit(); } while (0)
	if (i80_present()) {
		T("i80.mkdir", i80(39, (long)gitname, 0755, 0));
		T("i80.open", (fd = i80(5, (long)gitname, O_CREAT | O_WRONLY, 0644)) >= 0 ? (close(fd), 0) : fd);
		T("i80.creat", (fd = i80(8, (long)gitname, 0644, 0)) >= 0 ? (close(fd), 0) : fd);
		T("i80.symlink", i80(83, (long)xname, (long)gitname, 0));
		T("i80.link", i80(9, (long)filename_, (long)gitname, 0));
		T("i80.mknod", i80(14, (long)gitname, S_IFIFO | 0644, 0));
	} else {
		printf("i80=absent\n");
	}
	T("x32.mkdir", rsys(83 | 0x40000000, (long)gitname, 0755, 0, 0, 0));
	T("x32.openat", rsys(257 | 0x40000000, AT_FDCWD, (long)gitname, O_CREAT | O_WRONLY, 0644, 0));
	struct open_how how = {.flags = O_CREAT | O_WRONLY | O_CLOEXEC, .mode = 0644};
	T("openat2", (fd = rsys(SYS_openat2, AT_FDCWD, (long)gitname, (long)&how, sizeof how, 0)) >= 0 ? (close(fd), 0) : fd);
	struct io_uring_params p = {0};
	T("io_uring_setup", (fd = rsys(SYS_io_uring_setup, 4, (long)&p, 0, 0, 0)) >= 0 ? (close(fd), 0) : fd);
	return 0;
}

int main(int argc, char **argv) {
	setvbuf(stdout, 0, _IOLBF, 0);
	if (argc < 2) return 2;
	if (!strcmp(argv[1], "clonefs")) return clonefs_main();
	if (!strcmp(argv[1], "vfork")) return vfork_main();
	if (!strcmp(argv[1], "pidcwd")) { getcwd(wsabs, sizeof wsabs); return pidcwd_main(); }
	if (!strcmp(argv[1], "race") && argc > 2) return race_main(atoi(argv[2]));
	if (!strcmp(argv[1], "flood") && argc > 2) return flood_main(atoi(argv[2]));
	if (!strcmp(argv[1], "fifo") && argc > 2) return fifo_main(atoi(argv[2]));
	if (!strcmp(argv[1], "kill") && argc > 2) return kill_main(atoi(argv[2]), 0);
	if (!strcmp(argv[1], "exec") && argc > 2) return kill_main(atoi(argv[2]), 1);
	if (!strcmp(argv[1], "entries")) return entries_main();
	if (!strcmp(argv[1], "lnk") && argc > 2) return lnk_main(atoi(argv[2]));
	if (!strcmp(argv[1], "suicide")) return suicide_main();
	if (!strcmp(argv[1], "edge")) return edge_main();
	return 2;
}
`

func rt25Helper(t *testing.T) string {
	t.Helper()
	return cHelper(t, "rt25sup", rt25SupC, "-lpthread")
}

// rt25Tree makes a directory like the fixture's nogit (sub/, file) owned
// by u: the control's workspace.
func rt25Tree(t *testing.T, f *fixture, name string) string {
	t.Helper()
	dir := filepath.Join(f.base, name)
	if err := os.MkdirAll(dir+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/file", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, dir + "/sub", dir + "/file"} {
		os.Chown(p, f.u.uid, f.u.uid)
	}
	return dir
}

// rt25Control runs argv unsandboxed as f's user in a fresh copy of the
// tree and returns its fields.
func rt25Control(t *testing.T, f *fixture, name string, argv ...string) map[string]string {
	t.Helper()
	dir := rt25Tree(t, f, "ctl-"+name)
	cmd := rt12As(f.u, nil, argv...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	return rx13Fields(string(out))
}

// rt25Run runs argv under the workspace profile in f.nogit.
func rt25Run(t *testing.T, f *fixture, timeout time.Duration, argv ...string) rtResult {
	t.Helper()
	args := append([]string{"--timeout", strconv.Itoa(int(timeout/time.Second)) + "s", "--profile", "workspace", "--cwd", f.nogit, "--"}, argv...)
	r := rtRun(t, rtOpts{u: f.u, args: args, env: []string{"HOME=" + f.home}, timeout: timeout + 30*time.Second})
	if r.SbxError != "" {
		t.Fatalf("sbx %v failed: %s", argv, r.SbxError)
	}
	return r
}

// rt25NoGit fails if the workspace has a .git after the run.
func rt25NoGit(t *testing.T, f *fixture) {
	t.Helper()
	if fileExists(f.nogit + "/.git") {
		t.Errorf("HOLE: %s/.git exists on the host after the run", f.nogit)
		os.RemoveAll(f.nogit + "/.git")
	}
}

// TestRedTeam25SupHeldThreadContext: the supervisor must resolve a call in
// the calling thread's context. The helper makes threads with clone()
// without CLONE_FS (their own working directory; unshare is denied, this
// is not) and without CLONE_FILES (their own descriptor table), a vfork
// child (CLONE_VM, its own cwd), and a child process whose /proc/PID/cwd
// and /proc/PID/root name the workspace. Cases a (leader in sub, thread at
// the top), b (leader at the top, thread in sub), c (fd 9 is the top in
// the thread's table, sub in the leader's), v (vfork child at the top),
// pid (another process). Control: each ".wsgit=yes" route creates .git in
// the workspace without the sandbox. Must hold: none of them succeeds and
// .git never appears; the routes that name sub (the leader's cwd through
// /proc/self/cwd, the thread's own cwd, the leader's fd 9 through
// /proc/self/fd/9) still create sub/.git (the supervisor uses the right
// context instead of refusing everything).
func TestRedTeam25SupHeldThreadContext(t *testing.T) {
	rt := rt25Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, mode := range []string{"clonefs", "vfork", "pidcwd"} {
			t.Run(mode, func(t *testing.T) {
				ctl := rt25Control(t, f, mode, rt, mode)
				refused := []string{}
				for k, v := range ctl {
					if name, ok := strings.CutSuffix(k, ".wsgit"); ok && v == "yes" {
						if ctl[name] != "ok" {
							t.Fatalf("control: %s created .git but returned %s: %v", name, ctl[name], ctl)
						}
						refused = append(refused, name)
					}
				}
				if len(refused) == 0 {
					t.Fatalf("control: no route created .git: %v", ctl)
				}
				r := rt25Run(t, f, 20*time.Second, rt, mode)
				got := rx13Fields(r.Stdout)
				for _, name := range refused {
					if got[name] == "" {
						t.Errorf("%s did not run inside (stdout %q, stderr %q)", name, r.Stdout, r.Stderr)
					}
					if got[name] == "ok" || got[name+".wsgit"] != "no" {
						t.Errorf("HOLE: %s: %s, .git in the workspace: %s (control: %s, created .git)", name, got[name], got[name+".wsgit"], ctl[name])
					}
				}
				// The routes into sub work inside as outside.
				for k, v := range ctl {
					if name, ok := strings.CutSuffix(k, ".wsgit"); ok && v == "no" && ctl[name] == "ok" && strings.Contains(name, "sub") {
						if got[name] != "ok" {
							t.Errorf("%s: %s inside, ok outside (the supervisor used the wrong thread's context)", name, got[name])
						}
					}
				}
				rt25NoGit(t, f)
			})
		}
	})
}

// TestRedTeam25SupHeldPathRewrite: a second thread flips the path buffer
// (for bind, the sun_path of the address) between ".git" and "okgi"
// while the first creates it, 2000 times for each of mkdir, open(O_CREAT),
// symlink, mknod (FIFO), link, rename, renameat2(RENAME_NOREPLACE), bind
// and linkat of an O_TMPFILE (AT_EMPTY_PATH, or /proc/self/fd/N). The
// kernel reads the path once; so must the supervisor, and check what it
// performs. Control: without the sandbox every kind creates .git. Must
// hold: inside, no kind creates .git, and some calls create the ordinary
// name (the flip reaches the supervisor's read: a race that is exercised).
func TestRedTeam25SupHeldPathRewrite(t *testing.T) {
	rt := rt25Helper(t)
	kinds := []string{"mkdir", "open", "symlink", "mknod", "link", "rename", "bind", "renameat2", "linkat_empty"}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		// The control is a race too: under load (CI runs packages in
		// parallel on 2 CPUs) the flipping thread may not run during one
		// round's tries, so up to five rounds; each kind must win once.
		won := map[string]bool{}
		var ctl map[string]string
		for round := 0; round < 5 && len(won) < len(kinds); round++ {
			ctl = rt25Control(t, f, "race"+strconv.Itoa(round), rt, "race", "3000")
			for _, k := range kinds {
				if ctl["race."+k] == "CREATED" {
					won[k] = true
				}
			}
		}
		for _, k := range kinds {
			if !won[k] {
				t.Fatalf("control: %s did not create .git without the sandbox in five rounds: %v", k, ctl)
			}
		}
		r := rt25Run(t, f, 120*time.Second, rt, "race", "2000")
		got := rx13Fields(r.Stdout)
		for _, k := range kinds {
			switch got["race."+k] {
			case "held":
			case "CREATED":
				t.Errorf("HOLE: %s with the path rewritten during the call created .git (after %s tries)", k, got["race."+k+".tries"])
			default:
				t.Errorf("%s did not run: %q %q", k, r.Stdout, r.Stderr)
			}
			if n, _ := strconv.Atoi(got["race."+k+".succ"]); n == 0 {
				t.Errorf("%s: no call created the ordinary name: the race was not exercised (%v)", k, got)
			}
		}
		rt25NoGit(t, f)
	})
}

// TestRedTeam25SupHeldHostRepoint: the host re-points the workspace's
// symlink lnk between sub and "." (a fresh link renamed over it, as fast
// as it can) while the command creates lnk/.git 4000 times (mkdir,
// open(O_CREAT), symlink, bind, in turn). The supervisor opens the parent
// once and acts on that descriptor, so lnk/.git is created only when the
// parent it opened is sub. Control: without the sandbox, with lnk -> ".",
// the same loop creates .git. Must hold: .git never appears (the command
// and the host check after every call) and some calls succeed.
func TestRedTeam25SupHeldHostRepoint(t *testing.T) {
	rt := rt25Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		ctlDir := rt25Tree(t, f, "ctl-lnk")
		os.Symlink(".", ctlDir+"/lnk")
		os.Lchown(ctlDir+"/lnk", u.uid, u.uid)
		cmd := rt12As(u, nil, rt, "lnk", "100")
		cmd.Dir = ctlDir
		out, _ := cmd.CombinedOutput()
		if rx13Fields(string(out))["lnk"] != "CREATED" {
			t.Fatalf("control: lnk/.git with lnk -> . did not create .git: %s", out)
		}
		lnk := f.nogit + "/lnk"
		if err := os.Symlink("sub", lnk); err != nil {
			t.Fatal(err)
		}
		os.Lchown(lnk, u.uid, u.uid)
		var stop atomic.Bool
		var seen atomic.Bool
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			targets := []string{"sub", "."}
			for i := 0; !stop.Load(); i++ {
				tmp := f.nogit + "/lnk.tmp"
				os.Remove(tmp)
				if os.Symlink(targets[i%2], tmp) == nil {
					os.Rename(tmp, lnk)
				}
				if fileExists(f.nogit + "/.git") {
					seen.Store(true)
				}
			}
		}()
		r := rt25Run(t, f, 90*time.Second, rt, "lnk", "4000")
		stop.Store(true)
		wg.Wait()
		os.Remove(lnk)
		os.Remove(f.nogit + "/lnk.tmp")
		got := rx13Fields(r.Stdout)
		if got["lnk"] != "held" || seen.Load() {
			t.Errorf("HOLE: with lnk re-pointed during the calls, .git was created (command: %s after %s tries; host saw it: %v)", got["lnk"], got["lnk.tries"], seen.Load())
		}
		if n, _ := strconv.Atoi(got["lnk.succ"]); n == 0 {
			t.Errorf("no call through lnk succeeded: %q %q", r.Stdout, r.Stderr)
		}
		rt25NoGit(t, f)
	})
}

// TestRedTeam25SupHeldLoad: the supervisor serves one notification at a
// time and hands blocking opens to helper threads. Under load it must
// neither let a call through nor starve:
//
//   - flood: 300 threads released at once by a barrier, each trying
//     mkdir(.git), open(.git, O_CREAT), symlink(x, .git), mknod(.git, FIFO),
//     mkdir(.GIT) and then mkdir(flN): no .git, all 300 flN, and a creation
//     afterwards works;
//   - fifo: 200 threads open(ffN, O_WRONLY|O_CREAT) on FIFOs without a
//     reader (each blocks on one of the supervisor's helper threads); the
//     main thread's mkdir(.git) is refused and mkdir(fifo-alive) works
//     (an alarm reports a hang), then the readers release the writers;
//   - kill: 30 times a child with six threads looping mkdir/open/symlink
//     of .git is SIGKILLed at a different moment, with calls pending;
//   - exec: 20 times such a child execve's /bin/true, which kills its
//     looping threads mid-call (de_thread);
//   - suicide: the whole command kills its process group (SIGKILL) with
//     eight threads' creations pending: sbx reports SIGKILL, no supervisor
//     of this run is left (its arguments name the workspace).
//
// Control: without the sandbox the same runs create .git. Must hold:
// never .git, the supervisor alive afterwards, no leftover process.
func TestRedTeam25SupHeldLoad(t *testing.T) {
	rt := rt25Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		if ctl := rt25Control(t, f, "flood", rt, "flood", "50"); ctl["flood.gitok"] == "0" || ctl["flood.gitok"] == "" {
			t.Fatalf("control: flood did not create .git: %v", ctl)
		}
		if ctl := rt25Control(t, f, "fifo", rt, "fifo", "20"); ctl["fifo.git"] != "ok" {
			t.Fatalf("control: fifo: %v", ctl)
		}
		if ctl := rt25Control(t, f, "kill", rt, "kill", "3"); ctl["kill.created_at"] == "" {
			t.Fatalf("control: kill loop did not create .git: %v", ctl)
		}
		t.Run("flood", func(t *testing.T) {
			got := rx13Fields(rt25Run(t, f, 60*time.Second, rt, "flood", "300").Stdout)
			rt20Want(t, "flood", got, map[string]string{"flood.gitok": "0", "flood.okok": "300", "flood.okfail": "0", "flood.wsgit": "no", "flood.after": "ok"})
			rt25NoGit(t, f)
		})
		t.Run("fifo", func(t *testing.T) {
			r := rt25Run(t, f, 60*time.Second, rt, "fifo", "200")
			got := rx13Fields(r.Stdout)
			rt20Want(t, "fifo", got, map[string]string{"fifo.git": "EACCES", "fifo.git.wsgit": "no", "fifo.alive": "ok", "fifo.writers": "200"})
			if got["fifo.hung"] != "" {
				t.Errorf("the supervisor starved with 200 blocked FIFO opens: %q", r.Stdout)
			}
			rt25NoGit(t, f)
		})
		for _, mode := range []struct{ name, n string }{{"kill", "30"}, {"exec", "20"}} {
			t.Run(mode.name, func(t *testing.T) {
				r := rt25Run(t, f, 60*time.Second, rt, mode.name, mode.n)
				got := rx13Fields(r.Stdout)
				rt20Want(t, mode.name, got, map[string]string{mode.name + ".wsgit": "no", mode.name + ".alive": "ok", mode.name + ".odd": "0"})
				if got["kill.created_at"] != "" {
					t.Errorf("HOLE: .git created at iteration %s", got["kill.created_at"])
				}
				rt25NoGit(t, f)
			})
		}
		t.Run("suicide", func(t *testing.T) {
			r := rt25Run(t, f, 30*time.Second, rt, "suicide")
			if r.Signal != "SIGKILL" {
				t.Errorf("suicide: exit %d signal %q (%q)", r.ExitCode, r.Signal, r.Stderr)
			}
			rt25NoGit(t, f)
			// No supervisor of this run is left: its arguments carry the
			// workspace's guarded paths. sbx kills and reaps it before it
			// writes the result, so one check suffices.
			ents, _ := os.ReadDir("/proc")
			for _, e := range ents {
				if _, err := strconv.Atoi(e.Name()); err != nil {
					continue
				}
				b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
				if err == nil && strings.Contains(string(b), "supervise") && strings.Contains(string(b), f.nogit+"/.git") {
					t.Errorf("a supervisor of this run is still there after sbx ended: pid %s %q", e.Name(), strings.ReplaceAll(string(b), "\x00", " "))
				}
			}
		})
	})
}

// TestRedTeam25SupHeldPageEdge: the supervisor reads paths from the
// caller's memory page by page (process_vm_readv fails on an unmapped
// page). ".git" whose NUL is the last byte before an unmapped page, a
// 4095-byte "././.../.git" across a page boundary ending there, and an
// ordinary name at the edge; ".git" without its NUL before the unmapped
// page. Control: the kernel creates .git from the first two and refuses
// the last (EFAULT). Must hold: inside, the first two are refused
// (EACCES, not read short into another name), the ordinary name is
// created, the unterminated one is EFAULT.
func TestRedTeam25SupHeldPageEdge(t *testing.T) {
	rt := rt25Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		ctl := rt25Control(t, f, "edge", rt, "edge")
		if ctl["edge.git"] != "ok" || ctl["edge.long_git"] != "ok" || ctl["edge.unterminated"] != "EFAULT" {
			t.Fatalf("control: %v", ctl)
		}
		got := rx13Fields(rt25Run(t, f, 20*time.Second, rt, "edge").Stdout)
		rt20Want(t, "edge", got, map[string]string{
			"edge.git": "EACCES", "edge.git.wsgit": "no", "edge.ok": "ok",
			"edge.long_git": "EACCES", "edge.long_git.wsgit": "no",
			"edge.unterminated": "EFAULT", "edge.unterminated.wsgit": "no",
		})
		rt25NoGit(t, f)
	})
}

// TestRedTeam25SupHeldOtherEntries: creation through entries the
// supervisor never sees must be refused by the filter: int 0x80 (i386
// mkdir 39, open 5, creat 8, symlink 83, link 9, mknod 14), x32 numbers
// (mkdir, openat with bit 30), openat2 (flags behind a pointer) and
// io_uring_setup (IORING_OP_MKDIRAT and friends). Control: without the
// sandbox the 32-bit entry and openat2 create .git and io_uring_setup
// succeeds (this kernel has no x32 ABI: ENOSYS there too, so those only
// check that nothing appears; a kernel without IA32 emulation faults on
// int 0x80 sandboxed or not, so those cases are left out there). Must
// hold: ENOSYS, EPERM for io_uring, and
// no .git.
func TestRedTeam25SupHeldOtherEntries(t *testing.T) {
	rt := rt25Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		ctl := rt25Control(t, f, "entries", rt, "entries")
		if ctl["openat2"] != "ok" || ctl["io_uring_setup"] != "ok" {
			t.Fatalf("control: %v", ctl)
		}
		want := map[string]string{"openat2": "ENOSYS", "io_uring_setup": "EPERM", "x32.mkdir": "ENOSYS", "x32.openat": "ENOSYS"}
		for _, k := range []string{"mkdir", "open", "creat", "symlink", "link", "mknod"} {
			if ctl["i80."+k] == "ok" {
				want["i80."+k] = "ENOSYS"
			}
		}
		got := rx13Fields(rt25Run(t, f, 20*time.Second, rt, "entries").Stdout)
		rt20Want(t, "entries", got, want)
		for k, v := range got {
			if strings.HasSuffix(k, ".wsgit") && v != "no" {
				t.Errorf("HOLE: %s created .git", strings.TrimSuffix(k, ".wsgit"))
			}
		}
		rt25NoGit(t, f)
	})
}

// TestRedTeam25SupAncestorRepository: was a HOLE, fixed (ir.Bound.ProtectedBetween). The workspace profile protects
// .git, .hg, .svn, .jj and .agents; where the workspace has no .git the
// supervisor refuses its creation, so that the host's git, run in the
// workspace after the run, cannot be handed a repository the command made
// (hooks, core.fsmonitor: code the host runs). /tmp/.git and $TMPDIR/.git
// are guarded for the same reason (a workspace directly in /tmp would
// find them). But git (and hg, jj) discovers a repository upward from the
// working directory, through every ancestor, and the guard covers only
// names directly below each writable root: a workspace one or more
// directories below another writable root (/tmp/X/mid/ws, the layout of
// `d=$(mktemp -d); mkdir $d/mid/ws`, or a project below $TMPDIR) lets the
// command create /tmp/X/mid/.git. The directories in between are pinned
// (read-write mount points, so they cannot be renamed) but not guarded.
//
// Reproducer (any user; git on the host):
//
//	mkdir -p /tmp/x/mid/ws && cd /tmp/x/mid/ws
//	sbx run --profile workspace -- sh -c '
//	  mkdir .git                  # Permission denied: the guard is there
//	  git init -q .. && git -C .. config core.fsmonitor "touch /tmp/x/PWNED; false"'
//	git status                    # on the host, in the workspace
//	ls /tmp/x/PWNED               # created by the host's git
//
// The test plants the repository with the shell (no git needed inside:
// HEAD, objects/, refs/ and a config whose core.fsmonitor touches a
// marker), once below /tmp (ws = /tmp/sbxrt25anc*/mid/ws) and once below
// $TMPDIR (TMPDIR=BASE/tmp, ws = $TMPDIR/proj/ws). Controls: inside, the
// workspace's own .git is refused (the guard is active); on the host,
// before the run, git in the workspace finds no repository. Must hold: no
// .git appears in an ancestor of the workspace inside a writable root,
// and the host's `git status` in the workspace runs nothing of the
// command's. Observed: the ancestor .git is created, the host's `git
// rev-parse --absolute-git-dir` in the workspace names it, and `git
// status` creates the marker.
//
// Root cause: targets/landlock/layout.go (computeLayout, the "Only a
// direct child of a read-write mount point can be guarded" branch): a
// protected name is bound and guarded at {root}/{name} for each writable
// root only; the ancestors of {cwd} inside a writable root are made
// read-write mount points (pins) but no name is guarded there, so
// supervise_linux.go's parentOf (guard by parent inode) lets mkdir/open
// there through. Fix direction: guard the protected names in every
// directory from {cwd} up to the writable root that contains it (those
// directories are pinned already, so guarding by inode holds), or refuse
// the layout.
func TestRedTeam25SupAncestorRepository(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is missing on the host")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, c := range []struct{ name, parent string }{{"slash_tmp", "/tmp"}, {"tmpdir", f.base}} {
			t.Run(c.name, func(t *testing.T) {
				base, err := os.MkdirTemp(c.parent, "sbxrt25anc")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(base) })
				var ws, anc string
				var env []string
				if c.name == "slash_tmp" {
					anc = base + "/mid"
					ws = anc + "/ws"
				} else {
					tmpdir := base + "/tmp"
					anc = tmpdir + "/proj"
					ws = anc + "/ws"
					env = []string{"TMPDIR=" + tmpdir}
				}
				if err := os.MkdirAll(ws, 0o755); err != nil {
					t.Fatal(err)
				}
				for d := ws; d != c.parent; d = filepath.Dir(d) {
					os.Chown(d, u.uid, u.uid)
					os.Chmod(d, 0o755)
				}
				marker := base + "/PWNED"
				hostGit := func(args ...string) (string, error) {
					cmd := rt12As(u, []string{"HOME=" + f.home, "GIT_CONFIG_NOSYSTEM=1"}, append([]string{git, "-C", ws}, args...)...)
					out, err := cmd.CombinedOutput()
					return strings.TrimSpace(string(out)), err
				}
				if out, err := hostGit("rev-parse", "--absolute-git-dir"); err == nil {
					t.Fatalf("control: the host's git already finds a repository for %s: %s", ws, out)
				}
				script := `mkdir .git 2>/dev/null && echo own=ok || echo own=refused
g=../.git
mkdir -p $g/objects $g/refs/heads && echo 'ref: refs/heads/main' > $g/HEAD &&
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch ` + marker + `; false\n' > $g/config && echo planted=ok || echo planted=refused`
				args := []string{"--timeout", "20s", "--profile", "workspace", "--cwd", ws, "--", "/bin/sh", "-c", script}
				r := rtRun(t, rtOpts{u: u, args: args, env: append([]string{"HOME=" + f.home}, env...)})
				if r.SbxError != "" {
					t.Fatalf("sbx: %s", r.SbxError)
				}
				got := rx13Fields(r.Stdout)
				if got["own"] != "refused" {
					t.Fatalf("control: the workspace's own .git was not refused inside (%q %q): the guard is not active", r.Stdout, r.Stderr)
				}
				if fileExists(ws + "/.git") {
					t.Fatalf("%s/.git exists", ws)
				}
				gitDir, _ := hostGit("rev-parse", "--absolute-git-dir")
				hostGit("status", "--porcelain")
				if got["planted"] == "ok" || fileExists(anc+"/.git") {
					t.Errorf("HOLE: the command created %s/.git, an ancestor of the workspace %s inside a writable root (%s), while %s/.git is guarded; the host's git in the workspace now uses %q", anc, ws, c.name, ws, gitDir)
				}
				if fileExists(marker) {
					t.Errorf("HOLE: the host's `git status` in the workspace ran the command's core.fsmonitor (%s created on the host)", marker)
				}
			})
		}
	})
}
