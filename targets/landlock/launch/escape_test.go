//go:build linux

package launch_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/compiler/target"
	"github.com/sbx-dev/sbx/targets/landlock"
	"github.com/sbx-dev/sbx/targets/landlock/launch"
)

// These tests run real commands under real Landlock, as root and as an
// unprivileged user (uid 65534 through setpriv), and assert the exact errno
// of each operation. Every denial case has a control (the same operation
// unsandboxed, or on an allowed path) so that it cannot pass for the wrong
// reason.

var bin string // directory with sbx, probe and test artifacts (world-readable)

// testProfiles are compiled into artifacts once.
const testProfiles = `
profile "t-carve" {
  filesystem {
    read    = [root, path(cwd, "ro")]
    write   = [cwd, path(cwd, "ro", "gen"), tmpdir]
    deny    = ["~/.ssh", path(cwd, "secret")]
    protect = [".git"]
  }
  network { mode = "none" }
}

profile "t-devrule" {
  filesystem {
    read    = [root, "/dev"]
    write   = [cwd, tmpdir]
    deny    = ["~/.ssh"]
    protect = [".git"]
  }
  network { mode = "none" }
}

profile "t-ports" {
  filesystem {
    read  = [root]
    write = [cwd]
  }
  network {
    mode        = "ports"
    connect_tcp = [PORTOK]
  }
}

profile "t-sock" {
  filesystem {
    read  = [root]
    write = [cwd]
    # Run with cwd = the artifacts' directory too: sbx refuses an
    # artifact its own profile makes writable.
    protect = ["t-sock.json"]
  }
  network {
    mode         = "none"
    unix_sockets = ["SOCKDIR/listed.sock"]
  }
}

profile "t-sockports" {
  filesystem {
    read  = [root]
    write = [cwd]
  }
  network {
    mode         = "ports"
    reason       = "test"
    connect_tcp  = [PORTOK]
    unix_sockets = ["SOCKDIR/listed.sock"]
  }
}

profile "t-bind" {
  filesystem {
    read  = [root]
    write = [cwd]
  }
  network {
    mode     = "ports"
    reason   = "test"
    bind_tcp = [PORTOK]
  }
}

profile "t-sockbind" {
  filesystem {
    read  = [root]
    write = [cwd]
  }
  network {
    mode         = "ports"
    reason       = "test"
    bind_tcp     = [PORTOK]
    unix_sockets = ["SOCKDIR/listed.sock"]
  }
}

profile "t-sockfull" {
  filesystem {
    read  = [root]
    write = [cwd]
  }
  network {
    mode         = "full"
    reason       = "test"
    unix_sockets = ["SOCKDIR/listed.sock"]
  }
}

profile "t-sockws" {
  filesystem {
    read    = [root]
    write   = [cwd]
    protect = [".git"]
  }
  network {
    mode         = "none"
    unix_sockets = [path(cwd, "app.sock")]
  }
}

profile "t-vendor" {
  filesystem {
    read    = ["/usr", "/lib", "/lib64", "/bin", path(cwd, "vendor")]
    write   = [cwd]
    protect = [".git"]
  }
  network { mode = "none" }
}

profile "t-narrow" {
  filesystem {
    read    = [cwd]
    write   = [cwd]
    protect = [".git"]
  }
  network { mode = "none" }
}

profile "t-nodev" {
  filesystem {
    read    = [root]
    write   = [cwd]
    deny    = ["/dev"]
    protect = [".git"]
  }
  network { mode = "none" }
}

profile "t-full" {
  filesystem {
    read  = [root]
    write = [cwd]
  }
  network {
    mode   = "full"
    reason = "test"
  }
}
`

func TestMain(m *testing.M) {
	if launch.KernelABI() < 6 {
		fmt.Println("skipping: these tests need Landlock ABI 6 or newer")
		os.Exit(0)
	}
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

var portOK, portDenied int

func setup(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("/var/tmp", "sbxbin")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin = dir
	for pkg, out := range map[string]string{"../../../cmd/sbx": "sbx", "./testdata/probe": "probe"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, out), pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	// Two free ports: one the ports profile allows, one it does not.
	for _, p := range []*int{&portOK, &portDenied} {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		*p = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	src := strings.NewReplacer("PORTOK", strconv.Itoa(portOK), "SOCKDIR", dir).Replace(testProfiles)
	// Links to the listed socket and to another one (TestEscape listens on
	// both), for the t-sock cases.
	for name, target := range map[string]string{"lnk-listed": "listed.sock", "lnk-other": "other.sock"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			return 0, err
		}
	}
	res, ds := compiler.CompileSources([]compiler.Source{{Name: "test.hcl", Data: []byte(src)}})
	if ds.HasErrors() {
		return 0, fmt.Errorf("compiling test profiles: %v", ds)
	}
	for _, p := range res.Profiles {
		a, ds := target.Build(p, "test", []target.Target{landlock.Target{}})
		if ds.HasErrors() {
			return 0, fmt.Errorf("artifact %s: %v", p.Name, ds)
		}
		data, err := a.Encode()
		if err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(dir, p.Name+".json"), data, 0o644); err != nil {
			return 0, err
		}
	}
	return m.Run(), nil
}

// user is who runs sbx.
type user struct {
	name string
	uid  int
}

var users = []user{{"root", 0}, {"nobody", 65534}}

// fixture is a tree owned by the user:
//
//	base/home/.ssh/id_rsa      "secret"   (denied in t-carve)
//	base/home/readme           "home"
//	base/ws/.git/config        "cfg"      (protected)
//	base/ws/sub/file           "data"
//	base/ws/ro/f, ro/gen/      read-only carve-out, writable reopened below
//	base/ws/secret             "s"        (denied in t-carve)
//	base/nogit/sub/            a workspace without .git
//	base/outside/file          "out"      (readable, not writable)
type fixture struct {
	u                              user
	base, home, ws, nogit, outside string
}

func newFixture(t *testing.T, u user) *fixture {
	t.Helper()
	base, err := os.MkdirTemp("/var/tmp", "sbxfx")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	f := &fixture{u: u, base: base, home: base + "/home", ws: base + "/ws", nogit: base + "/nogit", outside: base + "/outside"}
	files := map[string]string{
		"home/.ssh/id_rsa": "secret", "home/readme": "home",
		"ws/.git/config": "cfg", "ws/sub/file": "data", "ws/ro/f": "rofile", "ws/ro/gen/g": "gen", "ws/ro/gen/.git/HEAD": "ref", "ws/secret": "s",
		"ws/file": "top", "nogit/sub/file": "x", "nogit/file": "y", "outside/file": "out",
	}
	for p, c := range files {
		full := filepath.Join(base, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(base+"/home/.ssh", 0o700)
	os.Chmod(base, 0o755)
	filepath.Walk(base, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
	return f
}

// result is the part of sbx's JSON result the tests look at.
// abstractName is the abstract Unix socket the tests listen on, unique per
// test process so that concurrent runs of this package do not collide.
var abstractName = fmt.Sprintf("sbxtest-abstract-%d", os.Getpid())

type result struct {
	ExitCode int             `json:"exit_code"`
	Stdout   string          `json:"stdout"`
	Stderr   string          `json:"stderr"`
	SbxError string          `json:"sbx_error"`
	Signal   string          `json:"signal"`
	Sandbox  json.RawMessage `json:"sandbox"`
}

// sbx runs sbx with args as f's user, with HOME at the fixture's home.
func (f *fixture) sbx(t *testing.T, args ...string) result {
	t.Helper()
	argv := append([]string{filepath.Join(bin, "sbx")}, args...)
	if f.u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(f.u.uid), "--regid=" + strconv.Itoa(f.u.uid), "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"HOME=" + f.home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}
	cmd.Dir = f.ws
	out, err := cmd.Output()
	var r result
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("sbx %v: %v\n%s\n%v", args, jerr, out, err)
	}
	return r
}

// probe runs the probe tool under profile (a built-in name, or "@name" for
// a test artifact) with cwd, and returns its one-line verdict.
func (f *fixture) probe(t *testing.T, profile, cwd string, op ...string) string {
	t.Helper()
	args := []string{"run", "--json", "--cwd", cwd}
	if strings.HasPrefix(profile, "@") {
		args = append(args, "--artifact", filepath.Join(bin, profile[1:]+".json"))
	} else {
		args = append(args, "--profile", profile)
	}
	args = append(args, "--", filepath.Join(bin, "probe"))
	r := f.sbx(t, append(args, op...)...)
	if r.SbxError != "" {
		t.Fatalf("sbx failed: %s", r.SbxError)
	}
	return strings.TrimSpace(r.Stdout + r.Stderr)
}

// unsandboxed runs the probe directly as f's user (the control).
func (f *fixture) unsandboxed(t *testing.T, op ...string) string {
	t.Helper()
	argv := append([]string{filepath.Join(bin, "probe")}, op...)
	if f.u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(f.u.uid), "--regid=" + strconv.Itoa(f.u.uid), "--clear-groups"}, argv...)
	}
	if len(op) > 0 && op[0] == "mount" {
		// The control of a mount succeeds: in a private mount namespace of
		// its own, so that nothing stays mounted on the host.
		argv = append([]string{"unshare", "--mount", "--propagation", "private"}, argv...)
	}
	out, _ := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	return strings.TrimSpace(string(out))
}

type tcase struct {
	name    string
	profile string
	cwd     func(f *fixture) string
	op      func(f *fixture) []string
	want    string
	// control, if set, is the verdict of the same operation without the
	// sandbox (proves the operation would otherwise succeed).
	control string
	// only restricts the case to one user.
	only string
	// controlRoot runs the control only as root.
	controlRoot bool
	// int80 marks a case of the 32-bit entry: skipped where int 0x80
	// faults without a sandbox (rx14Int80Faults), so there is none.
	int80 bool
}

func ws(f *fixture) string    { return f.ws }
func nogit(f *fixture) string { return f.nogit }

// binDir is the test binaries' directory, next to the t-sock sockets.
func binDir(*fixture) string { return bin }

func ops(a ...string) func(*fixture) []string {
	return func(f *fixture) []string {
		out := make([]string, len(a))
		r := strings.NewReplacer("WS", f.ws, "HOME", f.home, "OUT", f.outside, "NOGIT", f.nogit, "BASE", f.base)
		for i, s := range a {
			out[i] = r.Replace(s)
		}
		return out
	}
}

func cases() []tcase {
	return []tcase{
		// Writable roots.
		{name: "write existing file in workspace", profile: "workspace", cwd: ws, op: ops("write", "WS/sub/file"), want: "ok"},
		{name: "create in workspace subdirectory", profile: "workspace", cwd: ws, op: ops("create", "WS/sub/new"), want: "ok"},
		{name: "mkdir in workspace subdirectory", profile: "workspace", cwd: ws, op: ops("mkdir", "WS/sub/d"), want: "ok"},
		{name: "rename within a workspace subdirectory", profile: "workspace", cwd: ws, op: ops("rename", "WS/sub/file", "WS/sub/file2"), want: "ok"},
		{name: "create at workspace top (supervised: .hg etc. missing)", profile: "workspace", cwd: ws, op: ops("create", "WS/newtop"), want: "ok"},
		{name: "create at top with every protected name present", profile: "@t-carve", cwd: ws, op: ops("create", "WS/newtop"), want: "ok"},
		{name: "write outside writable roots", profile: "workspace", cwd: ws, op: ops("write", "OUT/file"), want: "EROFS", control: "ok"},
		{name: "create outside writable roots", profile: "workspace", cwd: ws, op: ops("create", "OUT/new"), want: "EROFS", control: "ok"},
		{name: "truncate read-only file", profile: "workspace", cwd: ws, op: ops("truncate", "OUT/file"), want: "EROFS", control: "ok"},
		// .git inside the workspace.
		{name: ".git/config cannot be written", profile: "workspace", cwd: ws, op: ops("write", "WS/.git/config"), want: "EROFS", control: "ok"},
		{name: ".git cannot get new files", profile: "workspace", cwd: ws, op: ops("create", "WS/.git/hooks-x"), want: "EROFS", control: "ok"},
		{name: ".git cannot be renamed", profile: "workspace", cwd: ws, op: ops("rename", "WS/.git", "WS/g2"), want: "EBUSY", control: "ok"},
		{name: ".git cannot be renamed (t-carve, top creatable)", profile: "@t-carve", cwd: ws, op: ops("rename", "WS/.git", "WS/g2"), want: "EBUSY", control: "ok"},
		{name: ".git cannot be removed", profile: "@t-carve", cwd: ws, op: ops("unlink", "WS/.git/config"), want: "EROFS", control: "ok"},
		{name: ".git cannot be replaced by exchange", profile: "@t-carve", cwd: ws, op: ops("exchange", "WS/sub", "WS/.git"), want: "EBUSY", control: "ok"},
		{name: ".git cannot be replaced through a symlink", profile: "@t-carve", cwd: ws, op: ops("symlink", "WS/sub", "WS/.git"), want: "EEXIST"},
		{name: ".git truncate", profile: "@t-carve", cwd: ws, op: ops("truncate", "WS/.git/config"), want: "EROFS", control: "ok"},
		{name: ".git metadata", profile: "@t-carve", cwd: ws, op: ops("chmod", "WS/.git/config"), want: "EROFS", control: "ok"},
		{name: "missing .git cannot be created (mkdir)", profile: "@t-carve", cwd: nogit, op: ops("mkdir", "NOGIT/.git"), want: "EACCES", control: "ok"},
		{name: "missing .git cannot be created (symlink)", profile: "@t-carve", cwd: nogit, op: ops("symlink", "NOGIT/sub", "NOGIT/.git"), want: "EACCES", control: "ok"},
		{name: "missing .git cannot be created (rename)", profile: "@t-carve", cwd: nogit, op: ops("rename", "NOGIT/sub", "NOGIT/.git"), want: "EACCES", control: "ok"},
		{name: "existing subdirectory stays writable without .git", profile: "@t-carve", cwd: nogit, op: ops("create", "NOGIT/sub/new"), want: "ok"},
		{name: "existing top-level file stays writable without .git", profile: "@t-carve", cwd: nogit, op: ops("write", "NOGIT/file"), want: "ok"},
		// Missing protected names, supervised (workspace: .git .hg .svn .jj
		// .agents all missing in NOGIT).
		{name: "supervised: mkdir .git", profile: "workspace", cwd: nogit, op: ops("mkdir", "NOGIT/.git"), want: "EACCES", control: "ok"},
		{name: "supervised: mkdir .git/", profile: "workspace", cwd: nogit, op: ops("mkdir", "NOGIT/.git/"), want: "EACCES", control: "ok"},
		{name: "supervised: create .hg", profile: "workspace", cwd: nogit, op: ops("create", "NOGIT/.hg"), want: "EACCES", control: "ok"},
		{name: "supervised: open O_CREAT .git", profile: "workspace", cwd: nogit, op: ops("open-creat", "NOGIT/.git"), want: "EACCES", control: "ok"},
		{name: "supervised: relative open O_CREAT .git", profile: "workspace", cwd: nogit, op: ops("open-creat", ".git"), want: "EACCES"},
		{name: "supervised: symlink .jj", profile: "workspace", cwd: nogit, op: ops("symlink", "x", "NOGIT/.jj"), want: "EACCES", control: "ok"},
		{name: "supervised: rename to .git", profile: "workspace", cwd: nogit, op: ops("rename", "NOGIT/sub", "NOGIT/.git"), want: "EACCES", control: "ok"},
		{name: "supervised: hard link to .git", profile: "workspace", cwd: nogit, op: ops("link", "NOGIT/file", "NOGIT/.git"), want: "EACCES", control: "ok"},
		{name: "supervised: mkfifo .svn", profile: "workspace", cwd: nogit, op: ops("mknod-fifo", "NOGIT/.svn"), want: "EACCES", control: "ok"},
		{name: "supervised: bind a Unix socket on .agents", profile: "workspace", cwd: nogit, op: ops("bind-unix", "NOGIT/.agents"), want: "EACCES", control: "ok"},
		{name: "supervised: mkdir via another directory", profile: "workspace", cwd: nogit, op: ops("mkdir", "NOGIT/sub/../.git"), want: "EACCES", control: "ok"},
		{name: "supervised: mkdir via /proc/self/cwd", profile: "workspace", cwd: nogit, op: ops("mkdir", "/proc/self/cwd/.git"), want: "EACCES"},
		{name: "supervised: TOCTOU on the path buffer", profile: "workspace", cwd: nogit, op: ops("toctou", "NOGIT"), want: "ok"},
		{name: "supervised: mkdir at top", profile: "workspace", cwd: nogit, op: ops("mkdir", "NOGIT/newdir"), want: "ok"},
		{name: "supervised: create at top", profile: "workspace", cwd: nogit, op: ops("create", "NOGIT/newfile"), want: "ok"},
		{name: "supervised: open O_CREAT existing at top", profile: "workspace", cwd: nogit, op: ops("open-creat", "NOGIT/file"), want: "ok"},
		{name: "supervised: symlink at top", profile: "workspace", cwd: nogit, op: ops("symlink", "x", "NOGIT/l"), want: "ok"},
		{name: "supervised: rename at top", profile: "workspace", cwd: nogit, op: ops("rename", "NOGIT/file", "NOGIT/file2"), want: "ok"},
		{name: "supervised: hard link at top", profile: "workspace", cwd: nogit, op: ops("link", "NOGIT/file", "NOGIT/hl"), want: "ok"},
		{name: "supervised: mkfifo at top", profile: "workspace", cwd: nogit, op: ops("mknod-fifo", "NOGIT/fifo"), want: "ok"},
		{name: "supervised: bind a Unix socket at top", profile: "workspace", cwd: nogit, op: ops("bind-unix", "NOGIT/s.sock"), want: "ok"},
		{name: "supervised: .git below a subdirectory", profile: "workspace", cwd: nogit, op: ops("mkdir", "NOGIT/sub/.git"), want: "ok"},
		{name: "supervised: create outside writable roots", profile: "workspace", cwd: nogit, op: ops("create", "OUT/new"), want: "EROFS", control: "ok"},
		{name: "supervised: mknod char device", profile: "workspace", cwd: nogit, op: ops("mknod-char", "NOGIT/null"), want: "EPERM", only: "root", control: "ok"},
		{name: "supervised: rename out of the workspace", profile: "workspace", cwd: nogit, op: ops("rename", "NOGIT/file", "OUT/file2"), want: "EXDEV", control: "ok"},
		// Denied paths inside readable trees.
		{name: "denied file cannot be read", profile: "@t-carve", cwd: ws, op: ops("read", "HOME/.ssh/id_rsa"), want: "EACCES", control: "ok"},
		{name: "denied dir cannot be listed", profile: "@t-carve", cwd: ws, op: ops("list", "HOME/.ssh"), want: "EACCES", control: "ok"},
		{name: "readable sibling of a denied dir", profile: "@t-carve", cwd: ws, op: ops("read", "HOME/readme", "home"), want: "ok"},
		{name: "denied file in workspace", profile: "@t-carve", cwd: ws, op: ops("read", "WS/secret"), want: "EACCES", control: "ok"},
		{name: "denied file cannot be removed", profile: "@t-carve", cwd: ws, op: ops("unlink", "WS/secret"), want: "EBUSY", control: "ok"},
		{name: "hard link to a denied file", profile: "@t-carve", cwd: ws, op: ops("link", "HOME/.ssh/id_rsa", "WS/sub/stolen"), want: "EACCES", control: "ok"},
		{name: "hard link to a denied file in the workspace", profile: "@t-carve", cwd: ws, op: ops("link", "WS/secret", "WS/sub/stolen"), want: "EXDEV", control: "ok"},
		{name: "memfd exec stays confined", profile: "@t-carve", cwd: ws, op: ops("memfd-exec", "/bin/cat", "HOME/.ssh/id_rsa"), want: "x: BASE/home/.ssh/id_rsa: Permission denied"},
		// Carve-outs.
		{name: "read-only carve-out", profile: "@t-carve", cwd: ws, op: ops("write", "WS/ro/f"), want: "EROFS", control: "ok"},
		{name: "read-only carve-out create", profile: "@t-carve", cwd: ws, op: ops("create", "WS/ro/new"), want: "EROFS", control: "ok"},
		{name: "reopened writable descendant", profile: "@t-carve", cwd: ws, op: ops("create", "WS/ro/gen/new"), want: "ok"},
		{name: "reopened writable descendant write", profile: "@t-carve", cwd: ws, op: ops("write", "WS/ro/gen/g"), want: "ok"},
		{name: "rename across rule boundary (out of carve-out)", profile: "@t-carve", cwd: ws, op: ops("rename", "WS/ro/gen/g", "WS/sub/g"), want: "EXDEV", control: "ok"},
		{name: "rename into read-only", profile: "@t-carve", cwd: ws, op: ops("rename", "WS/sub/file", "WS/ro/file"), want: "EXDEV", control: "ok"},
		{name: "rename out of workspace", profile: "@t-carve", cwd: ws, op: ops("rename", "WS/sub/file", "OUT/file2"), want: "EXDEV", control: "ok"},
		{name: "link across rule boundary", profile: "@t-carve", cwd: ws, op: ops("link", "OUT/file", "WS/sub/l"), want: "EXDEV", control: "ok"},
		// Metadata outside writable roots.
		{name: "chmod outside", profile: "workspace", cwd: ws, op: ops("chmod", "OUT/file"), want: "EROFS", control: "ok"},
		{name: "chown outside", profile: "workspace", cwd: ws, op: ops("chown", "OUT/file"), want: "EROFS", control: "ok"},
		{name: "utime outside", profile: "workspace", cwd: ws, op: ops("utime", "OUT/file"), want: "EROFS", control: "ok"},
		{name: "setxattr outside", profile: "workspace", cwd: ws, op: ops("setxattr", "OUT/file"), want: "EROFS"},
		{name: "chmod inside workspace", profile: "workspace", cwd: ws, op: ops("chmod", "WS/sub/file"), want: "ok"},
		// Device nodes.
		{name: "mknod char device in workspace", profile: "workspace", cwd: ws, op: ops("mknod-char", "WS/sub/null"), want: "EPERM", only: "root", control: "ok"},
		{name: "mknod fifo in workspace", profile: "workspace", cwd: ws, op: ops("mknod-fifo", "WS/sub/fifo"), want: "ok"},
		{name: "raw block device", profile: "read-only", cwd: ws, op: ops("read", "/dev/vda"), want: "ENOENT", only: "root"},
		{name: "/dev/null writable", profile: "read-only", cwd: ws, op: ops("write", "/dev/null"), want: "ok"},
		// Network none.
		{name: "tcp connect 127.0.0.1", profile: "workspace", cwd: ws, op: ops("tcp-connect", "127.0.0.1:PORTOK"), want: "EACCES"},
		{name: "tcp connect ::1", profile: "workspace", cwd: ws, op: ops("tcp-connect", "[::1]:PORTOK"), want: "EACCES"},
		{name: "tcp bind", profile: "workspace", cwd: ws, op: ops("tcp-bind", "127.0.0.1:0"), want: "EACCES", control: "ok"},
		{name: "tcp listen unbound", profile: "workspace", cwd: ws, op: ops("tcp-listen", "127.0.0.1:0"), want: "EACCES", control: "ok"},
		{name: "mptcp", profile: "workspace", cwd: ws, op: ops("mptcp-connect", "127.0.0.1:PORTOK"), want: "EACCES"},
		{name: "udp 127.0.0.1", profile: "workspace", cwd: ws, op: ops("udp-send", "127.0.0.1:9"), want: "EACCES", control: "ok"},
		{name: "udp ::1", profile: "workspace", cwd: ws, op: ops("udp-send", "[::1]:9"), want: "EACCES", control: "ok"},
		{name: "udp via int 0x80", profile: "workspace", cwd: ws, op: ops("udp-int80"), want: "ENOSYS", control: "ok", int80: true},
		{name: "io_uring", profile: "workspace", cwd: ws, op: ops("io-uring"), want: "EPERM", control: "ok"},
		{name: "raw socket", profile: "workspace", cwd: ws, op: ops("raw"), want: "EACCES", only: "root", control: "ok"},
		{name: "icmp datagram socket", profile: "workspace", cwd: ws, op: ops("icmp-dgram"), want: "EACCES"},
		{name: "packet socket", profile: "workspace", cwd: ws, op: ops("packet"), want: "EACCES", only: "root", control: "ok"},
		{name: "netlink socket", profile: "workspace", cwd: ws, op: ops("netlink"), want: "EACCES", control: "ok"},
		{name: "sctp", profile: "workspace", cwd: ws, op: ops("sctp"), want: "EACCES"},
		{name: "abstract unix socket", profile: "workspace", cwd: ws, op: ops("abstract-connect", abstractName), want: "EACCES"},
		{name: "signal to outside process", profile: "workspace", cwd: ws, op: ops("kill", "PARENTPID"), want: "ESRCH"},
		// Network ports.
		{name: "ports: listed port", profile: "@t-ports", cwd: ws, op: ops("tcp-connect", "127.0.0.1:PORTOK"), want: "ok"},
		{name: "ports: listed port ::1", profile: "@t-ports", cwd: ws, op: ops("tcp-connect", "[::1]:PORTOK"), want: "ok"},
		{name: "ports: unlisted port", profile: "@t-ports", cwd: ws, op: ops("tcp-connect", "127.0.0.1:PORTNO"), want: "EACCES", control: "ok"},
		{name: "ports: unlisted port ::1", profile: "@t-ports", cwd: ws, op: ops("tcp-connect", "[::1]:PORTNO"), want: "EACCES", control: "ok"},
		{name: "ports: bind", profile: "@t-ports", cwd: ws, op: ops("tcp-bind", "127.0.0.1:PORTOK"), want: "EACCES"},
		{name: "ports: listen unbound", profile: "@t-ports", cwd: ws, op: ops("tcp-listen", "127.0.0.1:0"), want: "EACCES", control: "ok"},
		{name: "ports: mptcp to listed port", profile: "@t-ports", cwd: ws, op: ops("mptcp-connect", "127.0.0.1:PORTOK"), want: "EACCES"},
		{name: "ports: udp", profile: "@t-ports", cwd: ws, op: ops("udp-send", "127.0.0.1:PORTOK"), want: "EACCES", control: "ok"},
		{name: "ports: unix socket", profile: "@t-ports", cwd: ws, op: ops("unix-connect", "UNIXSOCK"), want: "EACCES", control: "ok"},
		{name: "ports: abstract", profile: "@t-ports", cwd: ws, op: ops("abstract-connect", abstractName), want: "EACCES", control: "ok"},
		// Listed Unix sockets (the supervisor connects them) and listen()
		// with bind ports (the supervisor refuses unbound sockets).
		{name: "listed unix socket", profile: "@t-sock", cwd: ws, op: ops("unix-connect", "BIN/listed.sock"), want: "ok"},
		{name: "listed unix socket, relative", profile: "@t-sock", cwd: binDir, op: ops("unix-connect", "listed.sock"), want: "ok"},
		{name: "listed unix socket through a symlink", profile: "@t-sock", cwd: ws, op: ops("unix-connect", "BIN/lnk-listed"), want: "ok"},
		{name: "listed unix socket through /proc/self/cwd", profile: "@t-sock", cwd: binDir, op: ops("unix-connect", "/proc/self/cwd/listed.sock"), want: "ok"},
		{name: "unlisted unix socket next to a listed one", profile: "@t-sock", cwd: ws, op: ops("unix-connect", "BIN/other.sock"), want: "EACCES", control: "ok"},
		{name: "unlisted unix socket through a symlink", profile: "@t-sock", cwd: ws, op: ops("unix-connect", "BIN/lnk-other"), want: "EACCES", control: "ok"},
		{name: "unlisted unix socket elsewhere", profile: "@t-sock", cwd: ws, op: ops("unix-connect", "UNIXSOCK"), want: "EACCES", control: "ok"},
		{name: "listed sockets: abstract", profile: "@t-sock", cwd: ws, op: ops("abstract-connect", abstractName), want: "EACCES"},
		{name: "listed sockets: tcp", profile: "@t-sock", cwd: ws, op: ops("tcp-connect", "127.0.0.1:PORTOK"), want: "EACCES"},
		{name: "ports+listed: listed unix socket", profile: "@t-sockports", cwd: ws, op: ops("unix-connect", "BIN/listed.sock"), want: "ok"},
		{name: "ports+listed: unlisted unix socket", profile: "@t-sockports", cwd: ws, op: ops("unix-connect", "BIN/other.sock"), want: "EACCES", control: "ok"},
		{name: "ports+listed: tcp to the listed port", profile: "@t-sockports", cwd: ws, op: ops("tcp-connect", "127.0.0.1:PORTOK"), want: "ok"},
		{name: "ports+listed: tcp to another port", profile: "@t-sockports", cwd: ws, op: ops("tcp-connect", "127.0.0.1:PORTNO"), want: "EACCES", control: "ok"},
		{name: "ports+listed: abstract bind (host namespace)", profile: "@t-sockports", cwd: ws, op: ops("bind-unix", "@sbx-escape-abstract-bind"), want: "EACCES", control: "ok"},
		{name: "ports+listed: autobind (host namespace)", profile: "@t-sockports", cwd: ws, op: ops("bind-unix", ""), want: "EACCES", control: "ok"},
		{name: "ports+listed: pathname bind in the workspace", profile: "@t-sockports", cwd: ws, op: ops("bind-unix", "WS/my.sock"), want: "ok"},
		{name: "none: abstract bind (host namespace)", profile: "workspace", cwd: ws, op: ops("bind-unix", "@sbx-escape-abstract-bind"), want: "EACCES", control: "ok"},
		{name: "none: autobind (host namespace)", profile: "read-only", cwd: ws, op: ops("bind-unix", ""), want: "EACCES", control: "ok"},
		{name: "none: pathname bind in the workspace", profile: "workspace", cwd: ws, op: ops("bind-unix", "WS/my.sock"), want: "ok"},
		{name: "bind ports: listen unbound", profile: "@t-bind", cwd: ws, op: ops("tcp-listen", "127.0.0.1:0"), want: "EACCES", control: "ok"},
		{name: "bind ports: listen unbound ::1", profile: "@t-bind", cwd: ws, op: ops("tcp-listen", "[::1]:0"), want: "EACCES", control: "ok"},
		{name: "bind ports: listen on the listed port", profile: "@t-bind", cwd: ws, op: ops("tcp-bind-listen", "127.0.0.2:PORTOK"), want: "ok"},
		{name: "bind ports: bind an unlisted port", profile: "@t-bind", cwd: ws, op: ops("tcp-bind-listen", "127.0.0.2:PORTNO"), want: "EACCES", control: "ok"},
		// listen() on a Unix socket: nothing in the sandbox could connect
		// to it, so it would serve only host processes (in place of a host
		// service's socket in a shared writable directory): refused in
		// every mode, by the filter (none; ports without bind ports) or the
		// supervisor (bind ports; full with listed sockets).
		{name: "none: unix listen", profile: "workspace", cwd: ws, op: ops("unix-listen", "WS/l.sock"), want: "EACCES", control: "ok"},
		{name: "none+listed: unix listen", profile: "@t-sock", cwd: ws, op: ops("unix-listen", "WS/l.sock"), want: "EACCES", control: "ok"},
		{name: "ports+listed: unix listen", profile: "@t-sockports", cwd: ws, op: ops("unix-listen", "WS/l.sock"), want: "EACCES", control: "ok"},
		{name: "bind ports+listed: unix listen", profile: "@t-sockbind", cwd: ws, op: ops("unix-listen", "WS/l.sock"), want: "EACCES", control: "ok"},
		{name: "bind ports+listed: listen on the listed port", profile: "@t-sockbind", cwd: ws, op: ops("tcp-bind-listen", "127.0.0.2:PORTOK"), want: "ok"},
		{name: "bind ports+listed: listen unbound", profile: "@t-sockbind", cwd: ws, op: ops("tcp-listen", "127.0.0.1:0"), want: "EACCES", control: "ok"},
		{name: "full+listed: unix listen", profile: "@t-sockfull", cwd: ws, op: ops("unix-listen", "WS/l.sock"), want: "EACCES", control: "ok"},
		{name: "full+listed: listen unbound (full: any port)", profile: "@t-sockfull", cwd: ws, op: ops("tcp-listen", "127.0.0.1:0"), want: "ok"},
		{name: "full+listed: listen on a bound port", profile: "@t-sockfull", cwd: ws, op: ops("tcp-bind-listen", "127.0.0.2:PORTNO"), want: "ok"},
		{name: "full+listed: listed unix socket", profile: "@t-sockfull", cwd: ws, op: ops("unix-connect", "BIN/listed.sock"), want: "ok"},
		// An abstract name bound on a socketpair end (always allowed) is
		// the host's in every mode without a network namespace of its own.
		{name: "none: socketpair bound to an abstract name", profile: "workspace", cwd: ws, op: ops("socketpair-bind", "@sbx-escape-sp-bind"), want: "EACCES", control: "ok"},
		{name: "ports: socketpair bound to an abstract name", profile: "@t-ports", cwd: ws, op: ops("socketpair-bind", "@sbx-escape-sp-bind"), want: "EACCES", control: "ok"},
		{name: "bind ports: socketpair bound to an abstract name", profile: "@t-bind", cwd: ws, op: ops("socketpair-bind", "@sbx-escape-sp-bind"), want: "EACCES", control: "ok"},
		{name: "full: socketpair bound to an abstract name", profile: "@t-full", cwd: ws, op: ops("socketpair-bind", "@sbx-escape-sp-bind"), want: "EACCES", control: "ok"},
		{name: "full: socketpair autobound", profile: "@t-full", cwd: ws, op: ops("socketpair-bind", ""), want: "EACCES", control: "ok"},
		{name: "full: tcp listen unbound", profile: "@t-full", cwd: ws, op: ops("tcp-listen", "127.0.0.1:0"), want: "ok"},
		{name: "full: unlisted unix socket", profile: "@t-full", cwd: ws, op: ops("unix-connect", "UNIXSOCK"), want: "EACCES", control: "ok"},
		{name: "full: tcp", profile: "@t-full", cwd: ws, op: ops("tcp-connect", "127.0.0.1:PORTOK"), want: "ok"},
		{name: "none: unix socket", profile: "workspace", cwd: ws, op: ops("unix-connect", "UNIXSOCK"), want: "EACCES", control: "ok"},
		{name: "unix datagram socket", profile: "workspace", cwd: ws, op: ops("unix-dgram"), want: "EACCES", control: "ok"},
		{name: "unix datagram socketpair", profile: "workspace", cwd: ws, op: ops("socketpair-dgram"), want: "EACCES", control: "ok"},
		{name: "unix stream socketpair", profile: "workspace", cwd: ws, op: ops("socketpair"), want: "ok"},
		// Processes, IPC, keyrings, descriptors.
		{name: "other processes' /proc", profile: "workspace", cwd: ws, op: ops("proc-environ", "PARENTPID"), want: "ENOENT", control: "ok", controlRoot: true},
		{name: "/proc/1/mem (own, /proc hides the init)", profile: "workspace", cwd: ws, op: ops("proc-mem", "1"), want: "ENOENT"}, // the fresh /proc (read-only) hides the init: hidepid=invisible (red team 26)
		{name: "outside process /proc/PID/mem", profile: "workspace", cwd: ws, op: ops("proc-mem", "PARENTPID"), want: "ENOENT"},
		{name: "outside process /proc/PID/root", profile: "workspace", cwd: ws, op: ops("proc-root", "PARENTPID"), want: "ENOENT"},
		{name: "SysV shm of the host", profile: "workspace", cwd: ws, op: ops("shmget", "SHMKEY"), want: "ENOENT", control: "ok"},
		{name: "user keyring add", profile: "workspace", cwd: ws, op: ops("add-key"), want: "EPERM", control: "ok"},
		{name: "user keyring read", profile: "workspace", cwd: ws, op: ops("keyctl-read"), want: "EPERM", control: "ok"},
		{name: "ptrace", profile: "workspace", cwd: ws, op: ops("ptrace", "1"), want: "EPERM"},
		{name: "unshare user namespace", profile: "workspace", cwd: ws, op: ops("unshare-user"), want: "EPERM"},
		{name: "clone new user namespace", profile: "workspace", cwd: ws, op: ops("clone-newuser"), want: "EPERM", control: "ok"},
		{name: "chroot", profile: "workspace", cwd: ws, op: ops("chroot"), want: "EPERM", only: "root", control: "ok"},
		{name: "mount", profile: "workspace", cwd: ws, op: ops("mount", "WS/sub"), want: "EPERM", only: "root", control: "ok"},
		{name: "umount a carve-out", profile: "workspace", cwd: ws, op: ops("umount", "WS/.git"), want: "EPERM"},
		{name: "name_to_handle_at", profile: "workspace", cwd: ws, op: ops("open-by-handle", "WS/sub/file"), want: "EPERM", control: "ok"},
		{name: "TIOCSTI", profile: "workspace", cwd: ws, op: ops("tiocsti"), want: "EPERM"},
		{name: "personality ADDR_NO_RANDOMIZE", profile: "workspace", cwd: ws, op: ops("personality"), want: "EPERM", control: "ok"},
		{name: "bpf", profile: "workspace", cwd: ws, op: ops("bpf"), want: "EPERM"},
		{name: "userfaultfd", profile: "workspace", cwd: ws, op: ops("userfaultfd"), want: "EPERM"},
		{name: "setuid(0) as root without capabilities", profile: "workspace", cwd: ws, op: ops("setuid-root"), want: "ok", only: "root"},
		{name: "no core dumps", profile: "workspace", cwd: ws, op: ops("core-limit"), want: "EPERM"},
	}
}

func TestEscapes(t *testing.T) {
	// A listener on each loopback address for the port tests.
	var lns []net.Listener
	for _, a := range []string{"127.0.0.1", "[::1]"} {
		for _, p := range []int{portOK, portDenied} {
			l, err := net.Listen("tcp", a+":"+strconv.Itoa(p))
			if err != nil {
				t.Fatalf("listen %s:%d: %v", a, p, err)
			}
			lns = append(lns, l)
			go acceptAndClose(l)
		}
	}
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	// An abstract and a pathname Unix socket outside the sandbox.
	abs, err := net.Listen("unix", "@"+abstractName)
	if err != nil {
		t.Fatal(err)
	}
	defer abs.Close()
	sockDir, _ := os.MkdirTemp("/var/tmp", "sbxsock")
	os.Chmod(sockDir, 0o755)
	defer os.RemoveAll(sockDir)
	sockPath := sockDir + "/s.sock"
	us, err := net.Listen("unix", sockPath)
	if err != nil {
		t.Fatal(err)
	}
	defer us.Close()
	os.Chmod(sockPath, 0o777)
	// The socket t-sock lists, and one it does not, next to each other.
	for _, name := range []string{"listed.sock", "other.sock"} {
		l, err := net.Listen("unix", filepath.Join(bin, name))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		os.Chmod(filepath.Join(bin, name), 0o777)
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	// A SysV shared memory segment of the host.
	shmKey := 0x5b0c0000 + os.Getpid()%0xffff
	shmID, err := unix.SysvShmGet(shmKey, 4096, unix.IPC_CREAT|0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.SysvShmCtl(shmID, unix.IPC_RMID, nil)

	repl := strings.NewReplacer("PORTOK", strconv.Itoa(portOK), "PORTNO", strconv.Itoa(portDenied),
		"UNIXSOCK", sockPath, "PARENTPID", strconv.Itoa(os.Getpid()), "SHMKEY", strconv.Itoa(shmKey), "BIN", bin)
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			if u.uid != 0 {
				if _, err := exec.LookPath("setpriv"); err != nil {
					t.Skip("setpriv is missing: cannot run as an unprivileged user")
				}
			}
			for _, c := range cases() {
				if c.only != "" && c.only != u.name {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					if c.int80 && rx14Int80Faults(t) {
						t.Skip("int 0x80 faults on this machine without a sandbox (no 32-bit entry: a PVM guest, say): there is nothing to escape through")
					}
					f := newFixture(t, u)
					op := c.op(f)
					for i := range op {
						op[i] = repl.Replace(op[i])
					}
					want := strings.NewReplacer("BASE", f.base).Replace(c.want)
					got := f.probe(t, c.profile, c.cwd(f), op...)
					if got != want {
						t.Errorf("sbx run --profile %s -- probe %s: got %q, want %q", c.profile, strings.Join(op, " "), got, want)
					}
					if c.control != "" && (!c.controlRoot || u.uid == 0) {
						f2 := newFixture(t, u)
						op2 := c.op(f2)
						for i := range op2 {
							op2[i] = repl.Replace(op2[i])
						}
						if got := f2.unsandboxed(t, op2...); got != c.control {
							t.Errorf("control (no sandbox) probe %s: got %q, want %q", strings.Join(op2, " "), got, c.control)
						}
					}
				})
			}
		})
	}
}

// TestNoCgoNoPsx checks that sbx depends neither on psx (cgo when
// CGO_ENABLED=1) nor on go-landlock.
func TestNoCgoNoPsx(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../../cmd/sbx").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "psx") || strings.Contains(dep, "go-landlock") || dep == "runtime/cgo" || dep == "os/user" {
			t.Errorf("cmd/sbx depends on %s", dep)
		}
	}
}

// TestSbxNotRestricted checks that sbx itself stays unrestricted: the
// sandbox applies to the helper's thread only, and the command runs as PID
// 1 of its namespace with no capabilities and no_new_privs.
func TestSbxNotRestricted(t *testing.T) {
	f := newFixture(t, users[0])
	// The command is the child of the sandbox's init (PID 1), with or
	// without the supervisor (workspace: .hg etc. are missing; the
	// supervisor runs outside the sandbox's PID namespace).
	for profile, pid := range map[string]string{"read-only": "pid=other", "workspace": "pid=other"} {
		r := f.sbx(t, "run", "--json", "--profile", profile, "--cwd", f.ws, "--", "/bin/sh", "-c", "grep -E '^(NoNewPrivs|Cap[A-Za-z]+|Seccomp):' /proc/self/status; [ $$ = 1 ] && echo pid=1 || echo pid=other")
		want := "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\n" + pid + "\n"
		if r.Stdout != want {
			t.Errorf("%s: sandboxed status:\n%s\nwant:\n%s", profile, r.Stdout, want)
		}
	}
	var st unix.Stat_t
	_ = st
	b, _ := os.ReadFile("/proc/self/status")
	if !strings.Contains(string(b), "NoNewPrivs:\t0") {
		t.Errorf("the test process (sbx's parent) got no_new_privs")
	}
}

var _ = syscall.Getpid

// TestInheritedDescriptors passes descriptors 3 and 4 to sbx and checks the
// command cannot use them (close_range in the helper, os/exec in sbx).
func TestInheritedDescriptors(t *testing.T) {
	f := newFixture(t, users[0])
	file, err := os.Open(f.outside + "/file")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	cmd := exec.Command(filepath.Join(bin, "sbx"), "run", "--json", "--cwd", f.ws, "--", "/bin/sh", "-c", "cat <&3; echo x >&4; ls /proc/self/fd")
	cmd.ExtraFiles = []*os.File{file, w}
	cmd.Env = []string{"HOME=" + f.home, "PATH=/usr/bin:/bin"}
	out, _ := cmd.Output()
	var res result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.Stdout != "0\n1\n2\n3\n" { // 3 is ls's own directory handle
		t.Errorf("descriptors in the sandbox: %q", res.Stdout)
	}
	if !strings.Contains(res.Stderr, "3: Bad file descriptor") || !strings.Contains(res.Stderr, "4: Bad file descriptor") {
		t.Errorf("stderr: %q", res.Stderr)
	}
}

// TestABICap exercises the refusal and degraded paths on this kernel.
func TestABICap(t *testing.T) {
	f := newFixture(t, users[0])
	// Strict: the workspace profile needs ABI 6.
	r := f.sbx(t, "run", "--json", "--landlock-abi-cap", "5", "--cwd", f.ws, "--", "/bin/true")
	if r.ExitCode != 125 || !strings.Contains(r.SbxError, "needs Landlock ABI 6 (Linux 6.12) for scope_signal") ||
		!strings.Contains(r.SbxError, "capped to 5") || !strings.Contains(r.SbxError, "builtin:workspace.hcl") {
		t.Errorf("strict refusal: exit %d, %q", r.ExitCode, r.SbxError)
	}
	r = f.sbx(t, "run", "--json", "--landlock-abi-cap", "2", "--cwd", f.ws, "--", "/bin/true")
	for _, want := range []string{"read / (builtin:workspace.hcl:10:14) needs Landlock ABI 3 (Linux 6.2) for truncate", "network none", "ioctl_dev"} {
		if !strings.Contains(r.SbxError, want) {
			t.Errorf("refusal at ABI 2 does not name %q: %s", want, r.SbxError)
		}
	}
	// Degraded: runs, and the result lists what is not enforced.
	for _, cap := range []string{"1", "3"} {
		r = f.sbx(t, "run", "--json", "--allow-degraded", "--landlock-abi-cap", cap, "--cwd", f.ws, "--",
			filepath.Join(bin, "probe"), "write", f.outside+"/file")
		if r.SbxError != "" || strings.TrimSpace(r.Stdout) != "EROFS" {
			t.Errorf("degraded ABI %s: %q %q", cap, r.Stdout, r.SbxError)
		}
		var rep landlock.Report
		if err := json.Unmarshal(r.Sandbox, &rep); err != nil {
			t.Fatal(err)
		}
		if !rep.Degraded || rep.ABI != atoi(cap) || len(rep.NotEnforced) == 0 {
			t.Errorf("degraded ABI %s report: degraded=%v abi=%d not_enforced=%v", cap, rep.Degraded, rep.ABI, rep.NotEnforced)
		}
		lost := false
		for _, n := range rep.NotEnforced {
			lost = lost || (n.Feature == "ioctl_dev" && n.Lost)
		}
		if !lost {
			t.Errorf("degraded ABI %s does not list ioctl_dev as lost: %+v", cap, rep.NotEnforced)
		}
	}
	// Degraded at ABI 1: denied reads still fail (masks), writes outside fail.
	r = f.sbx(t, "run", "--json", "--allow-degraded", "--landlock-abi-cap", "1", "--artifact", filepath.Join(bin, "t-carve.json"),
		"--cwd", f.ws, "--", filepath.Join(bin, "probe"), "read", f.home+"/.ssh/id_rsa")
	if strings.TrimSpace(r.Stdout) != "EACCES" {
		t.Errorf("degraded ABI 1 denied read: %q %q", r.Stdout, r.SbxError)
	}
	// Ports at ABI 3: TCP is denied altogether (restrictive fallback).
	r = f.sbx(t, "run", "--json", "--allow-degraded", "--landlock-abi-cap", "3", "--artifact", filepath.Join(bin, "t-ports.json"),
		"--cwd", f.ws, "--", filepath.Join(bin, "probe"), "tcp-connect", "127.0.0.1:"+strconv.Itoa(portOK))
	if strings.TrimSpace(r.Stdout) != "EACCES" {
		t.Errorf("degraded ports at ABI 3: %q %q", r.Stdout, r.SbxError)
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// TestDryRun checks that the bound plan is visible without running.
func TestDryRun(t *testing.T) {
	f := newFixture(t, users[0])
	cmd := exec.Command(filepath.Join(bin, "sbx"), "run", "--dry-run", "--artifact", filepath.Join(bin, "t-carve.json"), "--cwd", f.ws, "--", "/bin/true")
	cmd.Env = []string{"HOME=" + f.home, "PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"read-only       " + f.ws + "/.git", "mask            " + f.home + "/.ssh", "read-write      " + f.ws + "/ro/gen",
		"read-only       " + f.ws + "/ro", "supplementary", "mount-namespace mask", "socket(): only AF_UNIX"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
}

// shell runs a shell script under profile with extra environment for sbx.
func (f *fixture) shell(t *testing.T, env []string, profile, cwd, script string) result {
	t.Helper()
	argv := []string{filepath.Join(bin, "sbx"), "run", "--json", "--profile", profile, "--cwd", cwd, "--", "/bin/sh", "-c", script}
	if f.u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(f.u.uid), "--regid=" + strconv.Itoa(f.u.uid), "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"HOME=" + f.home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}, env...)
	cmd.Dir = cwd
	out, err := cmd.Output()
	var r result
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("sbx: %v\n%s\n%v", jerr, out, err)
	}
	if r.SbxError != "" {
		t.Fatalf("sbx failed: %s", r.SbxError)
	}
	return r
}

// TestSupervisor covers what the probe alone cannot: shell tools, symlinks
// planted by the command, modes and owners, exit statuses, the fallback.
func TestSupervisor(t *testing.T) {
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			f := newFixture(t, u)
			id := strconv.Itoa(os.Getpid())
			script := strings.NewReplacer("ID", id, "UID", strconv.Itoa(u.uid), "PROBEPATH", filepath.Join(bin, "probe")).Replace(`
P=PROBEPATH
umask 027
t=$(mktemp) && stat -c "mktemp %a %u" "$t" && rm "$t"
d=$(mktemp -d) && stat -c "mktemp-d %a %u" "$d" && rmdir "$d"
mkdir d && touch f && ln -s f l && ln f h && mv h h2 && mkfifo p && stat -c "%n %a %u" d f p h2
mkdir .git 2>/dev/null || echo "mkdir .git denied"
touch .git 2>/dev/null || echo "touch .git denied"
ln -s x .git 2>/dev/null || echo "ln -s .git denied"
mv d .git 2>/dev/null || echo "mv .git denied"
ln f .git 2>/dev/null || echo "ln .git denied"
mkfifo .git 2>/dev/null || echo "mkfifo .git denied"
python3 -c "import os; os.open('.git', os.O_CREAT|os.O_WRONLY)" 2>/dev/null || echo "python .git denied"
(cd sub && mkdir ../.git 2>/dev/null) || echo "cd sub mkdir ../.git denied"
ln -s "$PWD" /tmp/sbxws-ID-UID && { mkdir /tmp/sbxws-ID-UID/.git 2>/dev/null || echo "mkdir via symlink denied"; rm /tmp/sbxws-ID-UID; }
ln -s .git dangling && { $P open-creat dangling; echo "x" 2>/dev/null > dangling || echo "redirect through dangling denied"; }
mkdir /tmp/sbxd-ID-UID && rmdir /tmp/sbxd-ID-UID && echo "/tmp mkdir ok"
ls -A | tr '\n' ' '; echo
exit 7`)
			r := f.shell(t, nil, "workspace", f.nogit, script)
			want := "mktemp 600 UID\nmktemp-d 700 UID\nd 750 UID\nf 640 UID\np 640 UID\nh2 640 UID\n" +
				"mkdir .git denied\ntouch .git denied\nln -s .git denied\nmv .git denied\nln .git denied\nmkfifo .git denied\n" +
				"python .git denied\ncd sub mkdir ../.git denied\nmkdir via symlink denied\nEACCES\nredirect through dangling denied\n/tmp mkdir ok\n" +
				"d dangling f file h2 l p sub \n"
			want = strings.ReplaceAll(want, "UID", strconv.Itoa(u.uid))
			if r.Stdout != want || r.ExitCode != 7 {
				t.Errorf("exit %d, stdout:\n%s\nwant:\n%s\nstderr: %s", r.ExitCode, r.Stdout, want, r.Stderr)
			}
			// Exit statuses as seen by the executor.
			// The command is not PID 1 (the init is): a signal it sends
			// itself kills it, and the init reports the signal.
			if r := f.shell(t, nil, "workspace", f.nogit, "kill -TERM $$; echo survived"); r.ExitCode != 143 || r.Signal != "SIGTERM" || r.Stdout != "" {
				t.Errorf("kill -TERM $$: exit %d, signal %q, stdout %q; want 143, SIGTERM", r.ExitCode, r.Signal, r.Stdout)
			}
			if r := f.shell(t, nil, "workspace", f.nogit, "sh -c 'kill -TERM $$'"); r.ExitCode != 143 {
				t.Errorf("child killed by SIGTERM: exit %d; want 143", r.ExitCode)
			}
			if r := f.shell(t, nil, "workspace", f.nogit, "exit 3"); r.ExitCode != 3 || r.Signal != "" {
				t.Errorf("exit 3: exit %d, signal %q", r.ExitCode, r.Signal)
			}
			if r := f.shell(t, nil, "workspace", f.nogit, "exec /nonexistent"); r.ExitCode != 127 {
				t.Errorf("exec /nonexistent: exit %d", r.ExitCode)
			}
			// The restrictive fallback without the supervisor.
			r = f.shell(t, []string{"SBX_LANDLOCK_NO_SUPERVISOR=1"}, "workspace", f.nogit, "touch top 2>/dev/null || echo denied; touch sub/x && echo ok; echo pid=$$")
			if r.Stdout != "denied\nok\npid=2\n" {
				t.Errorf("fallback: %q %q", r.Stdout, r.Stderr)
			}
		})
	}
}

// acceptAndClose accepts and closes connections on l until it is closed,
// so that a connect to it succeeds.
func acceptAndClose(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}
