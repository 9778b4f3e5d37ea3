//go:build linux && amd64

package launch_test

// Third red-team pass, against the redesign: the sandbox applied between
// clone3 and exec by a raw program, the command as PID 1 of its PID
// namespace, no network namespace for network "none", and the lazily
// started supervisor living outside the sandbox's PID namespace with the
// host's /proc.
//
//	go test -count=1 -run 'TestRedTeam3' ./targets/landlock/launch/
//
// The first tests reproduce holes (they fail until fixed); the ones after
// "Classes that hold" assert behaviour that held.

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// rt3Python skips the test when python3 is missing.
func rt3Python(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is missing")
	}
}

// ---------------------------------------------------------------------------
// Holes.

// TestRedTeam3AbstractSocketHostNamespace: network "none" no longer gets a
// network namespace; seccomp allows socket(AF_UNIX, SOCK_STREAM), bind and
// listen, and the Landlock scope only restricts connecting *out* of the
// sandbox. So the command binds and listens on an abstract Unix socket in
// the host's abstract namespace: any host process can connect to it (two-way
// channel with unsandboxed processes; squatting or impersonating a host
// service's abstract address, e.g. @/tmp/.X11-unix/X0 or a D-Bus address,
// before the service binds it, or denying it to the service with
// EADDRINUSE). The README promises "none: no network at all (no ... abstract
// Unix sockets)". Same with the supervisor (it binds for the command), without
// it, and in the read-only profile.
//
// Reproducer (host shell, as any user):
//
//	sbx run --profile workspace -- python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.bind(b"\0squat"); s.listen(); c,_=s.accept(); c.send(b"from-sandbox")' &
//	python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(b"\0squat"); print(s.recv(99))'   # b'from-sandbox'
func TestRedTeam3AbstractSocketHostNamespace(t *testing.T) {
	rt3Python(t)
	script := `import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.bind(b"\0" + sys.argv[1].encode()); s.listen()
except OSError as e:
    print("denied", e.errno, flush=True); sys.exit(0)
print("bound", flush=True)
s.settimeout(4)
try:
    c, _ = s.accept(); c.sendall(b"FROM-SANDBOX"); print("accepted", c.recv(64))
except OSError as e:
    print("no-client", e)
`
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, c := range []struct {
			name, profile, cwd string
			env                []string
		}{
			{"supervised", "workspace", f.nogit, nil},
			{"no-supervisor", "workspace", f.nogit, []string{"SBX_LANDLOCK_NO_SUPERVISOR=1"}},
			{"read-only", "read-only", f.ws, nil},
		} {
			name := fmt.Sprintf("sbxrt3-abstract-%d-%d-%s", os.Getpid(), u.uid, c.name)
			// Control: the name is free in the host's namespace.
			if conn, err := net.Dial("unix", "@"+name); err == nil {
				conn.Close()
				t.Fatalf("control: @%s is already bound on the host", name)
			}
			cmd := rtCmd(rtOpts{u: u, env: append([]string{"HOME=" + f.home}, c.env...),
				args: []string{"--timeout", "10s", "--profile", c.profile, "--cwd", c.cwd, "--", "python3", "-c", script, name}})
			var out strings.Builder
			cmd.Stdout = &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			got := ""
		loop:
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
				select {
				case <-done:
					break loop
				default:
				}
				conn, err := net.Dial("unix", "@"+name)
				if err == nil {
					conn.SetDeadline(time.Now().Add(3 * time.Second))
					conn.Write([]byte("HOST-DATA"))
					buf := make([]byte, 64)
					n, _ := conn.Read(buf)
					got = "connected, read " + strconv.Quote(string(buf[:n]))
					conn.Close()
					break
				}
				time.Sleep(30 * time.Millisecond)
			}
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				<-done
			}
			if got != "" {
				t.Errorf("%s: a host process reached an abstract socket the sandbox bound in the host's namespace (%s); sandbox: %.300q", c.name, got, out.String())
			}
		}
	})
}

// TestRedTeam3ProcNetHostSockets: without a network namespace the fresh
// /proc of the sandbox shows the host's network state: /proc/net/unix lists
// every Unix socket of the host (abstract names and paths, e.g. agent and
// D-Bus sockets), /proc/net/tcp every TCP connection and listener with its
// addresses. Information that "network none" (previously a namespace of
// its own, empty) hid.
//
// Reproducer: sbx run --profile workspace -- cat /proc/net/unix /proc/net/tcp
//
// Accepted, documented (README, known limits): with the supervisor and the
// Landlock scopes, network none has no namespace of its own (creating one
// costs ≈1.4 ms, a quarter of a run); nothing listed can be reached, and
// abstract binds are refused. Where the namespace is used (no supervisor:
// SBX_LANDLOCK_NO_SUPERVISOR=1 here), nothing of the host's is listed; the
// default case is checked to be the documented one, so a change of either
// shows up here.
func TestRedTeam3ProcNetHostSockets(t *testing.T) {
	name := fmt.Sprintf("sbxrt3-hostonly-%d", os.Getpid())
	ul, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	tl, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	portHex := fmt.Sprintf(":%04X ", tl.Addr().(*net.TCPAddr).Port)
	// Control: the host's own /proc lists both.
	if b, _ := os.ReadFile("/proc/net/unix"); !strings.Contains(string(b), name) {
		t.Fatalf("control: /proc/net/unix lacks @%s", name)
	}
	if b, _ := os.ReadFile("/proc/net/tcp"); !strings.Contains(string(b), portHex) {
		t.Fatalf("control: /proc/net/tcp lacks %s", portHex)
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, p := range []string{"workspace", "read-only"} {
			// Also through the init's entry (/proc/1/net) where it is
			// visible: the init is in the namespace too, not only the
			// command. The sandbox's /proc hides it (hidepid=invisible,
			// red team 26): nothing to see there then.
			r := rtShell(t, f, p, f.ws, "grep -c '"+name+"' /proc/net/unix; grep -c '"+portHex+"' /proc/net/tcp; if [ -e /proc/1 ]; then grep -c '"+name+"' /proc/1/net/unix; grep -c '"+portHex+"' /proc/1/net/tcp; else echo 0; echo 0; fi; true", "SBX_LANDLOCK_NO_SUPERVISOR=1")
			if r.Stdout != "0\n0\n0\n0\n" {
				t.Errorf("%s, network namespace: the host's sockets are visible in the sandbox (count in /proc/net/unix, /proc/net/tcp, /proc/1/net/unix, /proc/1/net/tcp): %q %q", p, r.Stdout, r.Stderr)
			}
			r = rtShell(t, f, p, f.ws, "grep -c '"+name+"' /proc/net/unix; grep -c '"+portHex+"' /proc/net/tcp; true")
			if r.Stdout != "1\n1\n" {
				t.Errorf("%s, default: not the documented /proc/net (the host's sockets listed): %q %q", p, r.Stdout, r.Stderr)
			}
		}
	})
}

// rt3NestedScript confines itself with a nested Landlock domain (reads
// only, no write or create right anywhere: the stacking Landlock supports
// and the filter allows, as a tool that sandboxes its own children does),
// then tries to write and create in its working directory.
const rt3NestedScript = `
import ctypes, os, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
attr = struct.pack("QQQ", (1 << 16) - 1, 0, 0)  # every FS right of ABI 1-6
rs = libc.syscall(444, ctypes.c_char_p(attr), ctypes.c_size_t(24), 0)
assert rs >= 0, ctypes.get_errno()
root = os.open("/", os.O_PATH)
pb = struct.pack("=Qi", 1 | 4 | 8, root)  # execute, read_file, read_dir
assert libc.syscall(445, rs, 1, ctypes.c_char_p(pb), 0) == 0, ctypes.get_errno()
assert libc.prctl(38, 1, 0, 0, 0) == 0
assert libc.syscall(446, rs, 0) == 0, ctypes.get_errno()
def t(name, f):
    try:
        f(); print(name + ":ok")
    except OSError as e:
        print(name + ":" + os.strerror(e.errno))
t("plain-write", lambda: os.close(os.open("file", os.O_WRONLY)))
t("creat-existing", lambda: os.write(os.open("file", os.O_WRONLY|os.O_CREAT|os.O_APPEND), b"PWNED"))
t("creat-new", lambda: os.close(os.open("newfile", os.O_WRONLY|os.O_CREAT)))
t("mkdir", lambda: os.mkdir("newdir"))
t("symlink", lambda: os.symlink("x", "newlink"))
t("rename", lambda: os.rename("sub/file", "moved"))
`

// TestRedTeam3NestedLandlockSupervisor (fixed: with the supervisor, the
// Landlock system calls fail with ENOSYS): the supervisor performs every
// creating call (open with O_CREAT, mkdir, symlink, rename, link, bind)
// with sbx's Landlock domain, not the caller's: a command that confines a
// child with its own, nested, Landlock domain (an agent sandboxing a tool,
// a nested landlock tool) has that domain bypassed for all of them. The
// child denied every write right can still create files and directories,
// rename files, and write to existing files through open(O_WRONLY|O_CREAT).
// Without the supervisor (SBX_LANDLOCK_NO_SUPERVISOR=1, the control), every
// operation fails EACCES as the kernel enforces the nested domain.
//
// Reproducer (cwd without .hg, so the workspace profile is supervised):
//
//	sbx run --profile workspace -- python3 nested.py   # rt3NestedScript: creat-existing:ok ...
func TestRedTeam3NestedLandlockSupervisor(t *testing.T) {
	rt3Python(t)
	script := rtFile(t, "rt3-nested.py", rt3NestedScript)
	want := "plain-write:Permission denied\ncreat-existing:Permission denied\ncreat-new:Permission denied\nmkdir:Permission denied\nsymlink:Permission denied\nrename:Permission denied\n"
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		if r := rtShell(t, f, "workspace", f.nogit, "python3 "+script, "SBX_LANDLOCK_NO_SUPERVISOR=1"); r.Stdout != want {
			t.Fatalf("control (no supervisor): %q %q", r.Stdout, r.Stderr)
		}
		// Supervised, nesting is unavailable (ENOSYS, as on a kernel
		// without Landlock) rather than silently bypassed.
		f2 := newFixture(t, u)
		r := rtShell(t, f2, "workspace", f2.nogit, "python3 "+script)
		if r.Stdout != "" || !strings.Contains(r.Stderr, "AssertionError: 38") {
			t.Errorf("supervised: a nested Landlock domain was created: %q %q", r.Stdout, r.Stderr)
		}
		if b, _ := os.ReadFile(f2.nogit + "/file"); string(b) != "y" {
			t.Errorf("supervised: a file the nested domain cannot write was written: %q", b)
		}
	})
}

// TestRedTeam3SupervisorStartRace: when the command (PID 1) exits while
// the supervisor is being started for a descendant's creating call, the
// supervisor's setns on the dead command's pidfd fails and sbx writes
// "sbx: starting the sandbox supervisor failed: setns into the sandbox's
// namespaces: no such process" into the command's stderr, although nothing
// failed (the command's exit status is right). A few percent of runs of:
//
//	sbx run --profile workspace -- sh -c 'mkdir x$$ & sleep 0.001; exit 3'
func TestRedTeam3SupervisorStartRace(t *testing.T) {
	f := newFixture(t, users[0])
	delays := []string{"0", "0.0005", "0.001", "0.002", "0.003"}
	bad := 0
	var first string
	for i := 0; i < 150; i++ {
		dir := filepath.Join(f.base, "race"+strconv.Itoa(i))
		os.Mkdir(dir, 0o755)
		r := rtRun(t, rtOpts{u: users[0], env: []string{"HOME=" + f.home},
			args: []string{"--profile", "workspace", "--cwd", dir, "--", "/bin/sh", "-c", "mkdir d & sleep " + delays[i%len(delays)] + "; exit 3"}})
		if r.ExitCode != 3 || r.SbxError != "" {
			t.Fatalf("run %d: exit %d %q %q", i, r.ExitCode, r.Stderr, r.SbxError)
		}
		if strings.Contains(r.Stderr, "supervisor") {
			bad++
			first = r.Stderr
		}
	}
	if bad > 0 {
		t.Errorf("%d of 150 runs got a spurious supervisor failure on the command's stderr: %q", bad, first)
	}
}

// TestRedTeam3AbortStatusPID1: the command is PID 1, so a SIGABRT it
// raises itself (abort(3): assert failures, Rust panic=abort, os.abort)
// is dropped by the kernel (init ignores default-action signals sent from
// its namespace); glibc then falls back to a crashing instruction and the
// run is reported as SIGSEGV (139) instead of SIGABRT (134).
//
//	sbx run --json -- python3 -c 'import os; os.abort()'   # exit_code 139, signal SIGSEGV
func TestRedTeam3AbortStatusPID1(t *testing.T) {
	rt3Python(t)
	f := newFixture(t, users[0])
	// Control: not PID 1 (a shell in front) the status is SIGABRT's.
	r := rtRun(t, rtOpts{u: users[0], args: []string{"--profile", "read-only", "--cwd", f.ws, "--", "/bin/sh", "-c", "python3 -c 'import os; os.abort()'; echo status=$?"}})
	if !strings.Contains(r.Stdout, "status=134") {
		t.Fatalf("control: %q %q", r.Stdout, r.Stderr)
	}
	r = rtRun(t, rtOpts{u: users[0], args: []string{"--profile", "read-only", "--cwd", f.ws, "--", "python3", "-c", "import os; os.abort()"}})
	if r.ExitCode != 134 || r.Signal != "SIGABRT" {
		t.Errorf("abort() as PID 1 reported as exit %d signal %q (want 134, SIGABRT)", r.ExitCode, r.Signal)
	}
}

// ---------------------------------------------------------------------------
// Classes that hold.

// rt3GuardScript tries to create .git at the top of its cwd through every
// /proc and /dev alias the supervisor must translate (it resolves paths
// outside the sandbox's PID namespace, with the host's /proc), then makes
// ordinary entries through the caller's own aliases.
const rt3GuardScript = `
import os, socket, sys, threading
ws = os.getcwd()
pid = os.getpid()
tid = threading.get_native_id()
def t(name, f):
    try:
        f(); print(name + ":ok")
    except OSError as e:
        print(name + ":" + os.strerror(e.errno))
d = os.open(ws, os.O_PATH|os.O_DIRECTORY)
pd = os.open("/proc", os.O_PATH|os.O_DIRECTORY)
own = os.open("/proc/%d" % pid, os.O_PATH|os.O_DIRECTORY)
os.symlink("/proc/self/cwd", "lnk")
os.symlink("/proc/%d/cwd" % pid, "lnk2")
os.symlink(".git", "dangling")
os.symlink("/proc/self/cwd/.git", "dangling2")
for p in ["/proc/self/cwd/.git", "/proc/%d/cwd/.git" % pid, "/proc/thread-self/cwd/.git", "/proc/self/root%s/.git" % ws,
          "/proc/self/fd/%d/.git" % d, "/dev/fd/%d/.git" % d, "/proc/%d/task/%d/cwd/.git" % (pid, tid), "/proc/self/task/%d/cwd/.git" % tid,
          "lnk/.git", "lnk2/.git", "/proc/%d/root%s/.git" % (pid, ws), "/proc/./self/cwd/.git", "/proc//self/cwd/.git", "//proc/self/cwd/.git",
          "/proc/self/cwd/./.git", "/proc/self/cwd/sub/../.git", "/proc/self/fd/%d/sub/../.git" % d, "/proc/1/cwd/.git",
          "/proc/thread-self/fd/%d/.git" % d, "/proc/self/cwd/.git/"]:
    t("mkdir " + p, lambda: os.mkdir(p))
    t("creat " + p, lambda: os.close(os.open(p, os.O_CREAT|os.O_WRONLY)))
t("creat dangling", lambda: os.close(os.open("dangling", os.O_CREAT|os.O_WRONLY)))
t("creat dangling2", lambda: os.close(os.open("dangling2", os.O_CREAT|os.O_WRONLY)))
t("mkdir dirfd /proc", lambda: os.mkdir("self/cwd/.git", dir_fd=pd))
t("mkdir dirfd /proc/pid", lambda: os.mkdir("cwd/.git", dir_fd=own))
t("symlink", lambda: os.symlink("x", "/proc/self/cwd/.git"))
t("rename", lambda: os.rename("sub", "/proc/self/cwd/.git"))
t("link", lambda: os.link("/proc/self/cwd/file", "/proc/self/cwd/.git"))
def b():
    s = socket.socket(socket.AF_UNIX); s.bind("/proc/self/cwd/.git")
t("bind", b)
# From a child process with another cwd: its own /proc/self is used.
if os.fork() == 0:
    os.chdir("sub")
    t("child mkdir /proc/self/cwd/.git", lambda: os.mkdir("/proc/self/cwd/.git"))
    t("child mkdir /proc/self/cwd/../.git", lambda: os.mkdir("/proc/self/cwd/../.git"))
    sys.stdout.flush()
    os._exit(0)
os.wait()
print("own:" + ",".join(x for x in ["x", "sub/.git"] if os.path.exists(x)))
`

// TestRedTeam3SupervisorAliasesHeld: no alias of the caller's cwd, root or
// descriptors (rewritten by a supervisor that is not in the sandbox's PID
// namespace) creates .git at the top; /proc paths it cannot translate fail
// closed. A descendant's /proc/self is its own (sub/.git is allowed).
func TestRedTeam3SupervisorAliasesHeld(t *testing.T) {
	rt3Python(t)
	script := rtFile(t, "rt3-guard.py", rt3GuardScript+"\nos.mkdir('/proc/self/cwd/x')\nprint('x:' + str(os.path.isdir('x')))\n")
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		r := rtShell(t, f, "workspace", f.nogit, "python3 "+script)
		n := 0
		for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			if strings.Contains(l, ".git") || strings.HasPrefix(l, "creat dangling") || strings.HasPrefix(l, "symlink") || strings.HasPrefix(l, "rename") || strings.HasPrefix(l, "link") || strings.HasPrefix(l, "bind") {
				n++
				if strings.HasSuffix(l, ":ok") && !strings.HasPrefix(l, "child mkdir /proc/self/cwd/.git") {
					t.Errorf("created through an alias: %s", l)
				}
			}
		}
		if n < 48 || !strings.Contains(r.Stdout, "child mkdir /proc/self/cwd/.git:ok") || !strings.Contains(r.Stdout, "x:True") {
			t.Errorf("the script did not run as expected: %q %q", r.Stdout, r.Stderr)
		}
		if fileExists(f.nogit + "/.git") {
			t.Errorf(".git exists at the top")
		}
	})
}

// TestRedTeam3InheritedFdsHeld: descriptors sbx inherits without
// close-on-exec — a masked file, a TCP connection to a host listener, a
// host Unix listener — reach neither the command nor, through the
// supervisor's reopen of /proc/self/fd/N and /dev/fd/N, its creations.
func TestRedTeam3InheritedFdsHeld(t *testing.T) {
	rt3Python(t)
	tl, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HOSTNET"))
			defer c.Close()
		}
	}()
	tc, err := net.Dial("tcp4", tl.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	tcf, err := tc.(*net.TCPConn).File()
	if err != nil {
		t.Fatal(err)
	}
	defer tcf.Close()
	ul, err := net.Listen("unix", "@"+fmt.Sprintf("sbxrt3-inh-%d", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	ulf, err := ul.(*net.UnixListener).File()
	if err != nil {
		t.Fatal(err)
	}
	defer ulf.Close()
	script := `import os
fds = sorted(int(x) for x in os.listdir("/proc/self/fd"))
print("fds:" + ",".join(str(x) for x in fds if x > 2 and os.path.exists("/proc/self/fd/%d" % x) and not os.readlink("/proc/self/fd/%d" % x).startswith("/proc")))
os.mkdir("made")
for n in range(3, 12):
    for p in ("/proc/self/fd/%d" % n, "/dev/fd/%d" % n):
        try:
            fd = os.open(p, os.O_RDWR|os.O_CREAT)
            print("OPENED", p, os.readlink("/proc/self/fd/%d" % fd))
        except OSError as e:
            pass
print("done")
`
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		secret, err := os.Open(f.home + "/.ssh/id_rsa")
		if err != nil {
			t.Fatal(err)
		}
		defer secret.Close()
		for _, c := range []struct{ profile, cwd string }{{"workspace", f.nogit}, {"read-only", f.ws}} {
			r := rtRun(t, rtOpts{u: u, extra: []*os.File{secret, tcf, ulf, nil, nil, nil, secret}, env: []string{"HOME=" + f.home},
				args: []string{"--profile", c.profile, "--cwd", c.cwd, "--", "python3", "-c", script}})
			if !strings.HasSuffix(r.Stdout, "done\n") && c.profile == "workspace" {
				t.Errorf("%s: %q %q", c.profile, r.Stdout, r.Stderr)
			}
			if !strings.HasPrefix(r.Stdout, "fds:\n") || strings.Contains(r.Stdout, "OPENED") {
				t.Errorf("%s: an inherited descriptor reached the command: %q %q", c.profile, r.Stdout, r.Stderr)
			}
		}
	})
}

// rt3NetScript tries to reach host listeners without connect(): every
// socket family, sendto/sendmsg with an address on stream and seqpacket
// sockets, and connect() to abstract, pathname and TCP endpoints.
const rt3NetScript = `
import socket, sys, os
abstract, path, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
def t(name, f):
    try:
        f(); print(name + ":REACHED")
    except OSError as e:
        print(name + ":" + str(e.errno))
def conn(fam, typ, addr):
    def f():
        s = socket.socket(fam, typ); s.settimeout(2); s.connect(addr)
    return f
def sendto(typ, addr):
    def f():
        s = socket.socket(socket.AF_UNIX, typ); s.sendto(b"x", addr)
    return f
def sendmsg(typ, addr):
    def f():
        s = socket.socket(socket.AF_UNIX, typ); s.sendmsg([b"x"], [], 0, addr)
    return f
for typ, tn in ((socket.SOCK_STREAM, "stream"), (socket.SOCK_SEQPACKET, "seqpacket")):
    for a, an in ((b"\0" + abstract.encode(), "abstract"), (path, "path")):
        t("connect-%s-%s" % (tn, an), conn(socket.AF_UNIX, typ, a))
        t("sendto-%s-%s" % (tn, an), sendto(typ, a))
        t("sendmsg-%s-%s" % (tn, an), sendmsg(typ, a))
t("connect-tcp", conn(socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", port)))
t("connect-tcp6", conn(socket.AF_INET6, socket.SOCK_STREAM, ("::ffff:127.0.0.1", port)))
t("dgram-unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))
t("socketpair-dgram", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))
for fam in (socket.AF_NETLINK, socket.AF_PACKET, 40, 42, 44):
    t("family-%d" % fam, lambda: socket.socket(fam, socket.SOCK_RAW if fam != 40 else socket.SOCK_STREAM))
`

// TestRedTeam3NetworkNoNamespaceHeld: without a network namespace, nothing
// the command does reaches a host listener: TCP on 127.0.0.1, abstract and
// pathname Unix stream/seqpacket sockets through connect, sendto and
// sendmsg with an address; datagram, netlink, packet, vsock, ... sockets.
func TestRedTeam3NetworkNoNamespaceHeld(t *testing.T) {
	rt3Python(t)
	script := rtFile(t, "rt3-net.py", rt3NetScript)
	var mu sync.Mutex
	accepted := 0
	serve := func(l net.Listener) {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted++
			mu.Unlock()
			c.Write([]byte("y"))
			c.Close()
		}
	}
	abstract := fmt.Sprintf("sbxrt3-net-%d", os.Getpid())
	dir, err := os.MkdirTemp("/var/tmp", "sbxrt3net")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	path := dir + "/s.sock"
	var ls []net.Listener
	for _, a := range [][2]string{{"unix", "@" + abstract}, {"unix", path}, {"tcp4", "127.0.0.1:0"}} {
		l, err := net.Listen(a[0], a[1])
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ls = append(ls, l)
		go serve(l)
	}
	os.Chmod(path, 0o777)
	port := strconv.Itoa(ls[2].Addr().(*net.TCPAddr).Port)
	// Control: unsandboxed, connect reaches each listener.
	out, _ := exec.Command("python3", script, abstract, path, port).Output()
	for _, n := range []string{"connect-stream-abstract", "connect-stream-path", "connect-tcp"} {
		if !strings.Contains(string(out), n+":REACHED") {
			t.Fatalf("control: %s does not reach the listener unsandboxed:\n%s", n, out)
		}
	}
	mu.Lock()
	accepted = 0
	mu.Unlock()
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, p := range []string{"workspace", "read-only"} {
			r := rtShell(t, f, p, f.nogit, "python3 "+script+" "+abstract+" "+path+" "+port)
			if strings.Contains(r.Stdout, "REACHED") || strings.Count(r.Stdout, "\n") < 19 {
				t.Errorf("%s: %q %q", p, r.Stdout, r.Stderr)
			}
		}
	})
	mu.Lock()
	defer mu.Unlock()
	if accepted != 0 {
		t.Errorf("host listeners accepted %d connections from the sandbox", accepted)
	}
}

// TestRedTeam3PID1Held: the command is PID 1: kill -9 1 and kill -9 -1
// from inside do not end it, the supervisor (started before) is out of
// reach and keeps serving, orphans are killed with PID 1, and the exit
// status is the command's.
func TestRedTeam3PID1Held(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		marker := f.nogit + "/orphan"
		r := rtShell(t, f, "workspace", f.nogit, "mkdir a; sh -c 'kill -9 1; kill -TERM 1; kill -QUIT 1' 2>/dev/null; sleep 0.2; mkdir b && echo served; "+
			"(sh -c 'sleep 1; echo x > "+marker+"' &); ls /proc | grep -c '^[0-9]'; exit 5")
		if r.ExitCode != 5 || !strings.HasPrefix(r.Stdout, "served\n") {
			t.Errorf("exit %d %q %q", r.ExitCode, r.Stdout, r.Stderr)
		}
		// The orphan's shell carries the marker's path in its command line.
		if left := rt11AwaitGone(marker, 5*time.Second); len(left) > 0 || fileExists(marker) {
			t.Errorf("an orphan outlived PID 1: %q, marker written %v", left, fileExists(marker))
			rt11KillAll(marker)
		}
	})
}

// TestRedTeam3ParallelSupervisorsHeld: many supervised runs at once, each
// starting its supervisor on its first creation: every run succeeds, each
// creates only in its own tree, none creates .git.
func TestRedTeam3ParallelSupervisorsHeld(t *testing.T) {
	f := newFixture(t, users[0])
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		dir := filepath.Join(f.base, "p"+strconv.Itoa(i))
		os.Mkdir(dir, 0o755)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := rtCmd(rtOpts{u: users[0], args: []string{"--profile", "workspace", "--cwd", dir, "--", "/bin/sh", "-c",
				"mkdir a && touch a/b && ln -s x l; mkdir .git 2>/dev/null; echo rc=$?; ls -A"}})
			out, _ := cmd.Output()
			var r rtResult
			if err := json.Unmarshal(out, &r); err != nil || r.ExitCode != 0 || r.Stdout != "rc=1\na\nl\n" || r.Stderr != "" || fileExists(dir+"/.git") {
				errs <- string(out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("parallel run: %.400s", e)
	}
}
