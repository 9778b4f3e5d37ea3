//go:build linux && amd64

package launch_test

// Red team 29b (escape), through the real sbx binary (built by TestMain),
// as root and as uid 65534: an independent pass over the seccomp
// user-notification supervisor and the command's process tree, after red
// team 29 (case-insensitive file systems).
//
//   - held (TestRedTeam29bEscHeld): a pseudo-terminal slave opened with
//     O_CREAT (so by the supervisor's worker, a thread of a session leader
//     without a controlling terminal) does not become the supervisor's
//     controlling terminal: the command takes it as its own (TIOCSCTTY),
//     and ^C, ^\ and ^Z written on the master signal nothing outside the
//     sandbox (the supervisor still refuses .hg and creates other names
//     afterwards); per-process scheduling, memory-policy and I/O-priority
//     calls on the init (PID 1) by pid and by process group
//     (sched_setscheduler SCHED_IDLE, sched_setattr, sched_setaffinity,
//     setpriority PRIO_PROCESS and PRIO_PGRP, ioprio_set, migrate_pages,
//     get_robust_list) and PR_SET_MM: EPERM; a second seccomp listener
//     (EBUSY) and a newer filter of the command's that claims mkdir with
//     SECCOMP_RET_USER_NOTIF and no listener of its own (ENOSYS: the
//     notification is not answered with CONTINUE by anyone, .hg is not
//     created); a guarded name through a relative path below a descriptor
//     on the sandbox's /proc ("self/cwd/.hg" relative to an O_PATH
//     descriptor of /proc), at the end of a chain of 39 dangling symbolic
//     links, and through a link to /dev/fd/N/.hg: refused, nothing created.
//
//	go test -count=1 -run 'TestRedTeam29bEsc' -v ./targets/landlock/launch

import (
	"os"
	"path/filepath"
	"testing"
)

const rt29bHeldC = `#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

static void out(const char *k, long r) {
	printf("%s=%s\n", k, r < 0 ? strerrorname_np(errno) : "ok");
	fflush(stdout);
}

struct sattr { unsigned size, policy; unsigned long long flags; int nice; unsigned prio; unsigned long long rt, dl, per; unsigned umin, umax; };

static int exists(const char *p) { struct stat st; return lstat(p, &st) == 0; }

int main(void) {
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	out("mkdir_hg_before", mkdir(".hg", 0755));

	/* A pty slave opened with O_CREAT: performed by the supervisor. */
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m)) { out("ptmx", -1); return 1; }
	int s = open(ptsname(m), O_RDWR | O_CREAT, 0600);
	out("pts_creat", s);
	out("pts_tiocsctty", s < 0 ? -1 : ioctl(s, TIOCSCTTY, 0));
	struct termios t;
	if (s >= 0 && tcgetattr(s, &t) == 0) { t.c_lflag |= ISIG; tcsetattr(s, TCSANOW, &t); }
	write(m, "\x03\x1c\x1a", 3);
	usleep(2000);
	out("mkdir_hg_after_pty", mkdir(".hg", 0755));
	out("mkdir_plain_after_pty", mkdir("rt29b.d", 0755));

	/* The init, by pid and by process group. */
	struct sched_param sp = {0};
	out("init_sched_idle", sched_setscheduler(1, SCHED_IDLE, &sp));
	struct sattr a = {.size = sizeof a, .policy = SCHED_OTHER, .nice = 19};
	out("init_sched_setattr", syscall(SYS_sched_setattr, 1, &a, 0));
	cpu_set_t cs; CPU_ZERO(&cs); CPU_SET(0, &cs);
	out("init_affinity", sched_setaffinity(1, sizeof cs, &cs));
	out("init_prio_pid", setpriority(PRIO_PROCESS, 1, 19));
	out("init_prio_pgrp", setpriority(PRIO_PGRP, 1, 19));
	out("init_ioprio", syscall(SYS_ioprio_set, 1, 1, 3 << 13));
	unsigned long from = 1, to = 1;
	out("init_migrate_pages", syscall(SYS_migrate_pages, 1, 64, &from, &to));
	void *head; size_t len;
	out("init_robust_list", syscall(SYS_get_robust_list, 1, &head, &len));
	out("prctl_set_mm", prctl(PR_SET_MM, PR_SET_MM_EXE_FILE, 0, 0, 0));

	/* A guarded name below a descriptor on the sandbox's /proc. */
	int pd = open("/proc", O_PATH | O_DIRECTORY);
	out("proc_rel_mkdir", mkdirat(pd, "self/cwd/.hg", 0755));
	out("proc_rel_open", openat(pd, "thread-self/cwd/.hg", O_CREAT | O_WRONLY, 0644));

	/* Dangling symlink chains ending at the guarded name: 39 links (the
	   kernel's limit is 40), and a target through /dev/fd/N. */
	char a0[32], a1[32];
	mkdir("chain", 0755);
	symlink("../.hg", "chain/l0");
	for (int i = 1; i < 39; i++) {
		snprintf(a0, sizeof a0, "l%d", i - 1);
		snprintf(a1, sizeof a1, "chain/l%d", i);
		symlink(a0, a1);
	}
	out("chain39_open", open("chain/l38", O_CREAT | O_WRONLY, 0644));
	int wd = open(".", O_PATH | O_DIRECTORY);
	char tgt[64];
	snprintf(tgt, sizeof tgt, "/dev/fd/%d/.hg", wd);
	symlink(tgt, "devfd_link");
	out("devfd_link_open", open("devfd_link", O_CREAT | O_WRONLY, 0644));

	/* A filter of the command's own. */
	struct sock_filter ins[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdir, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof ins / sizeof ins[0], .filter = ins};
	out("second_listener", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog));
	out("own_notif_filter", syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
	out("mkdir_hg_own_filter", mkdir(".hg", 0755));

	printf("hg_exists=%d\n", exists(".hg"));
	return 0;
}
`

// TestRedTeam29bEscHeld: attempts that held, as root and as uid 65534,
// under the workspace profile in a workspace without .hg (so with the
// supervisor). See the file comment.
func TestRedTeam29bEscHeld(t *testing.T) {
	helper := cHelper(t, "rt29bheld", rt29bHeldC)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		r := rtRun(t, rtOpts{u: u, args: []string{"--cwd", f.ws, "--profile", "workspace", "--", helper},
			env: []string{"HOME=" + f.home}})
		if r.SbxError != "" || r.ExitCode != 0 {
			t.Fatalf("exit %d, sbx error %q, stdout %q, stderr %q", r.ExitCode, r.SbxError, r.Stdout, r.Stderr)
		}
		t.Logf("%s", r.Stdout)
		got := rt11Fields(r.Stdout)
		want := map[string]string{
			"mkdir_hg_before": "EACCES",
			"pts_creat":       "ok", "pts_tiocsctty": "ok",
			"mkdir_hg_after_pty": "EACCES", "mkdir_plain_after_pty": "ok",
			"init_sched_idle": "EPERM", "init_sched_setattr": "EPERM", "init_affinity": "EPERM",
			"init_prio_pid": "EPERM", "init_prio_pgrp": "EPERM", "init_ioprio": "EPERM",
			"init_migrate_pages": "EPERM", "init_robust_list": "EPERM", "prctl_set_mm": "EPERM",
			"second_listener": "EBUSY", "own_notif_filter": "ok", "mkdir_hg_own_filter": "ENOSYS",
			"hg_exists": "0",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: got %q, want %q (stdout %q, stderr %q)", k, got[k], v, r.Stdout, r.Stderr)
			}
		}
		// Refused, whatever the errno: nothing may appear.
		for _, k := range []string{"proc_rel_mkdir", "proc_rel_open", "chain39_open", "devfd_link_open"} {
			if got[k] == "ok" || got[k] == "" {
				t.Errorf("%s: got %q, want a refusal", k, got[k])
			}
		}
		if _, err := os.Lstat(filepath.Join(f.ws, ".hg")); err == nil {
			t.Errorf(".hg was created in the workspace")
		}
		if _, err := os.Lstat(filepath.Join(f.ws, "rt29b.d")); err != nil {
			t.Errorf("control: rt29b.d was not created: %v", err)
		}
	})
}
