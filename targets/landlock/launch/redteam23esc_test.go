//go:build linux && amd64

package launch_test

// Red team 23 (escapes through kernel interfaces and the sandbox's own
// helper processes), through the real sbx binary (built by TestMain), as
// root and as uid 65534, with the C helper rt23EscC:
//
//   - the host's POSIX message queues through an mqueue file system the
//     host mounted where the command can read (a chroot's rbind of /dev,
//     a queue directory mounted for a service; below a writable root the
//     view makes it read-only): the sandbox's own IPC namespace does not
//     cover a path to the host's mqueue mount, and mq_timedreceive and
//     mq_notify need only a descriptor opened for reading, which Landlock's
//     read_file grants and a read-only mount does not stop. The command
//     dequeues (destroys) the host's messages and takes the queue's
//     notification registration (TestRedTeam23EscHostMqueue; fixed:
//     every run detaches such mounts, root's, or masks them, a user's);
//   - held: perf_event_open (the command's own counter and the init's),
//     name_to_handle_at/open_by_handle_at and TIOCLINUX on a pty of the
//     private devpts, which no earlier battery names
//     (TestRedTeam23EscHeldKernel).
//
//	go test -count=1 -run TestRedTeam23Esc -v ./targets/landlock/launch

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const rt23EscC = `
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *en(int e) {
	switch (e) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EROFS: return "EROFS";
	case ENOSYS: return "ENOSYS";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	default: { static char b[32]; snprintf(b, sizeof b, "E%d", e); return b; }
	}
}

static void rep(const char *k, long r) { printf("%s=%s\n", k, r < 0 ? en(errno) : "ok"); }

int main(int argc, char **argv) {
	if (argc < 3) return 2;
	if (!strcmp(argv[1], "mqmake") && argc == 4) {
		struct mq_attr a = {0};
		a.mq_maxmsg = 4;
		a.mq_msgsize = 64;
		mqd_t q = mq_open(argv[2], O_CREAT | O_WRONLY, 0600, &a);
		if (q < 0) { rep("mqmake", -1); return 1; }
		rep("mqmake", mq_send(q, argv[3], strlen(argv[3]), 0));
		return 0;
	}
	if (!strcmp(argv[1], "mqunlink")) {
		rep("mqunlink", mq_unlink(argv[2]));
		return 0;
	}
	if (!strcmp(argv[1], "mqrecv")) {
		int fd = open(argv[2], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		rep("open", fd);
		if (fd < 0) return 0;
		char b[128];
		unsigned prio;
		ssize_t n = mq_receive((mqd_t)fd, b, sizeof b, &prio);
		rep("recv", n);
		if (n >= 0) { b[n] = 0; printf("msg=%s\n", b); }
		struct sigevent ev = {0};
		ev.sigev_notify = SIGEV_NONE;
		rep("notify", mq_notify((mqd_t)fd, &ev));
		return 0;
	}
	return 2;
}
`

func rt23Helper(t *testing.T) string {
	t.Helper()
	return cHelper(t, "rt23esc", rt23EscC, "-lrt")
}

// rt23Setpriv prefixes argv with setpriv for a user other than root.
func rt23Setpriv(u user, argv string) string {
	if u.uid == 0 {
		return argv
	}
	return "setpriv --reuid=" + strconv.Itoa(u.uid) + " --regid=" + strconv.Itoa(u.uid) + " --clear-groups " + argv
}

// TestRedTeam23EscHostMqueue: HOLE. The sandbox has an IPC namespace of its
// own, which the README credits with closing "SysV IPC and POSIX message
// queues of the host", and the mechanism table makes an mqueue mounted
// below a writable root read-only ("queues in the host's IPC namespace →
// EROFS"). But an mqueue file system is the queues of the IPC namespace
// that mounted it, whatever namespace opens a path to it: a host mqueue
// mount the command can read (a build chroot's rbind of /dev, which
// carries /dev/mqueue; a queue directory mounted for a service; the one
// below the workspace that the view made read-only) gives the command a
// descriptor on each of the host's queues with open(O_RDONLY), which
// Landlock's read_file allows and a read-only mount does not refuse. And
// mq_timedreceive and mq_notify take any descriptor of the queue opened
// for reading: the command dequeues (destroys) the host's messages, reads
// their content (read(2) of the file shows only the queue's status line),
// and takes the queue's single notification registration (the host's
// consumer then gets EBUSY from mq_notify). A read rule thus gives a
// write effect on another process's IPC object.
//
// Reproducer (as root; private mount namespace so that nothing stays
// mounted):
//
//	unshare --mount --propagation private sh -c '
//	  mkdir -p /var/tmp/mq && mount -t mqueue none /var/tmp/mq
//	  rt23esc mqmake /q secret                # a host queue with one message
//	  sbx run --profile read-only -- rt23esc mqrecv /var/tmp/mq/q
//	                                          # recv=ok msg=secret notify=ok
//	  cat /var/tmp/mq/q                       # QSIZE:0: the message is gone'
//
// (rt23esc is the helper the test builds into bin.)
//
// The test mounts the host's mqueue (in a private mount namespace sbx runs
// in) outside the writable roots (read-only profile) and below the
// workspace (workspace profile: made read-only by the view), has the user
// put a message on a queue of its own outside the sandbox, and runs the
// receive under the sandbox. Control: the same receive outside the
// sandbox takes a second queue's message. Must hold: the sandboxed open or
// receive fails and the host's queue still holds its message.
//
// Fix direction: treat mqueue like tracefs, debugfs and procfs in root
// runs: detach (or mask) every mqueue mount the command could reach, in
// every run, since the sandbox's own queues are in its IPC namespace and
// need no mount of the host's; or deny mq_timedreceive and mq_notify in
// the filter unless the profile asks for POSIX queues.
func TestRedTeam23EscHostMqueue(t *testing.T) {
	rt := rt23Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, c := range []struct{ profile, dir string }{
			{"read-only", filepath.Join(f.outside, "mq")},
			{"workspace", filepath.Join(f.ws, "chroot", "mq")},
		} {
			t.Run(c.profile, func(t *testing.T) {
				if err := os.MkdirAll(c.dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for d := c.dir; d != f.base; d = filepath.Dir(d) {
					os.Chown(d, u.uid, u.uid)
				}
				tag := "sbxrt23-" + strconv.Itoa(os.Getpid()) + "-" + u.name + "-" + c.profile
				victim, ctl := tag+"-v", tag+"-c"
				// The queues live in the host's IPC namespace, not in the
				// private mount namespace: removed whatever happens.
				t.Cleanup(func() {
					for _, q := range []string{victim, ctl} {
						rtCmdRaw(rt, "mqunlink", "/"+q).Run()
					}
				})
				setup := "mount -t mqueue none " + c.dir + "\n" +
					rt23Setpriv(u, rt+" mqmake /"+victim+" secret") + " >&2\n" +
					rt23Setpriv(u, rt+" mqmake /"+ctl+" control") + " >&2\n"
				// After the run, on the host: the victim queue's status, then
				// the control receive outside the sandbox; remove both.
				post := "echo VICTIM $(cat " + c.dir + "/" + victim + ")\n" +
					rt23Setpriv(u, rt+" mqrecv "+c.dir+"/"+ctl) + " | sed 's/^/CTL /'\n" +
					"rm -f " + c.dir + "/" + victim + " " + c.dir + "/" + ctl + "\n"
				r, after := rt17RunPost(t, u, f.home, setup, post,
					"--profile", c.profile, "--cwd", f.ws, "--", rt, "mqrecv", c.dir+"/"+victim)
				if !strings.Contains(after, "mqmake=ok") {
					t.Skipf("cannot make a POSIX message queue on the host: %q", after)
				}
				if !strings.Contains(after, "CTL recv=ok") || !strings.Contains(after, "CTL msg=control") {
					t.Fatalf("control: mq_receive on the host's mqueue mount outside the sandbox: %q", after)
				}
				got := rx13Fields(r.Stdout)
				if got["recv"] == "ok" || got["notify"] == "ok" {
					t.Errorf("%s: the command dequeued the host's message queue through the host's mqueue mount at %s (%q) and took its notification (notify=%s): the IPC namespace is bypassed and a read rule gives a write effect", c.profile, c.dir, strings.TrimSpace(r.Stdout), got["notify"])
				}
				if !strings.Contains(after, "VICTIM QSIZE:6 ") {
					t.Errorf("%s: the host's queue lost its message: %q", c.profile, after)
				}
			})
		}
	})
}

const rt23HeldC = `
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void rep(const char *k, long r) { printf("%s=%s\n", k, r < 0 ? strerrorname_np(errno) : "ok"); }

int main(void) {
	struct perf_event_attr pa = {0};
	pa.type = PERF_TYPE_SOFTWARE;
	pa.size = sizeof pa;
	pa.config = PERF_COUNT_SW_CPU_CLOCK;
	pa.exclude_kernel = 1;
	pa.exclude_hv = 1;
	rep("perf_self", syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0));
	rep("perf_init", syscall(SYS_perf_event_open, &pa, 1, -1, -1, 0));
	struct { unsigned int bytes; int type; unsigned char h[128]; } fh = {128, 0, {0}};
	int mnt = 0;
	rep("name_to_handle", syscall(SYS_name_to_handle_at, AT_FDCWD, "/", &fh, &mnt, 0));
	rep("open_by_handle", syscall(SYS_open_by_handle_at, open("/", O_PATH | O_CLOEXEC), &fh, O_RDONLY));
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	rep("ptmx", m);
	if (m >= 0) {
		char sub = 12; /* TIOCL_GETKMSGREDIRECT: ENOTTY on a pty, reached */
		rep("tioclinux", ioctl(m, TIOCLINUX, &sub));
	}
	return 0;
}
`

// TestRedTeam23EscHeldKernel: held. Kernel interfaces from the red team's
// list that no earlier battery names: perf_event_open on the command
// itself and on the init (PID 1: a software counter, no privilege needed
// for one's own process), name_to_handle_at and open_by_handle_at (a
// handle opens any inode of a mount by number, past Landlock's path
// rules), and TIOCLINUX on a pseudo-terminal of the private devpts (the
// filter must refuse it whatever the device: on a virtual console it
// injects a selection as input). Controls: outside the sandbox the counter
// opens, the handle is made, and TIOCLINUX reaches the tty layer (ENOTTY
// on a pty, not EPERM). Must hold: EPERM for each.
func TestRedTeam23EscHeldKernel(t *testing.T) {
	rt := cHelper(t, "rt23held", rt23HeldC)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		ctl := rt20As(u, f.ws, rt)
		if ctl["perf_self"] != "ok" || ctl["name_to_handle"] != "ok" || ctl["tioclinux"] != "ENOTTY" {
			t.Fatalf("control: %v", ctl)
		}
		for _, prof := range []string{"read-only", "workspace"} {
			got := rx13Fields(rt20Run(t, f, prof, f.ws, rt).Stdout)
			rt20Want(t, prof, got, map[string]string{
				"perf_self": "EPERM", "perf_init": "EPERM",
				"name_to_handle": "EPERM", "open_by_handle": "EPERM",
				"ptmx": "ok", "tioclinux": "EPERM",
			})
		}
	})
}
