// rt14: red-team helper for sbx (redteam14_test.go). Usage: rt14 OP [ARGS...];
// prints "name=value" lines.
//
//	subvol DIR NAME           BTRFS_IOC_SUBVOL_CREATE of NAME in DIR
//	snap SRC DIR NAME         BTRFS_IOC_SNAP_CREATE_V2: a snapshot of the
//	                          subvolume SRC as DIR/NAME
//	cat PATH                  the first line of PATH, or the errno
//	mkdir PATH                mkdir(PATH)
//	meta PATH...              lstat (size, mode), readlink, getxattr of
//	                          user.rx14 and listxattr on each PATH, and an
//	                          open for reading as the control
//	lease PATH SECONDS        a read lease (F_SETLEASE F_RDLCK) on PATH,
//	                          opened read-only, SIGIO ignored; prints
//	                          lease=ok and holds it for SECONDS
//	misc                      kernel interfaces of 6.x and odd syscall
//	                          entries (see do_misc)
//	int80                     getpid through int 0x80: int80=ok, or
//	                          int80=FAULT where the CPU or hypervisor has
//	                          no such entry (a general-protection fault,
//	                          with or without a sandbox)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

static const char *en(int e) {
	switch (e) {
	case 0: return "ok"; case EPERM: return "EPERM"; case EACCES: return "EACCES"; case ENOSYS: return "ENOSYS";
	case EBADF: return "EBADF"; case ENOENT: return "ENOENT"; case EROFS: return "EROFS"; case EXDEV: return "EXDEV";
	case ENXIO: return "ENXIO"; case ENOTTY: return "ENOTTY"; case EAGAIN: return "EAGAIN"; case EIO: return "EIO";
	case EINVAL: return "EINVAL"; case EEXIST: return "EEXIST"; case ENOTDIR: return "ENOTDIR"; case EISDIR: return "EISDIR";
	case ELOOP: return "ELOOP"; case ENODEV: return "ENODEV"; case EOPNOTSUPP: return "EOPNOTSUPP"; case ESRCH: return "ESRCH";
	case ENAMETOOLONG: return "ENAMETOOLONG"; case ENOTEMPTY: return "ENOTEMPTY"; case EBUSY: return "EBUSY";
	case ENODATA: return "ENODATA"; case EFAULT: return "EFAULT"; case E2BIG: return "E2BIG"; case ENOMEM: return "ENOMEM";
	}
	static char b[32]; snprintf(b, sizeof b, "errno%d", e); return b;
}

static const char *rc(long r) { return r < 0 ? en(errno) : "ok"; }

static int do_subvol(char **argv) {
	int d = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (d < 0) { printf("subvol=open:%s\n", en(errno)); return 0; }
	struct btrfs_ioctl_vol_args a;
	memset(&a, 0, sizeof a);
	strncpy(a.name, argv[3], sizeof a.name - 1);
	printf("subvol=%s\n", rc(ioctl(d, BTRFS_IOC_SUBVOL_CREATE, &a)));
	return 0;
}

static int do_snap(char **argv) {
	int s = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (s < 0) { printf("snap=opensrc:%s\n", en(errno)); return 0; }
	int d = open(argv[3], O_RDONLY | O_DIRECTORY);
	if (d < 0) { printf("snap=opendst:%s\n", en(errno)); return 0; }
	struct btrfs_ioctl_vol_args_v2 a;
	memset(&a, 0, sizeof a);
	a.fd = s;
	strncpy(a.name, argv[4], sizeof a.name - 1);
	printf("snap=%s\n", rc(ioctl(d, BTRFS_IOC_SNAP_CREATE_V2, &a)));
	return 0;
}

static int do_cat(char **argv) {
	char b[256];
	int fd = open(argv[2], O_RDONLY);
	if (fd < 0) { printf("cat=%s\n", en(errno)); return 0; }
	ssize_t n = read(fd, b, sizeof b - 1);
	if (n < 0) { printf("cat=read:%s\n", en(errno)); return 0; }
	b[n] = 0;
	b[strcspn(b, "\n")] = 0;
	printf("cat=ok:%s\n", b);
	return 0;
}

static int do_meta(int argc, char **argv) {
	for (int i = 2; i < argc; i++) {
		const char *p = argv[i];
		char b[256];
		struct stat st;
		printf("path%d=%s\n", i - 1, p);
		if (lstat(p, &st) < 0) printf("lstat%d=%s\n", i - 1, en(errno));
		else printf("lstat%d=ok:size=%lld:mode=%o\n", i - 1, (long long)st.st_size, st.st_mode & 07777);
		ssize_t n = readlink(p, b, sizeof b - 1);
		if (n < 0) printf("readlink%d=%s\n", i - 1, en(errno));
		else { b[n] = 0; printf("readlink%d=ok:%s\n", i - 1, b); }
		n = lgetxattr(p, "user.rx14", b, sizeof b - 1);
		if (n < 0) printf("getxattr%d=%s\n", i - 1, en(errno));
		else { b[n] = 0; printf("getxattr%d=ok:%s\n", i - 1, b); }
		n = llistxattr(p, b, sizeof b);
		if (n < 0) printf("listxattr%d=%s\n", i - 1, en(errno));
		else printf("listxattr%d=ok:%zd\n", i - 1, n);
		int fd = open(p, O_RDONLY | O_NOFOLLOW);
		printf("open%d=%s\n", i - 1, fd < 0 ? en(errno) : "ok");
		if (fd >= 0) close(fd);
	}
	return 0;
}

// ---------------------------------------------------------------------------
// misc

#ifndef PIDFS_IOCTL_MAGIC
#define PIDFS_IOCTL_MAGIC 0xFF
#endif
#define PIDFD_GET_MNT_NAMESPACE _IO(PIDFS_IOCTL_MAGIC, 3)
#define PIDFD_GET_NET_NAMESPACE _IO(PIDFS_IOCTL_MAGIC, 4)
#define PIDFD_GET_USER_NAMESPACE _IO(PIDFS_IOCTL_MAGIC, 9)
#define PIDFD_GET_PID_NAMESPACE _IO(PIDFS_IOCTL_MAGIC, 7)
#define NSIO 0xb7
#define NS_GET_USERNS _IO(NSIO, 0x1)
#define NS_GET_PARENT _IO(NSIO, 0x2)
struct rx_mnt_ns_info { uint32_t size; uint32_t nr_mounts; uint64_t mnt_ns_id; };
#define NS_MNT_GET_NEXT _IOR(NSIO, 12, struct rx_mnt_ns_info)
#define NS_MNT_GET_PREV _IOR(NSIO, 13, struct rx_mnt_ns_info)
#define X32 0x40000000

// int80_fault: int 0x80 raised a fault (SIGSEGV from a general-protection
// fault: some virtual machines, PVM guests among them, have no 32-bit
// entry at all). INT80_FAULT is int80's return then.
static sigjmp_buf int80_env;
#define INT80_FAULT (-4096L)

static void int80_segv(int sig) { (void)sig; siglongjmp(int80_env, 1); }

// i386 system call through int 0x80 (from 64-bit code: the 32-bit table,
// AUDIT_ARCH_I386), or INT80_FAULT when the instruction faults.
static long int80(long nr, long a, long b, long c) {
	volatile long r = INT80_FAULT;
	struct sigaction sa = {0}, old;
	sa.sa_handler = int80_segv;
	sigaction(SIGSEGV, &sa, &old);
	if (!sigsetjmp(int80_env, 1)) {
		long v;
		__asm__ volatile("int $0x80" : "=a"(v) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
		r = v;
	}
	sigaction(SIGSEGV, &old, NULL);
	return r;
}

// int80_res prints int 0x80's result as name=ok, name=ERRNO or name=FAULT.
static void int80_res(const char *name, long r) {
	printf("%s=%s\n", name, r == INT80_FAULT ? "FAULT" : r < 0 ? en((int)-r) : "ok");
}

// init_is_sbx: PID 1 is the sandbox's init: its command line is sbx's,
// or the sandbox's /proc hides it (hidepid=invisible, red team 26) while
// showing this process.
static int init_is_sbx(void) {
	char b[256] = {0};
	int fd = open("/proc/1/cmdline", O_RDONLY);
	if (fd < 0) return errno == ENOENT && access("/proc/self/status", R_OK) == 0;
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n <= 0) return 0;
	const char *base = strrchr(b, '/');
	base = base ? base + 1 : b;
	return !strcmp(base, "sbx");
}

static void res(const char *name, long r) { printf("%s=%s\n", name, rc(r)); }

static int do_misc(void) {
	char path[] = "rx14-int80";
	// int 0x80: mkdir (i386 39) of a name nothing stops otherwise.
	int80_res("int80_mkdir", int80(39, (long)path, 0755, 0));
	// x32: mkdirat, file_setattr and open_tree_attr numbers with bit 30.
	res("x32_mkdirat", syscall(X32 | 258, AT_FDCWD, "rx14-x32", 0755));
	res("x32_getpid", syscall(X32 | 39));
	// The mount API's newest call (6.15).
	res("open_tree_attr", syscall(467, AT_FDCWD, "/", 0, NULL, 0));
	// clone3 and clone with a namespace flag.
	res("clone3", syscall(SYS_clone3, NULL, 0));
	res("clone_newuser", syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
	// pidfds: the init (outside the command's Landlock domain) and self.
	int p1 = syscall(SYS_pidfd_open, 1, 0);
	printf("pidfd_open1=%s\n", p1 < 0 ? en(errno) : "ok");
	if (p1 >= 0) {
		res("pidfd1_mntns", ioctl(p1, PIDFD_GET_MNT_NAMESPACE, 0));
		res("pidfd1_userns", ioctl(p1, PIDFD_GET_USER_NAMESPACE, 0));
		res("pidfd1_netns", ioctl(p1, PIDFD_GET_NET_NAMESPACE, 0));
		res("pidfd1_signal", syscall(SYS_pidfd_send_signal, p1, SIGKILL, NULL, 0));
		res("pidfd1_getfd", syscall(SYS_pidfd_getfd, p1, 0, 0));
		res("setns_pidfd1", setns(p1, CLONE_NEWNS));
	}
	int ps = syscall(SYS_pidfd_open, getpid(), 0);
	if (ps >= 0) {
		int u = ioctl(ps, PIDFD_GET_USER_NAMESPACE, 0);
		printf("self_userns=%s\n", u < 0 ? en(errno) : "ok");
		if (u >= 0) {
			int pu = ioctl(u, NS_GET_PARENT, 0);
			printf("self_userns_parent=%s\n", pu < 0 ? en(errno) : "ok");
			if (pu >= 0) res("setns_parent_userns", setns(pu, CLONE_NEWUSER));
			res("setns_self_userns", setns(u, CLONE_NEWUSER));
		}
		int m = ioctl(ps, PIDFD_GET_MNT_NAMESPACE, 0);
		printf("self_mntns=%s\n", m < 0 ? en(errno) : "ok");
		if (m >= 0) {
			struct rx_mnt_ns_info info = { .size = sizeof info };
			int nx = ioctl(m, NS_MNT_GET_NEXT, &info);
			printf("mntns_next=%s\n", nx < 0 ? en(errno) : "ok");
			memset(&info, 0, sizeof info); info.size = sizeof info;
			int pv = ioctl(m, NS_MNT_GET_PREV, &info);
			printf("mntns_prev=%s\n", pv < 0 ? en(errno) : "ok");
			res("setns_self_mntns", setns(m, CLONE_NEWNS));
		}
		int pn = ioctl(ps, PIDFD_GET_PID_NAMESPACE, 0);
		if (pn >= 0) {
			int pp = ioctl(pn, NS_GET_PARENT, 0);
			printf("pidns_parent=%s\n", pp < 0 ? en(errno) : "ok");
		}
	}
	// ioctl with TIOCSTI in the low word and garbage above (the kernel
	// takes an unsigned int).
	int pt = open("/dev/ptmx", O_RDWR | O_NOCTTY);
	if (pt >= 0) {
		char c = 'x';
		res("tiocsti_high", syscall(SYS_ioctl, pt, 0x100000000UL | TIOCSTI, &c));
		res("tiocsti", syscall(SYS_ioctl, pt, TIOCSTI, &c));
	} else printf("ptmx=%s\n", en(errno));
	// prlimit64 on the init with garbage in the high word of the pid
	// (only when PID 1 is sbx's init: never on a host's init).
	struct { uint64_t cur, max; } lim = {0, 0};
	if (init_is_sbx())
		res("prlimit_init_high", syscall(SYS_prlimit64, 0x100000001UL, RLIMIT_CPU, &lim, NULL));
	// RLIMIT_CORE stays 0 (hard limit).
	lim.cur = lim.max = ~0ULL;
	res("rlimit_core_raise", syscall(SYS_prlimit64, 0, RLIMIT_CORE, &lim, NULL));
	// personality with garbage in the high word.
	res("personality_high", syscall(SYS_personality, 0x100000000UL | 0x0040000));
	// Landlock 6.x flags (ABI 7 logging flags) on restrict_self.
	res("landlock_restrict_log", syscall(SYS_landlock_restrict_self, -1, 1U << 2));
	return 0;
}

static int do_lease(char **argv) {
	signal(SIGIO, SIG_IGN);
	int fd = open(argv[2], O_RDONLY);
	if (fd < 0) { printf("lease=open:%s\n", en(errno)); return 0; }
	if (fcntl(fd, F_SETLEASE, F_RDLCK) < 0) { printf("lease=%s\n", en(errno)); return 0; }
	printf("lease=ok\n");
	sleep(atoi(argv[3]));
	return 0;
}

int main(int argc, char **argv) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) return 2;
	if (!strcmp(argv[1], "subvol") && argc == 4) return do_subvol(argv);
	if (!strcmp(argv[1], "snap") && argc == 5) return do_snap(argv);
	if (!strcmp(argv[1], "cat") && argc == 3) return do_cat(argv);
	if (!strcmp(argv[1], "mkdir") && argc == 3) { printf("mkdir=%s\n", rc(mkdir(argv[2], 0755))); return 0; }
	if (!strcmp(argv[1], "meta")) return do_meta(argc, argv);
	if (!strcmp(argv[1], "misc")) return do_misc();
	if (!strcmp(argv[1], "int80")) { int80_res("int80", int80(20, 0, 0, 0)); return 0; } // i386 getpid
	if (!strcmp(argv[1], "lease") && argc == 4) return do_lease(argv);
	return 2;
}
