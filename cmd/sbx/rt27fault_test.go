//go:build linux

package main

// Red team 27, fault battery for sbx run: what the earlier batteries
// (TestRT20*, TestRT22*, TestRT23*, TestRT25*, TestRT26*,
// testdata/script/sbx_*.txtar, executor's redteam8/16/24) did not try,
// checked against the README's "Running commands: sbx" section and
// "Known limits".
//
// Findings (each test below failed on the code it was written against;
// eight fixed, two documented as known limits of the Go runtime, which
// reproduce with SBX_RT27_HOLES=1; README: Known limits):
//
//   - TestRT27JobControlReusedPid: a SIGTSTP (^Z) that sbx takes while
//     it drains pipes held after the command's leader was reaped is
//     passed on with kill(-PID, SIGSTOP) to the leader's old pid: an
//     unrelated process group that got that pid meanwhile is stopped
//     (and continued by the next SIGCONT).
//   - TestRT27CapMemoryCheckTooLow: an --output-cap the RLIMIT_AS check
//     accepts (6 x cap + 1 GiB) still ends the run part-way in the Go
//     runtime's out-of-memory abort (status 2, no result).
//   - TestRT27FullBufferAddressSpace (known limit): --capture full-buffer
//     under an RLIMIT_AS the output outgrows: the same abort, nothing
//     checked.
//   - TestRT27AddressSpaceAtStart (known limit, the README corrected):
//     sbx aborts before main at RLIMIT_AS far above the README's "about
//     400 MB" (512 MiB, and a band around 1,136-1,232 MiB, above what
//     sbx itself asked then).
//   - TestRT27WarningControlChars: the no-sandbox warning (and the dry
//     run's NO SANDBOX line) print an --artifact path's control
//     characters raw: ESC[8m hides the warning on a terminal.
//   - TestRT27DryRunEmitJSON: sbx run --dry-run --json with an --emit
//     that fails prints nothing on stdout, although "an sbx failure in
//     --json mode is still one object".
//   - TestRT27CapMemoryMessage: the RLIMIT_AS refusal without
//     --output-cap says "--output-cap 0 ...; lower --output-cap".
//   - TestRT27SizeSyntax: --output-cap takes Go float syntax (0x1p4,
//     1_000) and drops fractions of a byte (1.99 retains 1 byte).
//   - TestRT27DeletedCwdRelative: a deleted working directory with a
//     relative --cwd gets red team 23's unhelpful "binding {cwd}: getwd:
//     no such file or directory" (fixed only without --cwd).
//   - TestRT27HelpDoctor: "sbx help [COMMAND]" knows run only: sbx help
//     doctor is "unknown help topic", 125.
//
// What held is in TestRT27Held.
//
//	go test -count=1 -run TestRT27 -v ./cmd/sbx

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/ir"
)

// rt27Run runs sbx with args (env when not nil, stdin from /dev/null)
// under a 60 s bound and returns its status, stdout and stderr.
func rt27Run(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(rt20Sbx(t), args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !rt25Exited(cmd, 60*time.Second) {
		cmd.Process.Kill()
		rt25Exited(cmd, 10*time.Second)
		t.Fatalf("sbx %v still running after 60 s", args)
	}
	return rt20Status(cmd).ExitStatus(), stdout.String(), stderr.String()
}

// TestRT27HelpDoctor: DEFECT. sbx's usage says "sbx help [COMMAND]   show
// help" and lists run and doctor as its commands; sbx help run prints
// run's usage, but sbx help doctor says `unknown help topic "doctor"`
// and exits 125, although sbx doctor --help prints doctor's usage (exit
// 0). (cmd/sbx/cli.go, run: the help switch knows "run" only.)
func TestRT27HelpDoctor(t *testing.T) {
	code, stdout, stderr := rt27Run(t, t.TempDir(), nil, "help", "doctor")
	if code != 0 || !strings.Contains(stdout, "Usage: sbx doctor") {
		t.Errorf("sbx help doctor: status %d, stdout %.200q, stderr %.200q; want 0 and doctor's usage (as sbx doctor --help)", code, stdout, stderr)
	}
}

// TestRT27DryRunEmitJSON: DEFECT. README: "An sbx failure in --json mode
// is still one object: {"exit_code":125,"sbx_error":"..."}" (usage
// errors included, also with --dry-run: sbx run --dry-run --json
// --retain x prints it). An --emit the dry run cannot honour (a profile
// with no sandbox: "--emit landlockconfig: only ... for a sandboxed
// profile") is refused with 125 on stderr only: stdout is empty, and a
// caller parsing it as JSON gets nothing. (cmd/sbx/doctor.go, dryRun:
// the refusal is written to stderr, not through run's fail.)
func TestRT27DryRunEmitJSON(t *testing.T) {
	code, stdout, stderr := rt27Run(t, t.TempDir(), nil, "run", "--dry-run", "--json", "--emit", "landlockconfig", "--profile", "danger-full-access", "--", "true")
	var res struct {
		ExitCode int     `json:"exit_code"`
		SbxError *string `json:"sbx_error"`
	}
	if code != 125 || json.Unmarshal([]byte(stdout), &res) != nil || res.ExitCode != 125 || res.SbxError == nil {
		t.Errorf("status %d, stdout %.200q, stderr %.200q; want 125 and one JSON object with sbx_error", code, stdout, stderr)
	}
}

// rt27StartEvent reads the start event's pid from out.
func rt27StartEvent(t *testing.T, out *bufio.Reader) int {
	t.Helper()
	line, err := out.ReadString('\n')
	var ev struct {
		Type string `json:"type"`
		Pid  int    `json:"pid"`
	}
	if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "start" || ev.Pid <= 0 {
		t.Fatalf("no start event: %.300q %v", line, err)
	}
	return ev.Pid
}

// rt27ForkAt starts `sleep 60` in a session (and process group) of its
// own whose pid is want, by setting ns_last_pid just before the fork;
// it reports false (and leaves nothing running) where another process
// took the pid first.
func rt27ForkAt(t *testing.T, want int) (*exec.Cmd, bool) {
	t.Helper()
	if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(want-1)), 0); err != nil {
		t.Skipf("ns_last_pid: %v", err)
	}
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if cmd.Process.Pid == want {
		return cmd, true
	}
	cmd.Process.Kill()
	cmd.Wait()
	return nil, false
}

// TestRT27JobControlReusedPid: DEFECT. README, Job control: a SIGTSTP to
// sbx stops the command's tree, "without a sandbox to the command's
// process group and then every other process of the run ..., each
// signalled through a pidfd after its start time is checked, so a
// reused pid is never hit". The process group is signalled by number
// (kill(-PID, SIGSTOP), cmd/sbx/jobctl_unix.go, signalTree), and job
// control stays armed until executor.Run returns: while sbx drains the
// pipes that something outside the run still holds (up to 2 s), the
// command's leader has already been reaped and its pid is free. A
// process that gets that pid and leads a group of its own (here a
// setsid'd sleep, given the pid through ns_last_pid) is stopped by a ^Z
// meant for sbx, although it has nothing to do with the run (and a later
// fg continues it). Expected: once the leader is reaped there is no
// group to pass a stop on to (stop passing signals on when the leader
// exits, or check the group's leader through the pidfd first).
func TestRT27JobControlReusedPid(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("ns_last_pid needs root")
	}
	hit := false
	for round := 0; round < 8 && !hit; round++ {
		func() {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "go")
			if err := syscall.Mkfifo(fifo, 0o666); err != nil {
				t.Fatal(err)
			}
			cmd, out, _ := rt20Start(t, "run", "--events", "--timeout", "60s", "--profile", "danger-full-access", "--cwd", dir, "--",
				"sh", "-c", `echo ready; read x < go; exit 0`)
			defer func() {
				cmd.Process.Signal(syscall.SIGCONT)
				cmd.Process.Kill()
				cmd.Wait()
			}()
			pid := rt27StartEvent(t, out)
			rt20UntilReady(t, out)
			// Hold the command's pipes from outside the run, so that sbx
			// drains them for 2 s after the leader is gone.
			for _, fd := range []string{"1", "2"} {
				h, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/%s", pid, fd), os.O_WRONLY, 0)
				if err != nil {
					t.Skipf("cannot reach the command's pipes: %v", err)
				}
				defer h.Close()
			}
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			w.WriteString("\n")
			w.Close()
			// The leader exits and sbx reaps it: its pid is free.
			rt20Wait(t, "the leader reaped", func() bool {
				_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
				return err != nil
			})
			var victim *exec.Cmd
			for try := 0; try < 20 && victim == nil; try++ {
				victim, _ = rt27ForkAt(t, pid)
			}
			if victim == nil {
				t.Logf("round %d: pid %d taken by another process first", round, pid)
				return
			}
			defer func() {
				victim.Process.Signal(syscall.SIGCONT)
				victim.Process.Kill()
				victim.Wait()
			}()
			if st := rt25State(cmd.Process.Pid); st == '?' || st == 'Z' {
				t.Logf("round %d: sbx ended before the stop", round)
				return
			}
			cmd.Process.Signal(syscall.SIGTSTP)
			// sbx passes the stop on, then stops itself.
			deadline := time.Now().Add(time.Second)
			for rt25State(cmd.Process.Pid) != 'T' && time.Now().Before(deadline) {
				time.Sleep(2 * time.Millisecond) // polling the condition
			}
			// (A fix may leave sbx running: the victim is checked then too,
			// after the deadline.)
			// A stop sent to a runnable process shows once it is scheduled.
			vdeadline := time.Now().Add(time.Second)
			for rt25State(victim.Process.Pid) != 'T' && time.Now().Before(vdeadline) {
				time.Sleep(2 * time.Millisecond) // polling the condition
			}
			if st := rt25State(victim.Process.Pid); st == 'T' {
				hit = true
				t.Errorf("a ^Z to sbx stopped pid %d, an unrelated process group that reused the reaped leader's pid (state %c)", victim.Process.Pid, st)
			} else {
				t.Logf("round %d: victim %d state %c", round, victim.Process.Pid, st)
				hit = true // the stop was passed on and did not hit it
			}
		}()
	}
	if !hit {
		t.Skip("no round reused the pid in time")
	}
}

// TestRT27FullBufferAddressSpace: DEFECT. README, exit status: 125 when
// "memory [is] exhausted", and Known limits: "An --output-cap that
// RLIMIT_AS cannot hold ... is refused at the start with 125 (before red
// team 22 the run ended part-way in the runtime's out-of-memory abort,
// status 2, no result)". --capture full-buffer has no cap, so nothing is
// checked: under `ulimit -v` (here 3 GiB) a command writing 1.1 GB makes
// the retention buffer's growth (doubling, the old buffer held while the
// new one is allocated, 1 GiB at the last step) fail, and sbx dies in the
// Go runtime's abort ("fatal error: out of memory", status 2, a
// goroutine dump), with no JSON result and no word of sbx's own; the
// same at 1.5 and 2 GiB. Expected: the retention stops growing where
// RLIMIT_AS cannot hold the next buffer and the run ends as an sbx
// failure (125, sbx_error), or the bytes past it are counted as omitted.
// (executor/capture.go, retention.grow; cmd/sbx/run.go skips
// checkCapMemory for full-buffer.)
func TestRT27FullBufferAddressSpace(t *testing.T) {
	if os.Getenv("SBX_RT27_HOLES") == "" {
		t.Skip("known limit (README: Known limits, full-buffer under RLIMIT_AS); SBX_RT27_HOLES=1 reproduces it")
	}
	prl, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is needed")
	}
	// The real binary (no cgo): the test binary's cgo runtime cannot start
	// a thread under such a limit at all.
	real := rt23RealSbx(t)
	const as int64 = 3 << 30 // 3 GiB, nearly three times the output
	cmd := exec.Command(prl, fmt.Sprintf("--as=%d", as), real, "run", "--json", "--capture", "full-buffer", "--profile", "danger-full-access", "--",
		"sh", "-c", "head -c 1100M /dev/zero | tr '\\0' a")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.Dir = t.TempDir()
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The result, if any, is over 2 GB: only its start is kept.
	head := make(chan []byte, 1)
	go func() {
		var b []byte
		buf := make([]byte, 1<<16)
		for {
			n, err := pipe.Read(buf)
			if len(b) < 256 {
				b = append(b, buf[:min(n, 256)]...)
			}
			if err != nil {
				head <- b
				return
			}
		}
	}()
	if !rt25Exited(cmd, 120*time.Second) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("sbx still running after 120 s")
	}
	out := <-head
	st := rt20Status(cmd).ExitStatus()
	if st == 2 || !bytes.HasPrefix(out, []byte(`{"`)) || (st != 0 && st != 125) {
		e := errb.String()
		if i := strings.Index(e, "\n\n"); i > 0 {
			e = e[:i]
		}
		t.Errorf("status %d, stdout %.100q, stderr %.300q; want a result (125 with sbx_error, or the command's 0), not the runtime's abort", st, out, e)
	}
}

// rt27Result is what TestRT27Held reads of a result.
type rt27Result struct {
	ExitCode     int     `json:"exit_code"`
	Signal       *string `json:"signal"`
	TimedOut     bool    `json:"timed_out"`
	Cancelled    bool    `json:"cancelled"`
	Error        *string `json:"error"`
	SbxError     *string `json:"sbx_error"`
	Stdout       string  `json:"stdout"`
	StdoutTail   *string `json:"stdout_tail"`
	StdoutBytes  int64   `json:"stdout_bytes"`
	StdoutOmit   int64   `json:"stdout_omitted_bytes"`
	StdoutTrunc  bool    `json:"stdout_truncated"`
	StdoutLossy  bool    `json:"stdout_lossy"`
	Aggregated   string  `json:"aggregated_output"`
	Containment  string  `json:"containment"`
	DurationMS   int64   `json:"duration_ms"`
	OutputCapVal *int64  `json:"output_cap"`
}

// rt27Modes runs sbx run with args in the three output modes and returns
// the statuses, the --json result and the exit event's result (or the
// error event's exit_code as ExitCode).
func rt27Modes(t *testing.T, dir string, env []string, args ...string) (term, js, ev int, jres, eres rt27Result, out string) {
	t.Helper()
	with := func(mode string) []string {
		a := []string{"run"}
		if mode != "" {
			a = append(a, mode)
		}
		return append(a, args...)
	}
	term, o1, e1 := rt27Run(t, dir, env, with("")...)
	js, o2, e2 := rt27Run(t, dir, env, with("--json")...)
	ev, o3, e3 := rt27Run(t, dir, env, with("--events")...)
	out = fmt.Sprintf("terminal %d %.200q %.200q; json %d %.300q %.200q; events %d %.300q %.200q", term, o1, e1, js, o2, e2, ev, o3, e3)
	if err := json.Unmarshal([]byte(o2), &jres); err != nil {
		t.Errorf("%v: --json stdout is not one object: %s", args, out)
	}
	lines := strings.Split(strings.TrimSpace(o3), "\n")
	var last struct {
		Type     string     `json:"type"`
		ExitCode int        `json:"exit_code"`
		Result   rt27Result `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Errorf("%v: --events last line: %v: %s", args, err, out)
	}
	eres = last.Result
	if last.Type == "error" {
		eres.ExitCode = last.ExitCode
	}
	return term, js, ev, jres, eres, out
}

// TestRT27Held: what held.
func TestRT27Held(t *testing.T) {
	sbx := rt20Sbx(t)
	_ = sbx
	// The exit status, the --json result's exit_code and the exit event's
	// (or the error event's) agree, for each row of the exit status table.
	t.Run("status consistent across modes", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "noshebang"), []byte("echo hi\n"), 0o755)
		os.Mkdir(filepath.Join(dir, "adir"), 0o755)
		for _, c := range []struct {
			want int
			args []string
		}{
			{3, []string{"--profile", "danger-full-access", "--", "sh", "-c", "exit 3"}},
			{0, []string{"--", "sh", "-c", "echo ok"}},
			{128 + 10, []string{"--", "sh", "-c", "kill -USR1 $$"}},
			{127, []string{"--profile", "danger-full-access", "--", "rt27-no-such-command"}},
			{127, []string{"--", "rt27-no-such-command"}},
			{126, []string{"--profile", "danger-full-access", "--", "./adir"}},
			{126, []string{"--", "./adir"}},
			{126, []string{"--profile", "danger-full-access", "--", "./noshebang"}},
			{126, []string{"--", "./noshebang"}},
			{124, []string{"--profile", "danger-full-access", "--timeout", "300ms", "--", "sleep", "5"}},
			{124, []string{"--timeout", "300ms", "--", "sleep", "5"}},
			{125, []string{"--profile", "danger-full-access", "--cwd", "missing", "--", "true"}},
			{125, []string{"--output-cap", "0", "--", "true"}},
		} {
			term, js, ev, jres, eres, out := rt27Modes(t, dir, nil, c.args...)
			if term != c.want || js != c.want || ev != c.want || jres.ExitCode != c.want || eres.ExitCode != c.want {
				t.Errorf("%v: want %d everywhere: %s", c.args, c.want, out)
			}
		}
	})
	// sbx run inside sbx run where the outer run has no sandbox: the
	// inner one runs (its own PID namespace, with or without its sandbox)
	// and its result is the outer command's output.
	t.Run("nested under danger-full-access", func(t *testing.T) {
		for _, inner := range []string{"danger-full-access", "workspace"} {
			code, stdout, stderr := rt27Run(t, t.TempDir(), nil, "run", "--json", "--profile", "danger-full-access", "--", sbx, "run", "--json", "--profile", inner, "--", "echo", "inner")
			var outer rt27Result
			var in rt27Result
			if json.Unmarshal([]byte(stdout), &outer) != nil || json.Unmarshal([]byte(outer.Stdout), &in) != nil || code != 0 || in.Stdout != "inner\n" {
				t.Errorf("inner %s: status %d, %.300q %.200q", inner, code, stdout, stderr)
			}
		}
	})
	// Odd HOME and TMPDIR values under the workspace profile: unset,
	// relative, "/", a file, missing, inside the working directory. The
	// command runs with them as given (core variables), or sbx refuses
	// with 125 and one JSON object (TMPDIR=/); never a crash.
	t.Run("odd HOME and TMPDIR", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "file")
		os.WriteFile(file, nil, 0o644)
		ws := filepath.Join(dir, "ws")
		os.MkdirAll(filepath.Join(ws, "tmp"), 0o755)
		base := []string{"PATH=/usr/bin:/bin"}
		for _, c := range []struct {
			env  []string
			want int
		}{
			{nil, 0},
			{[]string{"HOME=rel"}, 0},
			{[]string{"HOME=/"}, 0},
			{[]string{"HOME=/etc/passwd"}, 0},
			{[]string{"HOME=/rt27/missing"}, 0},
			{[]string{"TMPDIR=rel"}, 0},
			{[]string{"TMPDIR=/rt27/missing"}, 0},
			{[]string{"TMPDIR=" + file}, 0},
			{[]string{"TMPDIR=" + filepath.Join(ws, "tmp")}, 0},
			{[]string{"TMPDIR=/"}, 125},
		} {
			env := append(append([]string{}, base...), c.env...)
			code, stdout, stderr := rt27Run(t, ws, env, "run", "--json", "--", "sh", "-c", "echo \"$HOME|$TMPDIR\"")
			var r rt27Result
			if json.Unmarshal([]byte(stdout), &r) != nil || code != c.want || r.ExitCode != c.want || (c.want == 125) != (r.SbxError != nil) {
				t.Errorf("%v: status %d, %.300q %.200q; want %d", c.env, code, stdout, stderr, c.want)
			}
		}
	})
	// Size spellings the README lists, with fractions that make whole
	// bytes.
	t.Run("size spellings", func(t *testing.T) {
		for v, want := range map[string]int64{"2.5KB": 2500, "1.5KiB": 1536, " 64 KiB": 65536, "1mb": 1000000, "7B": 7} {
			code, stdout, _ := rt27Run(t, t.TempDir(), nil, "run", "--json", "--output-cap", v, "--profile", "danger-full-access", "--", "true")
			var r rt27Result
			json.Unmarshal([]byte(stdout), &r)
			if code != 0 || r.OutputCapVal == nil || *r.OutputCapVal != want {
				t.Errorf("--output-cap %q: status %d, %.200q; want output_cap %d", v, code, stdout, want)
			}
		}
	})
	// A multi-byte character cut by the cap (head, every cut of three
	// 3-byte characters): the counts are exact, the retained text is the
	// stream's prefix with the cut character's bytes replaced one by one
	// (as documented: lossy), and the aggregate is the same prefix.
	t.Run("UTF-8 cut by the cap", func(t *testing.T) {
		for k := 1; k <= 9; k++ {
			code, stdout, stderr := rt27Run(t, t.TempDir(), nil, "run", "--json", "--output-cap", strconv.Itoa(k), "--profile", "danger-full-access", "--", "printf", "€€€")
			var r rt27Result
			if err := json.Unmarshal([]byte(stdout), &r); err != nil || code != 0 {
				t.Fatalf("cap %d: status %d, %.300q %.200q", k, code, stdout, stderr)
			}
			whole := strings.Repeat("€", k/3)
			want := whole + strings.Repeat("\ufffd", k%3)
			if r.Stdout != want || r.StdoutBytes != 9 || r.StdoutOmit != int64(9-k) || r.StdoutTrunc != (k < 9) || r.StdoutLossy != (k%3 != 0) {
				t.Errorf("cap %d: %+v; want stdout %q", k, r, want)
			}
		}
	})
	// A command stopped (SIGSTOP, by itself: not PID 1 under the sandbox;
	// a stopped child under danger-full-access) is ended by the timeout
	// and by a cancellation, at once.
	t.Run("stopped command", func(t *testing.T) {
		for _, c := range []struct {
			profile, script string
		}{
			{"workspace", "echo ready; kill -STOP $$; echo never"},
			{"danger-full-access", "sleep 100 & kill -STOP $!; echo ready; wait"},
		} {
			start := time.Now()
			code, stdout, _ := rt27Run(t, t.TempDir(), nil, "run", "--json", "--timeout", "500ms", "--profile", c.profile, "--", "sh", "-c", c.script)
			var r rt27Result
			json.Unmarshal([]byte(stdout), &r)
			if d := time.Since(start); code != 124 || !r.TimedOut || d > 5*time.Second {
				t.Errorf("%s timeout: status %d after %v, %.300q", c.profile, code, d, stdout)
			}
			cmd, out, _ := rt20Start(t, "run", "--events", "--timeout", "60s", "--profile", c.profile, "--", "sh", "-c", c.script)
			rt20UntilReady(t, out)
			start = time.Now()
			cmd.Process.Signal(syscall.SIGTERM)
			res := rt20LastExit(t, out)
			cmd.Wait()
			if d := time.Since(start); rt20Status(cmd).ExitStatus() != 143 || !res.Cancelled || d > 5*time.Second {
				t.Errorf("%s cancel: status %d after %v, %+v", c.profile, rt20Status(cmd).ExitStatus(), d, res)
			}
		}
	})
	// A timeout during a flood on both streams (from a background job
	// and the leader): 124 at about the deadline, both streams counted
	// past the cap.
	t.Run("timeout during a flood", func(t *testing.T) {
		for _, p := range []string{"danger-full-access", "workspace"} {
			for _, mode := range []string{"--json", "--events"} {
				start := time.Now()
				cmd := exec.Command(sbx, "run", mode, "--timeout", "700ms", "--output-cap", "1KiB", "--profile", p, "--", "sh", "-c", "yes >&2 & yes")
				cmd.Dir = t.TempDir()
				out, _ := cmd.Output()
				lines := strings.Split(strings.TrimSpace(string(out)), "\n")
				var r rt27Result
				last := []byte(lines[len(lines)-1])
				if mode == "--events" {
					var ev struct {
						Result rt27Result `json:"result"`
					}
					json.Unmarshal(last, &ev)
					r = ev.Result
				} else {
					json.Unmarshal(last, &r)
				}
				if d := time.Since(start); rt20Status(cmd).ExitStatus() != 124 || !r.TimedOut || r.StdoutBytes <= 1024 || d > 5*time.Second {
					t.Errorf("%s %s: status %d after %v, %+v", p, mode, rt20Status(cmd).ExitStatus(), d, r.ExitCode)
				}
			}
		}
	})
}

// TestRT27CapMemoryCheckTooLow: DEFECT. README, Known limits: "An
// --output-cap that RLIMIT_AS cannot hold (both streams retained, about
// three times the cap each while a buffer grows, plus 1 GiB for the
// runtime) is refused at the start with 125 (before red team 22 the run
// ended part-way in the runtime's out-of-memory abort, status 2, no
// result)". The check (cmd/sbx/fds_linux.go, checkCapMemory: 6 × cap +
// 1 GiB) accepts caps the run cannot hold: with --output-cap 64MiB and
// RLIMIT_AS 16 MiB above what the check asks (1,424 MiB), a command
// writing 300 MB on each stream ends sbx part-way in "fatal error: out
// of memory" ("cannot allocate 67108864-byte block (138 MB in use)":
// the Go runtime's own reservations take far more address space than
// its heap), status 2, no result, for every profile and retention; it
// takes about 256 MiB more to run. Expected: a cap the check accepts
// runs to its result (a larger allowance for the runtime, or retention
// buffers mapped with mmap, whose failure can be reported as an sbx
// error instead of the runtime's abort).
func TestRT27CapMemoryCheckTooLow(t *testing.T) {
	prl, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is needed")
	}
	// The real binary (no cgo): the test binary's cgo runtime cannot start
	// a thread under such limits at all.
	real := rt23RealSbx(t)
	const capBytes = 64 << 20
	// 16 MiB above what the check asks (checkCapMemory: 6 × cap + 1.25 GiB
	// since this round; 1 GiB before), so that the check accepts the cap.
	as := (1280 << 20) + 6*capBytes + (16 << 20)
	for _, p := range []string{"danger-full-access", "workspace"} {
		for _, r := range []string{"head", "head-tail"} {
			cmd := exec.Command(prl, fmt.Sprintf("--as=%d", as), real, "run", "--json", "--profile", p, "--retain", r, "--output-cap", strconv.Itoa(capBytes), "--",
				"sh", "-c", "head -c 300M /dev/zero & head -c 300M /dev/zero >&2; wait")
			cmd.Dir = t.TempDir()
			var errb bytes.Buffer
			cmd.Stderr = &errb
			pipe, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			head := make(chan []byte, 1)
			go func() {
				var b []byte
				buf := make([]byte, 1<<16)
				for {
					n, err := pipe.Read(buf)
					if len(b) < 256 {
						b = append(b, buf[:min(n, 256)]...)
					}
					if err != nil {
						head <- b
						return
					}
				}
			}()
			if !rt25Exited(cmd, 60*time.Second) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("%s %s: sbx still running after 60 s", p, r)
			}
			out := <-head
			st := rt20Status(cmd).ExitStatus()
			if st == 2 || !bytes.HasPrefix(out, []byte(`{"`)) {
				e := errb.String()
				if i := strings.Index(e, "\n\n"); i > 0 {
					e = e[:i]
				}
				t.Errorf("%s --retain %s, --output-cap 64MiB, RLIMIT_AS %d MiB (the check asks %d): status %d, stdout %.60q, stderr %.200q; want the run's result", p, r, as>>20, (as>>20)-16, st, out, e)
			}
		}
	}
}

// TestRT27CapMemoryMessage: DEFECT (wording). Without --output-cap, under
// an RLIMIT_AS below what checkCapMemory asks, the refusal says
// "--output-cap 0: retaining that much of both streams may take 1024 MiB
// ...; lower --output-cap or raise the limit": the user gave no
// --output-cap, the cap in effect is 1 MiB (the default), and there is
// nothing lower to give. (cmd/sbx/run.go passes req.OutputCap, 0 for
// "the default", to checkCapMemory.) Expected: the effective cap, or a
// message that names the limit alone.
func TestRT27CapMemoryMessage(t *testing.T) {
	prl, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is needed")
	}
	code, stdout, stderr := rt22Run(t, []string{prl, fmt.Sprintf("--as=%d", 800<<20)}, "run", "--json", "--profile", "danger-full-access", "--", "true")
	if code != 125 {
		t.Skipf("status %d (%.200q): the runtime did not reach the check here", code, stderr)
	}
	if strings.Contains(stdout+stderr, "--output-cap 0") {
		t.Errorf("refusal names a cap nobody gave: %.300q", stderr)
	}
}

// TestRT27SizeSyntax: DEFECT (minor). README: "--output-cap SIZE | bytes
// retained per stream: plain bytes or KiB/MiB/GiB/KB/MB/GB". parseSize
// (cmd/sbx/size.go) falls back to strconv.ParseFloat, which takes Go's
// whole float syntax: "0x1p4" (a hexadecimal float, 16) and "1_000"
// are accepted although "0x10" is refused as not a size, and a fraction
// of a byte is dropped without a word: --output-cap 1.99 retains 1 byte,
// 1.5 one byte (0.5 is refused as "must be positive", as --timeout 0.5ns
// is since red team 26, but 1.5 is not). Expected: decimal numbers only,
// and a value that is not a whole number of bytes refused (or rounded
// up, and said).
func TestRT27SizeSyntax(t *testing.T) {
	for _, v := range []string{"0x1p4", "1_000", "1.99", "1.5"} {
		code, stdout, stderr := rt27Run(t, t.TempDir(), nil, "run", "--json", "--output-cap", v, "--profile", "danger-full-access", "--", "true")
		var res struct {
			OutputCap *int64 `json:"output_cap"`
		}
		json.Unmarshal([]byte(stdout), &res)
		if code != 125 {
			got := "?"
			if res.OutputCap != nil {
				got = strconv.FormatInt(*res.OutputCap, 10)
			}
			t.Errorf("--output-cap %s: accepted (status %d, output_cap %s, stderr %.100q); want a usage error (125): not plain bytes or a whole number of bytes", v, code, got, stderr)
		}
	}
}

// TestRT27AddressSpaceAtStart: DEFECT (the Go runtime's, the README's
// account of it wrong). README, Known limits: "under a low RLIMIT_AS
// (about 400 MB or less) ... the Go runtime itself aborts before main
// (exit status 2, a runtime error on stderr, no JSON)", and sbx refuses
// (125) limits below what checkCapMemory asks (1 GiB + 6 × cap). With
// the real binary (Go 1.26, linux/amd64, this VM), sbx run aborts before
// main ("fatal error: out of memory" in runtime.schedinit) at every
// RLIMIT_AS from 384 up to 704 MiB, refuses with 125 from 736 to 992
// MiB, runs from 1,024 to 1,128 MiB, and aborts before main again from
// 1,136 to 1,232 MiB (a plain Go hello-world aborts in the same band),
// then runs. A limit of 1,184 MiB, above what sbx itself asks for the
// default cap, thus gives no result at all, whatever the output mode.
// Expected: sbx's own start cannot be fixed past the runtime, but the
// README must give the real ranges (and that they move with the Go
// release), or sbx must re-check its start-up allowance.
func TestRT27AddressSpaceAtStart(t *testing.T) {
	if os.Getenv("SBX_RT27_HOLES") == "" {
		t.Skip("known limit of the Go runtime (README: Known limits, RLIMIT_AS); SBX_RT27_HOLES=1 reproduces it")
	}
	prl, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) is needed")
	}
	real := rt23RealSbx(t)
	for _, mb := range []int{512, 1184} {
		cmd := exec.Command(prl, fmt.Sprintf("--as=%d", mb<<20), real, "run", "--json", "--profile", "danger-full-access", "--", "true")
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		cmd.Run()
		code, stdout, stderr := rt20Status(cmd).ExitStatus(), so.String(), se.String()
		if code == 2 || !strings.HasPrefix(stdout, `{"`) {
			e := stderr
			if i := strings.Index(e, "\n\n"); i > 0 {
				e = e[:i]
			}
			t.Errorf("RLIMIT_AS %d MiB (README: the runtime aborts at about 400 MB or less): status %d, stdout %.100q, stderr %.160q", mb, code, stdout, e)
		}
	}
}

// TestRT27WarningControlChars: DEFECT. README: "Messages on stderr show
// control characters of the names they report (a command or directory
// name with an escape sequence) as U+FFFD, so that the terminal shows the
// name sbx refused." The warning that a profile applies no sandbox names
// the profile, which for --artifact is the file's path, and prints it
// raw (cmd/sbx/run.go, runCommandTo: "sbx: WARNING: profile "+p.name+
// ..., not through ir.PrintableLines; dryRun's "profile %s: NO SANDBOX"
// likewise). An artifact of danger-full-access whose name holds "ESC[8m"
// (conceal) makes a terminal hide the rest of the line, "applies NO
// sandbox: the command runs with all of your rights" included: the one
// warning sbx gives before an unsandboxed run is invisible. Expected:
// the name shown with U+FFFD (or quoted), as the other messages do.
func TestRT27WarningControlChars(t *testing.T) {
	p, err := builtin.Profile("danger-full-access")
	if err != nil {
		t.Fatal(err)
	}
	a, err := ir.NewArtifact(p, "rt27")
	if err != nil {
		t.Fatal(err)
	}
	data, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "policy\x1b[8m.sbx.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := rt27Run(t, t.TempDir(), nil, "run", "--artifact", path, "--", "true")
	if code != 0 || !strings.Contains(stderr, "NO sandbox") || strings.ContainsRune(stderr, 0x1b) {
		t.Errorf("run: status %d, stderr %q; want the warning with the name's ESC shown as U+FFFD", code, stderr)
	}
	code, stdout, stderr := rt27Run(t, t.TempDir(), nil, "run", "--dry-run", "--artifact", path, "--", "true")
	if code != 0 || strings.ContainsRune(stdout+stderr, 0x1b) {
		t.Errorf("dry run: status %d, stdout %q; want no raw control character (the report quotes such paths)", code, stdout)
	}
}

// TestRT27DeletedCwdRelative: DEFECT (minor; red team 23's fix is
// partial). sbx started in a directory that was removed, with a relative
// --cwd (".", "sub/.."): a sandboxed profile refuses (125, holds) with
// "binding {cwd}: getwd: no such file or directory", the message red
// team 23 found to say neither what happened nor what to do and fixed
// only for a run without --cwd (targets/landlock/bind.go,
// DefaultBindings: filepath.Abs of a relative cwd calls os.Getwd, whose
// error goes out bare). Expected: the same message as without --cwd
// (the current directory was deleted; change to an existing directory
// or pass an absolute --cwd).
func TestRT27DeletedCwdRelative(t *testing.T) {
	dir := t.TempDir() + "/gone"
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sh := exec.Command("sh", "-c", `cd "$1" && rmdir "$1" && shift && exec "$@"`, "sh", dir,
		rt20Sbx(t), "run", "--json", "--profile", "workspace", "--cwd", ".", "--", "sh", "-c", "echo ran")
	var stdout, stderr bytes.Buffer
	sh.Stdout, sh.Stderr = &stdout, &stderr
	sh.Run()
	code := rt20Status(sh).ExitStatus()
	var res struct {
		ExitCode int    `json:"exit_code"`
		SbxError string `json:"sbx_error"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || code != 125 {
		t.Fatalf("status %d, stdout %.300q, stderr %.300q; want 125 and one JSON object", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(res.SbxError, "deleted") && !strings.Contains(res.SbxError, "removed") {
		t.Errorf("sbx_error %q: want it to say that the current directory was deleted and what to do", res.SbxError)
	}
}
