//go:build linux

package main

// Red team 28, fault battery for sbx run: what the earlier batteries
// (TestRT20*, TestRT22*, TestRT23*, TestRT25*, TestRT26*, TestRT27*,
// testdata/script/sbx_*.txtar, executor's redteam8/16/24, rt27embed,
// targets/landlock/launch's redteam11..15 fault tests) did not try,
// checked against the README's "Running commands: sbx" section and
// "Known limits".
//
// FINDINGS (each test failed on the code it was written against; the
// executor's share is in executor/redteam28_test.go):
//
//   - TestRT28StalledReaderFalseTimeout (fixed, executor/exec_linux.go):
//     a command that writes a little more than sbx's stdout pipe holds
//     and exits at once (its own status 3), with sbx's reader stalled
//     past --timeout (`sbx run -- make | less`, read slowly): sbx
//     reported "timed out after 1.5s; the command and everything it
//     started were killed", exit 124 (timed_out in --events), and the
//     command's status was lost. The loop was held in the live write
//     (bounded by the deadline) when the leader exited, and on its return
//     acted on the deadline before polling the exit again.
//   - TestRT28JobControlMainThreadExited (fixed, cmd/sbx/jobtree_linux.go):
//     ^Z under PID-namespace containment (the default) left running a
//     setsid'd process whose main thread had ended (pthread_exit) while
//     sbx and the job were reported stopped: the walk of the run's
//     processes took it for a zombie (/proc/PID/stat shows the main
//     thread's state, Z). Under cgroup containment the same ^Z missed
//     such a process reparented to init: the run's processes were told
//     by their whole /proc/PID/cgroup, whose cgroup v1 lines (a hybrid
//     system) show the roots for it; only the v2 line is compared now.
//     The same process defeated cgroup.kill and the process-group sweep
//     (executor: TestRedTeam28MainThreadExited).
//   - TestRT28TimeoutOutOfRangeMessage (fixed, minor, cmd/sbx/run.go): a
//     well-formed --timeout beyond the largest duration (9999999h) said
//     only `invalid duration "9999999h"`, though the README promises the
//     why ("a value beyond about 292 years").
//   - TestRT28HoleDrainBoundStalledReader (known limit, SBX_RT28_HOLES=1;
//     README, red team 28): while the live output waits for a stalled
//     reader, the 2 s drain bound after the command's end does not apply
//     (the run's deadline bounds the wait; --timeout 0, nothing).
//   - TestRT28HoleProcessGroupNonDumpable (known limit, SBX_RT28_HOLES=1;
//     README, Containment): under process-group containment, as uid
//     65534, a process that makes itself non-dumpable and calls setsid
//     keeps the token but hides it (/proc/PID/environ needs ptrace
//     access) and outlives the run.
//
// Held (TestRT28Held, and probes not kept as tests): the command's
// stdout pipe shrunk to a page, grown to 1 MiB or made non-blocking with
// many small writes (counts and the cap exact); --artifact a device, a
// directory, an endless pipe (64 MiB bound); a full TMPDIR; RLIMIT_STACK
// 16 KiB and unlimited, RLIMIT_SIGPENDING 0, RLIMIT_CPU 1, RLIMIT_LOCKS 0,
// RLIMIT_NOFILE 32 with the supervisor started; 2 MB of environment with
// the supervisor started; non-UTF-8 and control characters in argv and
// --cwd in every output mode; a full-buffer run's drain bound; a command
// freezing its own cgroup; every flag with a missing, negative, huge or
// garbage value; a command's own "sbx: ..." line and its own 126/127.
//
//	go test -count=1 -run TestRT28 -v ./cmd/sbx

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rt28StalledReader runs sbx (terminal mode) with a stdout pipe the test
// does not read until sbx has ended, and returns sbx's status, its
// stderr and the bytes it wrote to stdout.
func rt28StalledReader(t *testing.T, args ...string) (int, string, int) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(rt20Sbx(t), args...)
	cmd.Dir = t.TempDir()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ended := rt25Exited(cmd, 30*time.Second)
	// Now read what sbx wrote (it cannot have written more than the pipe
	// holds before it ended).
	n := 0
	if ended {
		b, _ := io.ReadAll(r)
		n = len(b)
	} else {
		cmd.Process.Kill()
		io.Copy(io.Discard, r)
		rt25Exited(cmd, 10*time.Second)
		t.Fatalf("sbx %v did not end within 30 s: %s", args, stderr.String())
	}
	return rt20Status(cmd).ExitStatus(), stderr.String(), n
}

// TestRT28StalledReaderFalseTimeout: DEFECT (fixed). README: "124: the
// timeout fired; everything the command started was killed"; "Once the
// deadline has passed or a signal came the rest is no longer written
// live (sbx says so on stderr; the result still counts and retains it)".
// The command here ends on its own, long before the deadline, with
// status 3: only its output's way to sbx's reader is held up. sbx must
// report the command's status (3), with the cut notice, not a timeout.
func TestRT28StalledReaderFalseTimeout(t *testing.T) {
	for _, p := range []string{"danger-full-access", "workspace"} {
		code, stderr, n := rt28StalledReader(t, "run", "--profile", p, "--timeout", "1500ms", "--",
			"sh", "-c", "head -c 100000 /dev/zero; exit 3")
		if code != 3 || strings.Contains(stderr, "timed out") || !strings.Contains(stderr, outputCutNotice) {
			t.Errorf("%s: status %d (stdout %d bytes), stderr %q; want the command's 3, the cut notice and no timeout", p, code, n, stderr)
		}
		// --events: the reader takes the start event, then stalls until
		// the command has ended and the deadline has passed.
		cmd, out, stderrBuf := rt20Start(t, "run", "--events", "--profile", p, "--timeout", "1s", "--", "sh", "-c", "yes | head -c 50000; exit 3")
		start := time.Now()
		var ev struct {
			Pid int `json:"pid"`
		}
		line, _ := out.ReadString('\n')
		if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Pid == 0 {
			t.Fatalf("%s: start event %q: %v", p, line, err)
		}
		rt20Wait(t, "the command's end and the deadline", func() bool {
			st, ok := rt20State(ev.Pid)
			return (!ok || st == 'Z') && time.Since(start) > 1100*time.Millisecond
		})
		res := rt20LastExit(t, out)
		cmd.Wait()
		if code := rt20Status(cmd).ExitStatus(); code != 3 || res.ExitCode != 3 || res.TimedOut {
			t.Errorf("%s --events: status %d, result %+v, stderr %q; want the command's 3, no timeout", p, code, res, stderrBuf.String())
		}
	}
}

// TestRT28TimeoutOutOfRangeMessage: DEFECT (fixed, minor). README: "A
// --timeout that is not a duration says why (an unknown unit, a value
// beyond about 292 years)". A well-formed value past the largest
// duration said only `invalid duration "9999999h"` (Go's ParseDuration
// gives no reason for an overflow; red team 23's test only checked that
// the message was not "parse error").
func TestRT28TimeoutOutOfRangeMessage(t *testing.T) {
	for _, v := range []string{"9999999h", "2562048h", "9223372036854775808ns", "99999999999999999999s"} {
		code, stdout, _ := rt27Run(t, t.TempDir(), nil, "run", "--json", "--profile", "danger-full-access", "--timeout", v, "--", "true")
		var res struct {
			SbxError string `json:"sbx_error"`
		}
		if code != 125 || json.Unmarshal([]byte(stdout), &res) != nil || !strings.Contains(res.SbxError, "out of range") || !strings.Contains(res.SbxError, "292 years") {
			t.Errorf("--timeout %s: status %d, %.300q; want 125 saying it is out of range (about 292 years at most)", v, code, stdout)
		}
	}
	// Not out of range: Go's own reasons stay.
	code, stdout, _ := rt27Run(t, t.TempDir(), nil, "run", "--json", "--timeout", "1.5.5s", "--", "true")
	if code != 125 || !strings.Contains(stdout, "missing unit") {
		t.Errorf("--timeout 1.5.5s: status %d, %.300q", code, stdout)
	}
}

// TestWellFormedDuration: the hand-written check agrees with what
// time.ParseDuration accepts, for values in range.
func TestWellFormedDuration(t *testing.T) {
	for _, v := range []string{"1s", "+1s", "-1.5h", ".5m", "5.h", "1h2m3s4ms5us6µs7μs8ns", "0", "1", "", "-", "+", ".", "1.5.5s", "1x", "s", "1s-", "1ss", "--1s", "1e3s", " 1s", "1 s"} {
		_, err := time.ParseDuration(v)
		want := err == nil && v != "0" // "0" parses without a unit
		if got := wellFormedDuration(v); got != want {
			t.Errorf("wellFormedDuration(%q) = %v, want %v", v, got, want)
		}
	}
}

// rt28Thr builds a program whose main thread ends (pthread_exit) while a
// second thread writes to stdout without end: a process whose
// /proc/PID/stat shows the main thread's state, Z, and runs on.
func rt28Thr(t *testing.T) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to build the test program")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	src, bin := filepath.Join(dir, "thr.c"), filepath.Join(dir, "thr")
	os.WriteFile(src, []byte(`#include <pthread.h>
#include <string.h>
#include <unistd.h>
static void *run(void *a) { char b[4096]; memset(b, 't', sizeof b); for (;;) write(1, b, sizeof b); return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, run, 0); pthread_exit(0); }
`), 0o644)
	if out, err := exec.Command(gcc, "-O1", "-pthread", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cannot build the test program: %v\n%s", err, out)
	}
	return bin
}

// rt28Threads returns the state of each live thread of the processes
// running exe (by the exe link of their threads), by pid.
func rt28Threads(exe string) map[int][]byte {
	found := map[int][]byte{}
	names, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range names {
		tasks, _ := filepath.Glob(d + "/task/*")
		for _, task := range tasks {
			if l, err := os.Readlink(task + "/exe"); err != nil || l != exe {
				continue
			}
			pid, _ := strconv.Atoi(filepath.Base(d))
			tid, _ := strconv.Atoi(filepath.Base(task))
			if st, ok := rt20State(tid); ok && st != 'Z' && st != 'X' {
				found[pid] = append(found[pid], st)
			}
		}
	}
	return found
}

// TestRT28JobControlMainThreadExited: DEFECT (fixed). README, Job
// control: a SIGTSTP to sbx "stops the command's whole tree with it
// (... every other process of the run: sbx's descendants, which under
// PID-namespace containment are all of the namespace's ...)". A process
// that left the command's session (setsid) and whose main thread ended
// (pthread_exit) ran on while sbx and the job were stopped: the walk of
// the run's processes read /proc/PID/stat, whose state is the main
// thread's (Z), and took it for a zombie (cmd/sbx/jobtree_linux.go).
func TestRT28JobControlMainThreadExited(t *testing.T) {
	thr := rt28Thr(t)
	defer func() {
		for pid := range rt28Threads(thr) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	for _, c := range [][]string{{"--containment", "pid-namespace"}, {"--containment", "cgroup"}} {
		t.Run(c[1], func(t *testing.T) {
			if code, _, _ := rt27Run(t, t.TempDir(), nil, append(append([]string{"run", "--json", "--profile", "danger-full-access"}, c...), "--", "true")...); code != 0 {
				t.Skipf("%s containment unavailable (status %d)", c[1], code)
			}
			args := append(append([]string{"run", "--events", "--timeout", "60s", "--profile", "danger-full-access"}, c...), "--",
				"sh", "-c", "(setsid "+thr+" >/dev/null 2>&1 &); echo ready; exec sleep 60")
			cmd, out, _ := rt20Start(t, args...)
			rt20UntilReady(t, out)
			var pid int
			rt20Wait(t, "the program's main thread to end", func() bool {
				for p := range rt28Threads(thr) {
					if st, ok := rt20State(p); ok && st == 'Z' {
						pid = p
						return true
					}
				}
				return false
			})
			threads := func(stopped bool) func() bool {
				return func() bool {
					sts := rt28Threads(thr)[pid]
					for _, st := range sts {
						if (st == 'T') != stopped {
							return false
						}
					}
					return len(sts) > 0
				}
			}
			cmd.Process.Signal(syscall.SIGTSTP)
			rt20Wait(t, "sbx stopped", func() bool { st, _ := rt20State(cmd.Process.Pid); return st == 'T' })
			rt20Wait(t, "the program's running thread stopped", threads(true))
			cmd.Process.Signal(syscall.SIGCONT)
			rt20Wait(t, "the program resumed", threads(false))
			cmd.Process.Signal(syscall.SIGTERM)
			res := rt20LastExit(t, out)
			cmd.Wait()
			if st := rt20Status(cmd); st.ExitStatus() != 143 || !res.Cancelled {
				t.Errorf("status %v, result %+v; want 143, cancelled", st, res)
			}
			if left := rt28Threads(thr); len(left) > 0 {
				t.Errorf("survivors: %v", left)
			}
		})
	}
}

// TestRT28Held: classes this pass tried that held, and that no earlier
// test covers.
func TestRT28Held(t *testing.T) {
	type result struct {
		ExitCode    int     `json:"exit_code"`
		SbxError    *string `json:"sbx_error"`
		Stdout      string  `json:"stdout"`
		StdoutBytes int64   `json:"stdout_bytes"`
		StdoutOmit  int64   `json:"stdout_omitted_bytes"`
		StdoutTrunc bool    `json:"stdout_truncated"`
		CutShort    bool    `json:"stdout_cut_short"`
	}
	run := func(t *testing.T, args ...string) (int, result, string) {
		t.Helper()
		code, stdout, stderr := rt27Run(t, t.TempDir(), nil, args...)
		var r result
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%v: status %d, not one JSON object: %.300q %.300q", args, code, stdout, stderr)
		}
		return code, r, stderr
	}
	// The command shrinks its stdout pipe to one page, grows it to 1 MiB,
	// or makes it non-blocking (its own file description: sbx's read end
	// is not affected), and writes in many tiny writes: exact counts, the
	// cap to the byte, nothing cut short.
	t.Run("odd stdout pipes", func(t *testing.T) {
		py, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("no python3")
		}
		for _, setup := range []string{
			"fcntl.fcntl(1, 1031, 4096)",
			"fcntl.fcntl(1, 1031, 1 << 20)",
			"fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_NONBLOCK)",
		} {
			script := "import fcntl, os, sys\n" + setup + "\nn = 0\nwhile n < 300000:\n    try:\n        n += os.write(1, b'y' * 1000)\n    except BlockingIOError:\n        pass\nfor i in range(2000):\n    os.write(2, b'e')\n"
			code, r, stderr := run(t, "run", "--json", "--profile", "danger-full-access", "--output-cap", "1001", "--", py, "-c", script)
			if code != 0 || r.StdoutBytes != 300000 || len(r.Stdout) != 1001 || r.StdoutOmit != 300000-1001 || !r.StdoutTrunc || r.CutShort {
				t.Errorf("%s: status %d, %+v, %.200q", setup, code, r, stderr)
			}
		}
	})
	// An artifact that is a device that never ends: 125, one JSON
	// object, at once.
	t.Run("device artifact", func(t *testing.T) {
		code, r, _ := run(t, "run", "--json", "--artifact", "/dev/zero", "--", "true")
		if code != 125 || r.SbxError == nil || !strings.Contains(*r.SbxError, "character device") {
			t.Errorf("/dev/zero: status %d, %+v", code, r)
		}
	})
}

// TestRT28HoleDrainBoundStalledReader: KNOWN LIMIT (SBX_RT28_HOLES=1).
// README: "Pipes held open by something outside the containment are
// drained for at most 2 s after the command ended". While sbx's live
// output waits for a reader that stopped reading, the loop that enforces
// that bound is held in the write, which only the run's deadline (or a
// signal) ends: here the command ends at 0.3 s, a process outside it
// (this test, through /proc/PID/fd/1) keeps its stdout open and writing,
// and sbx ends at the 8 s deadline, not about 2 s after the command.
// With --timeout 0 it would not end at all.
func TestRT28HoleDrainBoundStalledReader(t *testing.T) {
	if os.Getenv("SBX_RT28_HOLES") != "1" {
		t.Skip("known limit; SBX_RT28_HOLES=1 reproduces it")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(rt20Sbx(t), "run", "--profile", "danger-full-access", "--timeout", "8s", "--", "sleep", "0.300128")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var holder *os.File
	rt20Wait(t, "the command", func() bool {
		names, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range names {
			if b, _ := os.ReadFile(d + "/cmdline"); bytes.Contains(b, []byte("0.300128")) {
				if l, _ := os.Readlink(d + "/exe"); strings.HasSuffix(l, "/sleep") {
					if f, err := os.OpenFile(d+"/fd/1", os.O_WRONLY, 0); err == nil {
						holder = f
						return true
					}
				}
			}
		}
		return false
	})
	start := time.Now()
	done := make(chan struct{})
	go func() {
		b := bytes.Repeat([]byte("z"), 4096)
		for {
			select {
			case <-done:
				holder.Close()
				return
			default:
			}
			holder.Write(b) // blocks while the pipe is full: fine, sbx drains it
		}
	}()
	ended := rt25Exited(cmd, 20*time.Second)
	close(done)
	go io.Copy(io.Discard, r)
	if !ended {
		cmd.Process.Kill()
		t.Fatal("sbx did not end")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("sbx ended %v after the command's start (status %d, %q); want about 2 s after the command's end", d, rt20Status(cmd).ExitStatus(), stderr.String())
	}
}

// TestRT28HoleProcessGroupNonDumpable: KNOWN LIMIT (SBX_RT28_HOLES=1;
// README, Containment). Process-group containment finds the processes
// that left the command's session by the run's token in their
// environment; a process that makes itself non-dumpable
// (prctl(PR_SET_DUMPABLE, 0), as setuid and file-capability programs
// are made too) keeps the token but hides it: /proc/PID/environ needs
// ptrace access, which another process of the same user (sbx run as uid
// 65534) lacks. Such a process that also calls setsid outlives the run,
// without clearing its environment, the way out the README named.
func TestRT28HoleProcessGroupNonDumpable(t *testing.T) {
	if os.Getenv("SBX_RT28_HOLES") != "1" {
		t.Skip("known limit; SBX_RT28_HOLES=1 reproduces it")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc")
	}
	sbx, dir, attr := rt22Nobody(t)
	nodump := filepath.Join(filepath.Dir(sbx), "nodump")
	src := nodump + ".c"
	os.WriteFile(src, []byte("#include <sys/prctl.h>\n#include <unistd.h>\nint main(void) { prctl(PR_SET_DUMPABLE, 0); setsid(); for (;;) pause(); }\n"), 0o644)
	if out, err := exec.Command(gcc, "-O1", "-o", nodump, src).CombinedOutput(); err != nil {
		t.Skipf("gcc: %v\n%s", err, out)
	}
	os.Chmod(nodump, 0o755)
	defer func() {
		names, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range names {
			if l, _ := os.Readlink(d + "/exe"); l == nodump {
				pid, _ := strconv.Atoi(filepath.Base(d))
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}()
	// The shell waits until the program has left its session (and so
	// made itself non-dumpable first), then ends.
	script := nodump + ` >/dev/null 2>&1 & p=$!; while [ "$(cut -d' ' -f6 /proc/$p/stat)" = "$$" ]; do :; done; echo started`
	cmd := exec.Command(sbx, "run", "--json", "--profile", "danger-full-access", "--containment", "process-group", "--timeout", "10s", "--", "sh", "-c", script)
	cmd.Dir, cmd.SysProcAttr = dir, attr
	out, _ := cmd.Output()
	var left []string
	names, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range names {
		if l, _ := os.Readlink(d + "/exe"); l == nodump {
			if st, ok := rt20State(func() int { p, _ := strconv.Atoi(filepath.Base(d)); return p }()); ok && st != 'Z' {
				left = append(left, d)
			}
		}
	}
	if len(left) > 0 {
		t.Errorf("outlived the run (%.200q): %v", out, left)
	}
}
