// rt11: red-team helper for sbx (redteam11_test.go). Usage: rt11 OP [ARGS...];
// prints one verdict line.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/audit.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

static const char *en(int e) {
	switch (e) {
	case 0: return "ok"; case EPERM: return "EPERM"; case EACCES: return "EACCES"; case ENOSYS: return "ENOSYS";
	case EBADF: return "EBADF"; case ESRCH: return "ESRCH"; case EINVAL: return "EINVAL"; case EEXIST: return "EEXIST";
	case ENOENT: return "ENOENT"; case EROFS: return "EROFS"; case EXDEV: return "EXDEV"; case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case ECONNREFUSED: return "ECONNREFUSED"; case EINPROGRESS: return "EINPROGRESS"; case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT"; case ENETUNREACH: return "ENETUNREACH"; case ENXIO: return "ENXIO";
	case EBUSY: return "EBUSY"; case ENOTDIR: return "ENOTDIR"; case EISDIR: return "EISDIR"; case ETXTBSY: return "ETXTBSY";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL"; case ESOCKTNOSUPPORT: return "ESOCKTNOSUPPORT"; case EPROTOTYPE: return "EPROTOTYPE";
	case EADDRINUSE: return "EADDRINUSE"; case ENOTSOCK: return "ENOTSOCK"; case EFAULT: return "EFAULT";
	}
	static char b[32]; snprintf(b, sizeof b, "errno%d", e); return b;
}

// release: a path whose creation ends a bind's hold early ("bind NAME
// RELEASE"); without it the name is held 3 s.
static const char *release;

// The attack one child performs under our own notifying filter.
static int do_op(const char *op, const char *arg) {
	if (!strcmp(op, "mkdir")) return mkdir(arg, 0755);
	if (!strcmp(op, "creat")) { int fd = open(arg, O_CREAT | O_WRONLY, 0644); return fd < 0 ? -1 : 0; }
	if (!strcmp(op, "symlink")) return symlink("x", arg);
	if (!strcmp(op, "connect") || !strcmp(op, "bind")) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (s < 0) return -1;
		struct sockaddr_un a = {.sun_family = AF_UNIX};
		socklen_t l = offsetof(struct sockaddr_un, sun_path) + strlen(arg);
		memcpy(a.sun_path, arg, strlen(arg));
		if (arg[0] == '@') a.sun_path[0] = 0;
		if (!strcmp(op, "connect")) return connect(s, (struct sockaddr *)&a, l);
		if (bind(s, (struct sockaddr *)&a, l) < 0) return -1;
		// Keep it bound for a while: the test tries the name from outside.
		// listen() is refused in the sandbox (a Unix socket there could
		// serve only host processes); the name is taken by the bind.
		printf("bound\n");
		if (listen(s, 1) < 0) printf("listen: %s\n", strerror(errno));
		// Until the test has looked (it creates the release file), or 3 s.
		for (int i = 0; i < 300; i++) {
			if (release && access(release, F_OK) == 0) break;
			usleep(10000);
		}
		return 0;
	}
	if (!strcmp(op, "inotify")) { int i = inotify_init1(0); return inotify_add_watch(i, arg, IN_CREATE); }
	errno = EINVAL;
	return -1;
}

// nest OP ARG: install a filter of our own that sends OP's system calls to
// a listener we hold (SECCOMP_FILTER_FLAG_NEW_LISTENER), fork a child that
// performs OP, and answer its notifications with CONTINUE. The kernel runs
// the newest filter's user notification when two filters both notify.
static int nest(const char *op, const char *arg) {
	int nrs[] = {SYS_mkdir, SYS_mkdirat, SYS_openat, SYS_open, SYS_creat, SYS_symlink, SYS_symlinkat,
		SYS_connect, SYS_bind, SYS_listen, SYS_inotify_add_watch, SYS_setsockopt};
	int n = sizeof nrs / sizeof nrs[0];
	struct sock_filter f[64];
	int k = 0;
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (int i = 0; i < n; i++)
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nrs[i], n - i, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	struct sock_fprog prog = {.len = k, .filter = f};
	// The listener must be created before the child exists: the parent
	// installs the filter too, and then never makes those calls itself.
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); // set already in the sandbox
	int lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (lfd < 0) { printf("seccomp %s\n", en(errno)); return 0; }
	int pipefd[2];
	if (pipe(pipefd) < 0) { printf("pipe %s\n", en(errno)); return 0; }
	pid_t c = fork();
	if (c == 0) {
		close(pipefd[0]);
		int r = do_op(op, arg);
		int e = r < 0 ? errno : 0;
		write(pipefd[1], &e, sizeof e);
		_exit(0);
	}
	close(pipefd[1]);
	int notified = 0;
	for (;;) {
		fd_set rf; FD_ZERO(&rf); FD_SET(lfd, &rf); FD_SET(pipefd[0], &rf);
		int m = lfd > pipefd[0] ? lfd : pipefd[0];
		struct timeval tv = {10, 0};
		if (select(m + 1, &rf, NULL, NULL, &tv) <= 0) { printf("timeout\n"); kill(c, SIGKILL); return 0; }
		if (FD_ISSET(lfd, &rf)) {
			struct seccomp_notif nt; memset(&nt, 0, sizeof nt);
			if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &nt) == 0) {
				notified++;
				struct seccomp_notif_resp r = {.id = nt.id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE};
				ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &r);
			}
			continue;
		}
		int e = -1;
		if (read(pipefd[0], &e, sizeof e) != sizeof e) { printf("child died\n"); return 0; }
		printf("%s notified=%d\n", en(e), notified > 0);
		int st; waitpid(c, &st, 0);
		return 0;
	}
}


// meta FD|PATH: every metadata change the kernel lets a file's owner make
// without capabilities, through descriptor 0 ("fd0"), or through an O_PATH
// descriptor on PATH (AT_EMPTY_PATH, /proc/self/fd/N). Prints one
// verdict per call: "chmod=E utime=E touch=E chown=E xattr=E".
static int meta(const char *what) {
	int fd;
	char via[64];
	struct stat st;
	if (!strcmp(what, "fd0")) fd = 0;
	else if ((fd = open(what, O_PATH | O_NOFOLLOW)) < 0) { printf("open %s\n", en(errno)); return 0; }
	snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
	if (fstat(fd, &st) < 0) { printf("fstat %s\n", en(errno)); return 0; }
	mode_t m = st.st_mode & 07777;
	// A mode that differs from the current one, restored right away.
	int r1 = syscall(SYS_fchmodat2, fd, "", (m ^ 0004) & 0777, AT_EMPTY_PATH);
	int e1 = r1 < 0 ? errno : 0;
	if (r1 == 0) syscall(SYS_fchmodat2, fd, "", m, AT_EMPTY_PATH);
	if (r1 < 0 && e1 == ENOSYS) { // before fchmodat2: through the magic link
		r1 = chmod(via, (m ^ 0004) & 0777); e1 = r1 < 0 ? errno : 0;
		if (r1 == 0) chmod(via, m);
	}
	struct timespec ts[2] = {st.st_atim, st.st_mtim};
	struct timespec old[2] = {st.st_atim, st.st_mtim};
	ts[1].tv_sec -= 1000;
	int r2 = utimensat(fd, "", ts, AT_EMPTY_PATH);
	int e2 = r2 < 0 ? errno : 0;
	if (r2 == 0) utimensat(fd, "", old, AT_EMPTY_PATH);
	int r3 = utimensat(AT_FDCWD, via, NULL, 0); // "touch": write permission suffices
	int e3 = r3 < 0 ? errno : 0;
	if (r3 == 0) utimensat(AT_FDCWD, via, old, 0);
	int r4 = fchownat(fd, "", -1, st.st_gid, AT_EMPTY_PATH); // a no-op owner change still needs write access to the mount
	int e4 = r4 < 0 ? errno : 0;
	int r5 = setxattr(via, "user.sbxrt11", "x", 1, 0);
	int e5 = r5 < 0 ? errno : 0;
	if (r5 == 0) removexattr(via, "user.sbxrt11");
	printf("chmod=%s utime=%s touch=%s chown=%s", en(e1), en(e2), en(e3), en(e4));
	printf(" xattr=%s\n", en(e5));
	return 0;
}

// link-fd PATH NEW [NEW2]: hard links to PATH through an O_PATH descriptor
// (linkat AT_EMPTY_PATH) and through its /proc/self/fd link
// (AT_SYMLINK_FOLLOW, at NEW2, NEW.2 by default). Prints "empty=E proc=E".
static int link_fd(const char *path, const char *nw, const char *nw2) {
	int fd = open(path, O_PATH);
	if (fd < 0) { printf("open %s\n", en(errno)); return 0; }
	char via[64], n2[4096];
	snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
	if (nw2) snprintf(n2, sizeof n2, "%s", nw2);
	else snprintf(n2, sizeof n2, "%s.2", nw);
	int r1 = linkat(fd, "", AT_FDCWD, nw, AT_EMPTY_PATH);
	int e1 = r1 < 0 ? errno : 0;
	int r2 = linkat(AT_FDCWD, via, AT_FDCWD, n2, AT_SYMLINK_FOLLOW);
	int e2 = r2 < 0 ? errno : 0;
	printf("empty=%s proc=%s\n", en(e1), en(e2));
	return 0;
}

// proc-fds PID N: as soon as the command runs, N rounds over the init's
// descriptor links (/proc/PID/fd/0..63: readlink, open for reading and for
// writing), racing the init, which holds a copy of sbx's descriptor table
// until the command has exec'd. Prints "listed=L reached=R" (L: entries
// seen in the listing at least once; R: links read or opened).
static int proc_fds(const char *pid, int rounds) {
	int listed = 0, reached = 0;
	char p[64], t[256];
	for (int r = 0; r < rounds; r++) {
		for (int n = 0; n < 64; n++) {
			snprintf(p, sizeof p, "/proc/%s/fd/%d", pid, n);
			struct stat st;
			if (r == 0 && fstatat(AT_FDCWD, p, &st, AT_SYMLINK_NOFOLLOW) == 0) listed++;
			if (readlink(p, t, sizeof t) >= 0) reached++;
			int fd = open(p, O_RDONLY | O_NONBLOCK | O_NOCTTY);
			if (fd >= 0) { reached++; close(fd); }
			fd = open(p, O_WRONLY | O_NONBLOCK | O_NOCTTY);
			if (fd >= 0) { reached++; close(fd); }
		}
	}
	printf("listed=%d reached=%d\n", listed, reached);
	return 0;
}

int main(int argc, char **argv) {
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 2) return 2;
	const char *op = argv[1];
	if (!strcmp(op, "nest") && argc == 4) return nest(argv[2], argv[3]);
	if (!strcmp(op, "meta") && argc == 3) return meta(argv[2]);
	if (!strcmp(op, "proc-fds") && argc == 4) return proc_fds(argv[2], atoi(argv[3]));
	if (!strcmp(op, "link-fd") && (argc == 4 || argc == 5)) return link_fd(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	if (!strcmp(op, "bind") && argc == 4) release = argv[3];
	if (argc == 3 || release) { int r = do_op(op, argv[2]); printf("%s\n", r < 0 ? en(errno) : "ok"); return 0; }
	printf("usage\n");
	return 2;
}
