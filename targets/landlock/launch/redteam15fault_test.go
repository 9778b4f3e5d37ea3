//go:build linux && amd64

package launch_test

// Red team 15, fault battery: what earlier batteries did not try. Signals
// sbx does not catch (SIGQUIT, the terminal's ^\) and signals its caller
// ignores (nohup, a background job of a non-interactive shell); option
// values that are set but empty (--artifact "", --cwd "": an unset shell
// variable); sbc's output paths (-o onto a symlink, a dangling symlink, a
// FIFO), sbc fmt on a symlink, and an extends chain that makes a small
// file cost memory quadratic in its length. The standard: never a Go
// stack trace, never a wrong status, never a hang; nothing the user gave
// is lost or replaced silently; an option the user set is honoured or
// refused, never dropped.
//
//	go test -count=1 -run 'TestRedTeam15Fault' ./targets/landlock/launch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ---------------------------------------------------------------------------
// Helpers.

var (
	rt15fSbcOnce sync.Once
	rt15fSbcPath string
	rt15fSbcErr  error
)

// rt15fSbc builds sbc into the test binary directory (once).
func rt15fSbc(t *testing.T) string {
	t.Helper()
	rt15fSbcOnce.Do(func() {
		p := filepath.Join(bin, "rt15f-sbc")
		cmd := exec.Command("go", "build", "-o", p, "../../../cmd/sbc")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			rt15fSbcErr = fmt.Errorf("go build sbc: %v\n%s", err, b)
			return
		}
		rt15fSbcPath = p
	})
	if rt15fSbcErr != nil {
		t.Fatal(rt15fSbcErr)
	}
	return rt15fSbcPath
}

// rt15fStatus is cmd's exit status, or 128+signal.
func rt15fStatus(cmd *exec.Cmd) int {
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// rt15fSbcRun runs sbc ARGS in dir, killed after limit (hung is then set).
func rt15fSbcRun(t *testing.T, dir string, limit time.Duration, args ...string) rt11Out {
	t.Helper()
	cmd := exec.Command(rt15fSbc(t), args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	return rt11Wait(cmd, limit)
}

// rt15fAwaitStarted polls (up to limit) until pid runs sbx and a process
// of the run other than pid (the command) carries tok.
func rt15fAwaitStarted(pid int, tok string, limit time.Duration) bool {
	sbx := filepath.Join(bin, "sbx")
	self := fmt.Sprintf("%d ", pid)
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe == sbx {
			for _, p := range rt11Procs(tok) {
				if !strings.HasPrefix(p, self) {
					return true
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

// ---------------------------------------------------------------------------
// Signals.

// TestRedTeam15FaultSigquit: SIGQUIT (a terminal's ^\) to sbx while the
// command runs, in --json and terminal mode, sandboxed and not, as root and
// as uid 65534. sbx catches SIGINT, SIGTERM and SIGHUP only; SIGQUIT keeps
// the Go runtime's handler, which prints "SIGQUIT: quit", the registers
// and every goroutine's stack (over 100 lines) on sbx's stderr and exits
// with status 2: no result under --json, and a status that reads as the
// command's own exit 2. Checked first (holds): sbx ends and nothing of
// the run survives it. Wanted: no Go stack trace, status 131 (128+3:
// either the default action of SIGQUIT, or a cancellation as for
// SIGTERM, with the JSON result).
//
//	sbx run --json -- sleep 30 & sleep 1; kill -QUIT $!; wait $!; echo $?   # goroutine dump, 2
func TestRedTeam15FaultSigquit(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		_, ws := rt11Dir(t, u)
		for _, profile := range []string{"workspace", "danger-full-access"} {
			for _, mode := range []string{"--json", "terminal"} {
				what := profile + " " + mode
				tok := rt6Token()
				args := []string{"--timeout", "120s", "--profile", profile, "--cwd", ws, "--", "/bin/sh", "-c", "sleep 60", tok}
				if mode == "--json" {
					args = append([]string{"--json"}, args...)
				}
				cmd := rt6Cmd(u, nil, args...)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				if !rt15fAwaitStarted(cmd.Process.Pid, tok, 30*time.Second) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("%s: the command did not start: %s", what, errb.String())
				}
				cmd.Process.Signal(syscall.SIGQUIT)
				if !rt11Exited(cmd, 30*time.Second) {
					t.Errorf("%s: sbx did not end after SIGQUIT", what)
				}
				if left := rt11AwaitGone(tok, 10*time.Second); len(left) > 0 {
					t.Errorf("%s: %d process(es) survive sbx: %v", what, len(left), left[:min(3, len(left))])
					rt11KillAll(tok)
				}
				code := rt15fStatus(cmd)
				if rt11Crashed(errb.String()) {
					t.Errorf("%s: SIGQUIT makes sbx print a Go stack trace (%d lines on stderr, status %d): %.300q", what, strings.Count(errb.String(), "\n"), code, errb.String())
				}
				if code != 128+int(syscall.SIGQUIT) {
					t.Errorf("%s: status %d after SIGQUIT, want 131", what, code)
				}
				if mode == "--json" && code != 128+int(syscall.SIGQUIT) && !json.Valid(out.Bytes()) {
					t.Errorf("%s: no JSON result after SIGQUIT: stdout %.200q", what, out.String())
				}
			}
		}
	})
}

// TestRedTeam15FaultIgnoredSignals: sbx started with SIGHUP ignored (what
// nohup does) or SIGINT ignored (what a non-interactive shell does for a
// background job, so that ^C reaches only the foreground). sbx installs
// its handler for SIGINT, SIGTERM and SIGHUP whatever it inherited
// (cmd/sbx/sigpipe_linux_amd64.go fastSignals; signal.Notify elsewhere),
// so `nohup sbx run -- make` is cancelled by the hangup nohup was meant
// to shield it from: the command is killed and the result says
// cancelled, 129. The caller's SIG_IGN should be kept (check the
// inherited action first, as signal.Ignored allows, and restore it in
// restoreDefaults). Control (holds): with the signal not ignored, it
// cancels the run. The command runs 3 s; the signal comes as soon as it
// has started.
//
//	nohup sbx run --json -- sh -c 'sleep 3; echo done' & sleep 1; kill -HUP $!; wait $!; echo $?   # 129, cancelled
func TestRedTeam15FaultIgnoredSignals(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		_, ws := rt11Dir(t, u)
		for _, profile := range []string{"workspace", "danger-full-access"} {
			for _, sig := range []struct {
				name string
				sig  syscall.Signal
			}{{"HUP", syscall.SIGHUP}, {"INT", syscall.SIGINT}} {
				for _, ignored := range []bool{false, true} {
					what := fmt.Sprintf("%s SIG%s ignored=%v", profile, sig.name, ignored)
					tok := rt6Token()
					inner := rt6Cmd(u, nil, "--json", "--timeout", "120s", "--profile", profile, "--cwd", ws, "--", "/bin/sh", "-c", "sleep 3; echo done", tok)
					trap := ":"
					if ignored {
						trap = "trap '' " + sig.name
					}
					// The shell sets the disposition and execs sbx (or
					// setpriv, which execs sbx): the pid stays sbx's.
					cmd := exec.Command("/bin/sh", append([]string{"-c", trap + `; exec "$@"`, "sh"}, inner.Args...)...)
					cmd.Env = inner.Env
					var out, errb bytes.Buffer
					cmd.Stdout, cmd.Stderr = &out, &errb
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					if !rt15fAwaitStarted(cmd.Process.Pid, tok, 30*time.Second) {
						cmd.Process.Kill()
						cmd.Wait()
						t.Fatalf("%s: the command did not start: %s", what, errb.String())
					}
					cmd.Process.Signal(sig.sig)
					if !rt11Exited(cmd, 60*time.Second) {
						t.Errorf("%s: sbx did not end", what)
						rt11KillAll(tok)
						continue
					}
					code := rt15fStatus(cmd)
					var r rtResult
					err := json.Unmarshal(out.Bytes(), &r)
					switch {
					case rt11Crashed(errb.String()):
						t.Errorf("%s: crash: %s", what, errb.String())
					case err != nil:
						t.Errorf("%s: no JSON result (%v), status %d, stderr %.300q", what, err, code, errb.String())
					case !ignored && (code != 128+int(sig.sig) || !r.Cancelled):
						t.Errorf("%s: control: want the run cancelled with %d: status %d, %+v", what, 128+int(sig.sig), code, r)
					case ignored && (code != 0 || r.Cancelled || r.Stdout != "done\n"):
						t.Errorf("%s: a signal the caller ignores (nohup) cancelled the run: status %d, cancelled %v, stdout %q, signal %q", what, code, r.Cancelled, r.Stdout, r.Signal)
					}
					if left := rt11AwaitGone(tok, 10*time.Second); len(left) > 0 {
						t.Errorf("%s: %d process(es) survive: %v", what, len(left), left[:min(3, len(left))])
						rt11KillAll(tok)
					}
				}
			}
		}
	})
}

// ---------------------------------------------------------------------------
// Option values set but empty.

// TestRedTeam15FaultEmptyValues: `--artifact ""` and `--cwd ""` (what
// `--artifact "$ART"` and `--cwd "$DIR"` give when the variable is unset)
// are taken as "not given": the run goes ahead under the default profile
// (workspace) instead of the artifact, or in sbx's own working directory,
// which the workspace profile then makes writable; exit 0, not a word.
// `--profile ""` is refused for exactly this reason (red team 11) and so
// are empty --retain, --capture and --containment. Both should be usage
// errors (125, and under --json one failure object), and the command must
// not run. Checked as root and as uid 65534, sbx started in a directory
// the command must not write to.
//
//	cd /some/dir && sbx run --artifact "" -- sh -c 'echo x > f'   # exit 0, ./f written under workspace
//	cd /some/dir && sbx run --cwd "" -- sh -c 'echo x > f'        # exit 0, ./f written
func TestRedTeam15FaultEmptyValues(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		base, ws := rt11Dir(t, u)
		other := base + "/other"
		os.Mkdir(other, 0o755)
		os.Lchown(other, u.uid, u.uid)
		cases := []struct {
			name  string
			flags []string
		}{
			{"--artifact ''", []string{"--artifact", ""}},
			{"--artifact=", []string{"--artifact="}},
			{"--cwd ''", []string{"--cwd", ""}},
			{"--cwd=", []string{"--cwd="}},
			{"--artifact '' --cwd other", []string{"--artifact", "", "--cwd", other}},
		}
		for _, c := range cases {
			for _, mode := range []string{"--json", "terminal"} {
				what := c.name + " " + mode
				args := append(append([]string{}, c.flags...), "--", "/bin/sh", "-c", "echo RAN > ran")
				if mode == "--json" {
					args = append([]string{"--json"}, args...)
				}
				cmd := rt6Cmd(u, nil, args...)
				cmd.Dir = ws
				o := rt11Wait(cmd, 30*time.Second)
				ran := fileExists(ws+"/ran") || fileExists(other+"/ran")
				if o.code != 125 || ran {
					t.Errorf("%s: an empty value is dropped silently: status %d, command ran %v (stdout %.200q, stderr %.200q)", what, o.code, ran, o.stdout, o.stderr)
				} else {
					rt11Refused(t, what, o, mode == "--json")
				}
				os.Remove(ws + "/ran")
				os.Remove(other + "/ran")
			}
		}
	})
}

// ---------------------------------------------------------------------------
// sbc.

// rt15fProfile is a minimal valid profile.
const rt15fProfile = `profile "rt15" {
  filesystem {
    read = [root]
  }
}
`

// TestRedTeam15FaultSbcOutputPaths: `sbc compile -o PATH` where PATH is
// not a plain file. "sbc never overwrites a file that is not an sbx
// artifact (it checks the content first, and says so)", and files are
// written atomically: a temporary file renamed over PATH. Held (checked
// first): a symlink to a non-artifact file, /dev/null and a directory
// name are handled without touching what they name. Holes:
//
//   - a symlink to an artifact: the rename replaces the link itself with
//     a regular file; the artifact it pointed to keeps the old content,
//     and the link the user made is gone, without a word (exit 0). The
//     target should be written (resolve the link first) or the write
//     refused.
//   - a dangling symlink: replaced by a regular file likewise.
//   - a FIFO nobody writes to: checkOverwrite opens it for reading
//     (blocking) before it looks at the file's type: sbc hangs for ever.
//     It should Lstat (or open with O_NONBLOCK) and refuse: "not a
//     regular file", as it does once a writer is there.
//
// cmd/sbc/compile.go: checkOverwrite, writeAtomic.
//
//	ln -s real.json link.json && sbc compile p.hcl -o link.json   # link.json is now a file; real.json unchanged
//	mkfifo f.json && sbc compile p.hcl -o f.json                  # hangs
func TestRedTeam15FaultSbcOutputPaths(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/p.hcl", []byte(rt15fProfile), 0o644); err != nil {
		t.Fatal(err)
	}
	// An artifact of another profile, to be replaced through a link.
	if o := rt15fSbcRun(t, dir, 60*time.Second, "compile", "-p", "read-only", "-o", "old.json"); o.code != 0 {
		t.Fatalf("compiling read-only: %v", o)
	}
	old, _ := os.ReadFile(dir + "/old.json")
	os.WriteFile(dir+"/notes.txt", []byte("my notes\n"), 0o644)
	os.Symlink("old.json", dir+"/link-artifact.json")
	os.Symlink("notes.txt", dir+"/link-notes.json")
	os.Symlink(dir+"/nowhere/x.json", dir+"/dangling.json")
	if err := unix.Mkfifo(dir+"/fifo.json", 0o644); err != nil {
		t.Fatal(err)
	}
	isLink := func(p string) bool { st, err := os.Lstat(p); return err == nil && st.Mode()&os.ModeSymlink != 0 }
	cases := []struct {
		name, out string
		check     func(o rt11Out) string // "" when it holds
	}{
		{"symlink to a non-artifact", "link-notes.json", func(o rt11Out) string {
			b, _ := os.ReadFile(dir + "/notes.txt")
			if o.code != 2 || !isLink(dir+"/link-notes.json") || string(b) != "my notes\n" {
				return "the file behind the link was not protected"
			}
			return ""
		}},
		{"/dev/null", "/dev/null", func(o rt11Out) string {
			if st, err := os.Stat("/dev/null"); o.code != 2 || err != nil || st.Mode()&os.ModeCharDevice == 0 {
				return "want a refusal (2), /dev/null untouched"
			}
			return ""
		}},
		{"symlink to an artifact", "link-artifact.json", func(o rt11Out) string {
			if !isLink(dir + "/link-artifact.json") {
				now, _ := os.ReadFile(dir + "/old.json")
				return fmt.Sprintf("the symlink was replaced by a regular file (status %d; its target changed: %v)", o.code, !bytes.Equal(now, old))
			}
			return ""
		}},
		{"dangling symlink", "dangling.json", func(o rt11Out) string {
			if !isLink(dir + "/dangling.json") {
				return fmt.Sprintf("the symlink was replaced by a regular file (status %d)", o.code)
			}
			return ""
		}},
		{"FIFO without a writer", "fifo.json", func(o rt11Out) string {
			st, err := os.Lstat(dir + "/fifo.json")
			if o.code != 2 || !strings.Contains(o.stderr, "not a regular file") || err != nil || st.Mode()&os.ModeNamedPipe == 0 {
				return "want a refusal (2, \"not a regular file\"), the FIFO left as it is"
			}
			return ""
		}},
	}
	for _, c := range cases {
		o := rt15fSbcRun(t, dir, 30*time.Second, "compile", "p.hcl", "-o", c.out)
		switch {
		case o.hung:
			t.Errorf("%s: sbc compile -o %s hung (killed after 30 s): %v", c.name, c.out, o)
		case rt11Crashed(o.stderr):
			t.Errorf("%s: crash: %v", c.name, o)
		default:
			if msg := c.check(o); msg != "" {
				t.Errorf("%s: %s: %v", c.name, msg, o)
			}
		}
	}
}

// TestRedTeam15FaultSbcFmtSymlink: `sbc fmt` rewrites files "in place and
// atomically" (a temporary file renamed over the name). A profile that is
// a symlink (a shared profile linked into a project; also one found in a
// directory given to sbc fmt) is not formatted: the link is replaced by a
// formatted regular copy and the real file keeps its old layout; exit 0,
// the link's name printed as formatted. Wanted: the link stays and the
// file it names is formatted (resolve it first, as gofmt and terraform
// fmt, which write through the link, do), or a refusal. Control (holds):
// a plain file is formatted and keeps its mode.
//
// cmd/sbc/fmt.go (writeAtomic on the name given).
//
//	ln -s ../shared/p.hcl p.hcl && sbc fmt p.hcl   # p.hcl is now a regular file; ../shared/p.hcl untouched
func TestRedTeam15FaultSbcFmtSymlink(t *testing.T) {
	dir := t.TempDir()
	ugly := "profile \"x\" {\nfilesystem {\nread=[root]\n}\n}\n"
	write := func(p string) {
		if err := os.WriteFile(p, []byte(ugly), 0o640); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o640)
	}
	os.MkdirAll(dir+"/shared", 0o755)
	os.MkdirAll(dir+"/proj", 0o755)
	write(dir + "/plain.hcl")
	write(dir + "/shared/a.hcl")
	write(dir + "/shared/b.hcl")
	os.Symlink("shared/a.hcl", dir+"/link.hcl")
	os.Symlink("../shared/b.hcl", dir+"/proj/b.hcl")
	isLink := func(p string) bool { st, err := os.Lstat(p); return err == nil && st.Mode()&os.ModeSymlink != 0 }
	formatted := func(p string) bool {
		b, _ := os.ReadFile(p)
		return string(b) != ugly && strings.Contains(string(b), "  filesystem {")
	}

	o := rt15fSbcRun(t, dir, 30*time.Second, "fmt", "plain.hcl")
	if st, err := os.Stat(dir + "/plain.hcl"); o.code != 0 || err != nil || !formatted(dir+"/plain.hcl") || st.Mode().Perm() != 0o640 {
		t.Fatalf("control: a plain file is not formatted in place with its mode: %v", o)
	}
	for _, c := range []struct{ name, arg, link, target string }{
		{"symlink named", "link.hcl", dir + "/link.hcl", dir + "/shared/a.hcl"},
		{"symlink in a directory", "proj", dir + "/proj/b.hcl", dir + "/shared/b.hcl"},
	} {
		o := rt15fSbcRun(t, dir, 30*time.Second, "fmt", c.arg)
		switch {
		case o.hung || rt11Crashed(o.stderr):
			t.Errorf("%s: %v", c.name, o)
		case !isLink(c.link):
			t.Errorf("%s: sbc fmt replaced the symlink %s with a regular file (status %d); its target formatted: %v: %v", c.name, filepath.Base(c.link), o.code, formatted(c.target), o)
		case o.code == 0 && !formatted(c.target):
			t.Errorf("%s: status 0 but %s is not formatted: %v", c.name, c.target, o)
		}
	}
}

// TestRedTeam15FaultSbcExtendsChain: the README's Limits: "Inputs are
// bounded so that no file can exhaust memory or time", and a compilation
// holds at most 200,000 rules "counting what each inherits through
// extends". Not counted: the extends chain itself, which each profile's IR
// carries in full (ir.profile.extends lists every ancestor). A file of
// 8,000 one-line profiles, each extending the previous one (310 KB,
// under the token limit, one rule in all), makes every profile carry a
// chain of up to 7,999 names: O(n²) strings, built for every profile
// whichever is written (all must be valid). Here: `sbc compile -p p7999`
// peaks at about 570 MB (3.4 s); 2,000 profiles 65 MB, 4,000 167 MB,
// 10,000 860 MB, 12,000 1.2 GB (the token limit allows about 14,000); without
// -p (all of them, for -o DIR), 12,000 took 52 s and 4.3 GB. Wanted: the chain
// counted against the budget (compiler/merge.go, checkSize: add
// len(r.chain)) or a depth limit, and a refusal ("too-large") well before
// that. The test accepts a refusal with exit 1 or 2, or a compilation
// under 400 MB of peak RSS (sbc fmt -check, which parses the file, takes
// about 100 MB).
func TestRedTeam15FaultSbcExtendsChain(t *testing.T) {
	const n = 8000
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("profile \"p0\" {\n  filesystem {\n    read = [root]\n  }\n}\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "profile \"p%d\" {\n  extends = \"p%d\"\n}\n", i, i-1)
	}
	if err := os.WriteFile(dir+"/chain.hcl", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rt15fSbc(t), "compile", "chain.hcl", "-p", fmt.Sprintf("p%d", n-1), "-o", "out.json")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	o := rt11Wait(cmd, 180*time.Second)
	if o.hung || rt11Crashed(o.stderr) {
		t.Fatalf("%d chained profiles: %v", n, o)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	t.Logf("%d chained profiles (%d bytes): status %d, %v, peak RSS %d MiB", n, b.Len(), o.code, o.elapsed.Round(time.Millisecond), rss>>20)
	switch {
	case o.code == 1 || o.code == 2:
		if !strings.Contains(o.stderr, "Error:") {
			t.Errorf("refused without a diagnostic: %v", o)
		}
	case o.code == 0 && rss > 400<<20:
		t.Errorf("%d chained profiles in a %d KB file: peak RSS %d MiB (%v): the extends chain is not bounded", n, b.Len()>>10, rss>>20, o.elapsed.Round(time.Millisecond))
	case o.code != 0:
		t.Errorf("status %d: %v", o.code, o)
	}
}

// ---------------------------------------------------------------------------
// Resource limits.

// TestRedTeam15FaultFileSizeLimit: sbx's stdout is a regular file and sbx
// runs under RLIMIT_FSIZE 4 KiB (ulimit -f 8), with SIGXFSZ at its default
// action (which would kill sbx with a core dump at the first write past
// the limit) and ignored (the write fails with EFBIG). The command writes
// 20,000 bytes. In every mode sbx must end with 125 and say that the
// output is incomplete ("file too large"), never die of SIGXFSZ, never
// crash; the file holds no more than the limit. Held when written. And the
// limit is the command's too: its own write past it in the workspace is
// cut (SIGXFSZ, at its default action in the command whatever sbx
// inherited: status 153 from the shell).
func TestRedTeam15FaultFileSizeLimit(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		base, ws := rt11Dir(t, u)
		for _, profile := range []string{"workspace", "danger-full-access"} {
			for _, mode := range [][]string{{"--json"}, {"--events"}, {}} {
				for _, ignore := range []bool{false, true} {
					what := fmt.Sprintf("%s %v ignore=%v", profile, mode, ignore)
					inner := rt6Cmd(u, nil, append(mode, "--timeout", "60s", "--profile", profile, "--cwd", ws, "--", "/bin/sh", "-c", "head -c 20000 /dev/zero | tr '\\0' x; exit 3")...)
					trap := ":"
					if ignore {
						trap = "trap '' XFSZ"
					}
					cmd := exec.Command("/bin/sh", append([]string{"-c", "ulimit -f 8; " + trap + `; exec "$@"`, "sh"}, inner.Args...)...)
					cmd.Env = inner.Env
					outPath := filepath.Join(base, "out")
					f, err := os.Create(outPath)
					if err != nil {
						t.Fatal(err)
					}
					cmd.Stdout = f
					o := rt11Wait(cmd, 60*time.Second)
					f.Close()
					st, _ := os.Stat(outPath)
					switch {
					case o.hung || rt11Crashed(o.stderr):
						t.Errorf("%s: %v", what, o)
					case o.code != 125 || !strings.Contains(o.stderr, "file too large"):
						t.Errorf("%s: want 125 and \"file too large\" (%d bytes written): %v", what, st.Size(), o)
					case st.Size() > 4096:
						t.Errorf("%s: %d bytes written past a 4 KiB limit", what, st.Size())
					}
					os.Remove(outPath)
				}
			}
			// The command's own write past the limit.
			inner := rt6Cmd(u, nil, "--json", "--timeout", "60s", "--profile", profile, "--cwd", ws, "--", "/bin/sh", "-c", `head -c 20000 /dev/zero > big; echo "rc=$?"`)
			cmd := exec.Command("/bin/sh", append([]string{"-c", `ulimit -f 8; trap '' XFSZ; exec "$@"`, "sh"}, inner.Args...)...)
			cmd.Env = inner.Env
			o := rt11Wait(cmd, 60*time.Second)
			r := rt11Result(t, profile+" command past the limit", o)
			st, err := os.Stat(ws + "/big")
			if o.code != 0 || r.Stdout != "rc=153\n" || err != nil || st.Size() != 4096 {
				t.Errorf("%s: the command's write past RLIMIT_FSIZE: stdout %q, file %v: %v", profile, r.Stdout, st, o)
			}
			os.Remove(ws + "/big")
		}
	})
}
