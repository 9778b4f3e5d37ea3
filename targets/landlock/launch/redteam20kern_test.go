//go:build linux && amd64

package launch_test

// Red team 20 (kernel interfaces the earlier passes did not cover), through
// the real sbx binary (built by TestMain), as root and as uid 65534, under
// the built-in profiles each attack applies to:
//
//   - fscrypt's per-filesystem keyring, reached by ioctls on any file or
//     directory of an ext4 (f2fs, ubifs, ceph) file system with the
//     encrypt feature, readable ones included: FS_IOC_REMOVE_ENCRYPTION_KEY
//     drops the user's claim on a key the host added, which locks the
//     host's encrypted directories (fscrypt, systemd-homed), and
//     FS_IOC_ADD_ENCRYPTION_KEY adds keys that outlive the run, charged to
//     the user's kernel key quota, past the seccomp denial of keyctl and
//     add_key (TestRedTeam20KernFscryptKeyring: was a HOLE, fixed in the
//     filter);
//   - system calls new in Linux 6.x: listns, statmount and listmount with
//     the host's mount and namespace ids, NS_MNT_GET_NEXT/PREV,
//     lsm_set_self_attr, file_setattr's immutable flag, and the 32-bit
//     entry of the new numbers and of the fscrypt ioctls
//     (TestRedTeam20KernNewSyscalls);
//   - scheduling, I/O priority and time: real-time and negative-nice
//     scheduling, real-time I/O priority, PRIO_USER/PRIO_PGRP and
//     IOPRIO_WHO_USER/IOPRIO_WHO_PGRP reaching the init, the clock
//     setters, alarm timers, a POSIX timer aimed at the init's thread
//     (TestRedTeam20KernSchedTime);
//   - signals by indirect routes: SIGIO owners (F_SETOWN_EX, F_SETSIG
//     SIGKILL/SIGSTOP) on the private pseudo-terminal and on a dnotify
//     watch (F_NOTIFY) triggered by the supervisor's creations and by the
//     host, aimed at the init and its process group
//     (TestRedTeam20KernIndirectSignals);
//   - a pseudo-terminal the supervisor opens for the command (open with
//     O_CREAT of an existing /dev/pts/N): a session leader without a
//     terminal that opens one without O_NOCTTY acquires it, and the
//     command, holding the master, would then signal the supervisor
//     (outside the PID namespace and the Landlock domain) with ^C, ^\, ^Z
//     and the hang-up (TestRedTeam20KernSupervisorNoCtty);
//   - devices and /proc: the random device's privileged ioctls, virtual
//     consoles, TIOCVHANGUP, the command's own id maps, setgroups,
//     timens_offsets, PSI triggers, oom_score_adj and LSM attributes
//     (TestRedTeam20KernDevProc).
//
//	go test -count=1 -run TestRedTeam20Kern -v ./targets/landlock/launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rt20KernC is the attack helper; argv[1] picks the battery. Results are
// printed as name=ok or name=ERRNAME (glibc's errno names).
const rt20KernC = `
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <linux/fscrypt.h>
#include <linux/random.h>
#include <termios.h>

static const char *en(int e) { const char *n = strerrorname_np(e); return n ? n : "E?"; }
static void rep(const char *n, long r) { printf("%s=%s\n", n, r < 0 ? en(errno) : "ok"); fflush(stdout); }

/* --- fscrypt ------------------------------------------------------------ */

/* rawkey: 64 bytes from a seed (xorshift; distinct seeds, distinct keys) */
static void rawkey(__u8 *raw, int seed) {
	unsigned long long x = 0x9e3779b97f4a7c15ULL * (unsigned long long)(seed + 1);
	for (int i = 0; i < 64; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; raw[i] = (__u8)(x >> 24); }
}

static int keyid(int fd, __u8 id[16]) {
	struct { __u64 size; union { __u8 version; struct fscrypt_policy_v2 v2; } p; } a;
	a.size = sizeof a.p;
	if (ioctl(fd, FS_IOC_GET_ENCRYPTION_POLICY_EX, &a) < 0) return -1;
	if (a.p.version != FSCRYPT_POLICY_V2) { errno = EINVAL; return -1; }
	memcpy(id, a.p.v2.master_key_identifier, 16);
	return 0;
}

/* fscrypt setup MNT NAME SEED: adds key SEED, makes MNT/NAME encrypted
   with it and writes MNT/NAME/secret. */
static int fscrypt_main(int argc, char **argv) {
	const char *op = argv[2];
	int fd = open(argv[3], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) { printf("open=%s\n", en(errno)); return 1; }
	if (!strcmp(op, "setup")) {
		struct { struct fscrypt_add_key_arg a; __u8 raw[64]; } k;
		memset(&k, 0, sizeof k);
		k.a.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
		k.a.raw_size = 64;
		rawkey(k.raw, atoi(argv[5]));
		rep("setup_add_key", ioctl(fd, FS_IOC_ADD_ENCRYPTION_KEY, &k));
		struct fscrypt_policy_v2 p;
		memset(&p, 0, sizeof p);
		p.version = FSCRYPT_POLICY_V2;
		p.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS;
		p.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS;
		p.flags = FSCRYPT_POLICY_FLAGS_PAD_32;
		memcpy(p.master_key_identifier, k.a.key_spec.u.identifier, 16);
		mkdirat(fd, argv[4], 0755);
		int d = openat(fd, argv[4], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		rep("setup_policy", ioctl(d, FS_IOC_SET_ENCRYPTION_POLICY, &p));
		int f = openat(d, "secret", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		rep("setup_secret", f);
		if (f >= 0) { write(f, "plaintext\n", 10); close(f); }
		return 0;
	}
	if (!strcmp(op, "addkeys")) {
		/* fscrypt addkeys MNT N: N keys of the command's own */
		int n = atoi(argv[4]), ok = 0, e = 0;
		for (int j = 0; j < n; j++) {
			struct { struct fscrypt_add_key_arg a; __u8 raw[64]; } k;
			memset(&k, 0, sizeof k);
			k.a.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
			k.a.raw_size = 64;
			rawkey(k.raw, 1000 + j);
			if (ioctl(fd, FS_IOC_ADD_ENCRYPTION_KEY, &k) < 0) { e = errno; break; }
			ok++;
		}
		printf("add_key=%s added=%d\n", e ? en(e) : "ok", ok);
		return 0;
	}
	/* fscrypt status|remove|removeall DIR: on the key of DIR's policy */
	__u8 id[16];
	if (keyid(fd, id) < 0) { printf("get_policy=%s\n", en(errno)); return 1; }
	if (!strcmp(op, "status")) {
		struct fscrypt_get_key_status_arg s;
		memset(&s, 0, sizeof s);
		s.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
		memcpy(s.key_spec.u.identifier, id, 16);
		if (ioctl(fd, FS_IOC_GET_ENCRYPTION_KEY_STATUS, &s) < 0) { printf("status=%s\n", en(errno)); return 1; }
		printf("status=%u\n", s.status); /* 1 absent, 2 present, 3 incompletely removed */
		return 0;
	}
	struct fscrypt_remove_key_arg r;
	memset(&r, 0, sizeof r);
	r.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	memcpy(r.key_spec.u.identifier, id, 16);
	if (!strcmp(op, "remove")) rep("remove_key", ioctl(fd, FS_IOC_REMOVE_ENCRYPTION_KEY, &r));
	else if (!strcmp(op, "removeall")) rep("remove_key_all_users", ioctl(fd, FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS, &r));
	else return 2;
	printf("removal_flags=%u\n", r.removal_status_flags);
	return 0;
}

/* --- the 32-bit entry ----------------------------------------------------- */

static sigjmp_buf int80_env;
static void int80_segv(int sig) { (void)sig; siglongjmp(int80_env, 1); }
/* An i386 system call through int 0x80; -4096 marks a fault (some
   hypervisors raise a general-protection fault for int 0x80). */
static long int80(long nr, long a, long b, long c, long d) {
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = int80_segv;
	sigaction(SIGSEGV, &sa, &old);
	long v = -4096;
	if (!sigsetjmp(int80_env, 1))
		__asm__ volatile("int $0x80" : "=a"(v) : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d) : "memory");
	sigaction(SIGSEGV, &old, 0);
	return v;
}
static void int80_rep(const char *n, long v) {
	if (v == -4096) printf("%s=FAULT\n", n);
	else if (v < 0 && v > -4096) printf("%s=%s\n", n, en((int)-v));
	else printf("%s=ok\n", n);
	fflush(stdout);
}

/* --- new system calls ----------------------------------------------------- */

struct mnt_id_req20 { unsigned size, spare; unsigned long long mnt_id, param, mnt_ns_id; };
struct mnt_ns_info20 { unsigned size, nr_mounts; unsigned long long mnt_ns_id; };
struct file_attr20 { unsigned long long fa_xflags; unsigned fa_extsize, fa_nextents, fa_projid, fa_cowextsize; };
#define NSIO20 0xb7
#define NS_GET_MNTNS_ID20 _IOR(NSIO20, 0x5, unsigned long long)
#define NS_MNT_GET_NEXT20 _IOR(NSIO20, 11, struct mnt_ns_info20)
#define NS_MNT_GET_PREV20 _IOR(NSIO20, 12, struct mnt_ns_info20)

static int new_main(int argc, char **argv) {
	static char buf[8192];
	if (!strcmp(argv[2], "ids")) {
		/* the caller's first mount's unique id and its namespace's id */
		unsigned long long ids[4] = {0}, nsid = 0;
		struct mnt_id_req20 r = {32, 0, ~0ULL, 0, 0};
		long n = syscall(458, &r, ids, 4, 0);
		int fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
		long i = ioctl(fd, NS_GET_MNTNS_ID20, &nsid);
		printf("mntid=%llu nsid=%llu listmount=%s nsid_ioctl=%s\n", ids[0], nsid, n > 0 ? "ok" : en(errno), i == 0 ? "ok" : en(errno));
		return 0;
	}
	if (!strcmp(argv[2], "int80")) {
		/* new int80 [DIR]: getpid; with DIR (an encrypted directory), the
		   fscrypt removal through the compat ioctl (i386 54) */
		int80_rep("int80_getpid", int80(20, 0, 0, 0, 0));
		if (argc > 3) {
			int fd = open(argv[3], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			static struct fscrypt_remove_key_arg r;
			r.key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
			keyid(fd, r.key_spec.u.identifier);
			int80_rep("int80_remove_key", int80(54, fd, FS_IOC_REMOVE_ENCRYPTION_KEY, (long)&r, 0));
		}
		return 0;
	}
	/* new control|run HOSTID HOSTNS: the control (outside the sandbox)
	   skips the 32-bit calls, which aim at PID 1 */
	int control = !strcmp(argv[2], "control");
	unsigned long long hostid = strtoull(argv[3], 0, 10), hostns = strtoull(argv[4], 0, 10);
	rep("listns", syscall(470, 0, 0, 0, 0));
	{ struct mnt_id_req20 r = {24, 0, hostid, 1 /* STATMOUNT_SB_BASIC */, 0}; rep("statmount_host_id", syscall(457, &r, buf, sizeof buf, 0)); }
	{ struct mnt_id_req20 r = {32, 0, hostid, 1, hostns}; rep("statmount_host_ns", syscall(457, &r, buf, sizeof buf, 0)); }
	{ unsigned long long ids[4]; struct mnt_id_req20 r = {32, 0, ~0ULL, 0, hostns}; rep("listmount_host_ns", syscall(458, &r, ids, 4, 0)); }
	{
		int fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
		struct mnt_ns_info20 i = {sizeof i};
		int n = ioctl(fd, NS_MNT_GET_NEXT20, &i); rep("ns_mnt_get_next", n); if (n >= 0) close(n);
		n = ioctl(fd, NS_MNT_GET_PREV20, &i); rep("ns_mnt_get_prev", n); if (n >= 0) close(n);
	}
	{
		/* LSM_ATTR_CURRENT (100): the label /proc/self/attr/current holds,
		   which the read-only /proc refuses */
		struct { unsigned long long id, flags; unsigned len, ctx_len; char ctx[16]; } c = {100, 0, 40, 16, "unconfined"};
		rep("lsm_set_self_attr", syscall(460, 100, &c, sizeof c, 0));
	}
	{
		struct file_attr20 fa;
		memset(&fa, 0, sizeof fa);
		rep("file_getattr_unwritable", syscall(468, AT_FDCWD, "/etc/passwd", &fa, sizeof fa, 0));
		int f = open("rt20-fattr", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (f >= 0) close(f);
		memset(&fa, 0, sizeof fa);
		syscall(468, AT_FDCWD, "rt20-fattr", &fa, sizeof fa, 0);
		fa.fa_xflags |= 0x8; /* FS_XFLAG_IMMUTABLE: CAP_LINUX_IMMUTABLE */
		rep("file_setattr_immutable", syscall(469, AT_FDCWD, "rt20-fattr", &fa, sizeof fa, 0));
		fa.fa_xflags &= ~0x8ULL;
		syscall(469, AT_FDCWD, "rt20-fattr", &fa, sizeof fa, 0);
		unlink("rt20-fattr");
	}
	if (control) return 0;
	/* The 32-bit entry (i386 numbers): every call ENOSYS. Arguments in
	   static memory: below 4 GiB in this static, non-PIE binary. */
	static char p[] = "rt20-int80";
	static struct { unsigned cur, max; } rl = {0, 0};
	int80_rep("int80_getpid", int80(20, 0, 0, 0, 0));
	int80_rep("int80_kill_init", int80(37, 1, SIGKILL, 0, 0));
	int80_rep("int80_setrlimit_core", int80(75, RLIMIT_CORE, (long)&rl, 0, 0));
	int80_rep("int80_listmount", int80(458, 0, 0, 0, 0));
	int80_rep("int80_setxattrat", int80(463, AT_FDCWD, (long)p, 0, 0));
	int80_rep("int80_open_tree_attr", int80(467, AT_FDCWD, (long)p, 0, 0));
	int80_rep("int80_file_setattr", int80(469, AT_FDCWD, (long)p, 0, 0));
	int80_rep("int80_mkdir", int80(39, (long)p, 0755, 0, 0));
	return 0;
}

/* --- scheduling and time -------------------------------------------------- */

static int sched_main(int argc, char **argv) {
	int uid = getuid();
	if (!strcmp(argv[2], "control")) {
		/* what root may do outside the sandbox, on itself only (reset
		   afterwards) */
		struct sched_param sp = {1};
		rep("sched_fifo_self", sched_setscheduler(0, SCHED_FIFO, &sp));
		sp.sched_priority = 0; sched_setscheduler(0, SCHED_OTHER, &sp);
		rep("nice_neg_self", setpriority(PRIO_PROCESS, 0, -1));
		setpriority(PRIO_PROCESS, 0, 0);
		rep("ioprio_rt_self", syscall(SYS_ioprio_set, 1 /* WHO_PROCESS */, 0, (1 << 13) | 4));
		syscall(SYS_ioprio_set, 1, 0, 0);
		struct timex tx; memset(&tx, 0, sizeof tx); adjtimex(&tx);
		long tick = tx.tick; memset(&tx, 0, sizeof tx); tx.modes = ADJ_TICK; tx.tick = tick;
		rep("adjtimex_tick", adjtimex(&tx));
		timer_t t; struct sigevent se; memset(&se, 0, sizeof se); se.sigev_notify = SIGEV_NONE;
		rep("timer_realtime_alarm", syscall(SYS_timer_create, CLOCK_REALTIME_ALARM, &se, &t));
		return 0;
	}
	printf("init_nice_before=%d init_ioprio_before=%ld\n", getpriority(PRIO_PROCESS, 1), syscall(SYS_ioprio_get, 1, 1));
	struct sched_param sp = {1};
	rep("sched_fifo_self", sched_setscheduler(0, SCHED_FIFO, &sp));
	struct { unsigned size, policy; unsigned long long flags; int nice; unsigned prio; unsigned long long rt, dl, per; } da = {48, 6 /* SCHED_DEADLINE */, 0, 0, 0, 1000000, 10000000, 10000000};
	rep("sched_deadline_self", syscall(SYS_sched_setattr, 0, &da, 0));
	rep("nice_neg_self", setpriority(PRIO_PROCESS, 0, -1));
	rep("ioprio_rt_self", syscall(SYS_ioprio_set, 1, 0, (1 << 13) | 4));
	/* every process of the user / group 1 that the namespace shows: the
	   command and the init (whose capabilities the command lacks) */
	rep("prio_user", setpriority(PRIO_USER, 0, 1));
	rep("prio_pgrp_init", setpriority(PRIO_PGRP, 1, 1));
	rep("ioprio_user", syscall(SYS_ioprio_set, 3 /* WHO_USER */, uid, (2 << 13) | 7));
	rep("ioprio_pgrp_init", syscall(SYS_ioprio_set, 2 /* WHO_PGRP */, 1, (2 << 13) | 7));
	struct { unsigned size, policy; unsigned long long flags; int nice; unsigned prio; unsigned long long rt, dl, per; unsigned umin, umax; } ua = {56, 0, 0x60 /* UTIL_CLAMP */ | 0x3 /* KEEP_ALL */, 0, 0, 0, 0, 0, 0, 0};
	rep("sched_uclamp_init", syscall(SYS_sched_setattr, 1, &ua, 0));
	printf("init_nice_after=%d init_ioprio_after=%ld\n", getpriority(PRIO_PROCESS, 1), syscall(SYS_ioprio_get, 1, 1));
	/* time: set to what it is (no change where it is allowed) */
	struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);
	rep("clock_settime", clock_settime(CLOCK_REALTIME, &ts));
	struct timeval tv; gettimeofday(&tv, 0);
	rep("settimeofday", settimeofday(&tv, 0));
	struct timex tx; memset(&tx, 0, sizeof tx); adjtimex(&tx);
	long tick = tx.tick; memset(&tx, 0, sizeof tx); tx.modes = ADJ_TICK; tx.tick = tick;
	rep("adjtimex_tick", adjtimex(&tx));
	memset(&tx, 0, sizeof tx); tx.modes = ADJ_TICK; tx.tick = tick;
	rep("clock_adjtime_tick", syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx));
	timer_t t; struct sigevent se; memset(&se, 0, sizeof se); se.sigev_notify = SIGEV_NONE;
	rep("timer_realtime_alarm", syscall(SYS_timer_create, CLOCK_REALTIME_ALARM, &se, &t));
	rep("timerfd_boottime_alarm", syscall(SYS_timerfd_create, CLOCK_BOOTTIME_ALARM, 0));
	/* a POSIX timer whose signal goes to thread 1 (the init) */
	memset(&se, 0, sizeof se);
	se.sigev_notify = 4; /* SIGEV_THREAD_ID */
	se.sigev_signo = SIGKILL;
	se._sigev_un._tid = 1;
	rep("timer_thread_id_init", syscall(SYS_timer_create, CLOCK_MONOTONIC, &se, &t));
	return 7;
}

/* --- indirect signals ----------------------------------------------------- */

/* 'h': the sandbox's /proc hides the init (hidepid=invisible, red team 26);
   the run's end (exit 7, no timeout) then shows it was neither stopped nor
   killed. */
static char init_state(void) {
	char b[512] = {0}; int fd = open("/proc/1/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0) return errno == ENOENT ? 'h' : '?';
	read(fd, b, sizeof b - 1); close(fd);
	char *q = strrchr(b, ')'); return q ? q[2] : '?';
}

static void sigio_owner(int fd, int who, int sig) {
	struct f_owner_ex o = {who < 0 ? F_OWNER_PGRP : F_OWNER_PID, who < 0 ? -who : who};
	fcntl(fd, F_SETOWN_EX, &o);
	fcntl(fd, F_SETSIG, sig);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
}

/* victim: a child of the command's (same domain: signals reach it) */
static pid_t victim(void) {
	pid_t c = fork();
	if (c == 0) { for (;;) pause(); }
	return c;
}
static const char *fate(pid_t c) {
	usleep(100000);
	int st; pid_t r = waitpid(c, &st, WNOHANG | WUNTRACED);
	const char *s = r == c ? (WIFSIGNALED(st) ? "killed" : WIFSTOPPED(st) ? "stopped" : "exited") : "running";
	kill(c, SIGKILL); waitpid(c, 0, 0);
	return s;
}

static int sig_main(int argc, char **argv) {
	int sigs[] = {SIGKILL, SIGSTOP};
	if (!strcmp(argv[2], "pty")) {
		/* the private devpts: SIGIO of the master and the slave */
		for (int w = 0; w < 3; w++) for (int s = 0; s < 2; s++) {
			pid_t v = w == 2 ? victim() : 0;
			int who = w == 0 ? 1 : w == 1 ? -1 : v;
			int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC); grantpt(m); unlockpt(m);
			int sl = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
			sigio_owner(m, who, sigs[s]); sigio_owner(sl, who, sigs[s]);
			write(sl, "out\n", 4); write(m, "in\n", 3);
			usleep(50000);
			char b[64]; read(m, b, sizeof b);
			close(sl); close(m);
			if (w == 2) printf("pty_control_sig%d=%s\n", sigs[s], fate(v));
			else { usleep(50000); printf("pty_%s_sig%d_init=%c\n", w ? "pgrp1" : "pid1", sigs[s], init_state()); }
			fflush(stdout);
		}
		return 7;
	}
	if (!strcmp(argv[2], "dnotify")) {
		/* argv[3]: a writable directory; dnotify watches on it, each with
		   a SIGIO owner; the supervisor's creations and then the host's
		   raise them */
		const char *dir = argv[3];
		char p[512];
		pid_t v[2] = {victim(), victim()};
		int who[] = {1, -1, v[0], v[1]};
		for (int k = 0; k < 4; k++) {
			int d = open(dir, O_RDONLY | O_DIRECTORY);
			struct f_owner_ex o = {who[k] < 0 ? F_OWNER_PGRP : F_OWNER_PID, who[k] < 0 ? -who[k] : who[k]};
			char n[32];
			snprintf(n, sizeof n, "dnotify_setup%d", k);
			rep(n, fcntl(d, F_SETOWN_EX, &o) | fcntl(d, F_SETSIG, sigs[k % 2]) |
				fcntl(d, F_NOTIFY, DN_CREATE | DN_MODIFY | DN_DELETE | DN_RENAME | DN_ATTRIB | DN_MULTISHOT));
		}
		snprintf(p, sizeof p, "%s/rt20-by-supervisor", dir);
		rep("mkdir_supervised", mkdir(p, 0755));
		snprintf(p, sizeof p, "%s/rt20-file-by-supervisor", dir);
		int f = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		rep("creat_supervised", f);
		write(f, "x", 1); close(f);
		usleep(100000);
		printf("dnotify_supervisor_init=%c\n", init_state());
		printf("dnotify_control_kill=%s\n", fate(v[0]));
		printf("dnotify_control_stop=%s\n", fate(v[1]));
		fflush(stdout);
		/* the host creates files in the directory now */
		snprintf(p, sizeof p, "%s/rt20-ready", dir);
		close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
		for (int i = 0; i < 500; i++) {
			snprintf(p, sizeof p, "%s/rt20-host-done", dir);
			if (access(p, F_OK) == 0) break;
			usleep(10000);
		}
		usleep(100000);
		printf("dnotify_host_init=%c\n", init_state());
		return 7;
	}
	return 2;
}

/* --- the supervisor's terminal ---------------------------------------------- */

static int ctty_main(int argc, char **argv) {
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC); grantpt(m); unlockpt(m);
	const char *pts = ptsname(m);
	if (!strcmp(argv[2], "control")) {
		/* a session leader without a terminal opening the slave without
		   O_NOCTTY acquires it */
		pid_t c = fork();
		if (c == 0) {
			setsid();
			int s = open(pts, O_RDWR);
			pid_t sid = 0;
			ioctl(s, TIOCGSID, &sid);
			printf("control_acquired=%s\n", sid == getpid() ? "yes" : "no");
			fflush(stdout);
			_exit(0);
		}
		waitpid(c, 0, 0);
		return 0;
	}
	/* O_CREAT: the open goes to the supervisor (a session leader with no
	   terminal), which opens the existing device for the command */
	int s = open(pts, O_RDWR | O_CREAT, 0600);
	rep("open_slave_supervised", s);
	pid_t sid = -1;
	rep("tiocgsid", ioctl(m, TIOCGSID, &sid));
	/* line-discipline signals to the terminal's foreground group, a
	   resize, and the hang-up on close */
	write(m, "\x03\x1c\x1a", 3);
	struct winsize ws = {10, 10, 0, 0};
	ioctl(m, TIOCSWINSZ, &ws);
	usleep(200000);
	close(s); close(m);
	usleep(200000);
	rep("mkdir_after", mkdir("rt20-after-ctty", 0755));
	int f = open("rt20-after-ctty/f", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	rep("creat_after", f);
	return 7;
}

/* --- devices and /proc ------------------------------------------------------ */

static int dev_main(int argc, char **argv) {
	int fd = open("/dev/random", O_RDWR | O_CLOEXEC);
	int zero = 0;
	rep("rnd_addtoentcnt", ioctl(fd, RNDADDTOENTCNT, &zero));
	rep("rnd_reseedcrng", ioctl(fd, RNDRESEEDCRNG));
	close(fd);
	const char *vt[] = {"/dev/tty0", "/dev/tty1", "/dev/console", "/dev/vcs", "/dev/vcsa", "/dev/kmsg", 0};
	for (int i = 0; vt[i]; i++) {
		char n[32]; snprintf(n, sizeof n, "open_%s", vt[i] + 5);
		int f = open(vt[i], O_RDWR | O_NOCTTY | O_CLOEXEC);
		rep(n, f);
		if (f >= 0) close(f);
	}
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC); grantpt(m); unlockpt(m);
	rep("tiocvhangup", ioctl(m, TIOCVHANGUP));
	close(m);
	const char *pw[] = {"/proc/self/uid_map", "/proc/self/gid_map", "/proc/self/setgroups", "/proc/self/projid_map",
		"/proc/self/timens_offsets", "/proc/pressure/cpu", "/proc/pressure/io", "/proc/self/oom_score_adj",
		"/proc/self/attr/current", "/proc/self/attr/exec", "/proc/self/loginuid", 0};
	for (int i = 0; pw[i]; i++) {
		char n[64]; snprintf(n, sizeof n, "w%s", pw[i] + 5);
		for (char *q = n; *q; q++) if (*q == '/') *q = '_';
		int f = open(pw[i], O_WRONLY | O_CLOEXEC);
		rep(n, f);
		if (f >= 0) close(f);
	}
	return 7;
}

int main(int argc, char **argv) {
	if (argc < 3) return 2;
	if (!strcmp(argv[1], "fscrypt")) return fscrypt_main(argc, argv);
	if (!strcmp(argv[1], "new")) return new_main(argc, argv);
	if (!strcmp(argv[1], "sched")) return sched_main(argc, argv);
	if (!strcmp(argv[1], "sig")) return sig_main(argc, argv);
	if (!strcmp(argv[1], "ctty")) return ctty_main(argc, argv);
	if (!strcmp(argv[1], "dev")) return dev_main(argc, argv);
	return 2;
}
`

func rt20Helper(t *testing.T) string {
	t.Helper()
	return cHelper(t, "rt20kern", rt20KernC)
}

// rt20As is the unsandboxed control: argv run as u.
func rt20As(u user, dir string, argv ...string) map[string]string {
	return rx13Fields(rt16As(u, nil, dir, strings.Join(argv, " ")))
}

// rt20Run runs argv under profile in cwd as f's user and fails on an sbx
// error.
func rt20Run(t *testing.T, f *fixture, profile, cwd string, argv ...string) rtResult {
	t.Helper()
	return rt11Run(t, f, nil, []string{"--profile", profile, "--cwd", cwd}, argv...)
}

// rt20Want checks got[k] against the allowed results.
func rt20Want(t *testing.T, what string, got map[string]string, want map[string]string) {
	t.Helper()
	for k, w := range want {
		ok := false
		for _, alt := range strings.Split(w, "|") {
			if got[k] == alt {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s: %s=%q, want %s", what, k, got[k], w)
		}
	}
}

// rt20Int80 reports whether int 0x80 works on this machine without a
// sandbox (false where it faults: some hypervisors).
func rt20Int80(t *testing.T, rt string) bool {
	t.Helper()
	out, err := exec.Command(rt, "new", "int80").Output()
	switch got := strings.TrimSpace(string(out)); {
	case err != nil:
		t.Fatalf("control: int 0x80 without a sandbox: %v", err)
	case got == "int80_getpid=ok":
		return true
	case got == "int80_getpid=FAULT":
		return false
	default:
		t.Fatalf("control: int 0x80 without a sandbox: %q", got)
	}
	return false
}

// TestRedTeam20KernFscryptKeyring: was a HOLE, fixed in the seccomp filter
// (the fscrypt key ioctls: EPERM). fscrypt keeps a keyring per file system
// (ext4, f2fs, ubifs, ceph with the encrypt feature), reached by ioctls on
// any open file or directory of that file system, Landlock's read rights
// enough (it does not mediate ioctls on regular files and directories),
// and the read-only view no obstacle (no write to the file system):
//
//   - FS_IOC_REMOVE_ENCRYPTION_KEY removes the calling user's claim on a
//     key; the host's user added the key (fscrypt unlock, systemd-homed,
//     pam_fscrypt at login) under the same uid, so the command, knowing
//     the key's identifier from the policy of any encrypted directory it
//     can open (FS_IOC_GET_ENCRYPTION_POLICY_EX), removes it: the host's
//     encrypted directories lock ("Required key not available") until the
//     user unlocks them again;
//   - FS_IOC_ADD_ENCRYPTION_KEY adds keys of the command's own: they
//     outlive the run (until removed or the file system is unmounted) and
//     are charged to the user's kernel key quota (200 keys, 20000 bytes for
//     a user other than root), so a command fills the quota and the
//     user's host programs that use kernel keys (add_key, request_key:
//     Kerberos and NFS credentials, ecryptfs, ...) fail with EDQUOT: the
//     keyring the filter keeps out of reach (keyctl, add_key,
//     request_key) by another door.
//
// The test mounts an ext4 image with the encrypt feature (loop, in a
// private mount namespace sbx runs in), has the user add a key and make
// an encrypted directory with a secret outside the writable roots, and
// runs the attacks under read-only and workspace (also through the
// 32-bit compat ioctl: ENOSYS, as every int 0x80 call). Control: the same
// removal without the sandbox locks a second directory. Must hold: the
// three key ioctls fail (EPERM), the key stays present, the secret stays
// readable by the host, and no key is added. The key status query stays
// allowed (it reveals whether a key is present, as the directory listing
// does).
func TestRedTeam20KernFscryptKeyring(t *testing.T) {
	rt := rt20Helper(t)
	int80 := rt20Int80(t, rt)
	for _, tool := range []string{"mkfs.ext4", "unshare", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is missing", tool)
		}
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		img := filepath.Join(f.base, "enc.img")
		mnt := filepath.Join(f.base, "enc")
		os.Mkdir(mnt, 0o755)
		if out, err := exec.Command("sh", "-c", "truncate -s 32M "+img+" && mkfs.ext4 -q -F -O encrypt "+img).CombinedOutput(); err != nil {
			t.Skipf("cannot make an ext4 image with the encrypt feature: %v %s", err, out)
		}
		if out, err := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", "mount -o loop "+img+" "+mnt).CombinedOutput(); err != nil {
			t.Skipf("cannot mount the image: %v %s", err, out)
		}
		as := ""
		if u.uid != 0 {
			as = "setpriv --reuid=" + strconv.Itoa(u.uid) + " --regid=" + strconv.Itoa(u.uid) + " --clear-groups "
		}
		// In the private mount namespace, as root: mount the image; as the
		// user: two keys and directories (vault: the target; ctl: the
		// control's); the control removes ctl's key without a sandbox.
		setup := "mount -o loop " + img + " " + mnt + "\nchmod 0777 " + mnt + "\n{\n" +
			as + rt + " fscrypt setup " + mnt + " vault 1\n" +
			as + rt + " fscrypt setup " + mnt + " ctl 2\n" +
			"echo control: $(" + as + rt + " fscrypt remove " + mnt + "/ctl) $(" + as + rt + " fscrypt status " + mnt + "/ctl)\n" +
			"echo control-read: $(cat " + mnt + "/ctl/secret 2>&1)\n" +
			"echo keys-before: $(grep '^ *" + strconv.Itoa(u.uid) + ":' /proc/key-users)\n" +
			"} >&2\n"
		post := "echo after: $(" + as + rt + " fscrypt status " + mnt + "/vault)\n" +
			"echo after-read: $(cat " + mnt + "/vault/secret 2>&1)\n" +
			"echo keys-after: $(grep '^ *" + strconv.Itoa(u.uid) + ":' /proc/key-users)\n"
		script := rt + " fscrypt status " + mnt + "/vault; " +
			rt + " fscrypt remove " + mnt + "/vault; " +
			rt + " fscrypt removeall " + mnt + "/vault; " +
			rt + " fscrypt addkeys " + mnt + " 50; " +
			rt + " new int80 " + mnt + "/vault; " +
			rt + " fscrypt status " + mnt + "/vault; echo end"
		for _, prof := range []string{"read-only", "workspace"} {
			t.Run(prof, func(t *testing.T) {
				r, after := rt17RunPost(t, u, f.home, setup, post, "--profile", prof, "--cwd", f.ws, "--", "/bin/sh", "-c", script)
				t.Logf("sandbox: %s%s\nhost: %s", r.Stdout, r.Stderr, after)
				if !strings.Contains(r.Stdout, "end") {
					t.Fatalf("the script did not run: %q %q", r.Stdout, r.Stderr)
				}
				ctl := rx13Fields(strings.ReplaceAll(after, "control: ", ""))
				if !strings.Contains(after, "setup_policy=ok") || ctl["remove_key"] != "ok" || ctl["status"] == "2" ||
					!strings.Contains(after, "control-read: cat:") {
					t.Fatalf("control: the user's key removal without a sandbox did not lock the directory: %q", after)
				}
				got := rx13Fields(r.Stdout)
				if got["status"] != "2" {
					t.Fatalf("the key is not present in the sandbox before the attack: %q", r.Stdout)
				}
				i80 := "ENOSYS"
				if !int80 {
					i80 = "FAULT"
				}
				rt20Want(t, prof, got, map[string]string{"remove_key": "EPERM", "remove_key_all_users": "EPERM", "add_key": "EPERM", "int80_remove_key": i80})
				if !strings.Contains(after, "after: status=2") || !strings.Contains(after, "after-read: plaintext") {
					t.Errorf("%s: the sandboxed command locked the host's encrypted directory (its key removed): %q", prof, after)
				}
				if !strings.Contains(r.Stdout, "added=0") {
					t.Errorf("%s: the sandboxed command added fscrypt keys that outlive the run, charged to uid %d's key quota: %q", prof, u.uid, r.Stdout)
				}
			})
		}
	})
}

// TestRedTeam20KernNewSyscalls: what held, as both users, under workspace
// and read-only, among the system calls new in Linux 6.x that name mounts,
// namespaces or file attributes, and the 32-bit entry for new numbers:
//
//   - listns (6.19): ENOSYS on this kernel (the filter allows unknown
//     numbers: a newer kernel's listns lists only the namespaces the caller
//     may see);
//   - statmount of a host mount by its unique id: ENOENT (ids are looked
//     up in the caller's namespace, a copy whose mounts have new ids);
//     statmount and listmount naming the host's mount namespace by id:
//     EPERM/ENOENT (CAP_SYS_ADMIN over it needed); NS_MNT_GET_NEXT/PREV
//     on the command's mount namespace file: EPERM (the control, root
//     outside, walks to another namespace);
//   - lsm_set_self_attr: EINVAL (no LSM with attributes here) and never
//     ok; file_setattr of FS_XFLAG_IMMUTABLE on a file of the workspace:
//     EPERM as root (CAP_LINUX_IMMUTABLE: the control sets it);
//     file_getattr of a file outside the writable roots works (metadata is
//     visible, README Known limits);
//   - int 0x80 (i386 numbers): getpid, kill(1, SIGKILL), setrlimit, mkdir,
//     listmount, setxattrat, open_tree_attr, file_setattr: ENOSYS (where
//     int 0x80 faults without a sandbox, FAULT; the compat ioctl of the
//     fscrypt key removal is in TestRedTeam20KernFscryptKeyring).
func TestRedTeam20KernNewSyscalls(t *testing.T) {
	rt := rt20Helper(t)
	int80 := rt20Int80(t, rt)
	// The host's first mount's unique id and its mount namespace's id.
	ids := rt20As(users[0], "/", rt, "new", "ids")
	if ids["listmount"] != "ok" || ids["nsid_ioctl"] != "ok" || ids["mntid"] == "0" {
		t.Skipf("no listmount or NS_GET_MNTNS_ID here: %v", ids)
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		ctl := rt20As(u, f.ws, rt, "new", "control", ids["mntid"], ids["nsid"])
		t.Logf("control: %v", ctl)
		if ctl["statmount_host_id"] != "ok" || ctl["listmount_host_ns"] != "ok" {
			t.Fatalf("control: statmount/listmount of the host's ids outside the sandbox: %v", ctl)
		}
		if u.uid == 0 {
			for _, k := range []string{"ns_mnt_get_next", "file_setattr_immutable"} {
				if ctl[k] != "ok" {
					t.Fatalf("control: %s as root outside the sandbox: %q", k, ctl[k])
				}
			}
		}
		for _, prof := range []string{"workspace", "read-only"} {
			cwd := f.nogit
			if prof == "read-only" {
				cwd = "/tmp"
			}
			r := rt20Run(t, f, prof, cwd, rt, "new", "run", ids["mntid"], ids["nsid"])
			got := rx13Fields(r.Stdout)
			t.Logf("%s: %v %s", prof, got, r.Stderr)
			want := map[string]string{
				"listns": "ENOSYS", "statmount_host_id": "ENOENT", "statmount_host_ns": "EPERM|ENOENT",
				"listmount_host_ns": "EPERM|ENOENT", "ns_mnt_get_next": "EPERM|ENOENT", "ns_mnt_get_prev": "EPERM|ENOENT",
				"lsm_set_self_attr": "EINVAL|EOPNOTSUPP|EPERM", "file_getattr_unwritable": "ok",
			}
			if prof == "workspace" {
				// read-only cannot create the file (EROFS before the flag).
				want["file_setattr_immutable"] = "EPERM"
			}
			i80 := "ENOSYS"
			if !int80 {
				i80 = "FAULT"
			}
			for _, k := range []string{"getpid", "kill_init", "setrlimit_core", "listmount", "setxattrat", "open_tree_attr", "file_setattr", "mkdir"} {
				want["int80_"+k] = i80
			}
			rt20Want(t, prof, got, want)
			if r.ExitCode != 0 || r.Signal != "" {
				t.Errorf("%s: exit %d signal %q (the init killed?)", prof, r.ExitCode, r.Signal)
			}
			if fileExists(filepath.Join(cwd, "rt20-int80")) {
				t.Errorf("%s: int 0x80 mkdir created a directory", prof)
			}
		}
	})
}

// TestRedTeam20KernSchedTime: what held, as both users, under workspace:
//
//   - the command's own scheduling past what an unprivileged process may
//     take: SCHED_FIFO, SCHED_DEADLINE, a negative nice value, real-time
//     I/O priority: EPERM/EACCES (root's control outside takes them: a
//     real-time busy loop would starve a CPU of the host);
//   - PRIO_USER and IOPRIO_WHO_USER reach every process of the user the
//     PID namespace shows, the init included (same uid, outside the
//     Landlock domain, which does not mediate priorities), and PRIO_PGRP
//     and IOPRIO_WHO_PGRP name the init's group: EPERM, and the init's
//     nice value and I/O priority are unchanged (commoncap's
//     cap_safe_nice: the init keeps capabilities the command lacks);
//     sched_setattr of utilisation clamps on the init: EPERM; a host
//     process of the user (invisible from the namespace, as red team 15
//     found) keeps its nice value;
//   - clock_settime, settimeofday, adjtimex and clock_adjtime that set:
//     EPERM (the control: root outside may; the values set are the current
//     ones); alarm timers (CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM):
//     EPERM, or EOPNOTSUPP where the machine has no RTC (as for the
//     control); a POSIX timer with SIGEV_THREAD_ID aimed at thread 1 (the
//     init): EINVAL (only the caller's own threads).
func TestRedTeam20KernSchedTime(t *testing.T) {
	rt := rt20Helper(t)
	root := rt20As(users[0], "/", rt, "sched", "control")
	t.Logf("control (root, outside): %v", root)
	for _, k := range []string{"sched_fifo_self", "nice_neg_self", "ioprio_rt_self", "adjtimex_tick"} {
		if root[k] != "ok" {
			t.Fatalf("control: root outside the sandbox: %s=%q", k, root[k])
		}
	}
	alarm := "EPERM"
	if root["timer_realtime_alarm"] == "EOPNOTSUPP" {
		alarm = "EOPNOTSUPP|EPERM"
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		// A host process of the user's: PRIO_USER and IOPRIO_WHO_USER must
		// not reach it either.
		v := rt17Victim(t, u)
		prio := func() string {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(v.Process.Pid) + "/stat")
			if i := strings.LastIndexByte(string(b), ')'); i >= 0 {
				if fs := strings.Fields(string(b)[i+1:]); len(fs) > 16 {
					io, _, _ := syscall.Syscall(syscall.SYS_IOPRIO_GET, 1, uintptr(v.Process.Pid), 0)
					return "nice " + fs[16] + ", I/O priority " + strconv.Itoa(int(io))
				}
			}
			return "?"
		}
		before := prio()
		r := rt20Run(t, f, "workspace", f.nogit, rt, "sched", "run")
		got := rx13Fields(r.Stdout)
		t.Logf("sandbox: %v %s", got, r.Stderr)
		if after := prio(); after != before || before == "?" {
			t.Errorf("a host process of uid %d was reniced from the sandbox: %s -> %s", u.uid, before, after)
		}
		rt20Want(t, "workspace", got, map[string]string{
			"sched_fifo_self": "EPERM", "sched_deadline_self": "EPERM", "nice_neg_self": "EACCES", "ioprio_rt_self": "EPERM",
			"prio_user": "EPERM", "prio_pgrp_init": "EPERM", "ioprio_user": "EPERM", "ioprio_pgrp_init": "EPERM",
			"sched_uclamp_init": "EPERM", "clock_settime": "EPERM", "settimeofday": "EPERM",
			"adjtimex_tick": "EPERM", "clock_adjtime_tick": "EPERM",
			"timer_realtime_alarm": alarm, "timerfd_boottime_alarm": alarm, "timer_thread_id_init": "EINVAL",
		})
		if got["init_nice_before"] != got["init_nice_after"] || got["init_ioprio_before"] != got["init_ioprio_after"] {
			t.Errorf("the init's priorities changed: nice %s -> %s, I/O %s -> %s", got["init_nice_before"], got["init_nice_after"], got["init_ioprio_before"], got["init_ioprio_after"])
		}
		if r.ExitCode != 7 || r.Signal != "" {
			t.Errorf("exit %d signal %q, want 7", r.ExitCode, r.Signal)
		}
	})
}

// TestRedTeam20KernIndirectSignals: what held, as both users, under
// workspace (supervised: nogit/): signals the kernel sends on the
// command's behalf to a SIGIO owner it names, aimed at the init (PID 1,
// outside the Landlock domain, same uid) and its process group, with
// F_SETSIG SIGKILL and SIGSTOP (which the init cannot block):
//
//   - the private pseudo-terminal: O_ASYNC on the master and the slave,
//     raised by data and by the hang-up on close;
//   - dnotify (F_NOTIFY, DN_MULTISHOT) on a writable directory, raised by
//     the supervisor's creations (mkdir, open O_CREAT: performed by a
//     process outside the PID namespace) and then by the host's (the test
//     creates files there while the command waits).
//
// The init stays sleeping (S) and the command's status (7) is reported
// (Landlock's file_send_sigiotask hook checks the owner's domain recorded
// at F_SETOWN). Control: the same routes with a child of the command's as
// the owner kill and stop it, so they do deliver the signals.
func TestRedTeam20KernIndirectSignals(t *testing.T) {
	rt := rt20Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		r := rt20Run(t, f, "workspace", f.nogit, rt, "sig", "pty")
		got := rx13Fields(r.Stdout)
		t.Logf("pty: %v %s", got, r.Stderr)
		rt20Want(t, "pty", got, map[string]string{"pty_control_sig9": "killed", "pty_control_sig19": "stopped"})
		for _, who := range []string{"pid1", "pgrp1"} {
			for _, sig := range []string{"9", "19"} {
				if k := "pty_" + who + "_sig" + sig + "_init"; got[k] != "S" && got[k] != "h" {
					t.Errorf("pty SIGIO owner %s, signal %s: the init's state is %q, want S", who, sig, got[k])
				}
			}
		}
		if r.ExitCode != 7 || r.Signal != "" {
			t.Errorf("pty: exit %d signal %q, want 7", r.ExitCode, r.Signal)
		}

		// dnotify: the host creates files once the command says so.
		dir := f.nogit
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := 0; i < 1000 && !fileExists(filepath.Join(dir, "rt20-ready")); i++ {
				time.Sleep(10 * time.Millisecond)
			}
			os.WriteFile(filepath.Join(dir, "rt20-host-a"), []byte("x"), 0o644)
			os.Mkdir(filepath.Join(dir, "rt20-host-b"), 0o755)
			os.Rename(filepath.Join(dir, "rt20-host-a"), filepath.Join(dir, "rt20-host-c"))
			os.WriteFile(filepath.Join(dir, "rt20-host-done"), nil, 0o644)
		}()
		r = rt20Run(t, f, "workspace", f.nogit, rt, "sig", "dnotify", dir)
		<-done
		got = rx13Fields(r.Stdout)
		t.Logf("dnotify: %v %s", got, r.Stderr)
		rt20Want(t, "dnotify", got, map[string]string{
			"dnotify_setup0": "ok", "dnotify_setup1": "ok", "dnotify_setup2": "ok", "dnotify_setup3": "ok",
			"mkdir_supervised": "ok", "creat_supervised": "ok",
			"dnotify_control_kill": "killed", "dnotify_control_stop": "stopped",
		})
		// "h": hidden by the sandbox's /proc; exit 7 below shows the
		// init was neither stopped nor killed.
		for _, k := range []string{"dnotify_supervisor_init", "dnotify_host_init"} {
			if got[k] != "S" && got[k] != "h" {
				t.Errorf("dnotify: %s = %q, want S (or h, hidden)", k, got[k])
			}
		}
		if r.ExitCode != 7 || r.Signal != "" {
			t.Errorf("dnotify: exit %d signal %q, want 7", r.ExitCode, r.Signal)
		}
	})
}

// TestRedTeam20KernSupervisorNoCtty: held. An open with O_CREAT of an
// existing pseudo-terminal slave goes to the supervisor, which leads a
// session of its own with no terminal (setsid, outside the PID namespace
// and the Landlock domain). A session leader without a terminal that opens
// one for reading without O_NOCTTY acquires it as its controlling
// terminal (the control shows it); the command, which holds the master,
// could then signal the supervisor's process group from the line
// discipline (^C SIGINT, ^\ SIGQUIT, ^Z SIGTSTP, a resize SIGWINCH: no
// Landlock or permission check applies to them) and hang it up on close
// (SIGHUP), ending the supervisor. The supervisor adds O_NOCTTY to every
// open it performs: the terminal has no session (TIOCGSID: ENOTTY), and
// creations after the attack still work; as both users.
func TestRedTeam20KernSupervisorNoCtty(t *testing.T) {
	rt := rt20Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		if ctl := rt20As(u, "/", rt, "ctty", "control"); ctl["control_acquired"] != "yes" {
			t.Fatalf("control: a session leader did not acquire the terminal it opened: %v", ctl)
		}
		r := rt20Run(t, f, "workspace", f.nogit, rt, "ctty", "run")
		got := rx13Fields(r.Stdout)
		t.Logf("sandbox: %v %s", got, r.Stderr)
		rt20Want(t, "workspace", got, map[string]string{
			"open_slave_supervised": "ok", "tiocgsid": "ENOTTY", "mkdir_after": "ok", "creat_after": "ok",
		})
		if r.ExitCode != 7 || r.Signal != "" {
			t.Errorf("exit %d signal %q, want 7", r.ExitCode, r.Signal)
		}
	})
}

// TestRedTeam20KernDevProc: what held, as both users, under workspace and
// read-only:
//
//   - the random device's privileged ioctls (RNDADDTOENTCNT,
//     RNDRESEEDCRNG): EPERM (root's control outside may; RNDZAPENTCNT and
//     RNDCLEARPOOL, which would empty the host's entropy count, are not
//     run);
//   - virtual consoles and the kernel log device (/dev/tty0, /dev/tty1,
//     /dev/console, /dev/vcs, /dev/vcsa, /dev/kmsg: KDSETMODE, VT_ACTIVATE,
//     screen contents, log injection): ENOENT, masked with the rest of
//     /dev (root's control opens them);
//   - TIOCVHANGUP on a pseudo-terminal of the private devpts: EPERM
//     (CAP_SYS_ADMIN);
//   - the command's own uid_map, gid_map, setgroups, projid_map,
//     timens_offsets, the PSI trigger files /proc/pressure/cpu and io (a
//     trigger per open file, polled by the kernel), oom_score_adj,
//     attr/current, attr/exec and loginuid: EROFS (the fresh /proc is
//     read-only; root's control opens them for writing, writing nothing).
func TestRedTeam20KernDevProc(t *testing.T) {
	rt := rt20Helper(t)
	root := rt20As(users[0], "/", rt, "dev", "run")
	t.Logf("control (root, outside): %v", root)
	for _, k := range []string{"rnd_addtoentcnt", "rnd_reseedcrng", "open_console", "open_kmsg", "tiocvhangup", "w_self_uid_map", "w_pressure_cpu", "w_self_oom_score_adj"} {
		if root[k] != "ok" {
			t.Fatalf("control: root outside the sandbox: %s=%q", k, root[k])
		}
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, prof := range []string{"workspace", "read-only"} {
			r := rt20Run(t, f, prof, f.nogit, rt, "dev", "run")
			got := rx13Fields(r.Stdout)
			t.Logf("%s: %v %s", prof, got, r.Stderr)
			want := map[string]string{"rnd_addtoentcnt": "EPERM", "rnd_reseedcrng": "EPERM", "tiocvhangup": "EPERM"}
			for _, d := range []string{"tty0", "tty1", "console", "vcs", "vcsa", "kmsg"} {
				want["open_"+d] = "ENOENT"
			}
			for _, p := range []string{"self_uid_map", "self_gid_map", "self_setgroups", "self_projid_map", "self_timens_offsets",
				"pressure_cpu", "pressure_io", "self_oom_score_adj", "self_attr_current", "self_attr_exec", "self_loginuid"} {
				want["w_"+p] = "EROFS"
			}
			rt20Want(t, prof, got, want)
			if r.ExitCode != 7 {
				t.Errorf("%s: exit %d, want 7", prof, r.ExitCode)
			}
		}
	})
}
