//go:build linux && amd64

package launch_test

// Red-team battery: attacks beyond escape_test.go, run under the real
// sandbox (sbx binary built by TestMain in escape_test.go, helpers in
// testdata/redteam). Every test asserts the safe outcome and, where the
// operation could succeed, shows that it does succeed without the sandbox.
// Tests that start with t.Skip("HOLE: ...") reproduce a real hole: delete
// the Skip line once it is fixed.
//
//	go test ./targets/landlock/launch -run RedTeam -v

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
	"syscall"
	"testing"
	"time"
)

// cBuild is one C attack helper, built once per test binary.
type cBuild struct {
	once sync.Once
	err  error
}

var cBuilds sync.Map // name -> *cBuild

// cHelper compiles source (C, linked statically, with extra gcc flags) into
// bin/name once and returns its path; without gcc the test is skipped.
func cHelper(t *testing.T, name, source string, flags ...string) string {
	t.Helper()
	v, _ := cBuilds.LoadOrStore(name, &cBuild{})
	b := v.(*cBuild)
	b.once.Do(func() {
		gcc, err := exec.LookPath("gcc")
		if err != nil {
			b.err = err
			return
		}
		src := filepath.Join(bin, name+".c")
		if b.err = os.WriteFile(src, []byte(source), 0o644); b.err != nil {
			return
		}
		args := append([]string{"-O1", "-static"}, flags...)
		out, err := exec.Command(gcc, append(args, "-o", filepath.Join(bin, name), src)...).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("gcc: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Skipf("cannot build the red-team helper %s: %v", name, b.err)
	}
	return filepath.Join(bin, name)
}

// rtHelper builds testdata/redteam/rt.c into bin once.
func rtHelper(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("testdata/redteam/rt.c")
	if err != nil {
		t.Fatal(err)
	}
	return cHelper(t, "rt", string(src))
}

// rtOpts describe one sbx run.
type rtOpts struct {
	u       user
	args    []string   // sbx arguments after "run --json"
	env     []string   // extra environment for sbx
	extra   []*os.File // sbx's descriptors 3, 4, ... (nil entries are closed)
	timeout time.Duration
}

// rtResult is the part of the JSON result the red-team tests read.
type rtResult struct {
	ExitCode    int    `json:"exit_code"`
	Stdout      string `json:"stdout"`
	Stderr      string `json:"stderr"`
	SbxError    string `json:"sbx_error"`
	TimedOut    bool   `json:"timed_out"`
	Cancelled   bool   `json:"cancelled"`
	StdoutBytes int64  `json:"stdout_bytes"`
	StderrBytes int64  `json:"stderr_bytes"`
	StdoutTrunc bool   `json:"stdout_truncated"`
	StdoutLossy bool   `json:"stdout_lossy"`
	DurationMS  int64  `json:"duration_ms"`
	Signal      string `json:"signal"`
	// Sandbox is the result's sandbox report, as it is.
	Sandbox rtReport `json:"sandbox"`
}

// rtReport is a JSON text that prints as text.
type rtReport struct{ json.RawMessage }

func (r rtReport) String() string { return string(r.RawMessage) }

func rtCmd(o rtOpts) *exec.Cmd {
	argv := append([]string{filepath.Join(bin, "sbx"), "run", "--json"}, o.args...)
	if o.u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(o.u.uid), "--regid=" + strconv.Itoa(o.u.uid), "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}, o.env...)
	cmd.ExtraFiles = o.extra
	return cmd
}

func rtRun(t *testing.T, o rtOpts) rtResult {
	t.Helper()
	cmd := rtCmd(o)
	if o.timeout == 0 {
		o.timeout = 30 * time.Second
	}
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(o.timeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("sbx %v hung for %v", o.args, o.timeout)
	}
	var r rtResult
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("sbx %v: %v\n%.2000s\n%v", o.args, jerr, out, err)
	}
	return r
}

// rtShell runs script with /bin/sh under profile ("@name": a test artifact)
// in cwd and fails on an sbx error.
func rtShell(t *testing.T, f *fixture, profile, cwd, script string, env ...string) rtResult {
	t.Helper()
	args := []string{"--cwd", cwd}
	if strings.HasPrefix(profile, "@") {
		args = append(args, "--artifact", filepath.Join(bin, profile[1:]+".json"))
	} else {
		args = append(args, "--profile", profile)
	}
	args = append(args, "--", "/bin/sh", "-c", script)
	r := rtRun(t, rtOpts{u: f.u, args: args, env: append([]string{"HOME=" + f.home}, env...)})
	if r.SbxError != "" {
		t.Fatalf("sbx failed: %s", r.SbxError)
	}
	return r
}

// asUser runs fn as root and as nobody (when setpriv exists).
func asUser(t *testing.T, fn func(t *testing.T, u user)) {
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			if u.uid != 0 {
				if _, err := exec.LookPath("setpriv"); err != nil {
					t.Skip("setpriv is missing")
				}
			}
			fn(t, u)
		})
	}
}

// ---------------------------------------------------------------------------
// Holes (skipped so that CI stays green; delete the Skip line to reproduce).

// TestRedTeamSupervisorListenerTheft: in supervised mode (workspace profile
// where .git/.hg/... are missing: the default case) the supervisor is PID 1
// and its main thread — the thread group leader — is confined exactly like
// the command (same uid, no capabilities, same Landlock domain, dumpable).
// So the command passes ptrace_may_access(PTRACE_MODE_ATTACH) on PID 1, and
// pidfd_getfd is not in the seccomp deny list: it copies the supervisor's
// seccomp listener, answers its own child's mkdir(".git") with
// SECCOMP_USER_NOTIF_FLAG_CONTINUE, and the kernel creates the protected
// name (the Landlock domain allows creation at the top in supervised mode).
func TestRedTeamSupervisorListenerTheft(t *testing.T) {
	rt := rtHelper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		r := rtShell(t, f, "workspace", f.nogit, rt+" steal-listener .git; ls -A")
		if strings.Contains(r.Stdout, "created .git") || fileExists(f.nogit+"/.git") {
			t.Errorf("protected name created through the stolen listener: %q %q", r.Stdout, r.Stderr)
		}
	})
}

// TestRedTeamSupervisorInheritedFds: descriptors sbx inherits from its
// caller without close-on-exec stay open in the helper (os/exec keeps them;
// close_range(CLOEXEC) only protects the exec'd command). In supervised
// mode the command copies them out of PID 1 with pidfd_getfd: here a
// descriptor on a file the profile denies (~/.ssh/id_rsa, masked).
func TestRedTeamSupervisorInheritedFds(t *testing.T) {
	rt := rtHelper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		secret, err := os.Open(f.home + "/.ssh/id_rsa")
		if err != nil {
			t.Fatal(err)
		}
		defer secret.Close()
		// sbx's descriptor 9 (3..8 closed).
		extra := []*os.File{nil, nil, nil, nil, nil, nil, secret}
		r := rtRun(t, rtOpts{u: u, extra: extra, env: []string{"HOME=" + f.home},
			args: []string{"--artifact", filepath.Join(bin, "t-carve.json"), "--cwd", f.nogit, "--", "/bin/sh", "-c",
				"cat " + f.home + "/.ssh/id_rsa 2>/dev/null || echo direct-denied; " + rt + " steal-read 1 9"}})
		if !strings.Contains(r.Stdout, "direct-denied") {
			t.Fatalf("control: the denied file is readable directly: %q", r.Stdout)
		}
		if strings.Contains(r.Stdout, "read: secret") {
			t.Errorf("inherited descriptor stolen from the supervisor: %q", r.Stdout)
		}
	})
}

// TestRedTeamSupervisorProcSelf: the supervisor resolves the command's
// paths on its own worker thread, so /proc/self (and /dev/fd) in a creating
// call — any shell ">" redirection, mkdir, ln — name the supervisor (PID 1),
// not the caller: "echo x > /proc/self/fd/3" fails (ENOTDIR on the
// supervisor's Landlock ruleset descriptor) and "mkdir /proc/self/cwd/x"
// after "cd sub" creates x in the supervisor's cwd (the workspace top). The
// supervisor follows magic links textually, so it does not (yet) re-open
// its own descriptors for the command (TestRedTeamProcSelfReopen).
func TestRedTeamSupervisorProcSelf(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		script := "exec 3>sub/f3; echo via-fd3 > /proc/self/fd/3 && cat sub/f3; cd sub && mkdir /proc/self/cwd/d && ls -d ../sub/d"
		want := "via-fd3\n../sub/d\n"
		if r := rtShell(t, f, "workspace", f.nogit, script, "SBX_LANDLOCK_NO_SUPERVISOR=1"); r.Stdout != want {
			t.Fatalf("control (fallback): %q %q", r.Stdout, r.Stderr)
		}
		f2 := newFixture(t, u)
		if r := rtShell(t, f2, "workspace", f2.nogit, script); r.Stdout != want {
			t.Errorf("supervised: %q %q", r.Stdout, r.Stderr)
		}
	})
}

// TestRedTeamTCPFastOpen: in ports mode Landlock checks connect() only;
// sendto/sendmsg with MSG_FASTOPEN connects a TCP socket without calling
// connect() (net.ipv4.tcp_fastopen client bit, the default), so any port
// and host are reachable. seccomp allows sendto/sendmsg unconditionally.
func TestRedTeamTCPFastOpen(t *testing.T) {
	rt := rtHelper(t)
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("SECRET"))
			c.Close()
		}
	}()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port) // not listed in t-ports
	if out, _ := exec.Command(rt, "tfo", port).CombinedOutput(); !strings.Contains(string(out), "connected: SECRET") {
		t.Skipf("TCP Fast Open does not connect here even unsandboxed: %s", out)
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		r := rtShell(t, f, "@t-ports", f.ws, "python3 -c \"import socket; s=socket.socket(); s.connect(('127.0.0.1',"+port+"))\" 2>&1 | tail -1; "+
			rt+" tfo "+port+"; "+rt+" tfo-sendmsg "+port)
		lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
		if len(lines) != 3 || !strings.Contains(lines[0], "PermissionError") {
			t.Fatalf("control: connect() to the unlisted port is not denied: %q %q", r.Stdout, r.Stderr)
		}
		for _, l := range lines[1:] {
			if strings.Contains(l, "connected") || l == "ECONNREFUSED" {
				t.Errorf("TCP Fast Open reached an unlisted port: %q", r.Stdout)
			}
		}
	})
}

// TestRedTeamDevStdio: the /dev mask keeps only a few devices; the standard
// symlinks /dev/stdout, /dev/stderr, /dev/stdin and /dev/fd are missing, so
// the very common "echo error >/dev/stderr" fails (EROFS: the shell tries to
// create the name on the read-only mask).
func TestRedTeamDevStdio(t *testing.T) {
	if _, err := os.Lstat("/dev/stderr"); err != nil {
		t.Skip("no /dev/stderr on the host")
	}
	f := newFixture(t, users[0])
	for _, p := range []string{"read-only", "workspace"} {
		r := rtShell(t, f, p, f.ws, "echo err >/dev/stderr && echo out >/dev/stdout && ls /dev/fd/ >/dev/null && echo ok")
		if r.Stdout != "out\nok\n" || r.Stderr != "err\n" {
			t.Errorf("%s: stdout %q stderr %q", p, r.Stdout, r.Stderr)
		}
	}
}

// TestRedTeamSupervisorFifo: the supervisor opens an existing FIFO with
// O_NONBLOCK to find out it would block; for O_WRONLY with no reader yet
// that fails with ENXIO, which is returned to the command instead of
// blocking until a reader comes. "cmd > fifo" races with its reader.
func TestRedTeamSupervisorFifo(t *testing.T) {
	f := newFixture(t, users[0])
	script := "mkfifo sub/p; (sleep 0.3; cat sub/p > sub/out) & echo fifo-data > sub/p; echo rc=$?; wait; cat sub/out; rm -f sub/p sub/out"
	if r := rtShell(t, f, "workspace", f.nogit, script, "SBX_LANDLOCK_NO_SUPERVISOR=1"); r.Stdout != "rc=0\nfifo-data\n" {
		t.Fatalf("control (fallback): %q %q", r.Stdout, r.Stderr)
	}
	r := rtRun(t, rtOpts{u: users[0], env: []string{"HOME=" + f.home},
		args: []string{"--timeout", "3s", "--profile", "workspace", "--cwd", f.nogit, "--", "/bin/sh", "-c", script}})
	if r.Stdout != "rc=0\nfifo-data\n" {
		t.Errorf("supervised: exit %d stdout %q stderr %q", r.ExitCode, r.Stdout, r.Stderr)
	}
}

func fileExists(p string) bool { _, err := os.Lstat(p); return err == nil }

// ---------------------------------------------------------------------------
// Classes that hold.

// rtFile writes content to bin/name (world-readable) once per test binary.
func rtFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(bin, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// rtFsScript runs one attack per line against OUT (a readable, not
// writable tree) and prints "name:ok" or "name:denied".
const rtFsScript = `
t() { n="$1"; shift; if ( "$@" ) >/dev/null 2>&1; then echo "$n:ok"; else echo "$n:denied"; fi; }
# h: an attack on host-global state; never run unsandboxed (SAFE=1).
h() { [ -n "$SAFE" ] || t "$@"; }
F="$OUT/file"
t append          sh -c "echo x >> $F"
t proc-self-root  sh -c "echo x >> /proc/self/root$F"
t proc-1-root     sh -c "echo x >> /proc/1/root$F"
t proc-self-cwd   sh -c "cd $OUT && echo x >> /proc/self/cwd/file"
t fd-reopen-rw    sh -c "exec 3<$F; echo x >> /proc/self/fd/3"
t utimensat       touch -d 2000-01-01 "$F"
t truncate        truncate -s 0 "$F"
t fallocate       fallocate -l 1M "$F"
t copy-file-range python3 -c "import os,tempfile; a=os.open('$WSF',os.O_RDONLY); b=os.open('$F',os.O_WRONLY); os.copy_file_range(a,b,3,0,0)"
t splice          python3 -c "import os; r,w=os.pipe(); os.write(w,b'zz'); b=os.open('$F',os.O_WRONLY); os.splice(r,b,2)"
t xattr-user      python3 -c "import os; os.setxattr('$F','user.x',b'1')"
t opath-fchmod    python3 -c "import os; fd=os.open('$F',os.O_PATH); os.chmod('/proc/self/fd/%d'%fd,0o777)"
t rename-exchange python3 -c "import ctypes,os; l=ctypes.CDLL(None,use_errno=True); r=l.renameat2(-100,b'$WSF',-100,b'$F',2); os._exit(0 if r==0 else 1)"
t rename-whiteout python3 -c "import ctypes,os; l=ctypes.CDLL(None,use_errno=True); r=l.renameat2(-100,b'$WSF',-100,b'$WS/sub/wo',4); os._exit(0 if r==0 else 1)"
t hardlink-out    ln "$F" "$WS/sub/hl"
t git-config      sh -c "echo x >> $WS/.git/config"
t git-proc-cwd    sh -c "echo x >> /proc/self/cwd/.git/config"
t git-rmdir       rmdir "$WS/.git"
h bashrc          sh -c "echo x >> $HOME/.bashrc"
h profile-d       sh -c "echo x > /etc/profile.d/zz-sbx.sh"
h sbx-binary      sh -c "echo x >> $BIN/sbx"
h sbx-artifact    sh -c "echo x >> $BIN/t-carve.json"
h dev-shm         sh -c "echo x > /dev/shm/sbx-rt"
h dev-mqueue      sh -c "echo x > /dev/mqueue/sbx-rt"
h mq-open         python3 -c "import ctypes,os; l=ctypes.CDLL(None); os._exit(0 if l.mq_open(b'/sbxrt', 0o100|2, 0o600, None) >= 0 else 1)"
h run-user        sh -c "mkdir /run/sbx-rt-$$"
h sys-cgroup      sh -c "for f in /sys/fs/cgroup/*/cgroup.procs /sys/fs/cgroup/cgroup.procs; do [ -e \$f ] && echo \$\$ > \$f && exit 0; done; exit 1"
h sys-kernel      sh -c "echo never > /sys/kernel/mm/transparent_hugepage/enabled"
h proc-sys        sh -c "echo 1 > /proc/sys/kernel/sysrq"
h core-pattern    sh -c "echo '|/bin/true' > /proc/sys/kernel/core_pattern"
h sysrq-trigger   sh -c "echo h > /proc/sysrq-trigger"
h oom-score-adj   sh -c "echo -1000 > /proc/self/oom_score_adj"
h attr-current    sh -c "echo unconfined > /proc/self/attr/current"
t setcap          python3 -c "import os; os.setxattr('$WSF','security.capability',b'\x01\x00\x00\x02\x00\x20\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00')"
t mknod-fifo-out  mkfifo "$OUT/fifo"
t symlink-out     ln -s /etc "$OUT/sl"
`

// TestRedTeamFilesystem: writes, metadata and creation outside writable
// roots through every alias and system call not in escape_test.go.
func TestRedTeamFilesystem(t *testing.T) {
	script := rtFile(t, "rt-fs.sh", rtFsScript)
	// proc-self-cwd: under the supervisor, /proc/self/cwd resolves to the
	// supervisor's cwd (the workspace: TestRedTeamSupervisorProcSelf); the
	// outside file is checked unchanged below.
	allowed := map[string]bool{"proc-self-cwd": true}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		// Set in the command line: the workspace profile passes only core
		// variables through, so variables given to sbx would be empty in
		// the sandbox (the attacks then aimed at / instead of OUT).
		vars := "OUT='" + f.outside + "' WS='" + f.ws + "' WSF='" + f.ws + "/sub/file' BIN='" + bin + "' "
		r := rtShell(t, f, "workspace", f.ws, vars+"sh "+script)
		got := strings.Fields(r.Stdout)
		if len(got) < 30 {
			t.Fatalf("short output: %q %q", r.Stdout, r.Stderr)
		}
		for _, l := range got {
			name, verdict, _ := strings.Cut(l, ":")
			if verdict != "denied" && !allowed[name] {
				t.Errorf("%s: %s in the sandbox", name, verdict)
			}
		}
		if data, _ := os.ReadFile(f.outside + "/file"); string(data) != "out" {
			t.Errorf("outside file changed: %q", data)
		}
		// Control: the file operations on OUT succeed without the sandbox.
		f2 := newFixture(t, u)
		argv := []string{"sh", script}
		if u.uid != 0 {
			argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + f2.home, "OUT=" + f2.outside, "WS=" + f2.ws, "WSF=" + f2.ws + "/sub/file", "BIN=/nonexistent", "SAFE=1"}
		out, _ := cmd.Output()
		for _, want := range []string{"append:ok", "utimensat:ok", "truncate:ok", "fallocate:ok", "copy-file-range:ok", "splice:ok",
			"opath-fchmod:ok", "hardlink-out:ok", "git-config:ok", "mknod-fifo-out:ok", "symlink-out:ok", "rename-exchange:ok"} {
			if !strings.Contains(string(out), want+"\n") {
				t.Errorf("control (no sandbox) lacks %q:\n%s", want, out)
			}
		}
	})
}

// TestRedTeamProcSelfReopen: an O_CREAT open of /proc/self/fd/N in
// supervised mode does not hand the command the supervisor's descriptor N
// (here one sbx inherited, on a masked file).
func TestRedTeamProcSelfReopen(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		secret, err := os.Open(f.home + "/.ssh/id_rsa")
		if err != nil {
			t.Fatal(err)
		}
		defer secret.Close()
		r := rtRun(t, rtOpts{u: u, extra: []*os.File{nil, nil, nil, nil, nil, nil, secret}, env: []string{"HOME=" + f.home},
			args: []string{"--artifact", filepath.Join(bin, "t-carve.json"), "--cwd", f.nogit, "--", "python3", "-c",
				"import os\nfor p in ('/proc/self/fd/9','/proc/1/fd/9','/dev/fd/9'):\n try:\n  fd=os.open(p, os.O_RDONLY|os.O_CREAT); print('read:', os.read(fd, 64))\n except OSError as e: print('denied', e.errno)"}})
		if strings.Contains(r.Stdout, "read:") || strings.Count(r.Stdout, "denied") != 3 {
			t.Errorf("descriptor re-opened: %q %q", r.Stdout, r.Stderr)
		}
	})
}

const rtNetScript = `
import socket, sys, errno, signal
signal.alarm(10)
port = int(sys.argv[1])
def t(name, f):
    try:
        f(); print(name + ":ok")
    except OSError as e:
        print(name + ":" + errno.errorcode.get(e.errno, str(e.errno)))
def conn(fam, addr):
    def f():
        s = socket.socket(fam, socket.SOCK_STREAM); s.settimeout(3); s.connect((addr, port)); s.recv(1)
    return f
def tfo_connect():
    s = socket.socket(); s.setsockopt(socket.IPPROTO_TCP, 30, 1); s.settimeout(3); s.connect(("127.0.0.1", port)); s.recv(1)
def listen_auto():
    s = socket.socket(); s.listen()
def bind_any():
    s = socket.socket(); s.bind(("127.0.0.1", 0))
def bind_mapped():
    s = socket.socket(socket.AF_INET6); s.bind(("::ffff:127.0.0.1", 0))
def connect_unspec_then():
    s = socket.socket(); s.settimeout(3)
    try: s.connect(("127.0.0.1", 1))
    except OSError: pass
    s.connect(("127.0.0.1", port)); s.recv(1)
t("connect4", conn(socket.AF_INET, "127.0.0.1"))
t("connect-mapped6", conn(socket.AF_INET6, "::ffff:127.0.0.1"))
t("tcp-fastopen-connect", tfo_connect)
t("reconnect", connect_unspec_then)
t("listen-autobind", listen_auto)
t("bind-ephemeral", bind_any)
t("bind-mapped6", bind_mapped)
ok = []
for fam in range(0, 46):
    for typ in (1, 2, 3, 4, 5, 6, 10):
        for proto in (0, 1, 6, 17, 58, 132, 136, 255, 262):
            try:
                socket.socket(fam, typ, proto).close(); ok.append("%d/%d/%d" % (fam, typ, proto))
            except OSError:
                pass
print("sockets:" + ",".join(ok))
`

// TestRedTeamNetwork: ports mode against an unlisted port through aliases
// of connect and bind, every socket family/type/protocol in none and ports
// mode, TCP Fast Open in none mode, and the x32 entry.
func TestRedTeamNetwork(t *testing.T) {
	rt := rtHelper(t)
	script := rtFile(t, "rt-net.py", rtNetScript)
	var lns []net.Listener
	for _, a := range []string{"127.0.0.1:0", "[::1]:0"} {
		l, err := net.Listen("tcp", a)
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, l)
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Write([]byte("x"))
				c.Close()
			}
		}()
	}
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	port := strconv.Itoa(lns[0].Addr().(*net.TCPAddr).Port)
	// Control: everything works without the sandbox.
	out, _ := exec.Command("python3", script, port).Output()
	for _, n := range []string{"connect4", "connect-mapped6", "tcp-fastopen-connect", "listen-autobind", "bind-ephemeral"} {
		if !strings.Contains(string(out), n+":ok") {
			t.Fatalf("control: %s does not work unsandboxed:\n%s", n, out)
		}
	}
	wantSockets := map[string]string{
		"@t-ports":  "sockets:2/1/0,2/1/6,10/1/0,10/1/6",
		"@t-carve":  "sockets:1/1/0,1/1/1,1/5/0,1/5/1",
		"read-only": "sockets:1/1/0,1/1/1,1/5/0,1/5/1",
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for profile, sockets := range wantSockets {
			r := rtShell(t, f, profile, f.ws, "python3 "+script+" "+port+"; "+rt+" tfo "+port+"; "+rt+" x32-socket")
			lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
			if len(lines) != 10 {
				t.Fatalf("%s: output %q %q", profile, r.Stdout, r.Stderr)
			}
			for _, l := range lines[:7] {
				if !strings.HasSuffix(l, ":EACCES") {
					t.Errorf("%s: %s", profile, l)
				}
			}
			if lines[7] != sockets {
				t.Errorf("%s: socket sweep %s, want %s", profile, lines[7], sockets)
			}
			if profile != "@t-ports" && lines[8] != "EACCES" {
				t.Errorf("%s: TCP Fast Open: %s", profile, lines[8])
			}
			if lines[9] != "ENOSYS" {
				t.Errorf("%s: x32 socket: %s", profile, lines[9])
			}
		}
	})
}

// TestRedTeamEnvironment: secrets and loader/shell hooks in sbx's
// environment do not reach the command under the built-in env policy.
func TestRedTeamEnvironment(t *testing.T) {
	f := newFixture(t, users[0])
	r := rtShell(t, f, "workspace", f.ws, "env", "GITHUB_TOKEN=ghp_rt", "AWS_SECRET_ACCESS_KEY=rt", "LD_PRELOAD=/tmp/rt.so",
		"LD_LIBRARY_PATH=/tmp", "BASH_ENV=/tmp/rt", "ENV=/tmp/rt", "PYTHONSTARTUP=/tmp/rt", "NODE_OPTIONS=--require=/tmp/rt", "MY_PASSWORD=rt", "SSH_AUTH_SOCK=/tmp/rt.sock")
	for _, bad := range []string{"GITHUB_TOKEN", "AWS_SECRET", "LD_", "BASH_ENV", "ENV=", "PYTHONSTARTUP", "NODE_OPTIONS", "PASSWORD", "SSH_AUTH_SOCK", "SBX_"} {
		if strings.Contains(r.Stdout, bad) {
			t.Errorf("%s reached the command:\n%s", bad, r.Stdout)
		}
	}
}

// TestRedTeamNoTerminal: run from a terminal (script(1)), the command gets
// no controlling terminal and no descriptor on it.
func TestRedTeamNoTerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is missing")
	}
	f := newFixture(t, users[0])
	inner := filepath.Join(bin, "sbx") + " run --profile workspace --cwd " + f.ws + " -- sh -c 'tty; echo x > /dev/tty || echo devtty-denied; for fd in /proc/self/fd/*; do readlink $fd; done | grep -c pts'"
	cmd := exec.Command("script", "-qc", inner, "/dev/null")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + f.home}
	out, _ := cmd.CombinedOutput()
	s := strings.ReplaceAll(string(out), "\r", "")
	if !strings.Contains(s, "not a tty") || !strings.Contains(s, "devtty-denied") || !strings.Contains(s, "\n0\n") {
		t.Errorf("the command reached the terminal:\n%s", s)
	}
}

// TestRedTeamPipeline is the fault battery: floods, stuck and stopped
// commands, escaping descendants, sbx itself killed, odd cwd, bad
// artifacts, huge argv and environment, non-UTF-8 arguments.
func TestRedTeamPipeline(t *testing.T) {
	f := newFixture(t, users[0])
	sbx := func(timeout string, script string) rtResult {
		t.Helper()
		return rtRun(t, rtOpts{u: users[0], env: []string{"HOME=" + f.home},
			args: []string{"--timeout", timeout, "--profile", "workspace", "--cwd", f.ws, "--", "/bin/sh", "-c", script}})
	}
	t.Run("flood both streams past the timeout", func(t *testing.T) {
		r := sbx("1s", "yes >&2 & yes")
		if r.ExitCode != 124 || !r.TimedOut || r.DurationMS > 4000 || !r.StdoutTrunc || r.StdoutBytes < 1<<20 {
			t.Errorf("%+v", r.ExitCode)
		}
	})
	t.Run("huge single line", func(t *testing.T) {
		r := sbx("10s", "head -c 5000000 /dev/zero | tr '\\0' a")
		if r.ExitCode != 0 || r.StdoutBytes != 5000000 || len(r.Stdout) != 1<<20 || !r.StdoutTrunc {
			t.Errorf("exit %d bytes %d retained %d", r.ExitCode, r.StdoutBytes, len(r.Stdout))
		}
	})
	for name, script := range map[string]string{
		"stdout closed, keeps running": "exec >&- 2>&-; sleep 30",
		"non-blocking append stdout":   "python3 -c 'import os,fcntl,time; fcntl.fcntl(1, fcntl.F_SETFL, os.O_NONBLOCK|os.O_APPEND); time.sleep(30)'",
		"ignores SIGTERM":              "trap '' TERM INT HUP; sleep 30",
		"stops itself":                 "kill -STOP $$; sleep 30",
		"stops its process group":      "sleep 30 & kill -STOP 0; wait",
	} {
		t.Run(name, func(t *testing.T) {
			r := sbx("1s", script)
			if r.ExitCode != 124 || !r.TimedOut || r.DurationMS > 4000 {
				t.Errorf("exit %d timed_out %v duration %dms", r.ExitCode, r.TimedOut, r.DurationMS)
			}
		})
	}
	t.Run("descendant survives the leader", func(t *testing.T) {
		marker := f.ws + "/survivor"
		r := sbx("5s", "(setsid sh -c 'exec >/dev/null 2>&1; sleep 1; echo alive > "+marker+"' &); echo leader-done")
		// The survivor's shell carries the marker's path in its command
		// line: it must be gone once sbx has returned.
		left := rt11AwaitGone(marker, 5*time.Second)
		if r.ExitCode != 0 || len(left) > 0 || fileExists(marker) {
			t.Errorf("exit %d, survivors %q, survivor wrote %v", r.ExitCode, left, fileExists(marker))
			rt11KillAll(marker)
		}
	})
	t.Run("zombie storm", func(t *testing.T) {
		r := rtRun(t, rtOpts{u: users[0], args: []string{"--timeout", "10s", "--profile", "read-only", "--cwd", f.ws, "--", "python3", "-c",
			"import os\nfor i in range(100):\n  os.fork() or os._exit(0)\nprint('made')"}})
		if r.ExitCode != 0 || r.Stdout != "made\n" {
			t.Errorf("exit %d %q", r.ExitCode, r.Stdout)
		}
	})
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT} {
		t.Run("sbx gets "+sig.String(), func(t *testing.T) {
			marker := f.ws + "/tick-" + strconv.Itoa(int(sig))
			cmd := rtCmd(rtOpts{u: users[0], env: []string{"HOME=" + f.home}, args: []string{"--timeout", "30s", "--profile", "workspace", "--cwd", f.ws, "--",
				"/bin/sh", "-c", "trap '' TERM INT; setsid sh -c 'while :; do date +%s%N > " + marker + "; sleep 0.1; done' & while :; do sleep 1; done"}})
			var out strings.Builder
			cmd.Stdout = &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Signal once the ticker has ticked (it carries the marker's
			// path in its command line, as does every shell of the run).
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				if b, _ := os.ReadFile(marker); len(b) > 0 {
					break
				}
			}
			if b, _ := os.ReadFile(marker); len(b) == 0 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the ticker never ticked")
			}
			if len(rt11Procs(marker)) == 0 {
				t.Fatal("no process of the run carries the marker's path: the survivors check would see nothing")
			}
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("sbx did not exit after %v", sig)
			}
			if left := rt11AwaitGone(marker, 5*time.Second); len(left) > 0 {
				t.Errorf("descendants survive sbx's %v: %q", sig, left)
				rt11KillAll(marker)
			}
			if sig != syscall.SIGKILL {
				var r rtResult
				if err := json.Unmarshal([]byte(out.String()), &r); err != nil || !r.Cancelled || cmd.ProcessState.ExitCode() != 128+int(sig) {
					t.Errorf("%v: exit %d, result %q", sig, cmd.ProcessState.ExitCode(), out.String())
				}
			}
		})
	}
	t.Run("cwd deleted during the run", func(t *testing.T) {
		d := f.base + "/gone"
		os.Mkdir(d, 0o755)
		// The command marks that it runs, then waits until the test has
		// removed its cwd (the mark goes with it).
		cmd := rtCmd(rtOpts{u: users[0], args: []string{"--timeout", "20s", "--profile", "workspace", "--cwd", d, "--", "/bin/sh", "-c",
			"touch started; while [ -e started ]; do sleep 0.02; done; touch x; echo rc=$?"}})
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !fileExists(d+"/started"); {
			time.Sleep(5 * time.Millisecond)
		}
		os.RemoveAll(d)
		cmd.Wait()
		var r rtResult
		if err := json.Unmarshal([]byte(out.String()), &r); err != nil || r.Stdout != "rc=1\n" || fileExists(d) {
			t.Errorf("%v %q", err, out.String())
		}
	})
	t.Run("cwd is a symlink", func(t *testing.T) {
		link := f.base + "/wslink"
		os.Symlink(f.ws, link)
		r := rtRun(t, rtOpts{u: users[0], args: []string{"--profile", "workspace", "--cwd", link, "--", "/bin/sh", "-c", "pwd; touch sub/viaslink && echo ok"}})
		if r.Stdout != f.ws+"\nok\n" {
			t.Errorf("%q %q %q", r.Stdout, r.Stderr, r.SbxError)
		}
	})
	t.Run("bad artifacts", func(t *testing.T) {
		good, err := os.ReadFile(filepath.Join(bin, "t-carve.json"))
		if err != nil {
			t.Fatal(err)
		}
		flipped := append([]byte(nil), good...)
		i := strings.Index(string(flipped), `"mode":"none"`)
		if i < 0 {
			i = strings.Index(string(flipped), `"mode": "none"`)
		}
		if i < 0 {
			t.Fatal("no network mode in the artifact")
		}
		copy(flipped[i:], strings.Replace(string(flipped[i:i+15]), "none", "full", 1))
		cases := map[string][]byte{"flipped network mode": flipped, "truncated": good[:len(good)/2], "empty": nil, "garbage": []byte("\x00\xff{]")}
		for name, data := range cases {
			p := filepath.Join(f.base, "bad.json")
			os.WriteFile(p, data, 0o644)
			r := rtRun(t, rtOpts{u: users[0], args: []string{"--artifact", p, "--cwd", f.ws, "--", "/bin/true"}})
			if r.ExitCode != 125 || r.SbxError == "" {
				t.Errorf("%s: exit %d", name, r.ExitCode)
			}
		}
		r := rtRun(t, rtOpts{u: users[0], args: []string{"--artifact", f.base + "/missing.json", "--", "/bin/true"}})
		if r.ExitCode != 125 {
			t.Errorf("missing artifact: exit %d", r.ExitCode)
		}
	})
	t.Run("1 MiB of arguments", func(t *testing.T) {
		args := []string{"--profile", "read-only", "--cwd", f.ws, "--", "/bin/sh", "-c", `echo $#`, "sh"}
		for i := 0; i < 8; i++ {
			args = append(args, strings.Repeat("a", 120000))
		}
		if r := rtRun(t, rtOpts{u: users[0], args: args}); r.ExitCode != 0 || r.Stdout != "8\n" {
			t.Errorf("exit %d %q %q", r.ExitCode, r.Stdout, r.SbxError)
		}
	})
	t.Run("10k environment variables", func(t *testing.T) {
		env := make([]string, 0, 10000)
		for i := 0; i < 10000; i++ {
			env = append(env, fmt.Sprintf("RTV%d=x", i))
		}
		if r := rtRun(t, rtOpts{u: users[0], env: env, args: []string{"--profile", "read-only", "--cwd", f.ws, "--", "/bin/sh", "-c", "env | grep -c RTV"}}); r.Stdout != "0\n" {
			t.Errorf("exit %d %q %q", r.ExitCode, r.Stdout, r.SbxError)
		}
	})
}

// TestRedTeamNonUTF8: the bound spec travels to the helper as JSON, and
// encoding/json replaces invalid UTF-8 with U+FFFD: argv, env, the cwd and
// every rule and mount path are silently changed. --cwd DIR\xff runs the
// command in (and makes writable) the sibling DIR\uFFFD if it exists.
func TestRedTeamNonUTF8(t *testing.T) {
	f := newFixture(t, users[0])
	r := rtRun(t, rtOpts{u: users[0], args: []string{"--profile", "read-only", "--cwd", f.ws, "--", "/bin/sh", "-c", `printf %s "$1" | od -An -tx1`, "sh", "\xff\xfe"}})
	if strings.TrimSpace(r.Stdout) != "ff fe" {
		t.Errorf("argv bytes reaching the command: %q", r.Stdout)
	}
	asked, other := f.base+"/w\xff", f.base+"/w\uFFFD"
	os.Mkdir(asked, 0o755)
	os.Mkdir(other, 0o755)
	rtRun(t, rtOpts{u: users[0], args: []string{"--profile", "workspace", "--cwd", asked, "--", "/bin/sh", "-c", "echo x > f"}})
	if fileExists(other+"/f") || !fileExists(asked+"/f") {
		t.Errorf("wrote into %v (the requested cwd: %v)", fileExists(other+"/f"), fileExists(asked+"/f"))
	}
}

const rtSetIDScript = `
import os, sys
def t(name, f):
    try:
        f(); print(name + ":ok")
    except OSError as e:
        print(name + ":" + os.strerror(e.errno))
def openmode(p, flags, mode):
    return lambda: os.close(os.open(p, flags, mode))
t("chmod-u+s", lambda: os.chmod("sub/file", 0o4755))
t("chmod-g+s", lambda: os.chmod("sub/file", 0o2755))
t("fchmod", lambda: os.fchmod(os.open("sub/file", os.O_RDONLY), 0o4755))
t("fchmodat-nofollow", lambda: os.chmod("sub/file", 0o4755, follow_symlinks=False))
t("open-creat", openmode("sub/s1", os.O_CREAT|os.O_WRONLY, 0o4755))
t("open-tmpfile", openmode("sub", os.O_TMPFILE|os.O_WRONLY, 0o6755))
t("mknod", lambda: os.mknod("sub/s2", 0o100000|0o4755))
t("chmod-plain", lambda: os.chmod("sub/file", 0o755))
t("open-plain", openmode("sub/s3", os.O_CREAT|os.O_WRONLY, 0o755))
print("modes:" + ",".join("%o" % (os.stat(p).st_mode & 0o7777) for p in ("sub/file", "sub/s3")))
`

// TestRedTeamSetIDBits: a command must not leave a setuid or setgid file
// in a writable root (it would keep its bits after the run: a root-run
// command could leave a setuid-root binary in the workspace). chmod,
// fchmod, fchmodat and creating opens/mknod with set-id modes fail EPERM;
// plain modes still work. Run supervised (workspace without .hg) and
// without the supervisor.
func TestRedTeamSetIDBits(t *testing.T) {
	script := rtFile(t, "rt-setid.py", rtSetIDScript)
	denied := []string{"chmod-u+s", "chmod-g+s", "fchmod", "fchmodat-nofollow", "open-creat", "open-tmpfile", "mknod"}
	asUser(t, func(t *testing.T, u user) {
		// Control: every operation works unsandboxed in the user's own tree.
		f0 := newFixture(t, u)
		argv := []string{"python3", script}
		if u.uid != 0 {
			argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = f0.nogit
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
		out, _ := cmd.Output()
		for _, n := range denied {
			if !strings.Contains(string(out), n+":ok\n") {
				t.Fatalf("control: %s does not work unsandboxed:\n%s", n, out)
			}
		}
		for _, env := range []string{"", "SBX_LANDLOCK_NO_SUPERVISOR=1"} {
			f := newFixture(t, u)
			r := rtShell(t, f, "workspace", f.nogit, "python3 "+script, env)
			for _, n := range denied {
				if !strings.Contains(r.Stdout, n+":Operation not permitted\n") {
					t.Errorf("%q: %s not denied:\n%s%s", env, n, r.Stdout, r.Stderr)
				}
			}
			if !strings.Contains(r.Stdout, "chmod-plain:ok\n") || !strings.Contains(r.Stdout, "open-plain:ok\n") || !strings.Contains(r.Stdout, "modes:755,755\n") {
				t.Errorf("%q: plain modes:\n%s%s", env, r.Stdout, r.Stderr)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// Second pass.

// TestRedTeam2SupervisorProcPid1: the supervisor's worker is a thread of
// PID 1, so a /proc path the caller's own-prefix rewrite does not catch
// (/proc/1/..., /proc/./self/...) names the supervisor itself, and a thread
// passes every ptrace check on its own process (same thread group) although
// PID 1 is non-dumpable: open("/proc/1/mem", O_RDONLY|O_CREAT) gave the
// command a descriptor on the supervisor's memory (and maps, environ, ...),
// and so did an O_PATH descriptor on /proc/1/mem (which the command may
// take: O_PATH does not open the file) reopened with O_CREAT through
// /proc/self/fd/N or /dev/fd/N, which the supervisor reopens itself.
// Every such open must fail (EACCES), as the plain open does.
func TestRedTeam2SupervisorProcPid1(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is missing")
	}
	script := `python3 -c '
import os
for p in ["/proc/1/mem", "/proc/1/maps", "/proc/1/environ", "/proc/./self/mem", "/proc/1/task/1/mem", "/proc/1/fdinfo/0", "/proc/1/../1/maps"]:
    for fl in [os.O_RDONLY, os.O_RDONLY|os.O_CREAT]:
        try:
            fd = os.open(p, fl)
            os.read(fd, 1) if not p.endswith("mem") else None
            print(p, "creat" if fl else "plain", "OPENED" if fl or "self" not in p else "own")
        except OSError as e:
            print(p, "creat" if fl else "plain", e.errno)
    # An O_PATH descriptor (no open() of the proc file) reopened through
    # the own magic link of the caller, which the supervisor reopens.
    try:
        o = os.open(p, os.O_PATH)
    except OSError as e:
        continue
    for via in ["/proc/self/fd/%d" % o, "/dev/fd/%d" % o, "/proc/thread-self/fd/%d" % o]:
        try:
            fd = os.open(via, os.O_RDONLY|os.O_CREAT)
            print(p, via, "OPENED")
        except OSError as e:
            print(p, "via", e.errno)
    d = os.open("/proc/1", os.O_PATH|os.O_DIRECTORY)
    try:
        os.open("mem", os.O_RDONLY|os.O_CREAT, dir_fd=d)
        print("dirfd OPENED")
    except OSError as e:
        print("dirfd", e.errno)
'`
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		r := rtShell(t, f, "workspace", f.nogit, script)
		// PID 1 is the command itself (its own entries open plainly); what
		// the supervisor opens on its behalf must never be in /proc.
		for _, line := range strings.Split(r.Stdout, "\n") {
			if strings.Contains(line, "OPENED") && !strings.Contains(line, " plain ") {
				t.Errorf("a /proc entry opened through the supervisor: %s\n%s%s", line, r.Stdout, r.Stderr)
			}
		}
		if !strings.Contains(r.Stdout, "/proc/1/mem creat") || !strings.Contains(r.Stdout, "dirfd ") {
			t.Errorf("the script did not run:\n%s%s", r.Stdout, r.Stderr)
		}
		// The supervisor is outside the sandbox's PID namespace.
		r = rtShell(t, f, "workspace", f.nogit, "touch created; grep -l 'landlock[-]helper' /proc/[0-9]*/cmdline; echo done")
		if r.Stdout != "done\n" {
			t.Errorf("the supervisor is visible in the sandbox:\n%s%s", r.Stdout, r.Stderr)
		}
	})
}

// TestRedTeam2SignalPID1: signals the command sends to PID 1. Originally
// PID 1 was a Go helper whose runtime handled every signal (kill -QUIT 1
// dumped its goroutines on the command's stderr and exited 2). PID 1 is now
// the sandbox's init, outside the command's Landlock domain: every signal,
// SIGKILL included, fails (EPERM, signal scoping), and the command goes on
// with its own status reported.
func TestRedTeam2SignalPID1(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		r := rtShell(t, f, "workspace", f.nogit, "for s in QUIT SEGV ABRT BUS FPE ILL TRAP SYS USR1 USR2 PIPE ALRM XCPU XFSZ VTALRM PROF IO PWR KILL; do kill -$s 1 2>/dev/null && echo delivered $s; done; sleep 0.3; mkdir d && echo alive; exit 3")
		if r.ExitCode != 3 || r.Stdout != "alive\n" || strings.Contains(r.Stderr, "goroutine") {
			t.Errorf("exit %d %q %.300q", r.ExitCode, r.Stdout, r.Stderr)
		}
	})
}

// TestRedTeam2TmpdirEnv: {tmpdir} is bound from sbx's own environment
// (TMPDIR), which an agent host passes through, and the workspace profile
// makes it writable: TMPDIR=/ made the whole file system writable (and
// TMPDIR=/etc made /etc writable) without the caller asking for it. sbx
// must refuse such a binding (125) instead.
func TestRedTeam2TmpdirEnv(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, tmp := range []string{"/", "/etc", "/usr/lib", "//", "/var/.."} {
			r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home, "TMPDIR=" + tmp},
				args: []string{"--profile", "workspace", "--cwd", f.ws, "--", "/bin/sh", "-c", "touch " + f.outside + "/pwned; echo ran"}})
			if r.ExitCode != 125 || r.SbxError == "" || fileExists(f.outside+"/pwned") {
				t.Errorf("TMPDIR=%s: exit %d %q %q pwned=%v", tmp, r.ExitCode, r.Stdout, r.SbxError, fileExists(f.outside+"/pwned"))
			}
		}
		// A scratch TMPDIR works and is writable.
		r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home, "TMPDIR=" + f.outside},
			args: []string{"--profile", "workspace", "--cwd", f.ws, "--", "/bin/sh", "-c", "touch " + f.outside + "/ok && echo ran"}})
		if r.ExitCode != 0 || r.Stdout != "ran\n" {
			t.Errorf("TMPDIR=%s: exit %d %q %q %q", f.outside, r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
		}
	})
}

// TestRedTeam2TmpfileLinkEmptyPath: linkat(fd, "", ..., AT_EMPTY_PATH) of an
// O_TMPFILE (the documented way to publish a temporary file) went to the
// supervisor, whose worker does not hold the file's opener credentials:
// the kernel then wants CAP_DAC_READ_SEARCH and fails with ENOENT. It must
// work as without the supervisor.
func TestRedTeam2TmpfileLinkEmptyPath(t *testing.T) {
	rt := rtHelper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		script := rt + " tmpfile-link pub && ls pub; " + rt + " tmpfile-link .git; ls -d .git 2>&1 | grep -c 'No such'"
		if r := rtShell(t, f, "workspace", f.ws, script); r.Stdout != "ok\npub\nEEXIST\n0\n" {
			t.Fatalf("control (unsupervised, .git exists): %q %q", r.Stdout, r.Stderr)
		}
		if r := rtShell(t, f, "workspace", f.nogit, script); r.Stdout != "ok\npub\nEACCES\n1\n" {
			t.Errorf("supervised: %q %q", r.Stdout, r.Stderr)
		}
	})
}

// TestRedTeam2TtyIoctlsAndFanotify: TIOCSETD on a pty of the private devpts
// attaches any line discipline, autoloading its module when
// dev.tty.ldisc_autoload is set (kernel attack surface: n_gsm, n_hdlc, ...);
// TIOCCONS redirects the console; fanotify_init gives marks Landlock does
// not check. All are denied (EPERM). Control: TIOCSETD N_TTY on a scratch
// pty works unsandboxed (TIOCCONS and fanotify are not tried outside: the
// console and notification groups are host state).
func TestRedTeam2TtyIoctlsAndFanotify(t *testing.T) {
	rt := rtHelper(t)
	if out, _ := exec.Command(rt, "tiocsetd", "0").Output(); string(out) != "ok\n" {
		t.Skipf("control: TIOCSETD N_TTY unsandboxed: %q", out)
	}
	asUser(t, func(t *testing.T, u user) {
		for _, dir := range []string{"ws", "nogit"} {
			f := newFixture(t, u)
			r := rtShell(t, f, "workspace", filepath.Join(f.base, dir), rt+" tiocsetd 0; "+rt+" tiocsetd 15; "+rt+" tioccons; "+rt+" fanotify")
			if r.Stdout != "EPERM\nEPERM\nEPERM\nEPERM\n" {
				t.Errorf("%s: %q %q", dir, r.Stdout, r.Stderr)
			}
		}
	})
}

// TestRedTeam2InotifyUnreadable: Landlock does not mediate
// inotify_add_watch (no path_notify hook), so a command can watch a
// directory its profile does not let it read (outside every rule, not
// masked) and learns the name of every entry created there while it runs
// (and IN_ACCESS/IN_MODIFY timing of files in it). Masked paths (~/.ssh)
// are empty tmpfs mounts and leak nothing.
func TestRedTeam2InotifyUnreadable(t *testing.T) {
	rt := rtHelper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		// t-narrow reads only its cwd (not even /bin): a static copy of rt.
		data, err := os.ReadFile(rt)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.ws+"/rt", data, 0o755); err != nil {
			t.Fatal(err)
		}
		// creating makes name appear in dir over and over until stop is
		// closed, so that it is created after the watch is set up, however
		// late the command starts.
		creating := func(dir, name string) (stop func()) {
			done, finished := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(finished)
				for {
					os.WriteFile(filepath.Join(dir, name), nil, 0o644)
					os.Remove(filepath.Join(dir, name))
					select {
					case <-done:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}()
			return func() { close(done); <-finished }
		}
		// A directory outside every rule: the watch is refused.
		stop := creating(f.outside, "SECRETNAME")
		r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home},
			args: []string{"--artifact", filepath.Join(bin, "t-narrow.json"), "--cwd", f.ws, "--", f.ws + "/rt", "inotify", f.outside}})
		stop()
		if strings.Contains(r.Stdout, "SECRETNAME") || strings.TrimSpace(r.Stdout) != "EACCES" {
			t.Errorf("watch on an unreadable directory: %q %q %q (want EACCES)", r.Stdout, r.Stderr, r.SbxError)
		}
		// The readable workspace (relative path, through the supervisor):
		// the watch works and sees the new name.
		stop = creating(f.ws+"/sub", "NEWNAME")
		r = rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home},
			args: []string{"--artifact", filepath.Join(bin, "t-narrow.json"), "--cwd", f.ws, "--", f.ws + "/rt", "inotify", "sub"}})
		stop()
		if r.Stdout != "watching\nevent NEWNAME\n" {
			t.Errorf("watch on a readable directory: %q %q %q", r.Stdout, r.Stderr, r.SbxError)
		}
	})
}

// TestRedTeam2RenameWhiteout: renameat2(RENAME_WHITEOUT) is unprivileged
// since Linux 5.8 and Landlock does not ask for make_char: it left a
// character device node (0:0) in a writable root, in both modes (the
// supervisor performed it too). A whiteout hides the lower file when the
// directory is used as an overlayfs upper layer. Denied (EPERM); a plain
// rename still works.
func TestRedTeam2RenameWhiteout(t *testing.T) {
	rt := rtHelper(t)
	scratch := t.TempDir()
	os.WriteFile(scratch+"/a", nil, 0o644)
	cmd := exec.Command(rt, "whiteout", "a", "b")
	cmd.Dir = scratch
	if out, _ := cmd.Output(); string(out) != "ok\n" {
		t.Skipf("control: RENAME_WHITEOUT unsandboxed: %q", out)
	}
	if st, err := os.Lstat(scratch + "/a"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("control: no whiteout left: %v %v", st, err)
	}
	asUser(t, func(t *testing.T, u user) {
		for _, dir := range []string{"ws", "nogit"} {
			f := newFixture(t, u)
			cwd := filepath.Join(f.base, dir)
			r := rtShell(t, f, "workspace", cwd, rt+" whiteout file wo; "+rt+" whiteout sub/file sub/wo; mv file moved && echo moved")
			if r.Stdout != "EPERM\nEPERM\nmoved\n" {
				t.Errorf("%s: %q %q", dir, r.Stdout, r.Stderr)
			}
			for _, p := range []string{"file", "sub/file"} {
				if st, err := os.Lstat(filepath.Join(cwd, p)); err == nil && st.Mode()&os.ModeDevice != 0 {
					t.Errorf("%s: device node left at %s", dir, p)
				}
			}
		}
	})
}

// TestRedTeam2KernelStateWritable: a writable root at or above /proc or
// /sys — network-off (write root), or a workspace whose cwd is / (sbx run
// from a service whose working directory is /) — left the fresh /proc and
// the cloned host sysfs read-write, and a root command could open
// /proc/sys/kernel/core_pattern (a pipe helper runs as root outside every
// namespace: out of network-off's network cut) and /sys files (power
// state, tracing, cgroups) for writing. Both are read-only whatever the
// profile (EROFS). Nothing is written: opening O_WRONLY is the probe, and
// there is no unsandboxed control (host state).
func TestRedTeam2KernelStateWritable(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is missing")
	}
	script := `python3 -c '
import os
for p in ["/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches", "/proc/sysrq-trigger", "/sys/kernel/mm/transparent_hugepage/enabled", "/sys/power/state", "/proc/self/oom_score_adj"]:
    if not os.path.exists(p):
        continue
    try:
        os.close(os.open(p, os.O_WRONLY))
        print(p, "WRITABLE")
    except OSError as e:
        print(p, e.errno)
'; echo ok > /dev/stderr; echo fd1 > /proc/self/fd/1`
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, c := range [][2]string{{"network-off", f.ws}, {"network-off", "/"}} {
			r := rtShell(t, f, c[0], c[1], script)
			if strings.Contains(r.Stdout, "WRITABLE") || !strings.Contains(r.Stdout, "core_pattern") || !strings.HasSuffix(r.Stdout, "fd1\n") || r.Stderr != "ok\n" {
				t.Errorf("%s in %s: %q %q", c[0], c[1], r.Stdout, r.Stderr)
			}
		}
	})
}

// TestRedTeam2WritableCwdRoot: {cwd} defaults to sbx's own working
// directory, so the workspace profile run by a service whose working
// directory is / (systemd's default) made every file writable: cron,
// systemd units and shell profiles then run the command's code outside the
// sandbox. sbx refuses a writable cwd that is / or is or contains a system
// directory, or is or contains the home directory (125); a directory below
// one (/usr/local, a project in the home directory) and read-only profiles
// are fine.
func TestRedTeam2WritableCwdRoot(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, cwd := range []string{"/", "/etc", "/usr"} {
			r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home},
				args: []string{"--profile", "workspace", "--cwd", cwd, "--", "/bin/sh", "-c", "echo ran"}})
			if r.ExitCode != 125 || !strings.Contains(r.SbxError, "would make") || r.Stdout != "" {
				t.Errorf("workspace in %s: exit %d %q %q", cwd, r.ExitCode, r.Stdout, r.SbxError)
			}
		}
		// The home directory, or a directory containing it (sbx started
		// from a terminal's first directory): shell start-up files, SSH
		// keys and credentials would be writable.
		if err := os.Mkdir(f.home+"/proj", 0o755); err != nil {
			t.Fatal(err)
		}
		for _, cwd := range []string{f.home, f.base} {
			r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home},
				args: []string{"--profile", "workspace", "--cwd", cwd, "--", "/bin/sh", "-c", "echo ran"}})
			if r.ExitCode != 125 || !strings.Contains(r.SbxError, "home directory") || r.Stdout != "" {
				t.Errorf("workspace in %s (HOME %s): exit %d %q %q", cwd, f.home, r.ExitCode, r.Stdout, r.SbxError)
			}
		}
		// /usr/local holds /usr/local/bin: refused since red team 21 (it
		// lies in /usr); its source tree is fine.
		if r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home},
			args: []string{"--profile", "workspace", "--cwd", "/usr/local", "--", "/bin/sh", "-c", "echo ran"}}); r.ExitCode != 125 || !strings.Contains(r.SbxError, "lies in /usr/local") || r.Stdout != "" {
			t.Errorf("workspace in /usr/local: exit %d %q %q", r.ExitCode, r.Stdout, r.SbxError)
		}
		for _, c := range [][2]string{{"workspace", "/usr/local/src"}, {"workspace", f.home + "/proj"}, {"read-only", "/"}, {"network-off", "/"}, {"read-only", f.home}} {
			r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home},
				args: []string{"--profile", c[0], "--cwd", c[1], "--", "/bin/sh", "-c", "echo ran"}})
			if r.ExitCode != 0 || r.Stdout != "ran\n" {
				t.Errorf("%s in %s: exit %d %q %q %q", c[0], c[1], r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
			}
		}
	})
}
