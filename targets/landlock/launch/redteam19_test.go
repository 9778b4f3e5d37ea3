//go:build linux && amd64

package launch_test

// Red team 19: state a sandboxed run leaves in its writable roots that
// changes what a later run grants. Each test plants with a real first run
// (the built-in workspace profile, or the profile itself), then checks the
// second run against what its profile says.
//
// Found (each test failed before its fix; README "What has run on this
// kernel", the nineteenth pass):
//   - WriteRuleLink: a write rule nested in another writable root (no mount
//     of its own) whose path a first run made a symbolic link: the Landlock
//     grant is opened following the link, so its target (anywhere) becomes
//     readable (and gets Landlock's write rights, limited by the read-only
//     view).
//   - GitdirIntoDeny: a protected .git that is a git link file ("gitdir:
//     PATH") adds a read rule on PATH; a PATH below a denied directory is
//     more specific than the deny and is carried through its mask.
//   - DenyGlobUnlistable (uid 65534): a first run makes a directory holding
//     a deny_glob match unlistable (chmod 000, allowed on the pinned mount
//     point); the next binding's scan skips it silently, the match is not
//     masked, and the command chmods the directory back and reads it.
//   - ListedSocketHardLink: the fix of the known planted socket link fixes
//     a listed socket in a writable directory to the inode found there at
//     binding; a first run hard-links (or renames) another service's
//     socket in the same writable directory to the listed name, and the
//     next run connects to that service.
//   - ReadRuleLinkReadOnlyProfile, ListedSocketLinkReadOnlyProfile: the
//     known fixes judge "a link the command could have planted" by the
//     profile being bound; a link planted by an earlier workspace run in a
//     directory this profile only reads is followed (read rule: its target
//     is granted; listed socket: the supervisor connects to its target).
//
// Held: a write rule with a mount of its own planted as a link (refused:
// resolveBound), deny_glob scans over planted link loops and links to /
// and to a match's directory (links are not followed; the match stays
// masked), a .git FIFO (no hang; README's FIFO limit), a gitdir naming a
// missing path in a writable root (refused), the deny_glob chmod trick as
// root (root's scan is not stopped by modes), an explicit deny or read
// carve-out below a directory made unsearchable (refused: Absent check).
//
//	go test -count=1 -run 'TestRedTeam19' -v ./targets/landlock/launch

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// rt19Narrow is the system part of the narrow profiles below.
const rt19Narrow = `read = ["/usr", "/lib", "/lib64", "/bin"]`

// rt19Plant runs script under the built-in workspace profile in cwd (the
// run that leaves state behind) and fails if sbx does.
func rt19Plant(t *testing.T, u user, home, cwd, script string) {
	t.Helper()
	r := rtRun(t, rtOpts{u: u, args: []string{"--cwd", cwd, "--profile", "workspace", "--", "/bin/sh", "-c", script}, env: []string{"HOME=" + home}})
	if r.SbxError != "" || r.ExitCode != 0 {
		t.Fatalf("planting run failed: %s %q %q", r.SbxError, r.Stdout, r.Stderr)
	}
}

// TestRedTeam19WriteRuleLink: write = [cwd, {cwd}/out]. {cwd}/out is
// nested in the writable root, so the layout gives it no mount of its own
// (nothing for resolveBound to refuse through a link), and its protected
// {cwd}/out/.git is looked up through the link (missing there: neither
// guarded nor pinned). A first run (workspace) made out a link to a
// directory the profile does not cover; the second run's Landlock rule for
// out is opened following the link and grants the target.
func TestRedTeam19WriteRuleLink(t *testing.T) {
	src := `
profile "rt19-nested-write" {
  filesystem {
    ` + rt19Narrow + `
    write   = [cwd, path(cwd, "out")]
    protect = [".git"]
  }
  network { mode = "none" }
}
`
	art, _ := rt17pCompile(t, src, "rt19-nested-write")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"secret/key": "rt19-SECRET-1"}, []string{"home", "ws"}, nil)
		home, ws := base+"/home", base+"/ws"
		// The profile's own denial of the target, before anything is planted.
		r := rt17pRun(t, u, art, home, ws, "cat "+base+"/secret/key", nil)
		if r.SbxError != "" || strings.Contains(r.Stdout, "rt19-SECRET-1") {
			t.Fatalf("control: the target must be unreadable: %s %q", r.SbxError, r.Stdout)
		}
		rt19Plant(t, u, home, ws, "ln -s "+base+"/secret out")
		r = rt17pRun(t, u, art, home, ws, "cat out/key; cat "+base+"/secret/key", nil)
		if strings.Contains(r.Stdout, "rt19-SECRET-1") {
			t.Errorf("ESCAPE: a write rule's path planted as a symlink by an earlier run grants its target (%s/secret, covered by no rule): %q", base, r.Stdout)
		}
	})
}

// TestRedTeam19GitdirIntoDeny: deny = [{cwd}/secrets]. A first run
// (workspace in the parent directory, where repo/.git is not protected)
// wrote repo/.git as a git link file naming secrets/sub. Binding the
// profile in repo adds a read rule on {cwd}/secrets/sub (gitdirTargets),
// which is more specific than the deny: the mask of secrets keeps sub,
// readable.
func TestRedTeam19GitdirIntoDeny(t *testing.T) {
	src := `
profile "rt19-gitdir-deny" {
  filesystem {
    ` + rt19Narrow + `
    write   = [cwd]
    deny    = [path(cwd, "secrets")]
    protect = [".git"]
  }
  network { mode = "none" }
}
`
	art, _ := rt17pCompile(t, src, "rt19-gitdir-deny")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"parent/repo/secrets/sub/key": "rt19-SECRET-2"}, []string{"home"}, nil)
		home, parent := base+"/home", base+"/parent"
		repo := parent + "/repo"
		r := rt17pRun(t, u, art, home, repo, "cat secrets/sub/key", nil)
		if r.SbxError != "" || strings.Contains(r.Stdout, "rt19-SECRET-2") {
			t.Fatalf("control: secrets must be denied: %s %q", r.SbxError, r.Stdout)
		}
		rt19Plant(t, u, home, parent, `printf 'gitdir: secrets/sub\n' >repo/.git`)
		r = rt17pRun(t, u, art, home, repo, "cat secrets/sub/key", nil)
		if strings.Contains(r.Stdout, "rt19-SECRET-2") {
			t.Errorf("ESCAPE: a planted .git link file (gitdir: secrets/sub) reopens a path below the denied {cwd}/secrets: %q", r.Stdout)
		}
	})
}

// TestRedTeam19DenyGlobUnlistable: deny_glob = ["*.pem"]. The first run
// (the same profile: sub/key.pem is masked, sub pinned) changes sub's mode
// to 000, which a pinned mount point allows. The next binding, as the same
// unprivileged user, cannot list sub: the scan skips it without a word (no
// partial fidelity, no refusal), the match is not masked, and the command,
// owner of sub, restores the mode and reads the file. (Root's scan is not
// stopped by modes: held.)
func TestRedTeam19DenyGlobUnlistable(t *testing.T) {
	src := `
profile "rt19-glob" {
  filesystem {
    ` + rt19Narrow + `
    write     = [cwd]
    deny_glob = ["*.pem"]
    protect   = [".git"]
  }
  network { mode = "none" }
}
`
	art, _ := rt17pCompile(t, src, "rt19-glob")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"ws/sub/key.pem": "rt19-SECRET-3"}, []string{"home"}, nil)
		home, ws := base+"/home", base+"/ws"
		r := rt17pRun(t, u, art, home, ws, "cat sub/key.pem; chmod 000 sub && echo CHMODDED", nil)
		if r.SbxError != "" || strings.Contains(r.Stdout, "rt19-SECRET-3") {
			t.Fatalf("control: the match must be masked: %s %q", r.SbxError, r.Stdout)
		}
		if !strings.Contains(r.Stdout, "CHMODDED") {
			t.Fatalf("the first run could not change sub's mode: %q %q", r.Stdout, r.Stderr)
		}
		r = rt17pRun(t, u, art, home, ws, "chmod 755 sub; cat sub/key.pem", nil)
		if strings.Contains(r.Stdout, "rt19-SECRET-3") {
			t.Errorf("ESCAPE: a deny_glob match in a directory an earlier run made unlistable is not masked (the scan skipped the directory silently): %q", r.Stdout)
		}
	})
}

// TestRedTeam19ListedSocketHardLink: unix_sockets = ["{tmpdir}/buildd.sock"]
// (testdata/profiles/sockets.hcl's local-build). A host service's socket
// lives in the same writable directory (an ssh-agent or X11 socket in a
// shared TMPDIR or /tmp). A first run (workspace) hard-links it to the
// listed name (no symlink: the name is a socket inode of its own right;
// a rename works as well). The next run's binding takes the listed
// socket's identity (device and inode) as it finds it, and the supervisor
// connects the command to the host service, which the profile does not
// list (by either name).
func TestRedTeam19ListedSocketHardLink(t *testing.T) {
	src := `
profile "rt19-sock" {
  extends = "workspace"
  network {
    mode         = "none"
    unix_sockets = ["{tmpdir}/buildd.sock"]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt19-sock")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, nil, []string{"home", "ws", "tmp"}, nil)
		home, ws, tmp := base+"/home", base+"/ws", base+"/tmp"
		agent := tmp + "/agent.sock"
		accepted := rt19Listen(t, agent, u.uid)
		probe := filepath.Join(bin, "probe")
		env := "TMPDIR=" + tmp
		r := rt17pRun(t, u, art, home, ws, probe+" unix-connect "+agent, nil, env)
		if r.SbxError != "" || strings.TrimSpace(r.Stdout) == "ok" || accepted() != 0 {
			t.Fatalf("control: the unlisted agent socket must be unreachable: %s %q", r.SbxError, r.Stdout)
		}
		plant := rtRun(t, rtOpts{u: u, args: []string{"--cwd", ws, "--profile", "workspace", "--", "/bin/ln", agent, tmp + "/buildd.sock"}, env: []string{"HOME=" + home, env}})
		if plant.SbxError != "" || plant.ExitCode != 0 {
			t.Fatalf("planting run failed: %s %q", plant.SbxError, plant.Stderr)
		}
		r = rt17pRun(t, u, art, home, ws, probe+" unix-connect "+tmp+"/buildd.sock; "+probe+" unix-connect "+agent, nil, env)
		if n := accepted(); n != 0 || strings.Contains(r.Stdout, "ok") {
			t.Errorf("ESCAPE: a host socket hard-linked to the listed name by an earlier run is connected to (%d connections accepted by the unlisted %s): %q %s", n, agent, r.Stdout, r.SbxError)
		}
	})
}

// TestRedTeam19ReadRuleLinkReadOnlyProfile: a gap in the fix of the known
// planted-link escape (a read rule through a symbolic link applies to the
// target only where the link's directory is not writable). "Writable" is
// judged by the profile being bound, but the link may come from an earlier
// run under another profile. read = [{cwd}/docs], the working directory
// read-only (a review profile); a first run under workspace, where {cwd}
// is writable, made docs a link to a directory no rule covers.
func TestRedTeam19ReadRuleLinkReadOnlyProfile(t *testing.T) {
	src := `
profile "rt19-review" {
  filesystem {
    read = ["/usr", "/lib", "/lib64", "/bin", path(cwd, "docs")]
  }
  network { mode = "none" }
}
`
	art, _ := rt17pCompile(t, src, "rt19-review")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"secret/key": "rt19-SECRET-5", "ws/docs/readme": "doc"}, []string{"home"}, nil)
		home, ws := base+"/home", base+"/ws"
		r := rt17pRun(t, u, art, home, ws, "cat docs/readme; cat "+base+"/secret/key", nil)
		if r.SbxError != "" || !strings.Contains(r.Stdout, "doc") || strings.Contains(r.Stdout, "rt19-SECRET-5") {
			t.Fatalf("control: docs readable, the secret not: %s %q", r.SbxError, r.Stdout)
		}
		rt19Plant(t, u, home, ws, "rm -r docs && ln -s "+base+"/secret docs")
		r = rt17pRun(t, u, art, home, ws, "cat docs/key; cat "+base+"/secret/key", nil)
		if strings.Contains(r.Stdout, "rt19-SECRET-5") {
			t.Errorf("ESCAPE: a link an earlier (workspace) run planted in {cwd} grants its target under a profile that reads {cwd}/docs only: %q", r.Stdout)
		}
	})
}

// TestRedTeam19ListedSocketLinkReadOnlyProfile: the same gap in the fix of
// the known planted socket link: unix_sockets = [{cwd}/lsp.sock] with
// {cwd} read-only in this profile, so a link there is not taken for a
// planted one; a first run under workspace made lsp.sock a link to
// another service's socket, which the next run connects to.
func TestRedTeam19ListedSocketLinkReadOnlyProfile(t *testing.T) {
	src := `
profile "rt19-rosock" {
  filesystem {
    read = ["/usr", "/lib", "/lib64", "/bin", cwd]
  }
  network {
    mode         = "none"
    unix_sockets = [path(cwd, "lsp.sock")]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt19-rosock")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, nil, []string{"home", "ws", "svc"}, nil)
		home, ws := base+"/home", base+"/ws"
		other := base + "/svc/other.sock"
		accepted := rt19Listen(t, other, u.uid)
		// The probe where this profile can run it: in {cwd}.
		exe, err := os.ReadFile(filepath.Join(bin, "probe"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(ws+"/probe", exe, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Lchown(ws+"/probe", u.uid, u.uid)
		r := rt17pRun(t, u, art, home, ws, "./probe unix-connect "+other, nil)
		if r.SbxError != "" || !strings.Contains(r.Stdout+r.Stderr, "EACCES") || accepted() != 0 {
			t.Fatalf("control: the unlisted socket must be refused: %s %q %q", r.SbxError, r.Stdout, r.Stderr)
		}
		rt19Plant(t, u, home, ws, "ln -s "+other+" lsp.sock")
		r = rt17pRun(t, u, art, home, ws, "./probe unix-connect lsp.sock", nil)
		if n := accepted(); n != 0 || strings.Contains(r.Stdout, "ok") {
			t.Errorf("ESCAPE: a listed socket name an earlier (workspace) run made a link connects to the unlisted %s (%d accepted): %q %s", other, n, r.Stdout, r.SbxError)
		}
	})
}

// rt19Listen serves a Unix socket at addr (owned by uid) for the test's
// lifetime. The function it returns counts the connections other
// processes made since its last call: it connects itself and takes the
// accepted connections in order (the backlog is first in, first out)
// until its own (the peer's PID is the test's), so none made earlier is
// still pending when it returns.
func rt19Listen(t *testing.T, addr string, uid int) func() int {
	t.Helper()
	l, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	os.Lchown(addr, uid, uid)
	conns := make(chan *net.UnixConn, 256)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns <- c.(*net.UnixConn)
		}
	}()
	return func() int {
		own, err := net.Dial("unix", addr)
		if err != nil {
			t.Fatalf("connecting to %s: %v", addr, err)
		}
		defer own.Close()
		n := 0
		for c := range conns {
			var pid int32
			if rc, err := c.SyscallConn(); err == nil {
				rc.Control(func(fd uintptr) {
					if cr, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil {
						pid = cr.Pid
					}
				})
			}
			c.Close()
			if pid == int32(os.Getpid()) {
				return n
			}
			n++
		}
		return n
	}
}

// TestRedTeam19ArtifactInWorkspace: an artifact kept in a directory the
// profile it holds makes writable (a repository's .sbx/policy.json under a
// workspace profile): the first run's command rewrites it (an artifact's
// digest proves consistency, not authorship: any valid artifact will do)
// and the next run from the same file enforces the command's profile.
// sbx refuses such an artifact; protected (read-only) it runs, and the
// command cannot change it.
func TestRedTeam19ArtifactInWorkspace(t *testing.T) {
	for _, c := range []struct {
		name, protect string
		refused       bool
	}{
		{"writable", `[".git"]`, true},
		{"protected", `[".git", ".sbx"]`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := `
profile "rt19-art" {
  filesystem {
    ` + rt19Narrow + `
    write   = [cwd]
    protect = ` + c.protect + `
  }
  network { mode = "none" }
}
`
			built, _ := rt17pCompile(t, src, "rt19-art")
			data, err := os.ReadFile(built)
			if err != nil {
				t.Fatal(err)
			}
			asUser(t, func(t *testing.T, u user) {
				base := rt17pTree(t, u, map[string]string{"ws/.sbx/keep": ""}, []string{"home"}, nil)
				home, ws := base+"/home", base+"/ws"
				art := ws + "/.sbx/policy.json"
				if err := os.WriteFile(art, data, 0o644); err != nil {
					t.Fatal(err)
				}
				os.Lchown(art, u.uid, u.uid)
				r := rt17pRun(t, u, art, home, ws, "echo '{}' > .sbx/policy.json; echo RAN", nil)
				if c.refused {
					if r.ExitCode != 125 || !strings.Contains(r.SbxError, "writable under the profile it holds") || !strings.Contains(r.SbxError, `protect = [".sbx"]`) {
						t.Errorf("an artifact its profile makes writable: %+v, want a refusal naming the way out", r)
					}
					return
				}
				if r.SbxError != "" || !strings.Contains(r.Stdout, "RAN") {
					t.Fatalf("a protected artifact: %+v", r)
				}
				if got, _ := os.ReadFile(art); string(got) != string(data) {
					t.Errorf("ESCAPE: the command rewrote its protected artifact: %q", got)
				}
			})
		})
	}
}
