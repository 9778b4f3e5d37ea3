//go:build linux && amd64

package launch_test

// Red team 32 (escape), through the real sbx binary (built by TestMain),
// as root and as uid 65534:
//
//   - FINDING (fixed): a working directory or $TMPDIR at or above a
//     directory on PATH below the home directory other than the two the
//     start-up list names (~/.local/bin, ~/bin) was accepted: rustup's
//     ~/.cargo/bin (ahead of /usr/bin in PATH, rustup's ~/.cargo/env
//     puts it there), pyenv's ~/.pyenv/shims and ~/.pyenv/bin, go
//     install's ~/go/bin, a directory on PATH through a link (a dotfiles
//     repository's bin, linked into place). "sbx run --cwd ~/.cargo" (an
//     agent asked to edit ~/.cargo/config.toml) let the command replace
//     ~/.cargo/bin/cargo, and "--cwd ~/go" create ~/go/bin/go; the
//     host's next cargo or go, and the agent's own next call, ran the
//     command's program outside the sandbox, every time
//     (TestRedTeam32EscPathDirRoots). Fixed: CheckWritableRoots
//     (targets/landlock/bind.go, homePathDir) refuses (125) a {cwd},
//     {tmpdir} or {slash_tmp} strictly below a home directory that is,
//     lies in or contains an absolute directory of sbx's PATH below that
//     home (as written and through its links; a missing one too), unless
//     the profile writes {home} or / itself; a project's own are left
//     out (npm's node_modules/.bin, which npm puts on PATH for the
//     scripts it runs, sbx included; an activated virtual environment's
//     bin, beside its pyvenv.cfg): the workspace's installed code, which
//     the host runs as it runs the rest of the workspace.
//   - FINDING (fixed): $XDG_CONFIG_HOME or $XDG_DATA_HOME in a writable
//     root (a container's or CI job's XDG_CONFIG_HOME=/tmp/.config, which
//     the workspace profile's /tmp holds; one kept in a dotfiles
//     repository that is the workspace). The start-up list is checked
//     below the home directory only, and red team 31 protected git's
//     configuration there, nothing else: the command wrote fish's
//     config.fish (every fish the host starts with that environment runs
//     it), a user service in systemd/user and an autostart entry, every
//     time (TestRedTeam32EscXdgStartupRoots). Fixed: CheckWritableRoots
//     (xdgStartupPath) refuses (125) a {cwd}, {tmpdir} or {slash_tmp}
//     that is, lies in or contains the start-up list's .config entries
//     below $XDG_CONFIG_HOME, or its .local/share ones below
//     $XDG_DATA_HOME (sbx's own environment; through links too).
//   - FINDING (fixed): the host's build caches in a writable root. Go's
//     build cache takes a cached package archive whose build ID begins
//     with the action's ID as built; nothing checks it against the
//     sources again. With GOCACHE in /tmp (a container's or CI job's
//     GOCACHE=/tmp/..., or $XDG_CACHE_HOME there), the command built the
//     host's project (readable) and a variant of its own, pointed the
//     project's action entry at its own archive with the build ID
//     patched, and the host's next go build linked and ran the command's
//     code outside the sandbox, every time
//     (TestRedTeam32EscGoCachePoison). The same holds for the other
//     caches whose contents the host's tools use as they are (the module
//     cache's extracted sources, cargo's registry sources, pip's and uv's
//     wheels, ccache's objects, pre-commit's environments). Fixed:
//     CheckWritableRoots (codeCacheDir) refuses (125) a {cwd}, {tmpdir}
//     or {slash_tmp} that is, lies in or contains GOCACHE, GOMODCACHE
//     (GOPATH's pkg/mod), CARGO_HOME, RUSTUP_HOME, PIP_CACHE_DIR,
//     UV_CACHE_DIR, CCACHE_DIR, SCCACHE_DIR or PRE_COMMIT_HOME as sbx's
//     environment sets them, or their defaults below $XDG_CACHE_HOME,
//     ~/.cache and the home directory; also Gradle's, Maven's, poetry's,
//     Bazel's and Deno's caches, and the homes of toolchain managers and
//     user-wide packages (PYTHONUSERBASE's or ~/.local/lib, NVM_DIR,
//     PYENV_ROOT, RBENV_ROOT, VOLTA_HOME, BUN_INSTALL, SDKMAN_DIR,
//     NPM_CONFIG_PREFIX) (TestRedTeam32EscCacheRoots).
//
//	go test -count=1 -run 'TestRedTeam32Esc' -v ./targets/landlock/launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedTeam32EscPathDirRoots: FINDING (fixed), as root and as uid
// 65534. Under the built-in workspace profile, a working directory or
// $TMPDIR at or above a directory on PATH below the home directory made
// it writable: the command put a "cargo" there, which the host's next
// cargo ran outside the sandbox. Now refused (125), nothing is written,
// and the host's cargo is still its own. Controls: a project directory
// (~/src), and one whose node_modules/.bin or activated .venv is on PATH,
// run and write.
func TestRedTeam32EscPathDirRoots(t *testing.T) {
	// The script's argument is the PATH directory it plants in.
	const script = `mkdir -p "$1" 2>/dev/null; printf '#!/bin/sh\necho pwned\n' > "$1/cargo" 2>/dev/null && chmod +x "$1/cargo" && echo wrote=cargo
echo done`
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		h := f.home
		rt29Write(t, h, u.uid, map[string]string{
			".cargo/bin/cargo": "#!/bin/sh\necho orig\n", ".cargo/config.toml": "", "go/pkg/": "",
			"dots/bin/": "", "src/proj/node_modules/.bin/": "", "src/proj/.venv/bin/": "", "src/proj/.venv/pyvenv.cfg": "home = /usr/bin\n",
		})
		os.Chmod(h+"/.cargo/bin/cargo", 0o755)
		if err := os.Symlink(h+"/dots/bin", h+"/.dotbin"); err != nil {
			t.Fatal(err)
		}
		os.Lchown(h+"/.dotbin", u.uid, u.uid)
		// ~/go/bin is on PATH but missing (go install creates it).
		path := strings.Join([]string{h + "/.cargo/bin", h + "/go/bin", h + "/.dotbin", h + "/src/proj/node_modules/.bin", h + "/src/proj/.venv/bin", "/usr/local/bin", "/usr/bin", "/bin"}, ":")
		// hostCargo is what the host's "cargo" runs with PATH's dir first.
		hostCargo := func(dir string) string {
			t.Helper()
			cmd := exec.Command("/bin/sh", "-c", "cargo 2>/dev/null")
			cmd.Env = []string{"PATH=" + dir + ":" + path, "HOME=" + h}
			cmd.Dir = h
			out, _ := cmd.Output()
			return strings.TrimSpace(string(out))
		}
		if got := hostCargo(h + "/.cargo/bin"); got != "orig" {
			t.Fatalf("the host's cargo before the runs: %q", got)
		}
		for _, c := range []struct {
			name, cwd, tmpdir, plant string
			refused                  bool
		}{
			{"cwd=~/.cargo", h + "/.cargo", "", h + "/.cargo/bin", true},
			{"cwd=~/.cargo/bin", h + "/.cargo/bin", "", h + "/.cargo/bin", true},
			{"cwd=~/go (bin missing)", h + "/go", "", h + "/go/bin", true},
			{"cwd=~/dots (bin linked onto PATH)", h + "/dots", "", h + "/dots/bin", true},
			{"TMPDIR=~/.cargo", h + "/src", h + "/.cargo", h + "/.cargo/bin", true},
			// Controls.
			{"cwd=~/src", h + "/src", "", h + "/src/x", false},
			{"cwd=~/src/proj (node_modules/.bin on PATH)", h + "/src/proj", "", h + "/src/proj/node_modules/.bin", false},
			{"cwd=~/src/proj (an activated .venv)", h + "/src/proj", "", h + "/src/proj/.venv/bin", false},
		} {
			t.Run(strings.NewReplacer("/", "_", " ", "_").Replace(c.name), func(t *testing.T) {
				root := c.cwd
				env := []string{"HOME=" + h, "PATH=" + path}
				if c.tmpdir != "" {
					env = append(env, "TMPDIR="+c.tmpdir)
					root = c.tmpdir
				}
				before := rt31Tree(t, root)
				r := rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", c.cwd, "--profile", "workspace", "--", "/bin/sh", "-c", script, "sh", c.plant}})
				if !c.refused {
					if r.SbxError != "" || r.ExitCode != 0 || !strings.Contains(r.Stdout, "wrote=cargo") {
						t.Errorf("%s (control): exit %d, sbx_error %q, stdout %q, stderr %q", c.name, r.ExitCode, r.SbxError, r.Stdout, r.Stderr)
					}
					return
				}
				if r.ExitCode != 125 || !strings.Contains(r.SbxError, "a directory on PATH") {
					t.Errorf("%s: not refused (exit %d, sbx_error %q, stdout %q): the command wrote a directory on the host's PATH", c.name, r.ExitCode, r.SbxError, r.Stdout)
				}
				if strings.Contains(r.Stdout, "wrote=") {
					t.Errorf("%s: written: %q", c.name, r.Stdout)
				}
				if after := rt31Tree(t, root); after != before {
					t.Errorf("%s: the tree changed:\nbefore %s\nafter  %s", c.name, before, after)
				}
				if got := hostCargo(c.plant); got != "orig" {
					t.Errorf("%s: the host's next cargo ran %q: the command's program, outside the sandbox", c.name, got)
					// Undo, for the next case.
					os.WriteFile(h+"/.cargo/bin/cargo", []byte("#!/bin/sh\necho orig\n"), 0o755)
					os.RemoveAll(h + "/go/bin")
					os.Remove(h + "/dots/bin/cargo")
				}
			})
		}
	})
}

// TestRedTeam32EscXdgStartupRoots: FINDING (fixed), as root and as uid
// 65534. With $XDG_CONFIG_HOME (or $XDG_DATA_HOME) in the workspace or in
// /tmp, the workspace profile's command wrote fish's config.fish, a user
// service and an autostart entry there, which the host's next shell,
// login or service manager with that environment runs. Now refused (125)
// and nothing is written. Controls: the variables outside the writable
// roots, or relative (ignored, as the shells and systemd ignore them).
func TestRedTeam32EscXdgStartupRoots(t *testing.T) {
	const script = `for p in fish/config.fish systemd/user/x.service autostart/x.desktop; do
  mkdir -p "$(dirname "$1/$p")" 2>/dev/null && echo evil > "$1/$p" 2>/dev/null && echo "wrote=$p"
done
echo done`
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		// A directory in /tmp (the workspace profile's slash_tmp).
		tmp := t.TempDir()
		if !strings.HasPrefix(tmp, "/tmp/") {
			t.Skipf("t.TempDir() %s is not in /tmp", tmp)
		}
		os.Chmod(filepath.Dir(tmp), 0o755) // t.TempDir's parent is 0700
		os.Chown(tmp, u.uid, u.uid)
		rt29Write(t, f.ws, u.uid, map[string]string{"dots/cfg/": "", "dots/share/": ""})
		rt29Write(t, f.home, u.uid, map[string]string{".config/": ""})
		for _, c := range []struct {
			name, env, base, tmpdir string
			refused                 bool
		}{
			{"XDG_CONFIG_HOME in the workspace", "XDG_CONFIG_HOME=" + f.ws + "/dots/cfg", f.ws + "/dots/cfg", "", true},
			{"XDG_DATA_HOME in the workspace", "XDG_DATA_HOME=" + f.ws + "/dots/share", f.ws + "/dots/share", "", true},
			{"XDG_CONFIG_HOME in /tmp", "XDG_CONFIG_HOME=" + tmp + "/cfg", tmp + "/cfg", "", true},
			{"TMPDIR at XDG_CONFIG_HOME/fish", "XDG_CONFIG_HOME=" + f.outside + "/cfg", f.outside + "/cfg", f.outside + "/cfg/fish", true},
			// Controls.
			{"XDG_CONFIG_HOME outside", "XDG_CONFIG_HOME=" + f.home + "/.config", f.ws + "/dots/cfg", "", false},
			{"XDG_CONFIG_HOME relative", "XDG_CONFIG_HOME=dots/cfg", f.ws + "/dots/cfg", "", false},
		} {
			t.Run(strings.ReplaceAll(c.name, "/", "_"), func(t *testing.T) {
				env := []string{"HOME=" + f.home, c.env}
				if c.tmpdir != "" {
					rt29Write(t, f.outside, u.uid, map[string]string{"cfg/fish/": ""})
					env = append(env, "TMPDIR="+c.tmpdir)
				}
				r := rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", f.ws, "--profile", "workspace", "--", "/bin/sh", "-c", script, "sh", c.base}})
				if !c.refused {
					if r.SbxError != "" || r.ExitCode != 0 || !strings.Contains(r.Stdout, "wrote=fish/config.fish") {
						t.Errorf("%s (control): exit %d, sbx_error %q, stdout %q, stderr %q", c.name, r.ExitCode, r.SbxError, r.Stdout, r.Stderr)
					}
					os.RemoveAll(c.base + "/fish")
					return
				}
				if r.ExitCode != 125 || !strings.Contains(r.SbxError, "XDG_") {
					t.Errorf("%s: not refused (exit %d, sbx_error %q, stdout %q): the command wrote the host's start-up files", c.name, r.ExitCode, r.SbxError, r.Stdout)
				}
				if strings.Contains(r.Stdout, "wrote=") {
					t.Errorf("%s: written: %q", c.name, r.Stdout)
				}
				if fileExists(c.base+"/fish/config.fish") || fileExists(c.base+"/systemd/user/x.service") {
					t.Errorf("%s: %s/fish/config.fish exists: the host's next fish runs it", c.name, c.base)
					os.RemoveAll(c.base + "/fish")
				}
			})
		}
	})
}

// rt32Poison is the command's script: $1 the go binary, $2 the host's
// project (readable, not writable), $3 the host's GOCACHE. It builds the
// project to learn its compile action's ID, builds a variant that prints
// "pwned" (in the workspace, whose .git is no repository: no VCS
// stamping), and points the project's action at the variant's archive, with
// the archive's build ID changed to begin with the project's action ID.
const rt32Poison = `set -e
GO=$1 P=$2 W=$PWD; export GOCACHE=$3 GOTOOLCHAIN=local GOFLAGS= GOENV=off
id() { GODEBUG=gocachehash=1 "$GO" build "$@" -o "$W/out.bin" . 2>&1 | sed -n 's/^HASH\[build example.com\/p\]: \([0-9a-f]\{64\}\)$/\1/p'; }
A=$(cd "$P" && id)
rm -rf evil && mkdir evil && cp "$P/go.mod" evil/ && sed 's/"orig"/"pwned"/' "$P/main.go" > evil/main.go
E=$(cd evil && id -buildvcs=false)
a2=$(echo $A | cut -c1-2); e2=$(echo $E | cut -c1-2)
sed "s/$E/$A/" "$GOCACHE/$e2/$E-a" > "$GOCACHE/$a2/$A-a.tmp"; mv "$GOCACHE/$a2/$A-a.tmp" "$GOCACHE/$a2/$A-a"
M=$(cut -d' ' -f3 "$GOCACHE/$a2/$A-a")
python3 - "$GOCACHE/$(echo $M | cut -c1-2)/$M-d" "$E" "$A" <<'PY'
import sys, base64
p, e, a = sys.argv[1:]
enc = lambda h: base64.urlsafe_b64encode(bytes.fromhex(h)[:15]).rstrip(b'=')
b = open(p, 'rb').read()
open(p, 'wb').write(b.replace(enc(e), enc(a)))
PY
echo poisoned`

// TestRedTeam32EscGoCachePoison: FINDING (fixed), as root and as uid
// 65534. The host's GOCACHE in /tmp: the command planted a compiled
// package that the host's next go build of its own project (outside the
// writable roots) linked, and the program it built printed the command's
// "pwned". Now refused (125): the cache is untouched and the host's build
// prints "orig". Control: the same run without GOCACHE in sbx's
// environment (the host's cache elsewhere) runs, and its own cache in
// /tmp is the command's alone.
func TestRedTeam32EscGoCachePoison(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is missing")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("python3 is missing")
	}
	// A cache with the standard library built, copied for each run (a
	// fresh one costs each build half a minute).
	warm := filepath.Join(t.TempDir(), "warm")
	{
		d := t.TempDir()
		os.WriteFile(d+"/go.mod", []byte("module example.com/w\n\ngo 1.22\n"), 0o644)
		os.WriteFile(d+"/main.go", []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println() }\n"), 0o644)
		b := exec.Command(goBin, "build", "-o", d+"/w", ".")
		b.Dir = d
		b.Env = append(os.Environ(), "GOCACHE="+warm, "GOTOOLCHAIN=local", "GOFLAGS=")
		if o, err := b.CombinedOutput(); err != nil {
			t.Fatalf("warming the cache: %v %s", err, o)
		}
	}
	copyCache := func(t *testing.T, dst string, uid int) {
		t.Helper()
		if o, err := exec.Command("cp", "-a", warm, dst).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, o)
		}
		filepath.Walk(dst, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, uid, uid) })
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		rt29Write(t, f.outside, u.uid, map[string]string{
			"p/go.mod":  "module example.com/p\n\ngo 1.22\n",
			"p/main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"orig\") }\n",
		})
		tmp := t.TempDir()
		if !strings.HasPrefix(tmp, "/tmp/") {
			t.Skipf("t.TempDir() %s is not in /tmp", tmp)
		}
		cache := filepath.Join(tmp, "gocache")
		os.Chmod(filepath.Dir(tmp), 0o755) // t.TempDir's parent is 0700
		os.Chown(tmp, u.uid, u.uid)
		copyCache(t, cache, u.uid)
		// hostBuild is the host's go build of its project, run.
		hostBuild := func() string {
			t.Helper()
			out := filepath.Join(tmp, "host.bin")
			os.Remove(out)
			b := exec.Command(goBin, "build", "-o", out, ".")
			b.Dir = f.outside + "/p"
			b.Env = append(os.Environ(), "GOCACHE="+cache, "GOTOOLCHAIN=local", "GOFLAGS=")
			if o, err := b.CombinedOutput(); err != nil {
				t.Fatalf("host go build: %v %s", err, o)
			}
			o, _ := exec.Command(out).Output()
			return strings.TrimSpace(string(o))
		}
		if got := hostBuild(); got != "orig" {
			t.Fatalf("the host's build before the run: %q", got)
		}
		args := []string{"--cwd", f.ws, "--profile", "workspace", "--timeout", "120s", "--", "/bin/sh", "-c", rt32Poison, "sh", goBin, f.outside + "/p", cache}
		r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home, "GOCACHE=" + cache}, args: args, timeout: 150e9})
		if r.ExitCode != 125 || !strings.Contains(r.SbxError, "GOCACHE") {
			t.Errorf("not refused (exit %d, sbx_error %q, stdout %q, stderr %.500q)", r.ExitCode, r.SbxError, r.Stdout, r.Stderr)
		}
		if got := hostBuild(); got != "orig" {
			t.Errorf("the host's next go build printed %q: it linked the command's package, outside the sandbox", got)
		}
		// Control: with the host's cache elsewhere, the same command runs
		// (and poisons only a cache of its own).
		own := filepath.Join(tmp, "own")
		copyCache(t, own, u.uid)
		args[len(args)-1] = own
		r = rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: args, timeout: 150e9})
		if r.ExitCode != 0 || !strings.Contains(r.Stdout, "poisoned") {
			t.Errorf("control: exit %d, sbx_error %q, stdout %q, stderr %.1000q", r.ExitCode, r.SbxError, r.Stdout, r.Stderr)
		}
		if got := hostBuild(); got != "orig" {
			t.Errorf("control: the host's build printed %q", got)
		}
	})
}

// TestRedTeam32EscCacheRoots: FINDING (fixed), as root and as uid 65534:
// the other caches and tool directories of codeCacheDir, by their
// defaults below the home directory and by their variables. Each was
// accepted as a working directory, and the command wrote there (a
// Maven jar, a pip wheel, nvm's nvm.sh that .bashrc sources, a user-site
// .pth file that every python runs); now refused (125), nothing written.
// Controls: another directory of ~/.cache, and ~/src.
func TestRedTeam32EscCacheRoots(t *testing.T) {
	const script = `echo evil > "$PWD/planted" 2>/dev/null && echo wrote; echo done`
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		h := f.home
		rt29Write(t, h, u.uid, map[string]string{
			".cache/pip/": "", ".cache/myapp/": "", ".m2/repository/": "", ".nvm/": "", ".local/lib/python3/site-packages/": "",
			"go/pkg/": "", "src/": "", "tools/cargo/": "",
		})
		for _, c := range []struct {
			name, cwd, env string
			refused        bool
		}{
			{"cwd=~/.cache", h + "/.cache", "", true},
			{"cwd=~/.cache/pip", h + "/.cache/pip", "", true},
			{"cwd=~/.m2", h + "/.m2", "", true},
			{"cwd=~/.nvm", h + "/.nvm", "", true},
			{"cwd=~/.local/lib/python3/site-packages", h + "/.local/lib/python3/site-packages", "", true},
			{"cwd=~/go/pkg", h + "/go/pkg", "", true},
			{"cwd=~/tools, CARGO_HOME=~/tools/cargo", h + "/tools", "CARGO_HOME=" + h + "/tools/cargo", true},
			{"cwd=ws, XDG_CACHE_HOME=ws/cache", f.ws, "XDG_CACHE_HOME=" + f.ws + "/cache", true},
			// Controls.
			{"cwd=~/.cache/myapp", h + "/.cache/myapp", "", false},
			{"cwd=~/src", h + "/src", "", false},
		} {
			t.Run(strings.NewReplacer("/", "_", " ", "_").Replace(c.name), func(t *testing.T) {
				env := []string{"HOME=" + h}
				if c.env != "" {
					env = append(env, c.env)
				}
				before := rt31Tree(t, c.cwd)
				r := rtRun(t, rtOpts{u: u, env: env, args: []string{"--cwd", c.cwd, "--profile", "workspace", "--", "/bin/sh", "-c", script}})
				if !c.refused {
					if r.ExitCode != 0 || !strings.Contains(r.Stdout, "wrote") {
						t.Errorf("%s (control): exit %d, sbx_error %q, stdout %q", c.name, r.ExitCode, r.SbxError, r.Stdout)
					}
					return
				}
				if r.ExitCode != 125 || !strings.Contains(r.SbxError, "cache or tool directory") || strings.Contains(r.Stdout, "wrote") {
					t.Errorf("%s: not refused (exit %d, sbx_error %q, stdout %q): the command wrote a directory whose code the host runs", c.name, r.ExitCode, r.SbxError, r.Stdout)
				}
				if after := rt31Tree(t, c.cwd); after != before {
					t.Errorf("%s: the tree changed:\nbefore %s\nafter  %s", c.name, before, after)
				}
			})
		}
	})
}
