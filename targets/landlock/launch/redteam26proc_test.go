//go:build linux && amd64

package launch_test

// Red team 26 (processes and kernel interfaces around the sandbox's init),
// through the real sbx binary (built by TestMain) and through the executor
// library, as root and as uid 65534:
//
//   - FINDING (fixed: the sandbox's /proc is mounted hidepid=invisible,
//     procMountData): the sandbox's init is a CLONE_VM clone of the process that
//     runs the sandbox (sbx, or any program that embeds the executor) and
//     is PID 1 of the command's PID namespace. /proc/PID/cmdline is one of
//     the few procfs files the kernel serves without a ptrace check (it
//     reads the argument area of the target's mm), and the init's mm is
//     the embedding program's: the command reads the host program's whole
//     argument vector, secrets given on its command line included, from
//     /proc/1/cmdline (TestRedTeam26ProcInitCmdline). Landlock keeps the
//     init's environ, mem, maps, fd, root and ns entries closed (ptrace
//     scoping), but not this one;
//   - FINDING (fixed: the drain has the kernel's collector run,
//     executor's kickUnixGC): descriptors the command leaves in flight in an SCM_RIGHTS
//     cycle (garbage that only the kernel's unix GC frees) outlive the
//     run: the README's "when executor.Run returns for a sandboxed run,
//     everything the command started is gone" does not hold for them. In
//     about a third of the runs here the GC misses the cycle (it is
//     scheduled by the first socket released at the command's exit and
//     runs before the last one is), and nothing schedules it again until
//     some other unix socket on the host is released: a FIFO's write end,
//     the command's stdout and stderr (sbx waits 2 s and reports the
//     streams cut short by "something outside the command") stay open
//     after sbx has returned (TestRedTeam26ProcInflightOutlivesRun);
//   - held: see TestRedTeam26ProcHeld.
//
//	go test -count=1 -run TestRedTeam26Proc -v ./targets/landlock/launch

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rt26Embedder is a program that embeds the executor the way a host
// service (an agent harness, a CI runner) would: it runs argv[2] with
// /bin/sh under the built-in workspace profile in argv[1] and prints the
// command's stdout. Its own command line carries a secret the command is
// never given.
const rt26Embedder = `package main

import (
	"context"
	"fmt"
	"os"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/targets/landlock"
	"github.com/sbx-dev/sbx/targets/landlock/launch"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == launch.HelperArg {
		launch.RunHelper(os.Args[2:]) // the supervisor, as in cmd/sbx
	}
	dir := os.Args[1]
	plan, err := builtin.Plan("workspace")
	if err != nil {
		panic(err)
	}
	b, err := landlock.DefaultBindings(dir, func(k string) string {
		if k == "HOME" {
			return "/nonexistent-sbx-home"
		}
		return os.Getenv(k)
	})
	if err != nil {
		panic(err)
	}
	sb, err := launch.New(plan, b, launch.Options{})
	if err != nil {
		panic(err)
	}
	r, err := executor.Run(context.Background(), executor.Request{Argv: []string{"/bin/sh", "-c", os.Args[2]}, Dir: dir,
		Env: []string{"PATH=/usr/bin:/bin"}, Sandbox: sb, Timeout: 20e9})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s", r.Stdout.Head)
}
`

// rt26BuildEmbedder builds rt26Embedder against this module into a
// directory every user can read, or skips.
func rt26BuildEmbedder(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o755)
	gomod := "module rt26emb\n\ngo 1.26\n\nrequire github.com/sbx-dev/sbx v0.0.0\n\nreplace github.com/sbx-dev/sbx => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": []byte(rt26Embedder)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "-o", "emb", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("cannot build the embedding program: %v\n%s", err, out)
	}
	return filepath.Join(dir, "emb")
}

// TestRedTeam26ProcInitCmdline: FINDING (fails on the current code), as
// root and as uid 65534.
//
// The sandbox's init (startInit) is clone3(CLONE_VM) of the calling
// process: its mm, and with it the argument area the kernel reads for
// /proc/PID/cmdline, is the caller's. In a program that embeds the
// executor (the library use the README documents: executor.Run with a
// launch.Sandbox), that caller is the host program, not sbx. The kernel
// serves /proc/PID/cmdline without a ptrace check (get_mm_cmdline reads
// the target mm's arg_start..arg_end), so Landlock's ptrace scoping, which
// keeps /proc/1/environ, mem, maps, fd, root and ns closed to the command,
// does not cover it, and the sandbox's fresh /proc shows PID 1. The
// command thus reads the host program's full command line:
//
//	emb /work --api-key=sk-... ; the sandboxed command runs
//	tr '\0' ' ' </proc/1/cmdline   ->  "emb /work ... --api-key=sk-..."
//
// Red team 25 counted a host process's command line read through a host
// procfs (TestRedTeam25EscHostProcfsUserRun) as a hole; this is the same
// leak through the sandbox's own /proc, of the most sensitive process
// there is (the one that holds the credentials the run was meant to keep
// from the command). Under sbx run the leak is sbx's own argv (the
// profile, artifact path, flags). The command must not read it.
//
// Fix direction: do not let the init show the caller's argument area:
// e.g. have the init set its own mm's arg range to an empty string of its
// own before the command exists (prctl PR_SET_MM_ARG_START/END needs
// CAP_SYS_RESOURCE in the init's user namespace, which the init has) —
// but the mm is shared with the caller, so better: run the init (and the
// command's process before exec) on an mm of its own, or mask /proc/1
// (PID 1 is always the init) in the sandbox's procfs, as the README's
// masks do for /proc/keys.
func TestRedTeam26ProcInitCmdline(t *testing.T) {
	emb := rt26BuildEmbedder(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		secret := "--api-key=sk-rt26-" + strconv.Itoa(os.Getpid()) + "-" + u.name
		script := `echo ran=yes; echo init_cmdline=$(tr '\0' ' ' </proc/1/cmdline | tr ' ' '_'); ` +
			`cat /proc/1/environ >/dev/null 2>&1 && echo environ=open || echo environ=denied`
		argv := []string{emb, f.ws, script, secret}
		if u.uid != 0 {
			argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}
		done := make(chan struct{})
		var out []byte
		var err error
		go func() { out, err = cmd.CombinedOutput(); close(done) }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("the embedding program hung")
		}
		got := rx13Fields(string(out))
		t.Logf("%s: %q (%v)", u.name, out, err)
		if got["ran"] != "yes" {
			t.Fatalf("control: the sandboxed command did not run: %v %q", err, out)
		}
		if got["environ"] != "denied" {
			t.Errorf("control: /proc/1/environ is readable (%q): ptrace scoping is gone", got["environ"])
		}
		if strings.Contains(got["init_cmdline"], "sk-rt26-") {
			t.Errorf("as %s: the sandboxed command read the embedding host program's command line, secret included, from /proc/1/cmdline "+
				"(the init is a CLONE_VM clone of the caller; cmdline has no ptrace check): %q", u.name, got["init_cmdline"])
		}
	})
}

// rt26C is the held battery's probe.
const rt26C = `
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/nsfs.h>

#define PIDFD_GET_MNT_NAMESPACE _IO(0xFF, 3)
#define PIDFD_GET_PID_NAMESPACE _IO(0xFF, 5)
#define PIDFD_GET_USER_NAMESPACE _IO(0xFF, 9)

static void rep(const char *k, long r) { printf("%s=%s\n", k, r < 0 ? strerrorname_np(errno) : "ok"); fflush(stdout); }

static int sendfds(int s, int *fds, int n) {
	char b = 'x';
	struct iovec iov = { &b, 1 };
	char cbuf[CMSG_SPACE(sizeof(int) * 8)];
	memset(cbuf, 0, sizeof cbuf);
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = CMSG_SPACE(sizeof(int) * n) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET; c->cmsg_type = SCM_RIGHTS; c->cmsg_len = CMSG_LEN(sizeof(int) * n);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	return sendmsg(s, &m, 0);
}

static char init_state(void) {
	char b[512]; int fd = open("/proc/1/stat", O_RDONLY); if (fd < 0) return '?';
	ssize_t n = read(fd, b, sizeof b - 1); close(fd); if (n <= 0) return '?'; b[n] = 0;
	char *p = strrchr(b, ')'); return p && p[1] ? p[2] : '?';
}

int main(int argc, char **argv) {
	const char *op = argc > 1 ? argv[1] : "";
	if (!strcmp(op, "gcfifo")) {
		/* Two socket pairs whose ends are in flight in each other's
		   queues (b[0] in its own queue, a[0] in b[0]'s, b[1] and a[1]
		   in a[0]'s), carrying stdout, stderr and a FIFO's write end,
		   then exit: garbage only the kernel's unix GC frees. */
		int ff = open(argv[2], O_RDWR);
		int a[2], b[2];
		rep("fifo", ff);
		rep("sp1", socketpair(AF_UNIX, SOCK_STREAM, 0, a));
		rep("sp2", socketpair(AF_UNIX, SOCK_STREAM, 0, b));
		int f1[5] = { 1, 2, a[0], b[0], ff };
		rep("send1", sendfds(b[1], f1, 5));
		int f2[2] = { b[1], a[1] };
		rep("send2", sendfds(a[1], f2, 2));
		_exit(3);
	}
	if (!strcmp(op, "init")) {
		int pfd = syscall(SYS_pidfd_open, 1, 0);
		rep("pidfd_open_init", pfd);
		rep("pidfd_ns_mnt", ioctl(pfd, PIDFD_GET_MNT_NAMESPACE, 0));
		rep("pidfd_ns_user", ioctl(pfd, PIDFD_GET_USER_NAMESPACE, 0));
		rep("pidfd_ns_pid", ioctl(pfd, PIDFD_GET_PID_NAMESPACE, 0));
		rep("pidfd_signal_stop", syscall(SYS_pidfd_send_signal, pfd, SIGSTOP, 0, 0));
		int ns = open("/proc/self/ns/pid", O_RDONLY);
		rep("nsfs_open", ns);
		rep("ns_get_parent", ioctl(ns, NS_GET_PARENT));
		rep("kill_init_stop", kill(1, SIGSTOP));
		rep("kill_init_tstp", kill(1, SIGTSTP));
		rep("kill_init_cont", kill(1, SIGCONT));
		rep("kill_all_stop", kill(-1, SIGSTOP)); /* everything but the caller and the init */
		rep("personality_rie", syscall(SYS_personality, 0x0400000));
		rep("setpgid_init", setpgid(0, 1));
		/* clone3 with CLONE_INTO_CGROUP (and anything else): ENOSYS. */
		unsigned long long ca[11] = { 0x200000000ULL /* CLONE_INTO_CGROUP */, 0, 0, 0, SIGCHLD, 0, 0, 0, 0, 0, 0 };
		rep("clone3_into_cgroup", syscall(SYS_clone3, ca, sizeof ca));
		rep("prlimit_init", syscall(SYS_prlimit64, 1, RLIMIT_CPU, 0, 0));
		rep("migrate_pages_init", syscall(SYS_migrate_pages, 1, 64, 0, 0));
		rep("sched_setaffinity_init", ({ cpu_set_t s; CPU_ZERO(&s); CPU_SET(0, &s); sched_setaffinity(1, sizeof s, &s); }));
		int fd = open("/proc/1/environ", O_RDONLY); rep("init_environ", fd);
		fd = open("/proc/1/mem", O_RDONLY); rep("init_mem", fd);
		fd = open("/proc/1/ns/mnt", O_RDONLY); rep("init_ns_mnt", fd);
		/* A pty of the private devpts as controlling terminal; its
		   foreground group cannot be the init's. */
		int m = open("/dev/ptmx", O_RDWR | O_NOCTTY);
		int z = 0; ioctl(m, TIOCSPTLCK, &z);
		int s = ioctl(m, TIOCGPTPEER, O_RDWR);
		rep("pty_ctty", ioctl(s, TIOCSCTTY, 0));
		pid_t one = 1;
		rep("tcsetpgrp_init", ioctl(s, TIOCSPGRP, &one));
		usleep(100000);
		printf("init_state=%c\n", init_state());
		return 7;
	}
	if (!strcmp(op, "cparent")) {
		/* Children of the init (CLONE_PARENT) that outlive the command. */
		for (int i = 0; i < 3; i++) {
			long r = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
			if (r == 0) { for (;;) pause(); }
			rep("clone_parent", r);
		}
		_exit(4);
	}
	if (!strcmp(op, "storm")) {
		/* A SIGCHLD storm on the init: short-lived CLONE_PARENT children
		   for a second, then exit 5. */
		struct timespec s0, n; clock_gettime(CLOCK_MONOTONIC, &s0);
		long c = 0;
		do {
			long r = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
			if (r == 0) _exit(0);
			if (r > 0) c++;
			clock_gettime(CLOCK_MONOTONIC, &n);
		} while ((n.tv_sec - s0.tv_sec) * 1000000000L + (n.tv_nsec - s0.tv_nsec) < 1000000000L);
		printf("forked=%ld\n", c);
		return 5;
	}
	return 2;
}
`

// TestRedTeam26ProcHeld: what held, as both users, under workspace (the
// supervised layout: nogit/):
//
//   - the init (PID 1, outside the Landlock domain, the caller's uid and
//     capabilities): pidfd_open works, but the pidfd's namespace ioctls
//     (PIDFD_GET_{MNT,USER,PID}_NAMESPACE) are EACCES and
//     pidfd_send_signal and kill(1, SIGSTOP/SIGTSTP/SIGCONT) are EPERM,
//     kill(-1, SIGSTOP) reaches nobody (ESRCH) (Landlock's signal scope), NS_GET_PARENT
//     on the command's PID namespace is EPERM, setpgid into the init's
//     group EPERM, prlimit64 EPERM, migrate_pages EPERM, sched_setaffinity
//     EPERM (cap_safe_nice), /proc/1/environ, mem and ns/mnt EACCES, and a
//     private pty made the command's controlling terminal cannot have the
//     init's group in the foreground (EPERM); the init stays sleeping;
//   - personality(READ_IMPLIES_EXEC): EPERM; clone3 with
//     CLONE_INTO_CGROUP: ENOSYS;
//   - CLONE_PARENT children (the init's own) that outlive the command are
//     killed with the run; a storm of short-lived ones (a SIGCHLD flood on
//     the init) leaves the command's status intact;
//   - sbx on a pseudo-terminal: the command has no controlling terminal
//     (/dev/tty: ENXIO) and its stdin is /dev/null.
func TestRedTeam26ProcHeld(t *testing.T) {
	rt := cHelper(t, "rt26proc", rt26C)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		run := func(args ...string) rtResult {
			t.Helper()
			return rt11Run(t, f, nil, []string{"--profile", "workspace", "--cwd", f.nogit}, args...)
		}

		r := run(rt, "init")
		got := rx13Fields(r.Stdout)
		t.Logf("init: %v %s", got, r.Stderr)
		rt20Want(t, "init", got, map[string]string{
			"pidfd_open_init": "ok", "pidfd_ns_mnt": "EACCES", "pidfd_ns_user": "EACCES", "pidfd_ns_pid": "EACCES",
			"pidfd_signal_stop": "EPERM", "nsfs_open": "ok", "ns_get_parent": "EPERM",
			"kill_init_stop": "EPERM", "kill_init_tstp": "EPERM", "kill_init_cont": "EPERM", "kill_all_stop": "ESRCH",
			"personality_rie": "EPERM", "setpgid_init": "EPERM", "clone3_into_cgroup": "ENOSYS",
			"prlimit_init": "EPERM", "migrate_pages_init": "EPERM", "sched_setaffinity_init": "EPERM",
			// The sandbox's procfs hides the init (hidepid=invisible, the
			// fix of TestRedTeam26ProcInitCmdline): its entries are
			// missing, its state unreadable ("?").
			"init_environ": "ENOENT", "init_mem": "ENOENT", "init_ns_mnt": "ENOENT",
			"pty_ctty": "ok", "tcsetpgrp_init": "EPERM", "init_state": "?",
		})
		if r.ExitCode != 7 || r.Signal != "" {
			t.Errorf("init: exit %d signal %q, want 7", r.ExitCode, r.Signal)
		}

		start := time.Now()
		r = run(rt, "cparent")
		if el := time.Since(start); r.ExitCode != 4 || strings.Count(r.Stdout, "clone_parent=ok") != 3 || el > 5*time.Second {
			t.Errorf("CLONE_PARENT children: after %v: %+v", el, r)
		}
		r = run(rt, "storm")
		if r.ExitCode != 5 || r.Signal != "" || !strings.HasPrefix(r.Stdout, "forked=") || r.Stdout == "forked=0\n" {
			t.Errorf("SIGCHLD storm: %+v", r)
		}

		// sbx on a pseudo-terminal (script(1)).
		if _, err := exec.LookPath("script"); err == nil {
			sbxArgv := []string{filepath.Join(bin, "sbx"), "run", "--profile", "workspace", "--cwd", f.nogit, "--timeout", "10s", "--",
				"/bin/sh", "-c", "'readlink /proc/self/fd/0; (exec 3</dev/tty) 2>/dev/null && echo TTY=open || echo TTY=none'"}
			if u.uid != 0 {
				sbxArgv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, sbxArgv...)
			}
			cmd := exec.Command("script", "-qec", strings.Join(sbxArgv, " "), "/dev/null")
			cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "HOME=" + f.home}
			out, _ := rt26Output(t, cmd, 30*time.Second)
			if !strings.Contains(string(out), "TTY=none") || !strings.Contains(string(out), "/dev/null") {
				t.Errorf("sbx on a terminal: %q", out)
			}
		}
	})
}

// rt26KickGC has the kernel run the unix GC (a send of a descriptor
// schedules it once garbage may exist), so that a test leaves no in-flight
// garbage behind.
func rt26KickGC() {
	for i := 0; i < 3; i++ {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return
		}
		syscall.Sendmsg(fds[0], []byte{'x'}, syscall.UnixRights(fds[1]), nil, 0)
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		time.Sleep(50 * time.Millisecond)
	}
}

// rt26FifoWriterAlive reports whether the FIFO at path has a writer: a
// non-blocking read end reads EOF without one, EAGAIN with one.
func rt26FifoWriterAlive(path string) (bool, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false, err
	}
	defer syscall.Close(fd)
	var b [1]byte
	_, err = syscall.Read(fd, b[:])
	return err == syscall.EAGAIN, nil
}

// TestRedTeam26ProcInflightOutlivesRun: FINDING (fails on the current
// code; probabilistic per run, so up to 12 runs are tried), as root and
// as uid 65534, under workspace (supervised layout).
//
// The command makes two socket pairs whose ends sit in each other's
// receive queues (SCM_RIGHTS), together with its stdout, stderr and the
// write end of a FIFO in its working directory, and exits. Once its last
// descriptor is closed the structure is unreachable garbage that only the
// kernel's unix GC frees. The GC is scheduled when a socket is released,
// once per pass: the exit releases the four sockets one after another, the
// pass scheduled by the first may run before the last is released, and
// then nothing schedules another until some unix socket is released again
// somewhere on the host. The init has killed and reaped everything and
// reported the end; sbx then waits 2 s for the streams, reports them cut
// short ("something outside the command kept the pipe open"), and returns,
// while the FIFO's write end (any file: a listening socket on an allowed
// port, a directory pinning the sandbox's mount namespace, a memfd holding
// memory no process owns and no OOM kill frees) is still open. Observed
// here in about one run in three, with the descriptor still open at least
// 10 s later. The README: "When executor.Run returns for a sandboxed run,
// everything the command started is gone".
//
// Fix direction: after the command's end, have the init (or sbx) run the
// unix GC and wait for it before reporting (a send of a descriptor on a
// socketpair of its own schedules it; unix_schedule_gc waits for the pass
// when cyclic garbage exists), and only then close the report; or refuse
// SCM_RIGHTS carrying sockets (seccomp cannot see the control message:
// the supervisor would have to). The test runs the GC itself afterwards
// (rt26KickGC) so that it leaves nothing in flight.
func TestRedTeam26ProcInflightOutlivesRun(t *testing.T) {
	rt := cHelper(t, "rt26proc", rt26C)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		fifo := filepath.Join(f.nogit, "rt26.fifo")
		if err := syscall.Mkfifo(fifo, 0o666); err != nil {
			t.Fatal(err)
		}
		os.Chown(fifo, u.uid, u.uid)
		defer rt26KickGC()
		for i := 0; i < 12; i++ {
			rt26KickGC()
			if alive, err := rt26FifoWriterAlive(fifo); err != nil || alive {
				t.Fatalf("control: the FIFO has a writer before the run (%v)", err)
			}
			start := time.Now()
			cmd := rtCmd(rtOpts{u: u, args: []string{"--profile", "workspace", "--cwd", f.nogit, "--timeout", "20s", "--", rt, "gcfifo", fifo},
				env: []string{"HOME=" + f.home}})
			out, _ := rt26Output(t, cmd, 30*time.Second)
			el := time.Since(start)
			var r struct {
				ExitCode int    `json:"exit_code"`
				Stdout   string `json:"stdout"`
				OutCut   bool   `json:"stdout_cut_short"`
				ErrCut   bool   `json:"stderr_cut_short"`
			}
			if err := json.Unmarshal(out, &r); err != nil || r.ExitCode != 3 || !strings.Contains(r.Stdout, "send2=ok") || !strings.Contains(r.Stdout, "fifo=ok") {
				t.Fatalf("control: the command did not build the cycle: %v %.600s", err, out)
			}
			time.Sleep(300 * time.Millisecond)
			alive, _ := rt26FifoWriterAlive(fifo)
			if alive || r.OutCut || r.ErrCut {
				time.Sleep(2 * time.Second)
				still, _ := rt26FifoWriterAlive(fifo)
				t.Errorf("as %s, run %d: the command's in-flight descriptors outlived the run: sbx returned after %v "+
					"(stdout_cut_short=%v stderr_cut_short=%v); 0.3 s later the FIFO's write end the command opened was still open: %v, 2.3 s later: %v",
					u.name, i+1, el.Round(time.Millisecond), r.OutCut, r.ErrCut, alive, still)
				return
			}
		}
		t.Logf("as %s: no run of 12 left the cycle behind", u.name)
	})
}

// rt26Output runs cmd with a deadline and returns its stdout.
func rt26Output(t *testing.T, cmd *exec.Cmd, d time.Duration) ([]byte, error) {
	t.Helper()
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v hung for %v", cmd.Args, d)
	}
	return out, err
}
