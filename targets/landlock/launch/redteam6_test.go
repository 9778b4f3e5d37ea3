//go:build linux && amd64

package launch_test

// Red-team battery 6: the pipeline's fault behaviour under the sandbox
// (profiles workspace and read-only, with danger-full-access as the
// control), as root and as uid 65534: exec failures and their statuses,
// sbx killed or interrupted at every moment, timeouts, floods, standard
// streams, concurrent runs, signals, --events ordering, non-UTF-8 output.
//
//	go test -count=1 -run 'TestRedTeam6' ./targets/landlock/launch/

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/targets/landlock"
	"github.com/sbx-dev/sbx/targets/landlock/launch"
)

// rt6Result adds the fields this battery reads to rtResult.
type rt6Result struct {
	rtResult
	Error       *string `json:"error"`
	StderrTrunc bool    `json:"stderr_truncated"`
	StderrLossy bool    `json:"stderr_lossy"`
	OutputCap   int64   `json:"output_cap"`
}

var rt6Seq atomic.Int64

// rt6Token is a string unique to one run, put in the command's argv (and so
// in sbx's, the init's and the supervisor's command lines).
func rt6Token() string {
	return fmt.Sprintf("RT6TOK%d_%d", os.Getpid(), rt6Seq.Add(1))
}

// rt6Cmd is sbx run ARGS as u (no --json added), with env appended to a
// minimal environment (a later PATH replaces the default one).
func rt6Cmd(u user, env []string, args ...string) *exec.Cmd {
	argv := append([]string{filepath.Join(bin, "sbx"), "run"}, args...)
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}, env...)
	return cmd
}

// rt6JSON runs sbx run --json ARGS and returns the result and sbx's status.
func rt6JSON(t *testing.T, u user, env []string, args ...string) (rt6Result, int) {
	t.Helper()
	cmd := rt6Cmd(u, env, append([]string{"--json"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("sbx %q hung", args)
	}
	var r rt6Result
	if !json.Valid(out.Bytes()) {
		t.Fatalf("sbx %q: invalid JSON (status %d):\n%.1500s\nstderr: %.500s", args, cmd.ProcessState.ExitCode(), out.Bytes(), errb.Bytes())
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("sbx %q: %v\n%.1500s", args, err, out.Bytes())
	}
	return r, cmd.ProcessState.ExitCode()
}

// rt6Survivors lists the processes whose command line contains token.
func rt6Survivors(token string) []string {
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(b, []byte(token)) {
			continue
		}
		st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		found = append(found, fmt.Sprintf("%d %q [%s]", pid, bytes.ReplaceAll(b, []byte{0}, []byte{' '}), strings.TrimSpace(string(st))))
	}
	return found
}

// rt6NoSurvivors waits (polling, at most 3 s: the kernel tears a PID
// namespace down asynchronously) until no process carries token, and fails
// with the ones left otherwise.
func rt6NoSurvivors(t *testing.T, token string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		s := rt6Survivors(token)
		if len(s) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d process(es) survive:\n%s", len(s), strings.Join(s[:min(len(s), 5)], "\n"))
			for _, l := range s {
				if pid, err := strconv.Atoi(strings.Fields(l)[0]); err == nil {
					syscall.Kill(pid, syscall.SIGKILL) // clean up after the failure
				}
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rt6Profiles are the profiles the battery runs under.
var rt6Profiles = []string{"workspace", "read-only", "danger-full-access"}

// rt6Files writes the exec-failure fixtures into dir (world-readable).
func rt6Files(t *testing.T, dir string) {
	t.Helper()
	os.MkdirAll(dir+"/bin", 0o755)
	os.MkdirAll(dir+"/adir", 0o755)
	script := "#!/bin/sh\necho \"tool ok $*\"\n"
	w := func(name, content string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(dir, name), mode)
	}
	w("bin/tool", script, 0o755)
	w("bin/with space", script, 0o755)
	w("bin/new\nline", script, 0o755)
	w("bin/bad\xffname", script, 0o755)
	w("noexec", script, 0o644)
	w("noshebang", "echo should-not-run\n", 0o755)
	w("badinterp", "#!/nonexistent/interp\necho x\n", 0o755)
	w("emptyfile", "", 0o755)
	elf, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	w("truncated", string(elf[:200]), 0o755)
	foreign := append([]byte(nil), elf...)
	foreign[18], foreign[19] = 183, 0 // e_machine = EM_AARCH64
	w("foreign", string(foreign), 0o755)
	os.Symlink("/nonexistent/target", filepath.Join(dir, "dangling"))
}

// TestRedTeam6ExecFailures: every way the final execve can fail gives the
// documented status (126 found but not executable, 127 not found or missing
// interpreter), an `error` naming the command, no output and no sbx error,
// identically with and without the sandbox; names are resolved with the
// command's PATH, relative to --cwd, and odd bytes in names survive.
func TestRedTeam6ExecFailures(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		d := f.base + "/x"
		rt6Files(t, d)
		type tc struct {
			name   string
			argv   []string
			env    []string
			code   int
			errHas string // substring of `error` ("" : error must be null)
			stdout string
		}
		cases := []tc{
			{name: "missing absolute", argv: []string{d + "/missing"}, code: 127, errHas: "no such file"},
			{name: "missing in PATH", argv: []string{"rt6-no-such-command"}, code: 127, errHas: "not found"},
			{name: "dangling symlink", argv: []string{d + "/dangling"}, code: 127, errHas: "no such file"},
			{name: "directory", argv: []string{d + "/adir"}, code: 126, errHas: "is a directory"},
			{name: "not executable", argv: []string{d + "/noexec"}, code: 126, errHas: "permission denied"},
			{name: "no shebang", argv: []string{d + "/noshebang"}, code: 126, errHas: "exec format error"},
			{name: "empty file", argv: []string{d + "/emptyfile"}, code: 126, errHas: "exec format error"},
			{name: "truncated ELF", argv: []string{d + "/truncated"}, code: 126, errHas: ""},
			{name: "foreign ELF", argv: []string{d + "/foreign"}, code: 126, errHas: "exec format error"},
			{name: "missing interpreter", argv: []string{d + "/badinterp"}, code: 127, errHas: "interpreter"},
			{name: "relative with slash to --cwd", argv: []string{"bin/tool", "a"}, code: 0, stdout: "tool ok a\n"},
			{name: "dot relative to --cwd", argv: []string{"./bin/tool", "b"}, code: 0, stdout: "tool ok b\n"},
			{name: "bare name via command PATH", argv: []string{"tool", "c"}, env: []string{"PATH=" + d + "/bin:/usr/bin:/bin"}, code: 0, stdout: "tool ok c\n"},
			{name: "bare name via relative PATH entry", argv: []string{"tool", "e"}, env: []string{"PATH=bin:/usr/bin:/bin"}, code: 0, stdout: "tool ok e\n"},
			{name: "bare name not in PATH", argv: []string{"tool"}, code: 127, errHas: "not found"},
			{name: "space in name", argv: []string{d + "/bin/with space", "s"}, code: 0, stdout: "tool ok s\n"},
			{name: "newline in name", argv: []string{d + "/bin/new\nline"}, code: 0, stdout: "tool ok \n"},
			{name: "non-UTF-8 name", argv: []string{d + "/bin/bad\xffname"}, code: 0, stdout: "tool ok \n"},
		}
		for _, profile := range rt6Profiles {
			for _, c := range cases {
				t.Run(profile+"/"+c.name, func(t *testing.T) {
					args := append([]string{"--profile", profile, "--cwd", d, "--"}, c.argv...)
					r, status := rt6JSON(t, u, c.env, args...)
					if r.SbxError != "" || status != c.code || r.ExitCode != c.code {
						t.Fatalf("status %d, exit_code %d, sbx_error %q, error %v; want %d", status, r.ExitCode, r.SbxError, deref(r.Error), c.code)
					}
					if c.code == 0 {
						if r.Stdout != c.stdout || r.Error != nil {
							t.Errorf("stdout %q (want %q), error %v", r.Stdout, c.stdout, deref(r.Error))
						}
						return
					}
					if r.Error == nil || !strings.HasPrefix(*r.Error, c.argv[0]+": ") || !strings.Contains(*r.Error, c.errHas) {
						t.Errorf("error %q; want %q: ...%s...", deref(r.Error), c.argv[0], c.errHas)
					}
					if r.Stdout != "" || r.Stderr != "" || r.Signal != "" {
						t.Errorf("stdout %q stderr %q signal %q", r.Stdout, r.Stderr, r.Signal)
					}
				})
			}
		}
		t.Run("empty argv[0]", func(t *testing.T) {
			for _, profile := range rt6Profiles {
				r, status := rt6JSON(t, u, nil, "--profile", profile, "--cwd", d, "--", "")
				if status != 125 || r.ExitCode != 125 || r.SbxError == "" {
					t.Errorf("%s: status %d, result %+v; want 125 and an sbx_error", profile, status, r)
				}
			}
		})
	})
}

func deref(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

// TestRedTeam6LibraryArgv drives the executor with the Landlock sandbox
// directly: argv and environment strings with NUL bytes (which cannot come
// through a command line) are refused without running anything, and an
// argument list past ARG_MAX is reported as E2BIG (126), as without the
// sandbox.
// workspaceSandbox binds the built-in workspace profile with dir as cwd
// and home, for in-process executor.Run calls.
func workspaceSandbox(t *testing.T, dir string) *launch.Sandbox {
	t.Helper()
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	b, err := landlock.DefaultBindings(dir, func(k string) string {
		if k == "HOME" {
			return "/nonexistent-sbx-home" // not dir: a writable home is refused
		}
		return os.Getenv(k)
	})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := launch.New(plan, b, launch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

func TestRedTeam6LibraryArgv(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (in-process containment)")
	}
	dir := t.TempDir()
	sb := workspaceSandbox(t, dir)
	huge := make([]string, 0, 40)
	huge = append(huge, "/bin/true")
	for i := 0; i < 30; i++ {
		huge = append(huge, strings.Repeat("a", 100000)) // 3 MB: past ARG_MAX (2 MiB with an 8 MiB stack)
	}
	for _, sandboxed := range []bool{true, false} {
		name := "sandboxed"
		if !sandboxed {
			name = "unsandboxed"
		}
		t.Run(name, func(t *testing.T) {
			run := func(argv, env []string) (*executor.Result, error) {
				req := executor.Request{Argv: argv, Dir: dir, Env: env, Timeout: 5 * time.Second}
				if sandboxed {
					req.Sandbox = sb
				}
				return executor.Run(context.Background(), req)
			}
			env := []string{"PATH=/usr/bin:/bin"}
			for what, c := range map[string][2][]string{
				"NUL in argv":     {{"/bin/sh", "-c", "echo ran", "a\x00b"}, env},
				"NUL in argv[0]":  {{"/bin/sh\x00x", "-c", "echo ran"}, env},
				"NUL in env":      {{"/bin/sh", "-c", "echo ran"}, {"PATH=/usr/bin:/bin", "A=b\x00c"}},
				"NUL in env name": {{"/bin/sh", "-c", "echo ran"}, {"PATH=/usr/bin:/bin", "A\x00=b"}},
			} {
				res, err := run(c[0], c[1])
				switch {
				case err != nil:
					// Refused as a request or sandbox error: fine.
				case res == nil:
					t.Errorf("%s: nil result and nil error", what)
				case res.ExitCode == 0 || strings.Contains(string(res.Stdout.Head), "ran"):
					t.Errorf("%s: the command ran (exit %d, stdout %q)", what, res.ExitCode, res.Stdout.Head)
				case res.ExitCode != 126 && res.ExitCode != 127:
					t.Errorf("%s: exit %d, error %q", what, res.ExitCode, res.Error)
				}
			}
			res, err := run(huge, env)
			if err != nil || res.ExitCode != 126 || !strings.Contains(res.Error, "argument list too long") {
				t.Errorf("3 MB of argv: err %v, result %+v; want 126 with E2BIG", err, res)
			}
			res, err = run([]string{"/bin/true"}, append([]string{"PATH=/usr/bin:/bin"}, huge[1:]...))
			if err != nil || res.ExitCode != 126 || !strings.Contains(res.Error, "argument list too long") {
				t.Errorf("3 MB of env: err %v, result %+v; want 126 with E2BIG", err, res)
			}
		})
	}
}

// TestRedTeam6Signals: a command killed by each common signal gives
// 128+N and the signal's name (the sandbox's init reports it).
func TestRedTeam6Signals(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, profile := range []string{"workspace", "read-only"} {
			for _, sig := range []syscall.Signal{syscall.SIGSEGV, syscall.SIGABRT, syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGPIPE, syscall.SIGBUS, syscall.SIGHUP, syscall.SIGQUIT} {
				name := strings.ToUpper(unixSignalName(sig))
				r, status := rt6JSON(t, u, nil, "--profile", profile, "--cwd", f.ws, "--", "/bin/sh", "-c", "kill -"+strings.TrimPrefix(name, "SIG")+" $$; echo survived")
				if status != 128+int(sig) || r.ExitCode != 128+int(sig) || r.Signal != name || r.Stdout != "" || r.Cancelled || r.TimedOut {
					t.Errorf("%s %s: status %d exit_code %d signal %q stdout %q; want %d %s", profile, name, status, r.ExitCode, r.Signal, r.Stdout, 128+int(sig), name)
				}
			}
			// A real crash and abort(3), not kill(1).
			r, _ := rt6JSON(t, u, nil, "--profile", profile, "--cwd", f.ws, "--", "python3", "-c", "import os; os.abort()")
			if r.ExitCode != 134 || r.Signal != "SIGABRT" {
				t.Errorf("%s abort(): exit %d signal %q", profile, r.ExitCode, r.Signal)
			}
			r, _ = rt6JSON(t, u, nil, "--profile", profile, "--cwd", f.ws, "--", "python3", "-c", "import ctypes; ctypes.string_at(0)")
			if r.ExitCode != 139 || r.Signal != "SIGSEGV" {
				t.Errorf("%s NULL dereference: exit %d signal %q", profile, r.ExitCode, r.Signal)
			}
		}
	})
}

func unixSignalName(s syscall.Signal) string {
	return map[syscall.Signal]string{syscall.SIGSEGV: "SIGSEGV", syscall.SIGABRT: "SIGABRT", syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM",
		syscall.SIGINT: "SIGINT", syscall.SIGPIPE: "SIGPIPE", syscall.SIGBUS: "SIGBUS", syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT"}[s]
}

// rt6Interrupt starts sbx, sends sig after delay (0: at once), and checks
// the documented outcome: sbx ends with 128+N (by the default action,
// without output, or with a result that says cancelled), and nothing
// carrying token survives.
func rt6Interrupt(t *testing.T, u user, env []string, sig syscall.Signal, delay time.Duration, token string, args ...string) {
	t.Helper()
	cmd := rt6Cmd(u, env, append([]string{"--json"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if delay > 0 {
		time.Sleep(delay)
	}
	cmd.Process.Signal(sig)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v after %v: sbx did not exit", sig, delay)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled() && ws.Signal() == sig && out.Len() == 0:
		// The first fraction of a millisecond: default action.
	case ws.Exited() && ws.ExitStatus() == 128+int(sig):
		var r rt6Result
		if err := json.Unmarshal(out.Bytes(), &r); err != nil || !r.Cancelled {
			t.Errorf("%v after %v: status %d but result %.300q", sig, delay, ws.ExitStatus(), out.Bytes())
		}
	default:
		t.Errorf("%v after %v: wait status %v (exit %d), output %.300q; want 128+%d", sig, delay, ws, ws.ExitStatus(), out.Bytes(), sig)
	}
	rt6NoSurvivors(t, token)
}

// TestRedTeam6InterruptAtStart: SIGTERM, SIGINT and SIGHUP to sbx at
// every moment of its start. Includes the deterministic reproducer of a
// signal that arrives while sbx resolves the command (a long PATH widens
// that window): sbx reports an sbx failure (125, "not started: context
// canceled") instead of 128+N.
func TestRedTeam6InterruptAtStart(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		sigs := []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}
		delays := []time.Duration{0, 100 * time.Microsecond, 500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 30 * time.Millisecond}
		for _, profile := range []string{"workspace", "read-only"} {
			t.Run(profile, func(t *testing.T) {
				for i, d := range delays {
					tok := rt6Token()
					rt6Interrupt(t, u, nil, sigs[i%3], d, tok, "--timeout", "10s", "--profile", profile, "--cwd", f.ws, "--", "/bin/sh", "-c", "trap '' TERM INT HUP; mkdir -p d; sleep 30", tok)
				}
			})
		}
		t.Run("during command resolution", func(t *testing.T) {
			var p strings.Builder
			for i := 0; i < 6500; i++ {
				fmt.Fprintf(&p, "/nonexistent/d%05d:", i)
			}
			env := []string{"PATH=" + p.String() + "/bin"}
			for _, d := range []time.Duration{3 * time.Millisecond, 5 * time.Millisecond} {
				for _, sig := range sigs[:2] {
					tok := rt6Token()
					// A command that keeps running if it did start (sbx got
					// faster than the window): the signal then cancels it,
					// with the same 128+N.
					rt6Interrupt(t, u, env, sig, d, tok, "--timeout", "10s", "--profile", "workspace", "--cwd", f.ws, "--", "sh", "-c", "sleep 30", tok)
				}
			}
		})
	})
}

// TestRedTeam6KillNoSurvivors: sbx SIGKILLed at random moments — during
// its start, right after, while the supervisor starts for the first
// creation, during heavy output — leaves no process behind.
func TestRedTeam6KillNoSurvivors(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		kill := func(t *testing.T, profile string, delay time.Duration, waitFor string, script string) {
			t.Helper()
			tok := rt6Token()
			cmd := rt6Cmd(u, nil, "--events", "--timeout", "30s", "--profile", profile, "--cwd", f.ws, "--", "/bin/sh", "-c", script, tok)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if waitFor != "" {
				sc := bufio.NewScanner(out)
				sc.Buffer(nil, 1<<20)
				for sc.Scan() && !strings.Contains(sc.Text(), waitFor) {
				}
			}
			if delay > 0 {
				time.Sleep(delay)
			}
			cmd.Process.Kill()
			go io.Copy(io.Discard, out)
			cmd.Wait()
			rt6NoSurvivors(t, tok)
		}
		for _, profile := range []string{"workspace", "read-only"} {
			t.Run(profile, func(t *testing.T) {
				for _, d := range []time.Duration{0, 50 * time.Microsecond, 200 * time.Microsecond, 500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond, 10 * time.Millisecond} {
					kill(t, profile, d, "", "setsid sh -c 'trap \"\" TERM HUP; sleep 30' &\n(trap '' TERM; while :; do sleep 1; done) & sleep 30")
				}
				// Right after the start event.
				kill(t, profile, 0, `"type":"start"`, "setsid sleep 30 & sleep 30")
				// While the supervisor starts for the first creation.
				for _, d := range []time.Duration{0, 100 * time.Microsecond, 300 * time.Microsecond, time.Millisecond} {
					kill(t, profile, d, "go", "echo go; mkdir d1 2>/dev/null; : > f1; ln -s f1 l1 2>/dev/null; mkfifo p1 2>/dev/null; (while :; do mkdir x; rmdir x; done) & sleep 30")
				}
				// During heavy output on both streams.
				kill(t, profile, 0, `"seq":200,`, "yes 0123456789 >&2 & yes abcdefghij")
			})
		}
	})
}

// TestRedTeam6Timeouts: commands that ignore SIGTERM, stop themselves or
// fork a bounded swarm time out with 124 and leave nothing behind.
func TestRedTeam6Timeouts(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		// The timeout is 1 s, except where the command has real work to
		// do before it is ready: 150 forks take over a second on a slow
		// VM under the parallel tests' load, and the test is about what
		// the timeout does to the swarm, not about how fast it forms.
		scripts := map[string]struct {
			script  string
			timeout time.Duration
		}{
			"ignores SIGTERM":     {"trap '' TERM INT HUP; echo ready; sleep 30", time.Second},
			"stops itself":        {"echo ready; kill -STOP $$; sleep 30", time.Second},
			"stops its group":     {"sleep 30 & echo ready; kill -STOP 0; wait", time.Second},
			"300 processes":       {"i=0; while [ $i -lt 150 ]; do (trap '' TERM; while :; do sleep 5; done) & i=$((i+1)); done; echo ready; wait", 8 * time.Second},
			"setsid escapees":     {"for i in 1 2 3; do setsid sh -c 'trap \"\" TERM HUP; while :; do sleep 1; done' & done; echo ready; sleep 30", time.Second},
			"supervisor + stuck":  {"mkdir -p dd 2>/dev/null; touch dd/f 2>/dev/null; echo ready; trap '' TERM; sleep 30", time.Second},
			"closed stdio + loop": {"echo ready; exec >&- 2>&- <&-; trap '' TERM; while :; do :; done", time.Second},
		}
		for _, profile := range rt6Profiles {
			for name, tc := range scripts {
				t.Run(profile+"/"+name, func(t *testing.T) {
					t.Parallel()
					tok := rt6Token()
					start := time.Now()
					r, status := rt6JSON(t, u, nil, "--timeout", tc.timeout.String(), "--profile", profile, "--cwd", f.ws, "--", "/bin/sh", "-c", tc.script, tok)
					el := time.Since(start)
					// The end must come within 4 s of the deadline: the
					// grace period and the tree's kill, with slack for load.
					if status != 124 || r.ExitCode != 124 || !r.TimedOut || r.Stdout != "ready\n" || el > tc.timeout+4*time.Second {
						t.Errorf("status %d exit_code %d timed_out %v stdout %q after %v (timeout %v)", status, r.ExitCode, r.TimedOut, r.Stdout, el, tc.timeout)
					}
					rt6NoSurvivors(t, tok)
				})
			}
		}
	})
}

// TestRedTeam6ExitDuringForks: the command exits while what it started
// keeps forking (in new sessions too): sbx reports the command's own
// status at once, and when sbx has exited no process of the command is
// left (the init kills and reaps the whole namespace before it reports
// the end; what may still be there is the init itself, a clone of sbx,
// lingering until sbx's exit). Every process here is a shell that carries
// the token.
func TestRedTeam6ExitDuringForks(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		scripts := map[string]string{
			"forking loops":    "for i in 1 2 3 4; do (while :; do (:) & done) & done; sleep 0.05; exit 3",
			"in new sessions":  "for i in 1 2 3; do setsid sh -c '(while :; do (:) & done) & trap \"\" TERM HUP; while :; do :; done' \"$0\" & done; sleep 0.05; exit 3",
			"ignoring signals": "for i in 1 2; do (trap '' TERM INT HUP; while :; do (trap '' TERM; :) & done) & done; sleep 0.05; exit 3",
		}
		for _, profile := range rt6Profiles {
			for name, script := range scripts {
				t.Run(profile+"/"+name, func(t *testing.T) {
					tok := rt6Token()
					start := time.Now()
					r, status := rt6JSON(t, u, nil, "--timeout", "10s", "--profile", profile, "--cwd", f.ws, "--", "/bin/sh", "-c", script, tok)
					el := time.Since(start)
					var left []string
					for _, s := range rt6Survivors(tok) {
						if !strings.Contains(s, " (sbx) ") {
							left = append(left, s)
						}
					}
					if status != 3 || r.ExitCode != 3 || r.TimedOut || el > 5*time.Second {
						t.Errorf("status %d exit_code %d timed_out %v after %v", status, r.ExitCode, r.TimedOut, el)
					}
					if len(left) > 0 {
						t.Errorf("%d process(es) of the command left when sbx exited:\n%s", len(left), strings.Join(left[:min(len(left), 5)], "\n"))
					}
					rt6NoSurvivors(t, tok)
				})
			}
		}
	})
}

// TestRedTeam6Streams: floods on both streams against the cap, streams
// closed early, /dev/stdout and /dev/stderr, and stdin at EOF.
func TestRedTeam6Streams(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, profile := range rt6Profiles {
			t.Run(profile, func(t *testing.T) {
				run := func(script string, extra ...string) (rt6Result, int) {
					t.Helper()
					args := append([]string{"--timeout", "20s", "--profile", profile, "--cwd", f.ws}, extra...)
					return rt6JSON(t, u, nil, append(args, "--", "/bin/sh", "-c", script)...)
				}
				// Floods: 8 MB on each stream, 64 KiB cap.
				r, st := run("head -c 8000000 /dev/zero | tr '\\0' e >&2 & head -c 8000000 /dev/zero | tr '\\0' o; wait", "--output-cap", "64KiB")
				if st != 0 || r.StdoutBytes != 8000000 || r.StderrBytes != 8000000 || !r.StdoutTrunc || !r.StderrTrunc ||
					len(r.Stdout) != 65536 || len(r.Stderr) != 65536 || strings.Trim(r.Stdout, "o") != "" || strings.Trim(r.Stderr, "e") != "" || r.OutputCap != 65536 {
					t.Errorf("flood: status %d bytes %d/%d retained %d/%d trunc %v/%v cap %d", st, r.StdoutBytes, r.StderrBytes, len(r.Stdout), len(r.Stderr), r.StdoutTrunc, r.StderrTrunc, r.OutputCap)
				}
				// Closes stdout early, keeps writing stderr, exits 3.
				r, st = run("echo before; exec >&-; echo gone 2>/dev/null; i=0; while [ $i -lt 2000 ]; do echo err$i >&2; i=$((i+1)); done; exit 3")
				if st != 3 || r.Stdout != "before\n" || !strings.HasSuffix(r.Stderr, "err1999\n") || strings.Count(r.Stderr, "\n") != 2000 {
					t.Errorf("stdout closed early: status %d signal %q stdout %q stderr %d lines, duration %dms", st, r.Signal, r.Stdout, strings.Count(r.Stderr, "\n"), r.DurationMS)
				}
				// Closes both, then writing to them fails with EBADF, not SIGPIPE.
				r, st = run("exec >&- 2>&-; echo x; echo y >&2; exit 5")
				if st != 5 || r.Stdout != "" || r.Stderr != "" || r.Signal != "" {
					t.Errorf("both closed: status %d %+v", st, r)
				}
				// /dev/stdout and /dev/stderr (the sandbox's own /dev links).
				r, st = run("echo out > /dev/stdout; echo err > /dev/stderr; echo fd1 > /dev/fd/1; readlink /dev/stdout /dev/stderr /dev/stdin")
				if st != 0 || r.Stdout != "out\nfd1\n/proc/self/fd/1\n/proc/self/fd/2\n/proc/self/fd/0\n" || r.Stderr != "err\n" {
					t.Errorf("/dev/std*: status %d stdout %q stderr %q", st, r.Stdout, r.Stderr)
				}
				// Append through /dev/stdout, and from a child after the parent exited.
				r, st = run("echo a >> /dev/stdout; (sleep 0.05; echo late) & echo b")
				if st != 0 || (r.Stdout != "a\nb\n" && r.Stdout != "a\nb\nlate\n") {
					t.Errorf("append /dev/stdout: status %d stdout %q", st, r.Stdout)
				}
				// stdin is /dev/null: EOF at once, readable, not a terminal.
				r, st = run(`cat; echo "cat=$?"; read x; echo "read=$?"; [ -t 0 ] || echo notty; stat -L -c '%t:%T' /dev/stdin; head -c1 /proc/self/fd/0 | wc -c`)
				if st != 0 || r.Stdout != "cat=0\nread=1\nnotty\n1:3\n0\n" {
					t.Errorf("stdin: status %d stdout %q stderr %q", st, r.Stdout, r.Stderr)
				}
			})
		}
	})
}

// TestRedTeam6Concurrent: 20 sbx at once, each with a supervisor (a
// creation in the workspace), each with its own result.
func TestRedTeam6Concurrent(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		var wg sync.WaitGroup
		errs := make(chan string, 20)
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				cmd := rt6Cmd(u, nil, "--json", "--timeout", "20s", "--profile", "workspace", "--cwd", f.ws, "--", "/bin/sh", "-c",
					fmt.Sprintf("mkdir c%d && : > c%d/f && ln -s f c%d/l && mkdir .git 2>/dev/null; echo run%d $(ls c%d | tr '\\n' ,); exit %d", i, i, i, i, i, i))
				out, _ := cmd.Output()
				var r rt6Result
				if err := json.Unmarshal(out, &r); err != nil {
					errs <- fmt.Sprintf("run %d: %v %.200q", i, err, out)
					return
				}
				if want := fmt.Sprintf("run%d f,l,\n", i); r.Stdout != want || r.ExitCode != i || cmd.ProcessState.ExitCode() != i || r.SbxError != "" {
					errs <- fmt.Sprintf("run %d: exit %d/%d signal %q stdout %q stderr %q sbx_error %q", i, r.ExitCode, cmd.ProcessState.ExitCode(), r.Signal, r.Stdout, r.Stderr, r.SbxError)
				}
			}(i)
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})
}

type rt6Event struct {
	Type    string          `json:"type"`
	Stream  string          `json:"stream"`
	Seq     int             `json:"seq"`
	Text    *string         `json:"text"`
	Data    []byte          `json:"data_b64"`
	Pid     int             `json:"pid"`
	Result  json.RawMessage `json:"result"`
	Message string          `json:"message"`
}

// TestRedTeam6Events: --events is start (exactly once, first), output
// events in seq order per stream whose concatenation is the exact bytes
// (non-UTF-8 included), then exit (last, once), every line valid JSON; the
// --json result of non-UTF-8 output is valid JSON and flags the loss.
func TestRedTeam6Events(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		script := `printf 'a\377b\n'; printf '\376err\000nul\n' >&2; i=0; while [ $i -lt 300 ]; do echo line$i; i=$((i+1)); done; printf '\303'; printf '\251\n'; exit 4`
		var wantOut bytes.Buffer
		wantOut.WriteString("a\xffb\n")
		for i := 0; i < 300; i++ {
			fmt.Fprintf(&wantOut, "line%d\n", i)
		}
		wantOut.WriteString("\xc3\xa9\n")
		wantErr := "\xfeerr\x00nul\n"
		for _, profile := range rt6Profiles {
			t.Run(profile, func(t *testing.T) {
				for rep := 0; rep < 5; rep++ {
					cmd := rt6Cmd(u, nil, "--events", "--profile", profile, "--cwd", f.ws, "--", "/bin/sh", "-c", script)
					out, _ := cmd.Output()
					if cmd.ProcessState.ExitCode() != 4 {
						t.Fatalf("status %d", cmd.ProcessState.ExitCode())
					}
					lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
					var types []string
					got := map[string]*bytes.Buffer{"stdout": {}, "stderr": {}}
					seq := map[string]int{}
					var exit rt6Result
					for i, l := range lines {
						if !json.Valid([]byte(l)) {
							t.Fatalf("line %d is not JSON: %.200q", i, l)
						}
						var ev rt6Event
						json.Unmarshal([]byte(l), &ev)
						types = append(types, ev.Type)
						switch ev.Type {
						case "output":
							if ev.Seq != seq[ev.Stream]+1 {
								t.Errorf("%s seq %d after %d", ev.Stream, ev.Seq, seq[ev.Stream])
							}
							seq[ev.Stream] = ev.Seq
							if ev.Text != nil {
								got[ev.Stream].WriteString(*ev.Text)
							} else {
								got[ev.Stream].Write(ev.Data)
							}
						case "exit":
							json.Unmarshal(ev.Result, &exit)
						case "start":
							if ev.Pid <= 0 {
								t.Errorf("start pid %d", ev.Pid)
							}
						}
					}
					n := len(types)
					if n < 3 || types[0] != "start" || types[n-1] != "exit" || strings.Count(strings.Join(types, ","), "start") != 1 || strings.Count(strings.Join(types, ","), "exit") != 1 {
						t.Fatalf("event order %v", types)
					}
					if got["stdout"].String() != wantOut.String() || got["stderr"].String() != wantErr {
						t.Errorf("reconstructed stdout %q / stderr %q", tail(got["stdout"].String()), got["stderr"].String())
					}
					if exit.ExitCode != 4 || exit.StdoutBytes != int64(wantOut.Len()) || exit.StderrBytes != int64(len(wantErr)) {
						t.Errorf("exit result: %+v", exit)
					}
				}
				r, st := rt6JSON(t, u, nil, "--profile", profile, "--cwd", f.ws, "--", "/bin/sh", "-c", script)
				if st != 4 || !r.StdoutLossy || !r.StderrLossy || r.Stderr != "\uFFFDerr\x00nul\n" || !strings.HasPrefix(r.Stdout, "a\uFFFDb\n") || !strings.HasSuffix(r.Stdout, "é\n") {
					t.Errorf("--json: status %d lossy %v/%v stderr %q stdout %q", st, r.StdoutLossy, r.StderrLossy, r.Stderr, tail(r.Stdout))
				}
				// A failure to start under --events is one error or exit event, valid JSON.
				cmd := rt6Cmd(u, nil, "--events", "--profile", profile, "--cwd", f.ws, "--", "/nonexistent/x")
				out, _ := cmd.Output()
				if cmd.ProcessState.ExitCode() != 127 || !json.Valid(bytes.Split(out, []byte("\n"))[0]) || strings.Count(string(out), `"type":"exit"`) != 1 || strings.Count(string(out), `"type":"start"`) > 1 {
					t.Errorf("exec failure events: status %d %.400q", cmd.ProcessState.ExitCode(), out)
				}
			})
		}
	})
}

func tail(s string) string {
	if len(s) > 60 {
		return "..." + s[len(s)-60:]
	}
	return s
}
