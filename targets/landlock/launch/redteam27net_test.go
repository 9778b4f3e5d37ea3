//go:build linux && amd64

package launch_test

// Red team 27, network, IPC, signal and process battery, through the real
// sbx binary (built by TestMain), as root and as uid 65534, with the C
// helper below (rt27nSource):
//
//   - every (family, type, protocol) socket() accepts, over families 0..49
//     and seven types (AF_PACKET, AF_NETLINK, AF_VSOCK, AF_XDP, AF_ALG,
//     AF_KEY, AF_TIPC, AF_RDS, AF_CAN, AF_BLUETOOTH, AF_QIPCRTR, UDP, raw,
//     SCTP, UDPLITE, MPTCP, DCCP, SOCK_PACKET), in mode none and ports;
//     Unix datagram and raw socketpairs, io_uring (IORING_OP_SOCKET);
//   - Unix sockets in mode none: connect to the host's abstract listener,
//     bind an abstract name, a sendto with an address on a seqpacket pair,
//     connect to a host pathname socket in a readable directory by name
//     and through /proc/self/fd of an O_PATH descriptor, SO_PASSCRED;
//   - signals to the init (outside the command's Landlock domain): kill,
//     tgkill, rt_sigqueueinfo, pidfd_send_signal, F_SETOWN / F_SETSIG
//     SIGKILL with O_ASYNC and MSG_OOB (SIGIO and SIGURG) to PID 1 and
//     its process group, timer_create SIGEV_THREAD_ID, /dev/tty; the
//     init's priority, scheduling class, CPU affinity and I/O priority;
//   - the host's SysV shared memory, keyrings, /dev/shm, descriptors sbx's
//     caller leaves open (a listening TCP socket as fd 3);
//   - ports mode with a bind port: listen() racing a concurrent
//     connect(AF_UNSPEC) on a socket whose source port (forced to the bind
//     port with IP_LOCAL_PORT_RANGE) passes the supervisor's bind check;
//   - a FIFO of the host in a tree the profile only reads.
//
// The helper's signal probes aim at PID 1 and its process group: it
// refuses to run them unless /proc/1 is hidden (the sandbox's view).
//
//	go test -count=1 -run 'TestRedTeam27Net' -v ./targets/landlock/launch

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/compiler"
)

const rt27nSource = `#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

static const char *en(long r) {
	if (r >= 0) return "ok";
	const char *n = strerrorname_np(errno);
	return n ? n : "E?";
}
static void out(const char *k, const char *v) { printf("%s=%s\n", k, v); fflush(stdout); }

/* families: every (family, type, protocol) that socket() creates, other
 * than AF_UNIX stream/seqpacket and (ports) AF_INET/6 TCP. */
static int families(int ports) {
	static const int types[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_RDM, SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET};
	static const int protos[] = {0, 1, 6, 17, 132, 136, 262, 255, 768 /* ETH_P_ALL be */, 3};
	char list[4096] = "";
	int n = 0;
	for (int f = 0; f < 50; f++)
		for (unsigned t = 0; t < sizeof types / sizeof *types; t++)
			for (unsigned p = 0; p < sizeof protos / sizeof *protos; p++) {
				int s = socket(f, types[t], protos[p]);
				if (s < 0) continue;
				close(s);
				if (f == AF_UNIX && (types[t] == SOCK_STREAM || types[t] == SOCK_SEQPACKET)) continue;
				if (ports && (f == AF_INET || f == AF_INET6) && types[t] == SOCK_STREAM && (protos[p] == 0 || protos[p] == 6)) continue;
				if (n++ < 40) { char b[32]; snprintf(b, sizeof b, "%d/%d/%d,", f, types[t], protos[p]); strcat(list, b); }
			}
	printf("extra_sockets=%d\nextra_list=%s\n", n, n ? list : "-");
	int sv[2];
	out("socketpair_dgram", en(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)));
	out("socketpair_raw", en(socketpair(AF_UNIX, SOCK_RAW, 0, sv)));
	out("socketpair_inet", en(socketpair(AF_INET, SOCK_STREAM, 0, sv)));
	out("io_uring_setup", en(syscall(SYS_io_uring_setup, 4, calloc(1, 256))));
	return 0;
}

/* unix ABSTRACT PATH DGRAMPATH */
static int unixs(char **a) {
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un u = {.sun_family = AF_UNIX};
	size_t n = strlen(a[0]);
	memcpy(u.sun_path + 1, a[0], n);
	socklen_t l = offsetof(struct sockaddr_un, sun_path) + 1 + n;
	out("connect_abstract", en(connect(s, (struct sockaddr *)&u, l)));
	int s2 = socket(AF_UNIX, SOCK_STREAM, 0);
	out("bind_abstract", en(bind(s2, (struct sockaddr *)&u, l)));
	int s3 = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	out("sendto_abstract_seqpacket", en(sendto(s3, "x", 1, 0, (struct sockaddr *)&u, l)));
	struct sockaddr_un p = {.sun_family = AF_UNIX};
	strncpy(p.sun_path, a[1], sizeof p.sun_path - 1);
	int s4 = socket(AF_UNIX, SOCK_STREAM, 0);
	out("connect_path", en(connect(s4, (struct sockaddr *)&p, sizeof p)));
	char pp[64]; int o = open(a[1], O_PATH);
	snprintf(pp, sizeof pp, "/proc/self/fd/%d", o);
	struct sockaddr_un q = {.sun_family = AF_UNIX};
	strncpy(q.sun_path, pp, sizeof q.sun_path - 1);
	int s5 = socket(AF_UNIX, SOCK_STREAM, 0);
	out("connect_opath", en(connect(s5, (struct sockaddr *)&q, sizeof q)));
	struct sockaddr_un d = {.sun_family = AF_UNIX};
	strncpy(d.sun_path, a[2], sizeof d.sun_path - 1);
	int sv[2];
	socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
	out("sendto_dgram_path", en(sendto(sv[0], "x", 1, 0, (struct sockaddr *)&d, sizeof d)));
	int one = 1;
	out("passcred", en(setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one)));
	/* interface list of the host's namespace through any socket */
	struct ifconf ic; char buf[4096]; ic.ifc_len = sizeof buf; ic.ifc_buf = buf;
	long r = ioctl(sv[0], SIOCGIFCONF, &ic);
	printf("ifconf=%s ifconf_n=%d\n", en(r), r == 0 ? (int)(ic.ifc_len / sizeof(struct ifreq)) : -1);
	fflush(stdout);
	return 0;
}

/* sig: signals to the init (outside the command's domain) every way. */
/* nested reports whether this is the sandbox: its /proc hides PID 1 (the
 * init, outside the command's domain), the host's shows its init. The
 * signal probes aim at PID 1 and its group, which must never be the
 * host's. */
static int nested(void) {
	struct stat st;
	return stat("/proc/1", &st) < 0 && errno == ENOENT && getppid() == 1;
}
static int sig(void) {
	if (!nested()) { out("sig", "refused-not-nested"); return 2; }
	out("kill1_0", en(kill(1, 0)));
	out("kill1_term", en(kill(1, SIGTERM)));
	out("tgkill1", en(syscall(SYS_tgkill, 1, 1, SIGTERM)));
	siginfo_t si = {0}; si.si_code = SI_QUEUE; si.si_pid = getpid(); si.si_uid = getuid();
	out("sigqueue1", en(syscall(SYS_rt_sigqueueinfo, 1, SIGTERM, &si)));
	int pfd = syscall(SYS_pidfd_open, 1, 0);
	out("pidfd_open1", en(pfd));
	if (pfd >= 0) out("pidfd_signal1", en(syscall(SYS_pidfd_send_signal, pfd, SIGTERM, 0, 0)));
	/* SIGIO / SIGURG through F_SETOWN with F_SETSIG SIGKILL towards the
	 * init, and its process group. */
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	out("setown1", en(fcntl(sv[0], F_SETOWN, 1)));
	out("setsig_kill", en(fcntl(sv[0], F_SETSIG, SIGKILL)));
	out("async", en(fcntl(sv[0], F_SETFL, O_ASYNC)));
	write(sv[1], "x", 1);
	send(sv[1], "u", 1, MSG_OOB);
	int p[2]; pipe(p);
	out("setown_pg1", en(fcntl(p[0], F_SETOWN, -1)));
	fcntl(p[0], F_SETSIG, SIGKILL);
	fcntl(p[0], F_SETFL, O_ASYNC);
	write(p[1], "x", 1);
	int pid = 0;
	out("fiosetown1", en(ioctl(p[0], FIOSETOWN, &(int){1})));
	write(p[1], "y", 1);
	(void)pid;
	usleep(100000);
	out("tty", en(open("/dev/tty", O_RDWR)));
	out("affinity1", en(sched_getaffinity(1, sizeof(cpu_set_t), &(cpu_set_t){0})));
	/* scheduling of the init (not a signal, not ptrace: cap_safe_nice) */
	out("setprio1", en(setpriority(PRIO_PROCESS, 1, 19)));
	struct sched_param sp = {0};
	out("sched_idle1", en(sched_setscheduler(1, SCHED_IDLE, &sp)));
	cpu_set_t c0; CPU_ZERO(&c0); CPU_SET(0, &c0);
	out("setaffinity1", en(sched_setaffinity(1, sizeof c0, &c0)));
	out("ioprio1", en(syscall(SYS_ioprio_set, 1, 1, 3 << 13)));
	struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGTERM};
	ev._sigev_un._tid = 1;
	timer_t tm;
	out("timer_tid1", en(syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &tm)));
	out("init_alive", "ok");
	return 0;
}

/* ipc SHMKEY FIFO: the host's SysV segment and FIFO. */
static int ipc(char **a) {
	int inh = 0;
	for (int fd = 3; fd < 64; fd++) if (fcntl(fd, F_GETFD) >= 0) inh++;
	printf("inherited_fds=%d\n", inh);
	out("shmget_host", en(shmget(strtol(a[0], 0, 0), 0, 0)));
	out("keyctl", en(syscall(SYS_keyctl, 0, -3, 0)));
	out("devshm", en(open("/dev/shm", O_RDONLY | O_DIRECTORY)));
	int f = open(a[1], O_RDONLY | O_NONBLOCK);
	out("fifo_open", en(f));
	if (f >= 0) {
		struct pollfd p = {f, POLLIN, 0};
		poll(&p, 1, 3000);
		char b[64] = {0};
		int n = read(f, b, sizeof b - 1);
		if (n > 0) { b[strcspn(b, "\n")] = 0; out("fifo_read", b); } else out("fifo_read", en(n < 0 ? -1 : 0));
	}
	return 0;
}

static long nsnow(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }

static atomic_int g_go, g_done, g_stop;
static int g_fd;
static long g_delay;
static void *disco(void *a) {
	(void)a;
	for (;;) {
		while (!atomic_load(&g_go)) { if (atomic_load(&g_stop)) return 0; }
		atomic_store(&g_go, 0);
		long end = nsnow() + g_delay;
		while (nsnow() < end) {}
		struct sockaddr sa = {.sa_family = AF_UNSPEC};
		connect(g_fd, &sa, sizeof sa);
		atomic_store(&g_done, 1);
	}
}

/* lrace CPORT BPORT ITERS PORTFILE */
static int lrace(char **a) {
	int cport = atoi(a[0]), bport = atoi(a[1]), iters = atoi(a[2]);
	pthread_t th;
	pthread_create(&th, 0, disco, 0);
	long d = 2000;
	int early = 0, late = 0, other = 0, ok = 0;
	srand(getpid());
	for (int i = 0; i < iters; i++) {
		int s = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(cport)};
		inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
		uint32_t rng = (uint32_t)bport | ((uint32_t)bport << 16), zero = 0;
		if (setsockopt(s, IPPROTO_IP, 51 /* IP_LOCAL_PORT_RANGE */, &rng, sizeof rng) < 0) { out("portrange", en(-1)); return 1; }
		if (connect(s, (struct sockaddr *)&sa, sizeof sa) < 0) { out("connect", en(-1)); close(s); usleep(1000); continue; }
		setsockopt(s, IPPROTO_IP, 51, &zero, sizeof zero);
		g_fd = s;
		g_delay = d / 2 + (rand() % (d + 1));
		atomic_store(&g_done, 0);
		atomic_store(&g_go, 1);
		int r = listen(s, 4);
		int e = errno;
		while (!atomic_load(&g_done)) {}
		if (r == 0) {
			ok++;
			struct sockaddr_in got; socklen_t l = sizeof got;
			getsockname(s, (struct sockaddr *)&got, &l);
			int acc = 0; l = sizeof acc;
			getsockopt(s, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l);
			int port = ntohs(got.sin_port);
			if (acc && port != bport) {
				printf("hole_port=%d\ntries=%d\n", port, i + 1); fflush(stdout);
				FILE *f = fopen(a[3], "w");
				if (f) { fprintf(f, "%d\n", port); fclose(f); }
				struct pollfd p = {s, POLLIN, 0};
				if (poll(&p, 1, 15000) == 1) {
					int c = accept(s, 0, 0);
					char b[64] = {0};
					if (c >= 0) { int n = read(c, b, sizeof b - 1); if (n > 0) { b[strcspn(b, "\n")] = 0; out("accepted", b); } }
				}
				atomic_store(&g_stop, 1);
				return 0;
			}
			early++; d += d / 8 + 200;
			close(s);
			continue;
		}
		if (e == EINVAL) { late++; d -= d / 8; if (d < 200) d = 200; }
		else other++;
		close(s);
	}
	atomic_store(&g_stop, 1);
	printf("held early=%d late=%d other=%d ok=%d d=%ld\n", early, late, other, ok, d);
	return 0;
}

int main(int argc, char **argv) {
	if (argc < 2) return 2;
	const char *c = argv[1];
	if (!strcmp(c, "lrace") && argc == 6) return lrace(argv + 2);
	if (!strcmp(c, "families")) return families(argc > 2);
	if (!strcmp(c, "unix") && argc == 5) return unixs(argv + 2);
	if (!strcmp(c, "sig")) return sig();
	if (!strcmp(c, "ipc") && argc == 4) return ipc(argv + 2);
	return 2;
}
`

// rt27nHelper builds rt27nSource into bin once.
func rt27nHelper(t *testing.T) string {
	t.Helper()
	return cHelper(t, "rt27net", rt27nSource, "-pthread")
}

const rt27nPortsProfile = `
profile "rt27n-ports" {
  filesystem {
    read  = [root]
    write = [cwd]
  }
  network {
    mode        = "ports"
    reason      = "test"
    connect_tcp = [CPORT]
    bind_tcp    = [BPORT]
  }
}
`

// rt27nRun runs the helper with args under profile ("@file": an artifact
// path) as f's user in f.ws and returns the fields and the result.
func rt27nRun(t *testing.T, f *fixture, profile string, extra []*os.File, args ...string) (map[string]string, rtResult) {
	t.Helper()
	a := []string{"--timeout", "30s", "--cwd", f.ws}
	if strings.HasPrefix(profile, "@") {
		a = append(a, "--artifact", profile[1:])
	} else {
		a = append(a, "--profile", profile)
	}
	a = append(a, "--")
	a = append(a, rt27nHelper(t))
	a = append(a, args...)
	r := rtRun(t, rtOpts{u: f.u, args: a, env: []string{"HOME=" + f.home}, extra: extra, timeout: 60 * time.Second})
	if r.SbxError != "" {
		t.Fatalf("sbx %v: %s", a, r.SbxError)
	}
	return rx13Fields(r.Stdout), r
}

// rt27nWant compares fields with want ("a|b" accepts either).
func rt27nWant(t *testing.T, what string, got map[string]string, want map[string]string, r rtResult) {
	t.Helper()
	for k, w := range want {
		ok := false
		for _, alt := range strings.Split(w, "|") {
			if got[k] == alt {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s: %s=%q, want %q (stdout %q stderr %q)", what, k, got[k], w, r.Stdout, r.Stderr)
		}
	}
}

// ---------------------------------------------------------------------------
// Finding: a FIFO of the host in a tree the profile only reads.

// TestRedTeam27NetHostFifoConsumed: HOLE. Landlock's read_file right
// covers opening a FIFO for reading, and the read-only view does not stop
// it: a command under the built-in read-only profile (or any profile that
// reads a tree) opens a host FIFO it finds (a named pipe in /run, /tmp,
// /var/tmp, a project's control pipe) with O_RDONLY|O_NONBLOCK and takes
// the data the host's writer meant for the host's reader: the bytes are
// consumed, the host's reader never sees them; a writer blocked in open()
// waiting for a reader is released into the sandbox; and when the command
// closes the last read end, the host's writer gets SIGPIPE/EPIPE. This is
// host IPC that red team 23 closed for message queues ("reading takes from
// them": the mqueue mounts are detached or masked), left open for FIFOs,
// and a command the profile says writes nothing still changes what host
// processes receive.
//
// Reproducer (as root or any user):
//
//	mkfifo -m 666 /var/tmp/ctl; (exec 3<>/var/tmp/ctl; echo secret >&3; sleep 9) &
//	sbx run --profile read-only -- sh -c 'timeout 1 cat /var/tmp/ctl'  # prints secret
//
// Must hold: fifo_open EACCES (or the read returns nothing of the host's
// data). Fix: treat FIFOs outside writable roots like the mqueue mounts:
// in landlock.Bind (targets/landlock/bind.go) mask FIFOs the deny_glob
// style scan finds in readable trees, or, cheaper and complete, route
// open() of existing FIFOs (the supervisor already reopens them on a
// temporary worker: supervise_linux.go, resolver.open / errBlocking) to
// the supervisor and refuse those outside writable roots; at the least
// state it under Known limits next to "FIFOs in read-only carve-outs".
//
// Documented limit (README: Known limits, "Host FIFOs the profile
// reads"): no mechanism tells an open of a FIFO from any other open short
// of the supervisor taking every open, which would cost every run.
func TestRedTeam27NetHostFifoConsumed(t *testing.T) {
	if os.Getenv("SBX_RT27_HOLES") != "1" {
		t.Skip("documented limit: host FIFOs in trees the profile reads (SBX_RT27_HOLES=1 to run)")
	}
	rt27nHelper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		fifo := filepath.Join(f.outside, "ctl.fifo")
		if err := unix.Mkfifo(fifo, 0o666); err != nil {
			t.Fatal(err)
		}
		os.Chown(fifo, u.uid, u.uid)
		// The host side: holds the FIFO open for reading and writing (as a
		// service reading its control pipe would) and writes a message.
		host, err := os.OpenFile(fifo, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer host.Close()
		if _, err := host.WriteString("host-secret\n"); err != nil {
			t.Fatal(err)
		}
		got, r := rt27nRun(t, f, "read-only", nil, "ipc", "0x0", fifo)
		if got["fifo_open"] == "" {
			t.Fatalf("the helper did not run: %q %q", r.Stdout, r.Stderr)
		}
		// What the host's reader still gets.
		hfd := int(host.Fd()) // once: Fd() makes the descriptor blocking
		unix.SetNonblock(hfd, true)
		buf := make([]byte, 64)
		n, _ := unix.Read(hfd, buf)
		left := ""
		if n > 0 {
			left = string(buf[:n])
		}
		if got["fifo_read"] == "host-secret" {
			t.Errorf("read-only profile consumed the host's FIFO data: fifo_open=%s fifo_read=%s; left for the host's reader: %q", got["fifo_open"], got["fifo_read"], left)
		}
	})
}

// ---------------------------------------------------------------------------
// What held.

// TestRedTeam27NetHeld: the probes above that held, as root and as nobody.
func TestRedTeam27NetHeld(t *testing.T) {
	rt27nHelper(t)
	// Host listeners the sandbox must not reach.
	abs := "rt27n-abs-" + strconv.Itoa(os.Getpid())
	absL, err := net.Listen("unix", "@"+abs)
	if err != nil {
		t.Fatal(err)
	}
	defer absL.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := absL.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	sockDir, err := os.MkdirTemp("/var/tmp", "rt27nsock")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	os.Chmod(sockDir, 0o755)
	pathSock := filepath.Join(sockDir, "s.sock")
	pathL, err := net.Listen("unix", pathSock)
	if err != nil {
		t.Fatal(err)
	}
	defer pathL.Close()
	os.Chmod(pathSock, 0o777)
	go func() {
		for {
			c, err := pathL.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	dgramSock := filepath.Join(sockDir, "d.sock")
	dg, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: dgramSock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer dg.Close()
	os.Chmod(dgramSock, 0o777)
	// The host's SysV segment (the sandbox has an IPC namespace of its own).
	shmKey := 0x27270000 + os.Getpid()%0xffff
	shmID, _, e := syscall.Syscall(syscall.SYS_SHMGET, uintptr(shmKey), 4096, unix.IPC_CREAT|0o666)
	if e != 0 {
		t.Fatal(e)
	}
	defer syscall.Syscall(syscall.SYS_SHMCTL, shmID, unix.IPC_RMID, 0)
	// Ports profile: a host listener on the connect port, which never
	// accepts (connections wait in its backlog until the sandbox resets
	// them).
	cl, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	cPort := cl.Addr().(*net.TCPAddr).Port
	bPort := rx13FreePort(t)
	for bPort == cPort {
		bPort = rx13FreePort(t)
	}
	src := strings.NewReplacer("CPORT", strconv.Itoa(cPort), "BPORT", strconv.Itoa(bPort)).Replace(rt27nPortsProfile)
	ports := "@" + rx13Artifact(t, "rt27n-ports.json", "rt27n-ports", compiler.Source{Name: "rt27n.hcl", Data: []byte(src)})
	// A listening TCP socket sbx's caller leaves open as its fd 3.
	inh, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer inh.Close()
	inhF, err := inh.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer inhF.Close()

	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		t.Run("socket families none", func(t *testing.T) {
			got, r := rt27nRun(t, f, "workspace", nil, "families")
			rt27nWant(t, "workspace", got, map[string]string{"extra_sockets": "0", "socketpair_dgram": "EACCES", "socketpair_raw": "EACCES", "socketpair_inet": "EACCES", "io_uring_setup": "EPERM"}, r)
		})
		t.Run("socket families ports", func(t *testing.T) {
			got, r := rt27nRun(t, f, ports, nil, "families", "ports")
			rt27nWant(t, "ports", got, map[string]string{"extra_sockets": "0", "socketpair_dgram": "EACCES", "socketpair_raw": "EACCES", "socketpair_inet": "EACCES", "io_uring_setup": "EPERM"}, r)
		})
		t.Run("unix sockets none", func(t *testing.T) {
			before := accepted.Load()
			got, r := rt27nRun(t, f, "workspace", nil, "unix", abs, pathSock, dgramSock)
			rt27nWant(t, "workspace", got, map[string]string{
				"connect_abstract": "EACCES", "bind_abstract": "EACCES", "sendto_abstract_seqpacket": "ENOTCONN",
				"connect_path": "EACCES", "connect_opath": "EACCES",
				// a connected seqpacket pair ignores the address: its peer gets it
				"sendto_dgram_path": "ok", "passcred": "EACCES",
			}, r)
			dg.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			if n, _, err := dg.ReadFrom(make([]byte, 16)); err == nil {
				t.Errorf("the host's datagram socket got %d bytes from the sandbox", n)
			}
			if a := accepted.Load(); a != before {
				t.Errorf("a host listener accepted %d connections from the sandbox", a-before)
			}
		})
		t.Run("signals to the init", func(t *testing.T) {
			got, r := rt27nRun(t, f, "workspace", nil, "sig")
			rt27nWant(t, "workspace", got, map[string]string{
				"kill1_0": "EPERM", "kill1_term": "EPERM", "tgkill1": "EPERM", "sigqueue1": "EPERM",
				"pidfd_signal1": "EPERM", "tty": "ENXIO", "timer_tid1": "EINVAL", "init_alive": "ok",
				"setprio1": "EPERM", "sched_idle1": "EPERM", "setaffinity1": "EPERM", "ioprio1": "EPERM",
			}, r)
			if r.ExitCode != 0 || r.Signal != "" {
				t.Errorf("the run did not end normally after SIGIO/SIGURG aimed at the init: exit %d signal %q", r.ExitCode, r.Signal)
			}
		})
		t.Run("host IPC and inherited descriptors", func(t *testing.T) {
			fifo := filepath.Join(f.ws, "none.fifo")
			got, r := rt27nRun(t, f, "workspace", []*os.File{inhF}, "ipc", strconv.Itoa(shmKey), fifo)
			rt27nWant(t, "workspace", got, map[string]string{
				"inherited_fds": "0", "shmget_host": "ENOENT", "keyctl": "EPERM", "devshm": "ENOENT|EACCES",
			}, r)
		})
		// The listen() check binds the reported address (EINVAL: bound) and
		// then listens: a second thread dissolving the connection in
		// between would leave an unbound socket for listen() to give an
		// ephemeral port. On Linux 6.18 listen() on a once-connected socket
		// fails with EINVAL, so every round ends "late" here; the check
		// stays racy on kernels that allow it (see the report).
		t.Run("ports listen racing a disconnect", func(t *testing.T) {
			got, r := rt27nRun(t, f, ports, nil, "lrace", strconv.Itoa(cPort), strconv.Itoa(bPort), "400", filepath.Join(f.ws, "port"))
			if got["portrange"] != "" {
				t.Skipf("IP_LOCAL_PORT_RANGE: %s", got["portrange"])
			}
			if got["hole_port"] != "" {
				t.Errorf("listen() on port %s (bind port %d) after %s tries: %q", got["hole_port"], bPort, got["tries"], r.Stdout)
			}
			if !strings.Contains(r.Stdout, "held ") {
				t.Errorf("the race did not run: %q %q", r.Stdout, r.Stderr)
			}
		})
	})
}
