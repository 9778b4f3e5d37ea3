//go:build linux && amd64

package launch_test

// Red team 15, network and process battery: classes the earlier batteries
// do not cover, through the real sbx binary (built by TestMain), as root
// and as uid 65534, with the C helper below (rx15Source):
//
//   - abstract Unix names in network mode ports: the mode has no network
//     namespace of its own (the command needs the host's TCP), and its
//     filter sends bind() to the supervisor only when Unix sockets are
//     listed. socket(AF_UNIX) is refused, but socketpair() is not, and a
//     socketpair end can be bound to any abstract name (the host's
//     namespace: a host service that binds that name during the run gets
//     EADDRINUSE) or autobound through SO_PASSCRED (which the filter
//     refuses only together with supervised binds). Mode none refuses
//     both (README, Network: "they would be the host's: a host process
//     could connect to them, or lose its own name");
//   - system call numbers with upper bits set in rax: the kernel takes the
//     low 32 bits (do_syscall_64's int nr), and so does the filter's
//     seccomp_data.nr: socket(UDP/netlink) and keyctl through such numbers
//     work unsandboxed and are refused inside;
//   - per-user priority calls (setpriority PRIO_USER, ioprio_set
//     IOPRIO_WHO_USER), which walk every process of the user, against a
//     host process of the same uid without capabilities (so that
//     cap_safe_nice does not refuse it anyway): the kernel skips processes
//     the caller's PID namespace cannot see;
//   - the pidfd of a host process the command gets from a listed Unix
//     socket's peer (SO_PEERPIDFD): signals, PIDFD_GET_INFO and the
//     namespace ioctls on it;
//   - exit signals a child made with CLONE_PARENT would send to the init
//     (SIGKILL, SIGSTOP, ...): the kernel forces the command's own exit
//     signal, and the init reaps them.
//
//	go test -count=1 -run 'TestRedTeam15Net' -v ./targets/landlock/launch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

const rx15Source = `#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

static const char *en(long r) {
	if (r >= 0) return "ok";
	const char *n = strerrorname_np(errno);
	return n ? n : "E?";
}
static void out(const char *k, const char *v) { printf("%s=%s\n", k, v); fflush(stdout); }

/* A raw system call whose number register carries upper bits. */
static long raw(unsigned long nr, long a, long b, long c) {
	long ret;
	register long r10 __asm__("r10") = 0;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
	if (ret < 0 && ret > -4096) { errno = -ret; return -1; }
	return ret;
}

static int nr(void) {
	static const unsigned long hi[] = {0, 1UL << 32, 1UL << 63, 0xffffffff00000000UL};
	static const char *hn[] = {"plain", "bit32", "bit63", "hiword"};
	for (int i = 0; i < 4; i++) {
		char k[64];
		long r = raw(hi[i] | SYS_socket, AF_INET, SOCK_DGRAM, 0);
		snprintf(k, sizeof k, "%s_udp", hn[i]); out(k, en(r)); if (r >= 0) close(r);
		r = raw(hi[i] | SYS_socket, AF_NETLINK, SOCK_RAW, 0);
		snprintf(k, sizeof k, "%s_netlink", hn[i]); out(k, en(r)); if (r >= 0) close(r);
		r = raw(hi[i] | SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -4 /* KEY_SPEC_USER_KEYRING */, 0);
		snprintf(k, sizeof k, "%s_keyctl", hn[i]); out(k, en(r));
	}
	return 0;
}

/* squat NAME READY DONE: an abstract name on a socketpair end, an autobind
 * through SO_PASSCRED; then READY gets a byte and the sockets are held
 * until DONE has one. */
static int squat(char **a) {
	int sv[2], sp[2];
	int r = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	out("socketpair", en(r));
	if (r == 0) {
		struct sockaddr_un u = {.sun_family = AF_UNIX};
		size_t n = strlen(a[0]);
		memcpy(u.sun_path + 1, a[0], n);
		r = bind(sv[0], (struct sockaddr *)&u, offsetof(struct sockaddr_un, sun_path) + 1 + n);
		out("bind_abstract", en(r));
		out("listen_abstract", en(listen(sv[0], 1)));
	}
	r = socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp);
	if (r == 0) {
		int one = 1;
		out("passcred", en(setsockopt(sp[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one)));
		send(sp[0], "x", 1, 0);
		struct sockaddr_un u;
		socklen_t l = sizeof u;
		getsockname(sp[0], (struct sockaddr *)&u, &l);
		printf("autobind_len=%d\n", (int)l - (int)offsetof(struct sockaddr_un, sun_path));
		fflush(stdout);
	}
	int fd = open(a[1], O_WRONLY);
	if (fd < 0 || write(fd, "r", 1) != 1) { out("ready", en(-1)); return 2; }
	close(fd);
	fd = open(a[2], O_RDONLY);
	char b;
	if (fd < 0 || read(fd, &b, 1) != 1) { out("done", en(-1)); return 2; }
	out("held", "ok");
	return 0;
}

/* prio UID: every per-user priority call, which walks all of the user's
 * processes (the kernel skips those the caller's PID namespace cannot see). */
static int prio(char **a) {
	int uid = atoi(a[0]);
	errno = 0;
	out("setpriority_user0", en(setpriority(PRIO_USER, 0, 19)));
	out("setpriority_user", en(setpriority(PRIO_USER, uid, 19)));
	out("ioprio_user0", en(syscall(SYS_ioprio_set, 3 /* IOPRIO_WHO_USER */, 0, 3 << 13 /* IDLE */)));
	out("ioprio_user", en(syscall(SYS_ioprio_set, 3, uid, 3 << 13)));
	return 0;
}

/* prio-pid PID: the same change on one process by pid (the control). */
static int priopid(char **a) {
	int pid = atoi(a[0]);
	out("setpriority_pid", en(setpriority(PRIO_PROCESS, pid, 19)));
	out("ioprio_pid", en(syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, pid, 3 << 13)));
	return 0;
}

/* peer PATH: connect to PATH and use the peer's pidfd (SO_PEERPIDFD). */
struct pidfd_info {
	uint64_t mask, cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
	uint32_t coredump_mask, spare;
};
#define PIDFD_GET_INFO_ _IOWR(0xFF, 11, struct pidfd_info)
static int peer(char **a) {
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	strncpy(u.sun_path, a[0], sizeof u.sun_path - 1);
	out("connect", en(connect(s, (struct sockaddr *)&u, sizeof u)));
	int pfd = -1;
	socklen_t l = sizeof pfd;
	out("peerpidfd", en(getsockopt(s, SOL_SOCKET, SO_PEERPIDFD, &pfd, &l)));
	if (pfd < 0) return 0;
	struct pidfd_info pi = {.mask = 1};
	long r = ioctl(pfd, PIDFD_GET_INFO_, &pi);
	out("pidfd_info", en(r));
	printf("pidfd_info_pid=%u\n", r == 0 ? pi.pid : 0);
	out("pidfd_signal0", en(syscall(SYS_pidfd_send_signal, pfd, 0, 0, 0)));
	out("pidfd_signal", en(syscall(SYS_pidfd_send_signal, pfd, SIGWINCH, 0, 0)));
	/* PIDFD_GET_CGROUP_NAMESPACE .. PIDFD_GET_UTS_NAMESPACE (6.11): 1..10 */
	int got = 0;
	for (int k = 1; k <= 10; k++) {
		long f = ioctl(pfd, (0xFF << 8) | k, 0);
		if (f >= 0) { got++; close(f); }
	}
	printf("pidfd_ns_ioctls=%d\n", got);
	fflush(stdout);
	return 0;
}

/* cloneparent: children made siblings of the command (CLONE_PARENT), each
 * asking for an exit signal the init would die or stop of. */
static char stk[65536];
static int child(void *a) { (void)a; return 0; }
static int cloneparent(void) {
	static const int sigs[] = {SIGKILL, SIGSTOP, SIGTERM, SIGSEGV};
	int ok = 0;
	for (int i = 0; i < 4; i++) {
		int pid = clone(child, stk + sizeof stk, CLONE_PARENT | sigs[i], 0);
		if (pid < 0) { out("clone_parent", en(-1)); continue; }
		int pfd = syscall(SYS_pidfd_open, pid, 0);
		/* ESRCH: already exited and reaped (by the init: it is not ours) */
		if (pfd < 0) { ok += errno == ESRCH; continue; }
		struct pollfd p = {pfd, POLLIN, 0};
		poll(&p, 1, 10000); /* the child has exited */
		/* then the init reaps it (it is the init's child, not ours) */
		for (long n = 0; n < 50000000 && syscall(SYS_pidfd_send_signal, pfd, 0, 0, 0) == 0; n++) sched_yield();
		ok += syscall(SYS_pidfd_send_signal, pfd, 0, 0, 0) < 0 && errno == ESRCH;
		close(pfd);
	}
	printf("reaped=%d\n", ok);
	out("alive", "ok");
	return 3;
}

/* hold: a victim process; says so once it runs, then waits for EOF. */
static int hold(void) {
	out("holding", "ok");
	char b;
	while (read(0, &b, 1) > 0) {}
	return 0;
}

int main(int argc, char **argv) {
	if (argc < 2) return 2;
	const char *c = argv[1];
	if (!strcmp(c, "nr")) return nr();
	if (!strcmp(c, "squat") && argc == 5) return squat(argv + 2);
	if (!strcmp(c, "prio") && argc == 3) return prio(argv + 2);
	if (!strcmp(c, "prio-pid") && argc == 3) return priopid(argv + 2);
	if (!strcmp(c, "peer") && argc == 3) return peer(argv + 2);
	if (!strcmp(c, "cloneparent")) return cloneparent();
	if (!strcmp(c, "hold")) return hold();
	return 2;
}
`

// rx15Helper builds rx15Source into bin once.
func rx15Helper(t *testing.T) string {
	t.Helper()
	return cHelper(t, "rx15net", rx15Source)
}

// rx15Setpriv is the argv prefix that runs a program as u without any
// capability (for root: uid 0 with empty bounding, inheritable and so
// permitted sets), as a host process of the sandbox's user would be.
func rx15Setpriv(u user) []string {
	id := strconv.Itoa(u.uid)
	return []string{"setpriv", "--reuid=" + id, "--regid=" + id, "--clear-groups", "--bounding-set=-all", "--inh-caps=-all"}
}

// rx15Host runs the helper outside any sandbox as u without capabilities.
func rx15Host(t *testing.T, u user, args ...string) map[string]string {
	t.Helper()
	argv := append(rx15Setpriv(u), append([]string{rx15Helper(t)}, args...)...)
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("%v: %v", argv, err)
		}
	}
	return rx13Fields(string(out))
}

// ---------------------------------------------------------------------------
// 1. Abstract names of the host in network mode ports.

// TestRedTeam15NetAbstractNamePorts: HOLE in mode ports (t-ports, without
// bind ports and without a supervisor; t-bind, with bind ports and the
// listen() supervisor): the command binds a socketpair end to an abstract
// name and the host process that binds the same name while the run holds it
// fails with EADDRINUSE; SO_PASSCRED autobinds a seqpacket end to a name of
// the host's namespace on its first send. Workspace (mode none, supervised
// bind) is the control that the sandbox can refuse both.
//
// Reproducer (as root or any user; name squatted for the run's length):
//
//	sbx run --artifact t-ports.json -- python3 -c 'import socket,time;
//	  a,b=socket.socketpair(); a.bind("\0victim"); time.sleep(5)' &
//	python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("\0victim")'
//	# OSError: [Errno 98] Address already in use
//
// Must hold: bind_abstract EACCES, passcred EACCES, autobind_len 0 and the
// host's bind succeeds, in mode ports as in mode none (neither has a
// network namespace of its own). Fix: seccompFor (targets/landlock/
// seccomp.go) sets NotifyBind in mode ports as in mode none (supervise &&
// abi >= 6): bind() then goes to the supervisor, whose denyAbstract
// (fast_linux.go passes it when NotifyBind is set) refuses abstract and
// autobound Unix addresses, and the filter refuses SO_PASSCRED and
// SO_PASSPIDFD; internet binds are performed as given on the worker, where
// Landlock checks the port. Today the supervisor's bind under NotifyCreate
// alone (a missing .git) binds abstract names as given.
func TestRedTeam15NetAbstractNamePorts(t *testing.T) {
	rt := rx15Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for i, c := range []struct{ name, profile, cwd string }{
			{"none-workspace", "workspace", f.nogit},
			{"ports-connect-only", "@t-ports.json", f.ws},
			{"ports-bind", "@t-bind.json", f.ws},
		} {
			t.Run(c.name, func(t *testing.T) {
				name := fmt.Sprintf("sbxrt15-squat-%d-%s-%d", os.Getpid(), u.name, i)
				// Control: the name is free on the host.
				if l, err := net.Listen("unix", "@"+name); err != nil {
					t.Fatalf("control: the host cannot bind @%s: %v", name, err)
				} else {
					l.Close()
				}
				got, hostErr := rx15Squat(t, f, c.profile, c.cwd, rt, name)
				if got["bind_abstract"] != "EACCES" || hostErr != nil {
					t.Errorf("the command bound the host's abstract name @%s (bind_abstract=%s listen=%s); the host's own bind of it: %v",
						name, got["bind_abstract"], got["listen_abstract"], hostErr)
				}
				if got["passcred"] != "EACCES" || got["autobind_len"] != "0" {
					t.Errorf("SO_PASSCRED=%s: a seqpacket socketpair end was autobound to a name of the host's namespace (length %s)", got["passcred"], got["autobind_len"])
				}
			})
		}
	})
}

// rx15Squat runs "rx15net squat" under profile and, while the command holds
// its sockets, binds @name on the host. It returns the command's fields
// and the host's bind error.
func rx15Squat(t *testing.T, f *fixture, profile, cwd, rt, name string) (map[string]string, error) {
	t.Helper()
	fifo := func(n string) *os.File {
		p := filepath.Join(cwd, n)
		os.Remove(p)
		if err := unix.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Lchown(p, f.u.uid, f.u.uid)
		t.Cleanup(func() { os.Remove(p) })
		// Read-write: the open never blocks, and the command's own opens
		// (write on ready, read on done) do not either.
		h, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	ready, done := fifo("rx15-ready"), fifo("rx15-done")
	args := []string{"--timeout", "30s", "--cwd", cwd}
	if strings.HasPrefix(profile, "@") {
		args = append(args, "--artifact", filepath.Join(bin, profile[1:]))
	} else {
		args = append(args, "--profile", profile)
	}
	args = append(args, "--", rt, "squat", name, "rx15-ready", "rx15-done")
	cmd := rtCmd(rtOpts{u: f.u, args: args, env: []string{"HOME=" + f.home}})
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	readyc := make(chan error, 1)
	go func() {
		b := make([]byte, 1)
		_, err := io.ReadFull(ready, b)
		readyc <- err
	}()
	var hostErr error
	select {
	case err := <-readyc:
		if err != nil {
			t.Fatal(err)
		}
		// The command holds its sockets until done has a byte.
		var l net.Listener
		if l, hostErr = net.Listen("unix", "@"+name); hostErr == nil {
			l.Close()
		}
		done.Write([]byte("d"))
	case <-exited:
		t.Fatalf("sbx ended before the command was ready: %q", stdout.String())
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the command never became ready")
	}
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("sbx did not end")
	}
	var r rtResult
	if err := json.Unmarshal([]byte(stdout.String()), &r); err != nil {
		t.Fatalf("%v: %q", err, stdout.String())
	}
	got := rx13Fields(r.Stdout)
	if r.SbxError != "" || r.ExitCode != 0 || got["held"] != "ok" {
		t.Fatalf("exit %d, sbx error %q: %q %q", r.ExitCode, r.SbxError, r.Stdout, r.Stderr)
	}
	return got, hostErr
}

// ---------------------------------------------------------------------------
// 2. System call numbers with upper bits.

// TestRedTeam15NetSyscallNumberHighBits: rax = nr | 1<<32, | 1<<63 and
// | 0xffffffff<<32 (none of them an x32 number: bit 30 is clear). The
// kernel runs the low 32 bits (the control: socket and keyctl work through
// them unsandboxed); the filter must see the same number and refuse them.
func TestRedTeam15NetSyscallNumberHighBits(t *testing.T) {
	rt := rx15Helper(t)
	want := map[string]string{"udp": "EACCES", "netlink": "EACCES", "keyctl": "EPERM"}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		ctl := rx15Host(t, u, "nr")
		for _, hi := range []string{"plain", "bit32", "bit63", "hiword"} {
			for k := range want {
				if ctl[hi+"_"+k] != "ok" {
					t.Fatalf("control: %s_%s = %q unsandboxed, want ok", hi, k, ctl[hi+"_"+k])
				}
			}
		}
		for _, c := range []struct{ profile, cwd string }{{"workspace", f.nogit}, {"@t-ports.json", f.ws}} {
			got := rx13Fields(rx14Run(t, u, f.home, c.profile, c.cwd, nil, rt, "nr").Stdout)
			for _, hi := range []string{"plain", "bit32", "bit63", "hiword"} {
				for k, w := range want {
					if got[hi+"_"+k] != w {
						t.Errorf("%s: %s_%s = %q, want %s", c.profile, hi, k, got[hi+"_"+k], w)
					}
				}
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 3. Per-user priorities of host processes.

// rx15Victim starts "rx15net hold" as u without capabilities (a host
// process the sandbox's user owns) and returns its pid once it runs.
func rx15Victim(t *testing.T, u user) int {
	t.Helper()
	argv := append(rx15Setpriv(u), rx15Helper(t), "hold")
	cmd := exec.Command(argv[0], argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(outp).ReadString('\n')
	if err != nil || line != "holding=ok\n" {
		t.Fatalf("victim: %q %v", line, err)
	}
	return cmd.Process.Pid
}

// rx15Prio is pid's nice value (field 19 of /proc/PID/stat) and its I/O
// priority.
func rx15Prio(t *testing.T, pid int) (string, uintptr) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	prio, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, 1, uintptr(pid), 0)
	if e != 0 {
		t.Fatal(e)
	}
	return fields[16], prio
}

// TestRedTeam15NetHostPriority: setpriority(PRIO_USER) and
// ioprio_set(IOPRIO_WHO_USER), for uid 0 (the caller) and the user's uid,
// and setpriority/ioprio_set by the victim's host pid, must leave a host
// process of the same user (no capabilities: nothing but the PID namespace
// protects it) at nice 0 and its I/O priority. Control: the same user's
// unsandboxed process changes another such victim by pid.
func TestRedTeam15NetHostPriority(t *testing.T) {
	rt := rx15Helper(t)
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("setpriv is missing")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		ctlVictim := rx15Victim(t, u)
		ctl := rx15Host(t, u, "prio-pid", strconv.Itoa(ctlVictim))
		if nice, io := rx15Prio(t, ctlVictim); ctl["setpriority_pid"] != "ok" || ctl["ioprio_pid"] != "ok" || nice != "19" || io>>13 != 3 {
			t.Fatalf("control: %v, nice %s ioprio %#x", ctl, nice, io)
		}
		victim := rx15Victim(t, u)
		nice0, io0 := rx15Prio(t, victim)
		for _, c := range []struct{ profile, cwd string }{{"workspace", f.nogit}, {"@t-ports.json", f.ws}} {
			r := rx14Run(t, u, f.home, c.profile, c.cwd, nil, rt, "prio", strconv.Itoa(u.uid))
			got := rx13Fields(r.Stdout)
			if len(got) != 4 {
				t.Fatalf("%s: %q %q", c.profile, r.Stdout, r.Stderr)
			}
			got2 := rx13Fields(rx14Run(t, u, f.home, c.profile, c.cwd, nil, rt, "prio-pid", strconv.Itoa(victim)).Stdout)
			for _, k := range []string{"setpriority_pid", "ioprio_pid"} {
				if got2[k] != "ESRCH" {
					t.Errorf("%s: %s on the host pid %d = %q, want ESRCH", c.profile, k, victim, got2[k])
				}
			}
			if nice, io := rx15Prio(t, victim); nice != nice0 || io != io0 {
				t.Errorf("%s (%v): the host process %d went from nice %s, ioprio %#x to nice %s, ioprio %#x", c.profile, got, victim, nice0, io0, nice, io)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 4. The pidfd of a host peer.

// TestRedTeam15NetPeerPidfd: t-sock lists bin/listed.sock, served here by
// the test process. The command connects (through the supervisor) and asks
// for its peer's pidfd (SO_PEERPIDFD): the kernel gives it one on this test
// process, outside the sandbox's PID namespace. Nothing may come of it:
// pidfd_send_signal (signal 0 and SIGWINCH) refused, PIDFD_GET_INFO without
// the pid, every PIDFD_GET_*_NAMESPACE ioctl refused, and no SIGWINCH
// reaches this process. Control (root, whose host process may signal this
// one): unsandboxed, the same pidfd signals and names this process.
func TestRedTeam15NetPeerPidfd(t *testing.T) {
	rt := rx15Helper(t)
	sock := filepath.Join(bin, "listed.sock")
	os.Remove(sock)
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	os.Chmod(sock, 0o777)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	winch := make(chan os.Signal, 16)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	me := strconv.Itoa(os.Getpid())
	// Control.
	out, _ := exec.Command(rt, "peer", sock).Output()
	ctl := rx13Fields(string(out))
	if ctl["peerpidfd"] != "ok" || ctl["pidfd_signal"] != "ok" || ctl["pidfd_info_pid"] != me || ctl["pidfd_ns_ioctls"] == "0" {
		t.Fatalf("control: %q", out)
	}
	select {
	case <-winch:
	case <-time.After(10 * time.Second):
		t.Fatal("control: SIGWINCH never arrived")
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		r := rx14Run(t, u, f.home, "@t-sock.json", f.ws, nil, rt, "peer", sock)
		got := rx13Fields(r.Stdout)
		if got["connect"] != "ok" || got["peerpidfd"] == "" {
			t.Fatalf("the listed socket is not reachable: %q %q", r.Stdout, r.Stderr)
		}
		for _, k := range []string{"pidfd_signal0", "pidfd_signal"} {
			if v := got[k]; v != "EINVAL" && v != "EPERM" {
				t.Errorf("%s = %q on a host process's pidfd, want EINVAL or EPERM", k, v)
			}
		}
		if got["pidfd_info_pid"] != "0" || got["pidfd_ns_ioctls"] != "0" {
			t.Errorf("the host peer's pidfd: PIDFD_GET_INFO %s pid %s, %s namespace descriptors", got["pidfd_info"], got["pidfd_info_pid"], got["pidfd_ns_ioctls"])
		}
	})
	// A signal the sandbox sent was pending on this process before its
	// pidfd_send_signal returned, long before sbx reported the end.
	select {
	case <-winch:
		t.Errorf("the sandbox signalled this process")
	default:
	}
}

// ---------------------------------------------------------------------------
// 5. Exit signals to the init.

// TestRedTeam15NetCloneParentExitSignal: children made with CLONE_PARENT
// are the init's, and their exit signal (SIGKILL, SIGSTOP, SIGTERM, SIGSEGV
// asked for) goes to it. The run must stay the command's: every child is
// reaped by the init, the command goes on and its status (3) is reported.
func TestRedTeam15NetCloneParentExitSignal(t *testing.T) {
	rt := rx15Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, c := range []struct{ profile, cwd string }{{"workspace", f.nogit}, {"@t-ports.json", f.ws}} {
			r := rx14Run(t, u, f.home, c.profile, c.cwd, nil, rt, "cloneparent")
			got := rx13Fields(r.Stdout)
			if r.ExitCode != 3 || r.Signal != "" || got["alive"] != "ok" || got["reaped"] != "4" {
				t.Errorf("%s: exit %d signal %q: %q %q", c.profile, r.ExitCode, r.Signal, r.Stdout, r.Stderr)
			}
		}
	})
}
