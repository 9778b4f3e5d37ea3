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
//
//	go test -count=1 -run 'TestRedTeam32Esc' -v ./targets/landlock/launch

import (
	"os"
	"os/exec"
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
