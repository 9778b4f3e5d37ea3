// rt13: red-team helper for sbx (redteam13_test.go). Usage: rt13 OP [ARGS...];
// prints "name=value" lines.
//
//	listen FAMILY HOW PORT FIFO    a TCP socket made to look bound without
//	                               bind() (HOW: refused, a connect to PORT
//	                               that fails; unspec, a connect to PORT
//	                               dissolved with AF_UNSPEC; fresh, nothing;
//	                               bind, bound to PORT), then listen(); the
//	                               port is written to FIFO, one connection
//	                               is accepted and its first line printed
//	bindv BPORT                    bind() spellings of port 0, then listen()
//	guard                          creations of .git in the cwd (a workspace
//	                               without .git) by routes the supervisor
//	                               must resolve like the kernel
//	meta PATH...                   file_setattr, setxattrat, removexattrat,
//	                               FS_IOC_SETFLAGS/FSSETXATTR on each PATH
//	memfd DENIED                   this program copied to a memfd and run
//	                               with execveat(AT_EMPTY_PATH): "confined"
//	confined DENIED [ptrace]       what a program can do: read DENIED,
//	                               create .git in the cwd, PTRACE_TRACEME
//	mntns                          this mount namespace's id (statmount)
//	listmount NSID                 listmount of namespace NSID
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *en(int e) {
	switch (e) {
	case 0: return "ok"; case EPERM: return "EPERM"; case EACCES: return "EACCES"; case ENOSYS: return "ENOSYS";
	case EBADF: return "EBADF"; case ENOENT: return "ENOENT"; case EROFS: return "EROFS"; case EXDEV: return "EXDEV";
	case ENXIO: return "ENXIO"; case ENOTTY: return "ENOTTY"; case EAGAIN: return "EAGAIN"; case EIO: return "EIO";
	case EINVAL: return "EINVAL"; case ENOEXEC: return "ENOEXEC"; case ETXTBSY: return "ETXTBSY"; case EEXIST: return "EEXIST";
	case ENOTDIR: return "ENOTDIR"; case EISDIR: return "EISDIR"; case ELOOP: return "ELOOP"; case ENODEV: return "ENODEV";
	case ECONNREFUSED: return "ECONNREFUSED"; case EADDRINUSE: return "EADDRINUSE"; case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENAMETOOLONG: return "ENAMETOOLONG"; case ENOTEMPTY: return "ENOTEMPTY"; case EBUSY: return "EBUSY";
	case ENODATA: return "ENODATA"; case EFAULT: return "EFAULT"; case E2BIG: return "E2BIG";
	}
	static char b[32]; snprintf(b, sizeof b, "errno%d", e); return b;
}

static const char *rc(long r) { return r < 0 ? en(errno) : "ok"; }

// ---------------------------------------------------------------------------
// listen

static int port_of(int fd) {
	struct sockaddr_storage ss; socklen_t l = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &l) < 0) return -1;
	if (ss.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

static int do_listen(int argc, char **argv) {
	if (argc < 6) return 2;
	int v6 = !strcmp(argv[2], "6");
	const char *how = argv[3];
	int cport = atoi(argv[4]);
	int fam = v6 ? AF_INET6 : AF_INET;
	int s = socket(fam, SOCK_STREAM, 0);
	if (s < 0) { printf("socket=%s\n", en(errno)); return 1; }
	struct sockaddr_storage ss; socklen_t sl;
	memset(&ss, 0, sizeof ss);
	if (v6) {
		struct sockaddr_in6 *a = (void *)&ss; a->sin6_family = AF_INET6; a->sin6_port = htons(cport); a->sin6_addr = in6addr_loopback; sl = sizeof *a;
	} else {
		struct sockaddr_in *a = (void *)&ss; a->sin_family = AF_INET; a->sin_port = htons(cport); a->sin_addr.s_addr = htonl(INADDR_LOOPBACK); sl = sizeof *a;
	}
	if (!strcmp(how, "bind")) {
		// The control: bound to cport (a bind port of the profile).
		if (v6) ((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_any;
		else ((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_ANY);
		// SO_REUSEADDR: the previous control's connection may still be in
		// TIME_WAIT on that port.
		int one = 1;
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		printf("bind=%s\n", rc(bind(s, (struct sockaddr *)&ss, sl)));
	} else if (strcmp(how, "fresh")) {
		// "refused": nothing listens on cport; "unspec": something does,
		// and the connection is dissolved with connect(AF_UNSPEC).
		int r = connect(s, (struct sockaddr *)&ss, sl);
		printf("connect=%s\n", rc(r));
		if (!strcmp(how, "unspec")) {
			struct sockaddr un = {.sa_family = AF_UNSPEC};
			printf("unspec=%s\n", rc(connect(s, &un, sizeof un)));
		}
	}
	printf("before=%d\n", port_of(s));
	int r = listen(s, 4);
	int e = errno;
	int port = r == 0 ? port_of(s) : 0;
	printf("listen=%s\nafter=%d\n", r == 0 ? "ok" : en(e), port);
	fflush(stdout);
	int ff = open(argv[5], O_WRONLY);
	if (ff < 0) { printf("fifo=%s\n", en(errno)); return 1; }
	dprintf(ff, "%d\n", port);
	close(ff);
	if (r != 0) return 0;
	struct pollfd p = {.fd = s, .events = POLLIN};
	if (poll(&p, 1, 20000) != 1) { printf("accepted=none\n"); return 0; }
	int c = accept(s, NULL, NULL);
	if (c < 0) { printf("accepted=%s\n", en(errno)); return 0; }
	char buf[64] = {0};
	ssize_t n = read(c, buf, sizeof buf - 1);
	if (n < 0) n = 0;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	printf("accepted=%s\n", buf);
	return 0;
}

// bindv: bind() spellings that could leave a socket on a port Landlock did
// not check (port 0: an ephemeral port), each followed by listen().
static void bindv1(const char *name, int fam, const void *addr, socklen_t len, int noport) {
	int s = socket(fam, SOCK_STREAM, 0);
	if (noport) {
		int one = 1;
		setsockopt(s, IPPROTO_IP, 24 /* IP_BIND_ADDRESS_NO_PORT */, &one, sizeof one);
	}
	long b = bind(s, addr, len);
	int be = errno;
	long l = listen(s, 1);
	printf("%s=bind:%s,listen:%s,port:%d\n", name, b < 0 ? en(be) : "ok", rc(l), port_of(s));
	close(s);
}

static int do_bindv(int argc, char **argv) {
	if (argc < 3) return 2;
	int bport = atoi(argv[2]);
	struct sockaddr_in a4 = {.sin_family = AF_UNSPEC};
	bindv1("unspec-0", AF_INET, &a4, sizeof a4, 0);
	a4.sin_port = htons(bport);
	bindv1("unspec-bport", AF_INET, &a4, sizeof a4, 0);
	a4.sin_family = AF_INET; a4.sin_port = 0;
	bindv1("inet-0", AF_INET, &a4, sizeof a4, 0);
	bindv1("inet-0-noport", AF_INET, &a4, sizeof a4, 1);
	bindv1("v6sock-inetaddr-0", AF_INET6, &a4, sizeof a4, 0);
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6};
	bindv1("inet6-0", AF_INET6, &a6, sizeof a6, 0);
	a6.sin6_addr.s6_addr[10] = a6.sin6_addr.s6_addr[11] = 0xff; // ::ffff:0.0.0.0
	bindv1("inet6-mapped-0", AF_INET6, &a6, sizeof a6, 0);
	a6.sin6_family = AF_UNSPEC;
	bindv1("inet6-unspec-0", AF_INET6, &a6, sizeof a6, 0);
	bindv1("inet-short", AF_INET, &a4, 2, 0);
	return 0;
}

// ---------------------------------------------------------------------------
// guard

static void rmgit(void) {
	// A created .git (or whatever the route made) is removed so that the
	// next route starts from a missing name again; it is reported first.
	struct stat st;
	if (lstat(".git", &st) == 0) {
		printf("  exists-after-previous\n");
		if (unlink(".git") < 0) rmdir(".git");
	}
}

static void report(const char *name, long r) {
	int e = errno;
	struct stat st;
	int made = lstat(".git", &st) == 0;
	printf("%s=%s%s\n", name, r < 0 ? en(e) : "ok", made ? ":CREATED" : "");
	rmgit();
}

static char longpath[8192];

static int do_guard(void) {
	char p[512];
	int cwd = open(".", O_PATH | O_DIRECTORY);
	int sub = open("sub", O_PATH | O_DIRECTORY);
	int up = open("..", O_PATH | O_DIRECTORY);    // the cwd's parent: not writable
	int root = open("/", O_PATH | O_DIRECTORY);   // outside every writable root
	int rcwd = open(".", O_RDONLY | O_DIRECTORY); // an ordinary directory descriptor
	char here[4096];
	if (!getcwd(here, sizeof here) || cwd < 0 || sub < 0 || up < 0 || root < 0) { printf("setup=%s\n", en(errno)); return 1; }
	const char *base = strrchr(here, '/') + 1;

	// Trailing slashes and dots at the protected name.
	report("mkdir-slash", mkdir(".git/", 0755));
	report("mkdir-slashes", mkdir(".git///", 0755));
	report("mkdir-dot-slash", mkdir("./.git/", 0755));
	report("mkdir-slash-dot", mkdir(".git/.", 0755));
	report("mkdir-double-slash-prefix", mkdir(".//.git", 0755));
	report("mkdir-sub-dotdot-slash", mkdir("sub/../.git/", 0755));
	report("mkdirat-abs-slash", syscall(SYS_mkdirat, AT_FDCWD, (snprintf(p, sizeof p, "%s/.git/", here), p), 0755));
	report("mknod-fifo-slash", mknod(".git/", S_IFIFO | 0644, 0));
	report("open-creat-slash", open(".git/", O_CREAT | O_WRONLY, 0644));
	report("symlink-slash", symlink("target", ".git/"));
	report("bind-slash", ({ int s = socket(AF_UNIX, SOCK_STREAM, 0); struct sockaddr_un a = {.sun_family = AF_UNIX};
		strcpy(a.sun_path, ".git/"); long r = bind(s, (void *)&a, sizeof a); int e = errno; close(s); errno = e; r; }));
	// Renames onto the name: plain, with a trailing slash on either side,
	// NOREPLACE and EXCHANGE (the old name the guarded one), of a parent.
	// (mvd and mvf are made again before each rename: a route that works
	// moves them.)
#define MV() (mkdir("mvd", 0755), close(open("mvf", O_CREAT | O_WRONLY, 0644)))
	MV(); report("rename-slash", rename("mvd", ".git/"));
	MV(); report("rename-both-slash", rename("mvd/", ".git/"));
	MV(); report("rename-plain", rename("mvd", ".git"));
	MV(); report("rename-file", rename("mvf", ".git"));
	MV(); report("renameat2-noreplace", syscall(SYS_renameat2, AT_FDCWD, "mvd", AT_FDCWD, ".git", RENAME_NOREPLACE));
	MV(); report("renameat2-exchange-new", syscall(SYS_renameat2, AT_FDCWD, "mvd", AT_FDCWD, ".git", RENAME_EXCHANGE));
	MV(); report("renameat2-exchange-old", syscall(SYS_renameat2, AT_FDCWD, ".git", AT_FDCWD, "mvd", RENAME_EXCHANGE));
	MV(); report("rename-file-slash", rename("mvf", ".git/"));
	// Directory descriptors: O_PATH of the cwd's parent and of / (outside
	// every writable root), an O_RDONLY one, the cwd's parent by "..".
	snprintf(p, sizeof p, "%s/.git", base);
	report("mkdirat-parent-opath", syscall(SYS_mkdirat, up, p, 0755));
	snprintf(p, sizeof p, "%s/.git", here + 1); // relative to /
	report("mkdirat-root-opath", syscall(SYS_mkdirat, root, p, 0755));
	report("mkdirat-sub-dotdot", syscall(SYS_mkdirat, sub, "../.git", 0755));
	report("mkdirat-rdonly-dirfd", syscall(SYS_mkdirat, rcwd, ".git", 0755));
	report("openat-parent-opath-creat", openat(up, (snprintf(p, sizeof p, "%s/.git", base), p), O_CREAT | O_WRONLY, 0644));
	report("symlinkat-root-opath", syscall(SYS_symlinkat, "x", root, (snprintf(p, sizeof p, "%s/.git", here + 1), p)));
	MV(); report("renameat-dirfds", syscall(SYS_renameat, cwd, "mvd", up, (snprintf(p, sizeof p, "%s/.git", base), p)));
	MV(); report("renameat-sub-into", syscall(SYS_renameat, cwd, "mvd", sub, "../.git"));
	// Symlinks the worker must follow itself for O_CREAT: targets with a
	// trailing slash, "..", absolute, through a chain, through a symlinked
	// directory, through the cwd's parent.
	symlink(".git/", "l-slash");
	symlink("sub/../.git", "l-dotdot");
	snprintf(p, sizeof p, "%s/.git", here); symlink(p, "l-abs");
	symlink("l-chain2", "l-chain1"); symlink("l-chain3", "l-chain2"); symlink("./.git", "l-chain3");
	symlink(".", "l-here");
	snprintf(p, sizeof p, "../%s/.git", base); symlink(p, "l-up");
	snprintf(p, sizeof p, "/proc/self/fd/%d/.git", cwd); symlink(p, "l-procfd");
	snprintf(p, sizeof p, "/dev/fd/%d/../%s/.git", cwd, base); symlink(p, "l-devfd-up");
	symlink("../.git", "sub/l-rel"); // relative to the link's own directory
	report("creat-l-slash", open("l-slash", O_CREAT | O_WRONLY, 0644));
	report("creat-l-dotdot", open("l-dotdot", O_CREAT | O_WRONLY, 0644));
	report("creat-l-abs", open("l-abs", O_CREAT | O_WRONLY, 0644));
	report("creat-l-chain", open("l-chain1", O_CREAT | O_WRONLY, 0644));
	report("creat-l-here", open("l-here/.git", O_CREAT | O_WRONLY, 0644));
	report("mkdir-l-here", mkdir("l-here/.git", 0755));
	report("creat-l-up", open("l-up", O_CREAT | O_WRONLY, 0644));
	report("creat-l-procfd", open("l-procfd", O_CREAT | O_WRONLY, 0644));
	report("creat-l-devfd-up", open("l-devfd-up", O_CREAT | O_WRONLY, 0644));
	report("creat-sub-l-rel", open("sub/l-rel", O_CREAT | O_WRONLY, 0644));
	report("creat-trunc-l-abs", open("l-abs", O_CREAT | O_TRUNC | O_RDWR, 0644));
	report("creat-opath", open(".git", O_CREAT | O_PATH, 0644));
	if (fchdir(sub) == 0) {
		long r = open("../.git", O_CREAT | O_WRONLY, 0644);
		int e = errno;
		fchdir(cwd);
		errno = e;
		report("creat-chdir-sub", r);
	}
	// /proc/self/fd/N/.. where N is below the cwd, /proc/thread-self.
	snprintf(p, sizeof p, "/proc/self/fd/%d/../.git", sub);
	report("mkdir-procfd-sub-dotdot", mkdir(p, 0755));
	snprintf(p, sizeof p, "/proc/thread-self/fd/%d/../.git/", sub);
	report("mkdir-threadfd-sub-dotdot-slash", mkdir(p, 0755));
	snprintf(p, sizeof p, "/proc/self/fd/%d/../%s/.git", cwd, base);
	report("mkdir-procfd-cwd-up", mkdir(p, 0755));
	snprintf(p, sizeof p, "/proc/self/fd/%d/%s/.git", up, base);
	report("mkdir-procfd-parent", mkdir(p, 0755));
	snprintf(p, sizeof p, "/proc/self/fd/%d%s/.git", root, here);
	report("mkdir-procfd-root", mkdir(p, 0755));
	// O_TMPFILE linked onto the name through the descriptor, the magic
	// link, and a symlink to the magic link.
	// (a fresh O_TMPFILE each time: one linked once cannot be linked again)
#define TMPF() open(".", O_TMPFILE | O_RDWR, 0644)
	{
		int tf = TMPF();
		report("linkat-tmpfile-empty", syscall(SYS_linkat, tf, "", AT_FDCWD, ".git", AT_EMPTY_PATH));
		close(tf);
		tf = TMPF();
		snprintf(p, sizeof p, "/proc/self/fd/%d", tf);
		report("linkat-tmpfile-proc", syscall(SYS_linkat, AT_FDCWD, p, AT_FDCWD, ".git", AT_SYMLINK_FOLLOW));
		close(tf);
		tf = TMPF();
		snprintf(p, sizeof p, "/proc/self/fd/%d", tf);
		report("linkat-tmpfile-proc-upfd", syscall(SYS_linkat, AT_FDCWD, p, up, (snprintf(here + 2048, 1024, "%s/.git", base), here + 2048), AT_SYMLINK_FOLLOW));
		close(tf);
		tf = TMPF();
		snprintf(p, sizeof p, "/dev/fd/%d", tf);
		report("linkat-tmpfile-devfd", syscall(SYS_linkat, AT_FDCWD, p, AT_FDCWD, "sub/../.git", AT_SYMLINK_FOLLOW));
		close(tf);
	}
	report("link-file-slash", link("file", ".git/"));
	report("linkat-upfd", syscall(SYS_linkat, cwd, "file", up, (snprintf(p, sizeof p, "%s/.git", base), p), 0));
	// Near and over PATH_MAX: "./" repeated, then .git.
	{
		size_t n = 0;
		while (n + 2 < 4096 - 6) { longpath[n++] = '.'; longpath[n++] = '/'; }
		strcpy(longpath + n, ".git");
		printf("longpath-len=%zu\n", strlen(longpath));
		report("mkdir-near-pathmax", mkdir(longpath, 0755));
		report("creat-near-pathmax", open(longpath, O_CREAT | O_WRONLY, 0644));
		while (n + 2 < 6000) { longpath[n++] = '.'; longpath[n++] = '/'; }
		strcpy(longpath + n, ".git");
		report("mkdir-over-pathmax", mkdir(longpath, 0755));
	}
	// The control: an ordinary name through the same routes works.
	report("control-mkdir-slash", mkdir("ctl/", 0755));
	report("control-creat-l", (symlink("ctl2", "l-ctl"), open("l-ctl", O_CREAT | O_WRONLY, 0644)));
	report("control-mkdirat-parent-opath", syscall(SYS_mkdirat, up, (snprintf(p, sizeof p, "%s/ctl3", base), p), 0755));
	struct stat st;
	printf("ctl=%s ctl2=%s ctl3=%s\n", stat("ctl", &st) ? "missing" : "ok", stat("ctl2", &st) ? "missing" : "ok", stat("ctl3", &st) ? "missing" : "ok");
	return 0;
}

// ---------------------------------------------------------------------------
// meta: metadata system calls Landlock does not mediate.

#ifndef SYS_file_getattr
#define SYS_file_getattr 468
#define SYS_file_setattr 469
#endif
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#define SYS_removexattrat 466
#endif

struct rt_file_attr { uint64_t xflags; uint32_t extsize, nextents, projid, cowextsize; };
struct rt_xattr_args { uint64_t value; uint32_t size, flags; };

static int do_meta(int argc, char **argv) {
	for (int i = 2; i < argc; i++) {
		const char *path = argv[i];
		char tag[16];
		snprintf(tag, sizeof tag, "p%d", i - 1);
		struct rt_file_attr fa;
		memset(&fa, 0, sizeof fa);
		long g = syscall(SYS_file_getattr, AT_FDCWD, path, &fa, sizeof fa, 0);
		printf("%s.getattr=%s\n", tag, rc(g));
		// Set the same attributes with FS_XFLAG_NODUMP toggled.
		fa.xflags ^= FS_XFLAG_NODUMP;
		printf("%s.setattr=%s\n", tag, rc(syscall(SYS_file_setattr, AT_FDCWD, path, &fa, sizeof fa, 0)));
		int op = open(path, O_PATH);
		if (op >= 0) {
			printf("%s.setattr-emptypath=%s\n", tag, rc(syscall(SYS_file_setattr, op, "", &fa, sizeof fa, AT_EMPTY_PATH)));
			struct rt_xattr_args xa = {.value = (uint64_t)(uintptr_t)"v", .size = 1};
			printf("%s.setxattrat-emptypath=%s\n", tag, rc(syscall(SYS_setxattrat, op, "", AT_EMPTY_PATH, "user.rt13", &xa, sizeof xa)));
			close(op);
		}
		struct rt_xattr_args xa = {.value = (uint64_t)(uintptr_t)"v", .size = 1};
		printf("%s.setxattrat=%s\n", tag, rc(syscall(SYS_setxattrat, AT_FDCWD, path, 0, "user.rt13", &xa, sizeof xa)));
		printf("%s.removexattrat=%s\n", tag, rc(syscall(SYS_removexattrat, AT_FDCWD, path, 0, "user.rt13")));
		int fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd >= 0) {
			int fl = 0;
			if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0) {
				fl ^= FS_NODUMP_FL;
				printf("%s.setflags=%s\n", tag, rc(ioctl(fd, FS_IOC_SETFLAGS, &fl)));
			} else {
				printf("%s.setflags=get:%s\n", tag, en(errno));
			}
			struct fsxattr fx;
			if (ioctl(fd, FS_IOC_FSGETXATTR, &fx) == 0) {
				fx.fsx_xflags ^= FS_XFLAG_NODUMP;
				printf("%s.fssetxattr=%s\n", tag, rc(ioctl(fd, FS_IOC_FSSETXATTR, &fx)));
			} else {
				printf("%s.fssetxattr=get:%s\n", tag, en(errno));
			}
			close(fd);
		} else {
			printf("%s.open=%s\n", tag, en(errno));
		}
	}
	return 0;
}

// ---------------------------------------------------------------------------
// memfd + execveat, and what the program run that way can do.

static int do_confined(int argc, char **argv) {
	if (argc < 3) return 2;
	int fd = open(argv[2], O_RDONLY);
	printf("read-denied=%s\n", fd < 0 ? en(errno) : "ok");
	if (fd >= 0) close(fd);
	long r = mkdir(".git", 0755);
	printf("mkdir-git=%s\n", rc(r));
	if (r == 0) rmdir(".git");
	if (argc > 3 && !strcmp(argv[3], "ptrace")) // never outside: the caller would become the tracer
		printf("ptrace-self=%s\n", rc(syscall(SYS_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0)));
	char line[256], nnp[16] = "?", seccomp[16] = "?";
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f)) {
		if (!strncmp(line, "NoNewPrivs:", 11)) sscanf(line + 11, "%15s", nnp);
		if (!strncmp(line, "Seccomp:", 8)) sscanf(line + 8, "%15s", seccomp);
	}
	printf("nnp=%s seccomp=%s\n", nnp, seccomp);
	return 0;
}

static int do_memfd(int argc, char **argv) {
	if (argc < 3) return 2;
	int mf = syscall(SYS_memfd_create, "rt13", 0);
	if (mf < 0) { printf("memfd=%s\n", en(errno)); return 1; }
	int self = open("/proc/self/exe", O_RDONLY);
	if (self < 0) { printf("self=%s\n", en(errno)); return 1; }
	char buf[65536];
	ssize_t n;
	while ((n = read(self, buf, sizeof buf)) > 0)
		if (write(mf, buf, n) != n) { printf("copy=%s\n", en(errno)); return 1; }
	close(self);
	printf("memfd=ok\n");
	fflush(stdout);
	char *av[] = {"rt13", "confined", argv[2], "ptrace", NULL};
	extern char **environ;
	pid_t pid = fork();
	if (pid == 0) {
		syscall(SYS_execveat, mf, "", av, environ, AT_EMPTY_PATH);
		printf("execveat=%s\n", en(errno));
		fflush(stdout);
		_exit(1);
	}
	int st;
	waitpid(pid, &st, 0);
	return 0;
}

// ---------------------------------------------------------------------------
// listmount of another mount namespace.

struct rt_mnt_id_req { uint32_t size, spare; uint64_t mnt_id, param, mnt_ns_id; };
#define RT_LSMT_ROOT 0xffffffffffffffffULL
#define RT_STATMOUNT_MNT_NS_ID 0x40

static int do_mntns(void) {
	// statmount of the root's mount for its namespace id.
	struct statx sx;
	if (statx(AT_FDCWD, "/", 0, 0x4000 /* STATX_MNT_ID_UNIQUE */, &sx) < 0) { printf("statx=%s\n", en(errno)); return 1; }
	struct rt_mnt_id_req req = {.size = 32, .mnt_id = sx.stx_mnt_id, .param = RT_STATMOUNT_MNT_NS_ID};
	static uint64_t buf[512];
	long r = syscall(457 /* statmount */, &req, buf, sizeof buf, 0);
	if (r < 0) { printf("statmount=%s\n", en(errno)); return 1; }
	// struct statmount: size(u32) mnt_opts(u32) mask(u64) ...; mnt_ns_id at offset 112.
	printf("mntns=%llu\n", (unsigned long long)((uint64_t *)buf)[112 / 8]);
	return 0;
}

static int do_listmount(int argc, char **argv) {
	if (argc < 3) return 2;
	struct rt_mnt_id_req req = {.size = 32, .mnt_id = RT_LSMT_ROOT, .mnt_ns_id = strtoull(argv[2], NULL, 10)};
	uint64_t ids[256];
	long r = syscall(458 /* listmount */, &req, ids, 256, 0);
	printf("listmount=%s count=%ld\n", rc(r), r < 0 ? 0 : r);
	return 0;
}

int main(int argc, char **argv) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) return 2;
	if (!strcmp(argv[1], "listen")) return do_listen(argc, argv);
	if (!strcmp(argv[1], "guard")) return do_guard();
	if (!strcmp(argv[1], "bindv")) return do_bindv(argc, argv);
	if (!strcmp(argv[1], "meta")) return do_meta(argc, argv);
	if (!strcmp(argv[1], "memfd")) return do_memfd(argc, argv);
	if (!strcmp(argv[1], "confined")) return do_confined(argc, argv);
	if (!strcmp(argv[1], "mntns")) return do_mntns();
	if (!strcmp(argv[1], "listmount")) return do_listmount(argc, argv);
	return 2;
}
