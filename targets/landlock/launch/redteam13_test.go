//go:build linux && amd64

package launch_test

// Red team 13: escape classes the earlier batteries do not cover, through
// the real sbx binary (built by TestMain), as root and as uid 65534, with
// the C helper testdata/redteam13/rt13.c:
//
//   - ports profiles with bind ports (the supervisor serves listen()): a
//     TCP socket that was never bound but whose getsockname() still shows
//     a port: after a connect() that failed (ECONNREFUSED) or was
//     dissolved with connect(AF_UNSPEC), the kernel released the
//     auto-bound port (inet_num 0) but kept it as the socket's source port
//     (inet_sport), so listen() picks a fresh ephemeral port that Landlock
//     never checked; IPv4 and IPv6; the example profile
//     testdata/profiles/ports.hcl (web-dev) as compiled by sbc and a
//     profile of the test's own. A host process connects to the port the
//     command listens on. It was a real hole, fixed: the supervisor binds
//     the reported address on its confined worker before it listens;
//   - the supervisor's path handling for the guarded names, by routes the
//     earlier batteries (red team 3's /proc aliases) do not take: trailing
//     slashes and dots at the protected name (mkdir, mknod, open, symlink,
//     bind, rename, link), rename with RENAME_NOREPLACE and
//     RENAME_EXCHANGE on either side, rename of a directory onto the name
//     through directory descriptors, directory descriptors that are O_PATH
//     descriptors of the cwd's parent and of / (outside every writable
//     root), an O_RDONLY one, fchdir into a subdirectory and "..", symlink
//     targets the worker follows itself for O_CREAT (a trailing slash,
//     "..", absolute, a chain, a symlinked directory, the cwd's parent,
//     /proc/self/fd/N and /dev/fd/N/..), /proc/self/fd/N/.. and
//     /proc/thread-self/fd/N/.. of O_PATH descriptors below, beside and
//     above the cwd, O_TMPFILE linked in through AT_EMPTY_PATH,
//     /proc/self/fd/N, /dev/fd/N and the parent's descriptor, paths near
//     and over PATH_MAX; in the workspace profile and in t-narrow;
//   - metadata system calls Landlock does not mediate, the new ones
//     included: file_setattr (Linux 6.17), setxattrat and removexattrat
//     (6.13) by path and by AT_EMPTY_PATH on O_PATH descriptors, and the
//     FS_IOC_SETFLAGS / FS_IOC_FSSETXATTR ioctls, on a read-only carve-out,
//     a protected .git, a mask, a readable file outside the writable roots
//     and /dev/null;
//   - memfd_create + execveat(AT_EMPTY_PATH): the program run from a memfd
//     keeps the sandbox (Landlock, seccomp, no_new_privs);
//   - listmount (6.8, other namespaces by id since 6.11) of the host's
//     mount namespace from inside;
//   - bind() spellings that ask for an ephemeral port (AF_UNSPEC on IPv4
//     and IPv6 sockets, IP_BIND_ADDRESS_NO_PORT, v4-mapped any, a short
//     address), then listen(), in a ports profile with a bind port;
//   - the example profile testdata/profiles/carveouts.hcl (monorepo: a
//     read-only carve-out, a writable folder reopened in it, a read-only
//     file inside that) with everything present, the read-only file
//     missing and the carve-out missing: renames and replacement of the
//     mount points, hard links and symlinks out of the writable folder,
//     "..", metadata, creation of the missing names.
//
//	go test -count=1 -run 'TestRedTeam13[^F]' ./targets/landlock/launch
//

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/compiler/target"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// rx13Helper builds testdata/redteam13/rt13.c into bin once.
func rx13Helper(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("testdata/redteam13/rt13.c")
	if err != nil {
		t.Fatal(err)
	}
	return cHelper(t, "rx13", string(src))
}

var rx13ArtMu sync.Mutex

// rx13Artifact compiles HCL sources (with the built-in profiles in scope)
// and writes the artifact of profile name to bin/file (world-readable).
func rx13Artifact(t *testing.T, file, name string, srcs ...compiler.Source) string {
	t.Helper()
	rx13ArtMu.Lock()
	defer rx13ArtMu.Unlock()
	res, ds := compiler.CompileSources(srcs)
	if ds.HasErrors() {
		t.Fatalf("compiling %s: %v", name, ds)
	}
	p := res.Profile(name)
	if p == nil {
		t.Fatalf("no profile %s in %v", name, res.Names())
	}
	a, ds := target.Build(p, "test", []target.Target{landlock.Target{}})
	if ds.HasErrors() {
		t.Fatalf("artifact %s: %v", name, ds)
	}
	data, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(bin, file)
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// rx13FreePort is a TCP port nothing listens on at the moment.
func rx13FreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// rx13Fields parses "k=v" lines (and words) into a map; the first value
// of a key wins.
func rx13Fields(s string) map[string]string {
	m := map[string]string{}
	for _, w := range strings.Fields(s) {
		if k, v, ok := strings.Cut(w, "="); ok {
			if _, seen := m[k]; !seen {
				m[k] = v
			}
		}
	}
	return m
}

// rx13Lines is the "k=v" lines of s in order.
func rx13Lines(s string) [][2]string {
	var out [][2]string
	for _, line := range strings.Split(s, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && !strings.Contains(k, " ") {
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// 1. listen() on a socket that only looks bound.

// rx13ListenResult is one run of "rt13 listen".
type rx13ListenResult struct {
	fields   map[string]string
	hostPort int    // the port the command reported through the FIFO
	hostGot  string // "" or the error of the host's connection
	raw      rtResult
}

// rx13Listen runs "rt13 listen FAMILY HOW PORT FIFO" under art in f.ws.
// The test's goroutine reads the port the command listens on from a FIFO
// in the workspace (a sentinel, no polling) and connects to it from the
// host, as any host process could, sending one line the command prints as
// accepted=LINE.
func rx13Listen(t *testing.T, f *fixture, art, family, how string, port int) rx13ListenResult {
	t.Helper()
	rt := rx13Helper(t)
	fifo := filepath.Join(f.ws, "rt13.fifo")
	os.Remove(fifo)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(fifo, f.u.uid, f.u.uid); err != nil {
		t.Fatal(err)
	}
	// O_RDWR: the open does not wait for the writer, and the test can
	// write the end sentinel itself if the command never does.
	ff, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ff.Close()
	var res rx13ListenResult
	done := make(chan struct{})
	go func() {
		defer close(done)
		line, err := bufio.NewReader(ff).ReadString('\n')
		if err != nil {
			res.hostGot = err.Error()
			return
		}
		res.hostPort, _ = strconv.Atoi(strings.TrimSpace(line))
		if res.hostPort <= 0 {
			return
		}
		c, err := net.DialTimeout("tcp4", "127.0.0.1:"+strconv.Itoa(res.hostPort), 10*time.Second)
		if err != nil {
			res.hostGot = err.Error()
			return
		}
		defer c.Close()
		fmt.Fprintf(c, "from-host\n")
		res.hostGot = "connected"
	}()
	args := []string{"--timeout", "30s", "--artifact", art, "--cwd", f.ws, "--", rt, "listen", family, how, strconv.Itoa(port), "rt13.fifo"}
	res.raw = rtRun(t, rtOpts{u: f.u, args: args, env: []string{"HOME=" + f.home}, timeout: 60 * time.Second})
	// The end sentinel, for a command that failed before writing its port
	// (the reader takes the first line only).
	ff.WriteString("0\n")
	<-done
	if res.raw.SbxError != "" {
		t.Fatalf("sbx %v: %s", args, res.raw.SbxError)
	}
	res.fields = rx13Fields(res.raw.Stdout)
	return res
}

const rx13ListenProfile = `
profile "rt13-listen" {
  filesystem {
    read  = [root]
    write = [cwd]
  }
  network {
    mode        = "ports"
    reason      = "test"
    connect_tcp = [CREFUSED, COPEN]
    bind_tcp    = [BPORT]
  }
}
`

// TestRedTeam13ListenStalePort: with bind ports, listen() goes to the
// supervisor, which refuses an internet socket whose getsockname() port is
// 0 ("never bound: listen would pick an ephemeral port Landlock does not
// check") and otherwise listens itself. But getsockname() reports the
// socket's source port (inet_sport), while listen() uses the bound port
// (inet_num): a connect() to an allowed connect port auto-binds an
// ephemeral port and sets both; when the connection fails (ECONNREFUSED)
// or is dissolved (connect(AF_UNSPEC)), tcp_set_state(TCP_CLOSE) releases
// the port (inet_put_port: inet_num = 0) and leaves inet_sport. The
// supervisor sees a port, listen() calls inet_csk_get_port(sk, 0) and
// picks a new ephemeral port: the command listens on a port the profile
// does not list, reachable from the host (no network namespace in ports
// mode). Controls (always run): a fresh socket is refused (EACCES), a
// socket bound to the profile's bind port listens and a host connection
// arrives (accepted=from-host). The attack must fail the same way as the
// fresh socket.
//
// Reproduction (root, any kernel with Landlock ABI 4+):
//
//	go run ./cmd/sbc compile -o /tmp/web-dev.json testdata/profiles/ports.hcl
//	mkdir /tmp/ws && cd /tmp/ws
//	sbx run --artifact /tmp/web-dev.json -- python3 -c '
//	import socket; s = socket.socket()
//	try: s.connect(("127.0.0.1", 443))   # allowed connect port, closed here
//	except OSError as e: print(e)
//	s.listen(); print("listening on", s.getsockname()); s.accept()'
//	# from another terminal: nc 127.0.0.1 PORT  (not 3000 or 9229)
func TestRedTeam13ListenStalePort(t *testing.T) {
	rx13Helper(t)
	cRefused, cOpen, bPort := rx13FreePort(t), rx13FreePort(t), rx13FreePort(t)
	for cOpen == cRefused || bPort == cRefused || bPort == cOpen {
		cOpen, bPort = rx13FreePort(t), rx13FreePort(t)
	}
	src := strings.NewReplacer("CREFUSED", strconv.Itoa(cRefused), "COPEN", strconv.Itoa(cOpen), "BPORT", strconv.Itoa(bPort)).Replace(rx13ListenProfile)
	own := rx13Artifact(t, "rx13-listen.json", "rt13-listen", compiler.Source{Name: "rt13.hcl", Data: []byte(src)})
	// The example profile as shipped: connect 443, 5432, 6379, 8000-8100;
	// bind 3000, 9229.
	exSrc, err := os.ReadFile("../../../testdata/profiles/ports.hcl")
	if err != nil {
		t.Fatal(err)
	}
	webdev := rx13Artifact(t, "rx13-web-dev.json", "web-dev", compiler.Source{Name: "ports.hcl", Data: exSrc})
	// Something listens on cOpen for the AF_UNSPEC variant.
	l, err := net.Listen("tcp", ":"+strconv.Itoa(cOpen))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go acceptAndClose(l)
	// web-dev: 443 is an allowed connect port; if something listens there
	// on this machine, the AF_UNSPEC variant works on it as well.
	webHow := "refused"
	if c, err := net.DialTimeout("tcp4", "127.0.0.1:443", time.Second); err == nil {
		c.Close()
		webHow = "unspec"
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		t.Run("control fresh socket", func(t *testing.T) {
			r := rx13Listen(t, f, own, "4", "fresh", cRefused)
			if r.fields["listen"] != "EACCES" || r.fields["accepted"] != "" {
				t.Errorf("listen on a never-bound socket: %v (%q)", r.fields, r.raw.Stderr)
			}
		})
		for _, fam := range []string{"4", "6"} {
			t.Run("control bind port IPv"+fam, func(t *testing.T) {
				r := rx13Listen(t, f, own, fam, "bind", bPort)
				if r.fields["bind"] != "ok" || r.fields["listen"] != "ok" || r.fields["after"] != strconv.Itoa(bPort) || r.fields["accepted"] != "from-host" {
					t.Errorf("listen on the bind port %d: %v host=%q (%q)", bPort, r.fields, r.hostGot, r.raw.Stderr)
				}
			})
		}
		attacks := []struct {
			name, art, fam, how string
			port                int
		}{
			{"own profile IPv4 refused connect", own, "4", "refused", cRefused},
			{"own profile IPv4 AF_UNSPEC", own, "4", "unspec", cOpen},
			{"own profile IPv6 refused connect", own, "6", "refused", cRefused},
			{"example web-dev IPv4 " + webHow + " 443", webdev, "4", webHow, 443},
		}
		for _, a := range attacks {
			t.Run(a.name, func(t *testing.T) {
				// Fixed: the supervisor binds the reported address on its
				// confined worker before it listens (EINVAL: really bound).
				r := rx13Listen(t, f, a.art, a.fam, a.how, a.port)
				if r.fields["connect"] == "" || r.fields["connect"] == "EACCES" {
					t.Fatalf("the connect to the allowed port %d did not reach the kernel: %v (%q)", a.port, r.fields, r.raw.Stderr)
				}
				if r.fields["listen"] != "EACCES" {
					t.Errorf("listen() on a socket whose port was released: %s on port %s (profile's bind ports: %d / 3000, 9229), getsockname before: %s",
						r.fields["listen"], r.fields["after"], bPort, r.fields["before"])
				}
				if r.fields["accepted"] != "" {
					t.Errorf("a host process connected to the command's unlisted port %d (host: %s, command: accepted=%s)", r.hostPort, r.hostGot, r.fields["accepted"])
				}
			})
		}
	})
}

// ---------------------------------------------------------------------------
// 2. Guarded names: routes the supervisor must resolve like the kernel.

// TestRedTeam13GuardRoutes: in a workspace without .git (guarded by the
// supervisor, directly below the writable root), every route of "rt13
// guard" that creates .git without the sandbox (the control, in a copy of
// the tree as the same user) must fail inside, and nothing named .git may
// appear; the routes' ordinary names (ctl, ctl2, ctl3) are created inside
// as outside. Profiles: workspace (reads /) and t-narrow (reads only the
// workspace: the cwd's parent and / are not readable, O_PATH descriptors
// of them still open).
func TestRedTeam13GuardRoutes(t *testing.T) {
	rt := rx13Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		mk := func(dir string) {
			t.Helper()
			for _, d := range []string{dir, dir + "/sub"} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			os.WriteFile(dir+"/file", []byte("x"), 0o644)
			for _, p := range []string{dir, dir + "/sub", dir + "/file"} {
				os.Chown(p, u.uid, u.uid)
			}
		}
		ctlDir := f.base + "/ctl"
		mk(ctlDir)
		cmd := rt12As(u, nil, rt, "guard")
		cmd.Dir = ctlDir
		out, _ := cmd.CombinedOutput()
		creating := map[string]bool{}
		for _, kv := range rx13Lines(string(out)) {
			if strings.HasSuffix(kv[1], ":CREATED") {
				creating[kv[0]] = true
			}
		}
		if len(creating) < 40 || rx13Fields(string(out))["ctl3"] != "ok" {
			t.Fatalf("control: only %d routes create .git without the sandbox:\n%s", len(creating), out)
		}
		for _, profile := range []string{"workspace", "@t-narrow"} {
			t.Run(profile, func(t *testing.T) {
				dir := filepath.Join(f.base, "g-"+strings.TrimPrefix(profile, "@"))
				mk(dir)
				// A copy in the workspace: t-narrow reads nothing else.
				rt12Copy(t, rt, dir+"/rx13", 0o755, u.uid)
				args := []string{"--timeout", "30s", "--cwd", dir}
				if strings.HasPrefix(profile, "@") {
					args = append(args, "--artifact", filepath.Join(bin, profile[1:]+".json"))
				} else {
					args = append(args, "--profile", profile)
				}
				r := rtRun(t, rtOpts{u: u, args: append(args, "--", dir+"/rx13", "guard"), env: []string{"HOME=" + f.home}, timeout: 60 * time.Second})
				if r.SbxError != "" {
					t.Fatalf("sbx: %s", r.SbxError)
				}
				if strings.Contains(r.Stdout, "exists-after-previous") || strings.Contains(r.Stdout, ":CREATED") {
					t.Errorf("a route created .git:\n%s", r.Stdout)
				}
				got := map[string]string{}
				for _, kv := range rx13Lines(r.Stdout) {
					got[kv[0]] = kv[1]
				}
				for name := range creating {
					v, ok := got[name]
					switch {
					case strings.HasPrefix(name, "control-"):
						if v != "ok" {
							t.Errorf("control %s: %q", name, v)
						}
					case !ok:
						t.Errorf("route %s did not run (stdout %q, stderr %q)", name, r.Stdout, r.Stderr)
					case v == "ok" || strings.HasPrefix(v, "ok:"):
						t.Errorf("route %s succeeded: %s", name, v)
					}
				}
				if g := rx13Fields(r.Stdout); g["ctl"] != "ok" || g["ctl2"] != "ok" || g["ctl3"] != "ok" {
					t.Errorf("the ordinary names were not created inside: %q", r.Stdout)
				}
				if _, err := os.Lstat(dir + "/.git"); err == nil {
					t.Errorf("%s/.git exists on the host after the run", dir)
				}
				if _, err := os.Lstat(f.base + "/.git"); err == nil {
					t.Errorf("%s/.git exists on the host after the run", f.base)
				}
			})
		}
	})
}

// ---------------------------------------------------------------------------
// 3. Metadata system calls Landlock does not mediate.

// TestRedTeam13MetadataSyscalls: file_setattr, setxattrat and
// removexattrat (by path and AT_EMPTY_PATH on an O_PATH descriptor) and the
// FS_IOC_SETFLAGS / FS_IOC_FSSETXATTR ioctls change inode metadata without
// any Landlock right; only the view's read-only mounts stop them. Under
// t-carve, on the read-only carve-out ws/ro/f, the protected ws/.git/config,
// the masked ws/secret, the readable outside/file and /dev/null: every
// change fails. Controls: on the writable ws/file the xattr calls work
// inside; outside the sandbox the user changes outside/file.
func TestRedTeam13MetadataSyscalls(t *testing.T) {
	rt := rx13Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		targets := []string{f.ws + "/file", f.ws + "/ro/f", f.ws + "/.git/config", f.ws + "/secret", f.outside + "/file", "/dev/null"}
		ctl := rx13Fields(rt12Out(u, nil, rt, "meta", f.outside+"/file"))
		if ctl["p1.setxattrat"] != "ok" || ctl["p1.removexattrat"] != "ok" || ctl["p1.setattr"] != "ok" {
			t.Fatalf("control: metadata changes on %s/file outside the sandbox: %v", f.outside, ctl)
		}
		r := rt11Run(t, f, nil, []string{"--artifact", filepath.Join(bin, "t-carve.json"), "--cwd", f.ws}, append([]string{rt, "meta"}, targets...)...)
		got := rx13Fields(r.Stdout)
		if got["p1.setxattrat"] != "ok" || got["p1.removexattrat"] != "ok" || got["p1.setattr"] != "ok" {
			t.Errorf("control: xattrs on the writable %s/file inside: %v", f.ws, got)
		}
		for k, v := range got {
			i, op, _ := strings.Cut(k, ".")
			if i == "p1" || strings.HasSuffix(op, "getattr") || op == "open" {
				continue
			}
			n, _ := strconv.Atoi(strings.TrimPrefix(i, "p"))
			if v == "ok" {
				t.Errorf("%s on %s succeeded inside the sandbox", op, targets[n-1])
			}
		}
		if len(got) < 6*5 {
			t.Errorf("too few results: %q %q", r.Stdout, r.Stderr)
		}
		// Nothing changed on the host.
		for _, p := range targets[1:5] {
			b := make([]byte, 8)
			if n, err := syscall.Getxattr(p, "user.rt13", b); err == nil {
				t.Errorf("%s has user.rt13=%q after the run", p, b[:n])
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 4. memfd_create + execveat.

// TestRedTeam13MemfdExec: a program copied into a memfd and run with
// execveat(AT_EMPTY_PATH) (no path, so no Landlock execute check of a
// rule's path) inherits the sandbox: it cannot read the denied
// ~/.ssh/id_rsa (t-carve) or create the guarded .git, ptrace is denied
// (PTRACE_TRACEME, tried inside only),
// no_new_privs and the filter stay. Controls: the same checks by the
// program run from its path inside, and the read outside.
func TestRedTeam13MemfdExec(t *testing.T) {
	rt := rx13Helper(t)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		denied := f.home + "/.ssh/id_rsa"
		ctl := rt12As(u, nil, rt, "confined", denied)
		ctl.Dir = f.outside // its mkdir(".git") is removed again at once
		out, _ := ctl.CombinedOutput()
		if c := rx13Fields(string(out)); c["read-denied"] != "ok" {
			t.Fatalf("control: %s unreadable outside: %v", denied, c)
		}
		prof := []string{"--artifact", filepath.Join(bin, "t-carve.json"), "--cwd", f.nogit}
		want := map[string]string{"read-denied": "EACCES", "mkdir-git": "EACCES", "ptrace-self": "EPERM", "nnp": "1", "seccomp": "2"}
		direct := rx13Fields(rt11Run(t, f, nil, prof, rt, "confined", denied, "ptrace").Stdout)
		r := rt11Run(t, f, nil, prof, rt, "memfd", denied)
		got := rx13Fields(r.Stdout)
		if got["memfd"] != "ok" {
			t.Fatalf("memfd_create: %q %q", r.Stdout, r.Stderr)
		}
		if e, ok := got["execveat"]; ok {
			t.Logf("execveat of the memfd: %s (refused: nothing to check)", e)
			return
		}
		for k, v := range want {
			if direct[k] != v {
				t.Errorf("control: %s = %q run from its path (want %s)", k, direct[k], v)
			}
			if got[k] != v {
				t.Errorf("from a memfd: %s = %q (want %s): %q", k, got[k], v, r.Stdout)
			}
		}
		if _, err := os.Lstat(f.nogit + "/.git"); err == nil {
			t.Errorf(".git created")
		}
	})
}

// ---------------------------------------------------------------------------
// 5. listmount of the host's mount namespace.

// TestRedTeam13ListmountHost: listmount(2) names a mount namespace by id
// (6.11+); the seccomp filter leaves it (and statmount) allowed. From
// inside, listing the host's namespace must fail (EPERM: no CAP_SYS_ADMIN
// over its user namespace; ENOENT: not visible from the sandbox's); the
// sandbox's own is listed (the control), as is the host's from the host.
func TestRedTeam13ListmountHost(t *testing.T) {
	rt := rx13Helper(t)
	host := rx13Fields(rt12Out(users[0], nil, rt, "mntns"))["mntns"]
	if host == "" || host == "0" {
		t.Skipf("statmount gives no namespace id here: %q", host)
	}
	if c := rx13Fields(rt12Out(users[0], nil, rt, "listmount", host)); c["listmount"] != "ok" {
		t.Fatalf("control: listmount of the host's namespace on the host: %v", c)
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		prof := []string{"--profile", "workspace", "--cwd", f.ws}
		own := rx13Fields(rt11Run(t, f, nil, prof, rt, "mntns").Stdout)["mntns"]
		if own == "" || own == host {
			t.Fatalf("the sandbox's mount namespace id %q (host %s)", own, host)
		}
		if c := rx13Fields(rt11Run(t, f, nil, prof, rt, "listmount", "0").Stdout); c["listmount"] != "ok" || c["count"] == "0" {
			t.Errorf("control: listmount of the sandbox's own namespace (id 0: the caller's): %v", c)
		}
		got := rx13Fields(rt11Run(t, f, nil, prof, rt, "listmount", host).Stdout)
		if got["listmount"] == "ok" {
			t.Errorf("listmount of the host's mount namespace from inside: %v", got)
		}
	})
}

// ---------------------------------------------------------------------------
// 6. bind() spellings of port 0.

// TestRedTeam13BindPortZero: the listen() check relies on Landlock having
// checked the port at bind(). Every spelling that asks the kernel for an
// ephemeral port (AF_UNSPEC on an IPv4 socket, which inet_bind takes as
// AF_INET; port 0 with IP_BIND_ADDRESS_NO_PORT; IPv6 any and v4-mapped
// any; AF_UNSPEC on an IPv6 socket; a short address) must leave the socket
// unbound, and its listen() refused, in a ports profile with a bind port.
// Controls: AF_UNSPEC with the bind port binds and listens on it; outside
// the sandbox every spelling listens on some port.
func TestRedTeam13BindPortZero(t *testing.T) {
	rt := rx13Helper(t)
	bPort := rx13FreePort(t)
	src := strings.NewReplacer("CREFUSED", strconv.Itoa(rx13FreePort(t)), "COPEN", strconv.Itoa(rx13FreePort(t)), "BPORT", strconv.Itoa(bPort)).Replace(rx13ListenProfile)
	art := rx13Artifact(t, "rx13-bindv.json", "rt13-listen", compiler.Source{Name: "rt13.hcl", Data: []byte(src)})
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		ctl := rx13Lines(rt12Out(u, nil, rt, "bindv", strconv.Itoa(bPort)))
		if len(ctl) < 9 {
			t.Fatalf("control: %v", ctl)
		}
		for _, kv := range ctl {
			if !strings.Contains(kv[1], "listen:ok") {
				t.Fatalf("control: %s does not listen outside the sandbox: %s", kv[0], kv[1])
			}
		}
		r := rt11Run(t, f, nil, []string{"--artifact", art, "--cwd", f.ws}, rt, "bindv", strconv.Itoa(bPort))
		got := rx13Lines(r.Stdout)
		if len(got) != len(ctl) {
			t.Fatalf("got %d results, want %d: %q %q", len(got), len(ctl), r.Stdout, r.Stderr)
		}
		for _, kv := range got {
			if kv[0] == "unspec-bport" {
				if want := "bind:ok,listen:ok,port:" + strconv.Itoa(bPort); kv[1] != want {
					t.Errorf("control: %s = %s (want %s)", kv[0], kv[1], want)
				}
				continue
			}
			if strings.Contains(kv[1], "listen:ok") || !strings.HasSuffix(kv[1], "port:0") {
				t.Errorf("%s: %s (a port the profile does not list)", kv[0], kv[1])
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 7. The example profile's nested carve-outs.

// rx13CarveScript attacks the monorepo example profile's layout in its
// cwd: vendor read-only, vendor/generated writable again, and
// vendor/generated/.keep read-only inside that. Each line is name=ok or
// name=fail. The ctl- lines must succeed.
const rx13CarveScript = `
t() { n=$1; shift; if ( "$@" ) >/dev/null 2>&1; then echo "$n=ok"; else echo "$n=fail"; fi; }
t ctl-write-existing sh -c 'echo x >> README'
t ctl-write-root sh -c 'echo ok > newfile'
t ctl-create-generated sh -c 'echo ok > vendor/generated/new'
t write-vendor sh -c 'echo x >> vendor/lib.go'
t create-vendor sh -c 'echo x > vendor/new.go'
t truncate-vendor truncate -s 0 vendor/lib.go
t rename-vendor mv vendor vendor.moved
t rename-generated mv vendor/generated gen.moved
t replace-vendor sh -c 'mkdir v2 && mv -T v2 vendor'
t replace-generated sh -c 'mkdir vendor/generated/g2 && mv -T vendor/generated/g2 vendor/generated'
t write-keep sh -c 'echo x >> vendor/generated/.keep'
t rm-keep rm vendor/generated/.keep
t mv-keep mv vendor/generated/.keep vendor/generated/keep.moved
t replace-keep sh -c 'echo x > vendor/generated/k2 && mv vendor/generated/k2 vendor/generated/.keep'
t link-keep sh -c 'ln vendor/generated/.keep vendor/generated/k3 && echo x >> vendor/generated/k3'
t link-lib sh -c 'ln vendor/lib.go vendor/generated/k4 && echo x >> vendor/generated/k4'
t symlink-lib sh -c 'ln -s ../lib.go vendor/generated/l && echo x >> vendor/generated/l'
t dotdot-lib sh -c 'cd vendor/generated && echo x >> ../lib.go'
t cd-generated-create-up sh -c 'cd vendor/generated && echo x > ../new2.go'
t mkdir-vendor-missing mkdir -p vendor/generated/sub/../../x
t touch-vendor touch -d 2000-01-01 vendor/lib.go
t chmod-vendor chmod 600 vendor/lib.go
t chmod-keep chmod 600 vendor/generated/.keep
t create-netrc sh -c 'echo machine x > "$HOME/.netrc"'
t read-shadow cat /etc/shadow
`

// TestRedTeam13NestedCarveOuts: testdata/profiles/carveouts.hcl (the
// monorepo profile) as compiled from the example: in three workspaces
// (all of vendor/lib.go, vendor/generated and vendor/generated/.keep
// present; .keep missing; vendor missing), every attack on the read-only
// carve-out, the writable folder reopened in it and the read-only file
// inside that fails (renames of the mount points, replacing them,
// hard links and symlinks out of the writable folder, "..", metadata),
// and a missing .keep or vendor cannot be created (guarded, or, for
// vendor/generated/.keep below a missing vendor, the documented
// restrictive fallback: no creation anywhere in the root). The host's
// files are unchanged.
func TestRedTeam13NestedCarveOuts(t *testing.T) {
	exSrc, err := os.ReadFile("../../../testdata/profiles/carveouts.hcl")
	if err != nil {
		t.Fatal(err)
	}
	art := rx13Artifact(t, "rx13-monorepo.json", "monorepo", compiler.Source{Name: "carveouts.hcl", Data: exSrc})
	script := rtFile(t, "rx13-carve.sh", rx13CarveScript)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, layout := range []string{"all present", "keep missing", "vendor missing"} {
			t.Run(layout, func(t *testing.T) {
				ws := filepath.Join(f.base, strings.ReplaceAll(layout, " ", "-"))
				files := map[string]string{"README": "r", "vendor/lib.go": "lib", "vendor/generated/g.go": "gen", "vendor/generated/.keep": "keep"}
				switch layout {
				case "keep missing":
					delete(files, "vendor/generated/.keep")
				case "vendor missing":
					files = map[string]string{"README": "r"}
				}
				for p, c := range files {
					os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
					if err := os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				filepath.Walk(ws, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
				r := rt11Run(t, f, nil, []string{"--artifact", art, "--cwd", ws}, "/bin/sh", script)
				got := map[string]string{}
				for _, kv := range rx13Lines(r.Stdout) {
					got[kv[0]] = kv[1]
				}
				if len(got) != strings.Count(rx13CarveScript, "\nt ") {
					t.Fatalf("too few results: %q %q", r.Stdout, r.Stderr)
				}
				for k, v := range got {
					ctl := strings.HasPrefix(k, "ctl-")
					if layout == "vendor missing" && (k == "ctl-create-generated" || k == "ctl-write-root") {
						// vendor/generated and .keep are missing deeper
						// than the root's children: the restrictive
						// fallback takes creation from the whole root
						// (documented), and vendor cannot be created.
						continue
					}
					if ctl && v != "ok" || !ctl && v != "fail" {
						t.Errorf("%s: %s", k, v)
					}
				}
				for p, c := range files {
					if p == "README" || p == "vendor/generated/g.go" {
						continue // writable (mv's copy-and-remove fallback after EXDEV removes g.go)
					}
					if b, err := os.ReadFile(filepath.Join(ws, p)); err != nil || string(b) != c {
						t.Errorf("%s changed on the host: %q %v", p, b, err)
					}
				}
				missing := map[string]string{"keep missing": "vendor/generated/.keep", "vendor missing": "vendor"}[layout]
				if _, err := os.Lstat(filepath.Join(ws, missing)); missing != "" && err == nil {
					t.Errorf("the missing %s was created", missing)
				}
				if _, err := os.Lstat(f.home + "/.netrc"); err == nil {
					t.Errorf("~/.netrc was created")
				}
			})
		}
	})
}
