package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// pattern returns the first n bytes of an endless repetition of unit.
func pattern(unit string, n int) []byte {
	return bytes.Repeat([]byte(unit), n/len(unit)+1)[:n]
}

func TestCapAndDrain(t *testing.T) {
	const unit = "0123456789abcdef"
	for _, tc := range []struct {
		name      string
		cap       int
		retention Retention
		size      int // bytes written to each stream
	}{
		{"default cap", 0, RetainHead, DefaultOutputCap + 256<<10},
		{"small cap", 1000, RetainHead, 1000 + 200<<10},
		{"head tail", 100_000, RetainHeadTail, 100_000 + 300<<10 + 7},
		{"under cap", 0, RetainHead, 5000},
		{"exactly cap", 4096, RetainHeadTail, 4096},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// yes(1) writes the pattern as fast as the pipe takes it on both
			// streams; the command only ends if both are drained past the cap.
			script := fmt.Sprintf("yes %s | tr -d '\\n' | head -c %d; yes %s | tr -d '\\n' | head -c %d >&2", unit, tc.size, unit, tc.size)
			res := mustRun(t, Request{Argv: []string{"/bin/sh", "-c", script}, OutputCap: tc.cap, Retention: tc.retention})
			if res.ExitCode != 0 || res.TimedOut {
				t.Fatalf("exit %d timed out %v", res.ExitCode, res.TimedOut)
			}
			limit := tc.cap
			if limit == 0 {
				limit = DefaultOutputCap
			}
			want := pattern(unit, tc.size)
			for _, s := range []*StreamResult{&res.Stdout, &res.Stderr} {
				if s.Bytes != int64(tc.size) {
					t.Errorf("bytes = %d, want %d", s.Bytes, tc.size)
				}
				over := tc.size > limit
				if s.Truncated != over || s.CutShort {
					t.Errorf("truncated %v cut short %v, want %v false", s.Truncated, s.CutShort, over)
				}
				if !over {
					if !bytes.Equal(s.Head, want) || s.Tail != nil || s.Omitted != 0 {
						t.Errorf("under the cap: head %d bytes, tail %d, omitted %d", len(s.Head), len(s.Tail), s.Omitted)
					}
					continue
				}
				if s.Omitted != int64(tc.size-limit) {
					t.Errorf("omitted = %d, want %d", s.Omitted, tc.size-limit)
				}
				switch tc.retention {
				case RetainHead:
					if !bytes.Equal(s.Head, want[:limit]) || s.Tail != nil {
						t.Errorf("head mode: head %d bytes (prefix ok %v), tail %d", len(s.Head), bytes.HasPrefix(want, s.Head), len(s.Tail))
					}
				case RetainHeadTail:
					h := limit / 2
					if !bytes.Equal(s.Head, want[:h]) || !bytes.Equal(s.Tail, want[len(want)-(limit-h):]) {
						t.Errorf("head+tail mode: head %d bytes, tail %d bytes do not match", len(s.Head), len(s.Tail))
					}
				}
			}
		})
	}
}

func TestAggregateSplit(t *testing.T) {
	const c = DefaultOutputCap
	for _, tc := range []struct {
		name               string
		outSize, errSize   int
		wantOut, wantErr   int
		retention          Retention
		wantMarkerInStream string
	}{
		{name: "both full", outSize: c + 10, errSize: c + 10, wantOut: 349_525, wantErr: 699_051},
		{name: "stdout a tenth", outSize: c / 10, errSize: c + 10, wantOut: c / 10, wantErr: c - c/10},
		{name: "stderr one byte", outSize: c + 10, errSize: 1, wantOut: c - 1, wantErr: 1},
		{name: "under the cap", outSize: 1000, errSize: 2000, wantOut: 1000, wantErr: 2000},
		{name: "stdout empty", outSize: 0, errSize: c + 10, wantOut: 0, wantErr: c},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := fmt.Sprintf("head -c %d /dev/zero | tr '\\0' o; head -c %d /dev/zero | tr '\\0' e >&2", tc.outSize, tc.errSize)
			res := mustRun(t, Request{Argv: []string{"/bin/sh", "-c", script}})
			agg := res.Aggregated()
			want := append(bytes.Repeat([]byte("o"), tc.wantOut), bytes.Repeat([]byte("e"), tc.wantErr)...)
			if !bytes.Equal(agg, want) {
				t.Fatalf("aggregate has %d 'o' then %d 'e' (%d bytes), want %d then %d",
					bytes.Count(agg, []byte("o")), bytes.Count(agg, []byte("e")), len(agg), tc.wantOut, tc.wantErr)
			}
		})
	}
}

func TestFullBufferIgnoresTimeout(t *testing.T) {
	const size = 3 << 20 // three times the default cap
	res := mustRun(t, Request{
		Argv:    []string{"/bin/sh", "-c", fmt.Sprintf("sleep 0.2; head -c %d /dev/zero", size)},
		Capture: CaptureFullBuffer,
		Timeout: time.Millisecond,
	})
	if res.TimedOut || res.ExitCode != 0 {
		t.Fatalf("timed out %v, exit %d", res.TimedOut, res.ExitCode)
	}
	if len(res.Stdout.Head) != size || res.Stdout.Truncated || res.OutputCap != -1 || res.Timeout != 0 {
		t.Fatalf("retained %d of %d bytes, truncated %v, cap %d, timeout %v", len(res.Stdout.Head), size, res.Stdout.Truncated, res.OutputCap, res.Timeout)
	}
	if len(res.Aggregated()) != size {
		t.Fatalf("aggregate %d bytes, want %d (no cap)", len(res.Aggregated()), size)
	}
}

func TestTimeout(t *testing.T) {
	for _, c := range containmentModes {
		t.Run(modeName(c), func(t *testing.T) {
			var leader atomic.Int64
			var background []int
			w := watch("\n", func() {
				// bash printed $!: its background job has been forked. Find
				// it (in the host's pid numbering) by its session.
				for _, p := range liveProcs() {
					if p.stat.session == int(leader.Load()) && p.pid != int(leader.Load()) {
						background = append(background, p.pid)
					}
				}
			})
			res := runIn(t, context.Background(), c, Request{
				Argv:     []string{"bash", "-c", "sleep 60 & echo $!; sleep 60"},
				Timeout:  500 * time.Millisecond,
				OnStart:  func(si StartInfo) { leader.Store(int64(si.Pid)) },
				OnOutput: w.onOutput,
			})
			if !res.TimedOut || res.ExitCode != TimeoutExitCode || res.Signal != int(syscall.SIGKILL) {
				t.Fatalf("timed out %v exit %d signal %d, want true 124 SIGKILL", res.TimedOut, res.ExitCode, res.Signal)
			}
			if len(background) == 0 {
				t.Fatalf("the background job was not seen before the timeout (output %q)", res.Stdout.Head)
			}
			for _, pid := range append(background, int(leader.Load())) {
				if st, err := readProcStat(pid); err == nil && st.state != 'Z' && st.session == int(leader.Load()) {
					t.Errorf("process %d of the command survived: %+v", pid, st)
				}
			}
		})
	}
}

func TestNoSurvivors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spawn string // shell code starting processes that run "sleep $TOKEN"
		count int
	}{
		{"background job", `sleep $TOKEN &`, 1},
		{"setsid", `setsid sleep $TOKEN &`, 1},
		{"double fork", `(sh -c 'sleep $TOKEN &' &)`, 1},
		{"setsid double fork", `setsid sh -c '(sleep $TOKEN &); exec sleep $TOKEN' &`, 2},
		{"two hundred children", `i=0; while [ $i -lt 200 ]; do sleep $TOKEN & i=$((i+1)); done`, 200},
	} {
		for _, c := range containmentModes {
			t.Run(tc.name+"/"+modeName(c), func(t *testing.T) {
				token := nonce()
				release := filepath.Join(t.TempDir(), "release")
				// The command starts the processes, says so, and waits for
				// the test to have seen them alive before it exits.
				script := tc.spawn + `
echo spawned; while [ ! -e "$RELEASE" ]; do sleep 0.01; done; echo leader-exits`
				var seen []int
				w := watch("spawned", func() {
					var err error
					if seen, err = waitCount(token, tc.count, 20*time.Second); err != nil {
						t.Error(err)
					}
					if err := os.WriteFile(release, nil, 0o644); err != nil {
						t.Error(err)
					}
				})
				res := runIn(t, context.Background(), c, Request{
					Argv:     []string{"/bin/sh", "-c", script},
					Env:      append(testEnv(), "TOKEN="+token, "RELEASE="+release),
					Timeout:  60 * time.Second,
					OnOutput: w.onOutput,
				})
				if res.ExitCode != 0 || res.TimedOut || !strings.Contains(string(res.Stdout.Head), "leader-exits") {
					t.Fatalf("exit %d timed out %v stdout %q stderr %q", res.ExitCode, res.TimedOut, res.Stdout.Head, res.Stderr.Head)
				}
				if len(seen) < tc.count {
					t.Fatalf("saw %d processes alive during the run, want %d", len(seen), tc.count)
				}
				if res.Stdout.CutShort || res.Stderr.CutShort {
					t.Errorf("streams cut short: the escaped processes held the pipes")
				}
				assertGone(t, token)
			})
		}
	}
}

func TestGrandchildHoldsPipe(t *testing.T) {
	for _, c := range containmentModes {
		t.Run(modeName(c), func(t *testing.T) {
			token := nonce()
			// The grandchild keeps stdout and stderr open and would write
			// "late" a minute after the leader exits.
			script := `(sleep $TOKEN; echo late) & echo leader-done`
			res := runIn(t, context.Background(), c, Request{
				Argv:    []string{"/bin/sh", "-c", script},
				Env:     append(testEnv(), "TOKEN="+token),
				Timeout: 60 * time.Second,
			})
			if res.ExitCode != 0 || res.TimedOut || string(res.Stdout.Head) != "leader-done\n" {
				t.Fatalf("exit %d timed out %v stdout %q", res.ExitCode, res.TimedOut, res.Stdout.Head)
			}
			if res.Stdout.CutShort || res.Stderr.CutShort {
				t.Errorf("cut short: the grandchild was not killed when the leader exited")
			}
			assertGone(t, token)
		})
	}
}

// TestDrainBound holds the command's stdout open from outside its
// containment (through /proc/PID/fd/1) so that the pipe never reaches EOF:
// the drain must stop at the bound, keep what was read and say so. With a
// tiny cap the stream is in its count-only (splice) phase when the bound
// passes.
func TestDrainBound(t *testing.T) {
	for _, limit := range []int{0, 3} {
		t.Run(fmt.Sprintf("cap %d", limit), func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			var holder *os.File
			defer func() {
				if holder != nil {
					holder.Close()
				}
			}()
			res := mustRun(t, Request{
				// The command blocks until the test opened its stdout.
				Argv:         []string{"/bin/sh", "-c", `echo before; read x < "$FIFO"; echo after`},
				Env:          append(testEnv(), "FIFO="+fifo),
				OutputCap:    limit,
				DrainTimeout: 300 * time.Millisecond,
				OnStart: func(si StartInfo) {
					var err error
					holder, err = os.OpenFile(fmt.Sprintf("/proc/%d/fd/1", si.Pid), os.O_WRONLY, 0)
					if err != nil {
						t.Errorf("opening the command's stdout: %v", err)
						return
					}
					if _, err := holder.WriteString("from-holder\n"); err != nil {
						t.Error(err)
					}
					if err := os.WriteFile(fifo, []byte("go\n"), 0); err != nil {
						t.Error(err)
					}
				},
			})
			if res.ExitCode != 0 {
				t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr.Head)
			}
			if !res.Stdout.CutShort || res.Stderr.CutShort {
				t.Errorf("stdout cut short %v, stderr %v; want true, false", res.Stdout.CutShort, res.Stderr.CutShort)
			}
			if want := int64(len("before\nafter\nfrom-holder\n")); res.Stdout.Bytes != want {
				t.Errorf("stdout bytes %d, want %d: bytes read before the cut were lost", res.Stdout.Bytes, want)
			}
			if limit != 0 {
				return
			}
			got := string(res.Stdout.Head)
			for _, want := range []string{"before\n", "after\n", "from-holder\n"} {
				if !strings.Contains(got, want) {
					t.Errorf("stdout %q lacks %q: bytes read before the cut were lost", got, want)
				}
			}
		})
	}
}

func TestCancellation(t *testing.T) {
	for _, c := range containmentModes {
		t.Run(modeName(c)+"/trap", func(t *testing.T) {
			token := nonce()
			// The parent traps TERM and cleans up; its child ignores TERM.
			script := `trap 'echo cleanup-ran; exit 3' TERM
bash -c 'trap "" TERM; exec sleep $TOKEN' &
echo ready
wait`
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w := watch("ready", func() {
				if _, err := waitCount(token, 1, 20*time.Second); err != nil {
					t.Error(err)
				}
				cancel()
			})
			res := runIn(t, ctx, c, Request{
				Argv:     []string{"bash", "-c", script},
				Env:      append(testEnv(), "TOKEN="+token),
				Timeout:  60 * time.Second,
				OnOutput: w.onOutput,
				// A long grace makes the trap's run deterministic; the test
				// below checks the default grace.
				KillGrace: 20 * time.Second,
			})
			if !res.Cancelled || res.TimedOut {
				t.Fatalf("cancelled %v timed out %v", res.Cancelled, res.TimedOut)
			}
			if !strings.Contains(string(res.Stdout.Head), "cleanup-ran") || res.ExitCode != 3 {
				t.Errorf("the TERM trap did not run: exit %d stdout %q", res.ExitCode, res.Stdout.Head)
			}
			assertGone(t, token)
		})
		t.Run(modeName(c)+"/ignore", func(t *testing.T) {
			token := nonce()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w := watch("ready", cancel)
			res := runIn(t, ctx, c, Request{
				Argv:     []string{"bash", "-c", `trap "" TERM; echo ready; exec sleep $TOKEN`},
				Env:      append(testEnv(), "TOKEN="+token),
				Timeout:  60 * time.Second,
				OnOutput: w.onOutput,
			})
			if !res.Cancelled || res.ExitCode != 128+int(syscall.SIGKILL) || res.SignalName() != "SIGKILL" {
				t.Fatalf("cancelled %v exit %d signal %q, want true 137 SIGKILL", res.Cancelled, res.ExitCode, res.SignalName())
			}
			assertGone(t, token)
		})
	}
}

func TestCancelBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	marker := filepath.Join(t.TempDir(), "ran")
	res, err := Run(ctx, Request{Argv: []string{"touch", marker}, Env: testEnv()})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("res %v err %v, want context.Canceled", res, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran although the context was cancelled")
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(plain, []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noInterp := filepath.Join(dir, "nointerp")
	if err := os.WriteFile(noInterp, []byte("#!/nonexistent/interpreter\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		argv    []string
		code    int
		errText string
	}{
		{"success", []string{"true"}, 0, ""},
		{"own code", []string{"sh", "-c", "exit 42"}, 42, ""},
		{"missing binary", []string{"sbx-no-such-command-zz"}, 127, "command not found"},
		{"missing path", []string{"/nonexistent/bin/x"}, 127, "no such file or directory"},
		{"not executable", []string{plain}, 126, "permission denied"},
		{"directory", []string{dir}, 126, "is a directory"},
		{"missing interpreter", []string{noInterp}, 127, "interpreter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := mustRun(t, Request{Argv: tc.argv})
			if res.ExitCode != tc.code || !strings.Contains(res.Error, tc.errText) || (tc.errText == "") != (res.Error == "") {
				t.Fatalf("exit %d error %q, want %d %q", res.ExitCode, res.Error, tc.code, tc.errText)
			}
		})
	}
}

func TestDeathBySignal(t *testing.T) {
	for _, c := range containmentModes {
		t.Run(modeName(c), func(t *testing.T) {
			var pid atomic.Int64
			w := watch("ready", func() { syscall.Kill(int(pid.Load()), syscall.SIGKILL) })
			res := runIn(t, context.Background(), c, Request{
				Argv:     []string{"sh", "-c", "echo ready; exec sleep 60"},
				Timeout:  60 * time.Second,
				OnStart:  func(si StartInfo) { pid.Store(int64(si.Pid)) },
				OnOutput: w.onOutput,
			})
			if res.ExitCode != 137 || res.SignalName() != "SIGKILL" || res.TimedOut || res.Cancelled {
				t.Fatalf("exit %d signal %q timed out %v cancelled %v", res.ExitCode, res.SignalName(), res.TimedOut, res.Cancelled)
			}
		})
	}
}

// TestPIDOneSignals documents a consequence of PID-namespace containment:
// the command is PID 1, so a signal it sends itself with the default action
// is ignored, whereas under the other mechanisms it dies of it.
func TestPIDOneSignals(t *testing.T) {
	for _, c := range containmentModes {
		t.Run(modeName(c), func(t *testing.T) {
			res := runIn(t, context.Background(), c, Request{Argv: []string{"sh", "-c", "kill -TERM $$; echo survived"}})
			if res.Containment == ContainmentPIDNamespace {
				if res.ExitCode != 0 || string(res.Stdout.Head) != "survived\n" {
					t.Fatalf("pid 1: exit %d stdout %q", res.ExitCode, res.Stdout.Head)
				}
				return
			}
			if res.ExitCode != 143 || res.SignalName() != "SIGTERM" {
				t.Fatalf("exit %d signal %q, want 143 SIGTERM", res.ExitCode, res.SignalName())
			}
		})
	}
}

func TestMissingWorkDir(t *testing.T) {
	_, err := Run(context.Background(), Request{Argv: []string{"true"}, Dir: "/nonexistent/sbx-dir", Env: testEnv()})
	if !errors.Is(err, ErrWorkDir) || !strings.Contains(err.Error(), "/nonexistent/sbx-dir does not exist") {
		t.Fatalf("err = %v", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := Run(context.Background(), Request{Argv: []string{"true"}, Dir: f}); !errors.Is(err, ErrWorkDir) {
		t.Fatalf("file as working directory: err = %v", err)
	}
}

func TestInvalidRequest(t *testing.T) {
	for _, req := range []Request{
		{},
		{Argv: []string{""}},
		{Argv: []string{"true"}, OutputCap: -1},
		{Argv: []string{"true"}, Capture: 7},
		{Argv: []string{"true"}, Retention: 9},
		{Argv: []string{"true"}, Containment: "chroot"},
	} {
		if _, err := Run(context.Background(), req); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%+v: err = %v", req, err)
		}
	}
}

func TestWorkDirAndPath(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	if err := os.WriteFile(filepath.Join(bin, "hello-sbx"), []byte("#!/bin/sh\necho hello from $(pwd)\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  []string
		argv string
	}{
		{"absolute PATH entry", []string{"PATH=/usr/bin:/bin:" + bin}, "hello-sbx"},
		{"relative PATH entry resolved in Dir", []string{"PATH=/usr/bin:/bin:bin"}, "hello-sbx"},
		{"relative path resolved in Dir", []string{"PATH=/usr/bin:/bin"}, "./bin/hello-sbx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := mustRun(t, Request{Argv: []string{tc.argv}, Dir: dir, Env: tc.env})
			if res.ExitCode != 0 || string(res.Stdout.Head) != "hello from "+dir+"\n" {
				t.Fatalf("exit %d %q stdout %q stderr %q", res.ExitCode, res.Error, res.Stdout.Head, res.Stderr.Head)
			}
		})
	}
	// The caller's PATH is not used.
	res := mustRun(t, Request{Argv: []string{"hello-sbx"}, Env: []string{"PATH=/nonexistent"}})
	if res.ExitCode != 127 {
		t.Fatalf("exit %d, want 127", res.ExitCode)
	}
}

func TestEnvironmentIsExact(t *testing.T) {
	res := mustRun(t, Request{Argv: []string{"/usr/bin/env"}, Env: []string{"A=1", "B=two words"}})
	if string(res.Stdout.Head) != "A=1\nB=two words\n" {
		t.Fatalf("env printed %q", res.Stdout.Head)
	}
	res = mustRun(t, Request{Argv: []string{"/usr/bin/env"}, Env: []string{}})
	if len(res.Stdout.Head) != 0 {
		t.Fatalf("empty environment printed %q", res.Stdout.Head)
	}
}

func TestStdinIsDevNull(t *testing.T) {
	res := mustRun(t, Request{Argv: []string{"sh", "-c", "cat; readlink /proc/self/fd/0"}})
	if string(res.Stdout.Head) != "/dev/null\n" {
		t.Fatalf("stdin: %q", res.Stdout.Head)
	}
}

func TestOwnSession(t *testing.T) {
	// cut reads its own stat: it shares the shell's group and session.
	res := mustRun(t, Request{Argv: []string{"sh", "-c", "cut -d' ' -f5,6 /proc/self/stat"}})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d %s", res.ExitCode, res.Stderr.Head)
	}
	fields := strings.Fields(string(res.Stdout.Head))
	if len(fields) != 2 || fields[0] != fields[1] {
		t.Fatalf("session and group: %q", res.Stdout.Head)
	}
	self := strconv.Itoa(syscall.Getpgrp())
	if fields[1] == self {
		t.Fatalf("command shares the caller's process group %s", self)
	}
}

func TestInvalidUTF8AndNUL(t *testing.T) {
	res := mustRun(t, Request{Argv: []string{"printf", `ok\377\376mid\000end\342\202\254\n`}})
	wantRaw := []byte("ok\xff\xfemid\x00end\u20ac\n")
	if !bytes.Equal(res.Stdout.Head, wantRaw) {
		t.Fatalf("raw stdout %q, want %q", res.Stdout.Head, wantRaw)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatalf("result is not valid JSON: %v\n%s", err, b)
	}
	want := "ok\ufffd\ufffdmid\x00end\u20ac\n"
	if decoded["stdout"] != want || decoded["aggregated_output"] != want {
		t.Fatalf("stdout %q aggregated %q, want %q", decoded["stdout"], decoded["aggregated_output"], want)
	}
	if decoded["stdout_lossy"] != true || decoded["stderr_lossy"] != false {
		t.Fatalf("lossy flags: %v %v", decoded["stdout_lossy"], decoded["stderr_lossy"])
	}
}

func TestHundredMiBLine(t *testing.T) {
	if testing.Short() {
		t.Skip("100 MiB of output")
	}
	const size = 100 << 20
	res := mustRun(t, Request{
		Argv:      []string{"sh", "-c", fmt.Sprintf("head -c %d /dev/zero | tr '\\0' a; echo", size)},
		Retention: RetainHeadTail,
		Timeout:   5 * time.Minute,
	})
	if res.ExitCode != 0 || res.Stdout.Bytes != size+1 || !res.Stdout.Truncated {
		t.Fatalf("exit %d bytes %d truncated %v", res.ExitCode, res.Stdout.Bytes, res.Stdout.Truncated)
	}
	h := DefaultOutputCap / 2
	tl := DefaultOutputCap - h
	if len(res.Stdout.Head) != h || bytes.Count(res.Stdout.Head, []byte("a")) != h {
		t.Fatalf("head: %d bytes", len(res.Stdout.Head))
	}
	if len(res.Stdout.Tail) != tl || !bytes.HasSuffix(res.Stdout.Tail, []byte("a\n")) || bytes.Count(res.Stdout.Tail, []byte("a")) != tl-1 {
		t.Fatalf("tail: %d bytes ending %q", len(res.Stdout.Tail), res.Stdout.Tail[max(0, len(res.Stdout.Tail)-4):])
	}
	if res.Stdout.Omitted != size+1-DefaultOutputCap {
		t.Fatalf("omitted %d", res.Stdout.Omitted)
	}
}

func TestHugeArgvAndEnv(t *testing.T) {
	args := make([]string, 0, 20_000)
	for i := range 20_000 {
		args = append(args, fmt.Sprintf("arg-%05d-%s", i, strings.Repeat("x", 40)))
	}
	big := strings.Repeat("v", 100_000)
	argv := append([]string{"sh", "-c", `echo $# ${#BIG} "$1" "${20000}"`, "sh"}, args...)
	res := mustRun(t, Request{Argv: argv, Env: append(testEnv(), "BIG="+big)})
	want := fmt.Sprintf("20000 100000 %s %s\n", args[0], args[19_999])
	if res.ExitCode != 0 || string(res.Stdout.Head) != want {
		t.Fatalf("exit %d %q stdout %q", res.ExitCode, res.Error, res.Stdout.Head)
	}
	// Beyond the kernel's limits the command cannot be executed.
	for name, req := range map[string]Request{
		"argv over ARG_MAX":  {Argv: append([]string{"true"}, strings.Split(strings.Repeat("yyyyyyy ", 300_000), " ")...)},
		"one argument 1 MiB": {Argv: []string{"true", strings.Repeat("z", 1<<20)}},
		"env over ARG_MAX":   {Argv: []string{"true"}, Env: manyVars(200_000)},
	} {
		t.Run(name, func(t *testing.T) {
			res := mustRun(t, req)
			if res.ExitCode != 126 || !strings.Contains(res.Error, "argument list too long") {
				t.Fatalf("exit %d error %q", res.ExitCode, res.Error)
			}
		})
	}
}

// manyVars returns n distinct environment variables.
func manyVars(n int) []string {
	env := make([]string, n)
	for i := range env {
		env[i] = fmt.Sprintf("VAR_%06d=value", i)
	}
	return env
}

func TestOutputCallback(t *testing.T) {
	const size = 200_000
	script := fmt.Sprintf("head -c %d /dev/zero; head -c %d /dev/zero >&2", size, size)
	var (
		inside    atomic.Int32
		started   atomic.Bool
		total     [2]int
		calls     [2]int
		overlap   bool
		tooBig    bool
		lateStart bool
	)
	res := mustRun(t, Request{
		Argv:    []string{"sh", "-c", script},
		OnStart: func(StartInfo) { started.Store(true) },
		OnOutput: func(s Stream, b []byte) {
			if inside.Add(1) != 1 {
				overlap = true
			}
			if !started.Load() {
				lateStart = true
			}
			tooBig = tooBig || len(b) > OutputChunkSize
			total[s] += len(b)
			calls[s]++
			inside.Add(-1)
		},
	})
	if res.ExitCode != 0 || overlap || tooBig || lateStart {
		t.Fatalf("exit %d, concurrent calls %v, chunk over 8 KiB %v, output before OnStart %v", res.ExitCode, overlap, tooBig, lateStart)
	}
	if total != [2]int{size, size} {
		t.Fatalf("delivered %v bytes, want %d each", total, size)
	}

	// Live delivery stops after MaxOutputEvents per stream; retention does not.
	calls = [2]int{}
	res = mustRun(t, Request{
		Argv:            []string{"sh", "-c", script},
		MaxOutputEvents: 3,
		OnOutput:        func(s Stream, b []byte) { calls[s]++ },
	})
	if calls != [2]int{3, 3} || res.Stdout.Bytes != size || len(res.Stdout.Head) != size {
		t.Fatalf("calls %v, stdout %d bytes retained %d", calls, res.Stdout.Bytes, len(res.Stdout.Head))
	}
}

func TestConcurrentRuns(t *testing.T) {
	const n = 8
	results := make(chan error, n)
	for i := range n {
		go func() {
			want := fmt.Sprintf("run-%d", i)
			res, err := Run(context.Background(), Request{
				Argv: []string{"sh", "-c", fmt.Sprintf("yes %s | head -c 300000; echo %s >&2; exit %d", want, want, i)},
				Env:  testEnv(),
			})
			switch {
			case err != nil:
				results <- err
			case res.ExitCode != i || !bytes.HasPrefix(res.Stdout.Head, []byte(want+"\n")) || string(res.Stderr.Head) != want+"\n" || res.Stdout.Bytes != 300000:
				results <- fmt.Errorf("run %d: exit %d stderr %q", i, res.ExitCode, res.Stderr.Head)
			default:
				results <- nil
			}
		}()
	}
	for range n {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
}

func TestJSONSchema(t *testing.T) {
	res := mustRun(t, Request{Argv: []string{"sh", "-c", "echo out; echo err >&2; exit 1"}, Retention: RetainHeadTail})
	var buf bytes.Buffer
	if err := res.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, buf.Bytes())
	}
	for _, k := range []string{"argv", "cwd", "path", "pid", "exit_code", "signal", "timed_out", "cancelled", "duration_ms", "error",
		"stdout", "stderr", "stdout_tail", "stderr_tail", "aggregated_output", "stdout_bytes", "stderr_bytes",
		"stdout_truncated", "stderr_truncated", "stdout_omitted_bytes", "stderr_omitted_bytes",
		"stdout_cut_short", "stderr_cut_short", "stdout_lossy", "stderr_lossy", "aggregated_lossy",
		"capture", "retention", "output_cap", "timeout_ms", "containment", "sandbox", "denied_likely"} {
		if _, ok := m[k]; !ok {
			t.Errorf("missing key %q", k)
		}
	}
	if m["exit_code"] != 1.0 || m["stdout"] != "out\n" || m["aggregated_output"] != "out\nerr\n" || m["signal"] != nil || m["sandbox"] != nil {
		t.Errorf("unexpected values: %s", buf.Bytes())
	}
}

func TestResolveUsesChildPATH(t *testing.T) {
	path, code, _ := resolve("sh", []string{"PATH=/nonexistent", "PATH=/bin"}, "")
	if code != 0 || path != "/bin/sh" {
		t.Fatalf("resolve with the last PATH: %q %d", path, code)
	}
	if _, code, _ := resolve("sh", []string{"PATH=/nonexistent"}, ""); code != 127 {
		t.Fatalf("code %d, want 127", code)
	}
	if p, code, _ := resolve("sh", nil, ""); code != 0 || !strings.HasSuffix(p, "/sh") {
		t.Fatalf("default search path: %q %d", p, code)
	}
}

// shellSandbox wraps the command in a shell that announces itself and then
// execs the command, the way a re-exec helper keeps the command PID 1.
type shellSandbox struct {
	fail    bool
	wrapped []*exec.Cmd
}

func (s *shellSandbox) Wrap(cmd *exec.Cmd) error {
	if s.fail {
		return errors.New("no Landlock here")
	}
	s.wrapped = append(s.wrapped, cmd)
	cmd.Args = append([]string{"sh", "-c", `echo wrapped >&2; exec "$@"`, "sh", cmd.Path}, cmd.Args[1:]...)
	cmd.Path = "/bin/sh"
	return nil
}

func (s *shellSandbox) Report() any { return map[string]string{"mechanism": "shell"} }

func TestSandboxHook(t *testing.T) {
	sb := &shellSandbox{}
	res := mustRun(t, Request{
		Argv:    []string{"sh", "-c", `echo "pid $$"; echo "open: Permission denied" >&2; exit 1`},
		Env:     []string{"PATH=/usr/bin:/bin", "X=1"},
		Sandbox: sb,
	})
	if len(sb.wrapped) != 1 {
		t.Fatalf("Wrap called %d times", len(sb.wrapped))
	}
	cmd := sb.wrapped[0]
	if cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setsid || cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL || cmd.Env[len(cmd.Env)-1] != "X=1" || cmd.Stdin == nil {
		t.Errorf("Wrap saw an unprepared command: %+v", cmd.SysProcAttr)
	}
	if res.Containment == ContainmentPIDNamespace {
		if cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWPID == 0 {
			t.Errorf("Wrap saw no CLONE_NEWPID")
		}
		// exec keeps the command PID 1.
		if string(res.Stdout.Head) != "pid 1\n" {
			t.Errorf("stdout %q", res.Stdout.Head)
		}
	}
	if !strings.HasPrefix(string(res.Stderr.Head), "wrapped\n") || res.ExitCode != 1 {
		t.Fatalf("exit %d stderr %q", res.ExitCode, res.Stderr.Head)
	}
	if fmt.Sprint(res.Sandbox) != "map[mechanism:shell]" || !res.DeniedLikely {
		t.Fatalf("sandbox %v denied %v", res.Sandbox, res.DeniedLikely)
	}
	// Without the keyword and with a quick-reject code it is not flagged.
	res = mustRun(t, Request{Argv: []string{"sh", "-c", "exit 2"}, Sandbox: &shellSandbox{}})
	if res.DeniedLikely {
		t.Fatal("exit 2 flagged as denied")
	}
	// Without a sandbox nothing is flagged.
	res = mustRun(t, Request{Argv: []string{"sh", "-c", `echo "Permission denied" >&2; exit 1`}})
	if res.DeniedLikely || res.Sandbox != nil {
		t.Fatalf("no sandbox: denied %v sandbox %v", res.DeniedLikely, res.Sandbox)
	}
	// A sandbox that cannot be applied is an executor failure.
	if _, err := Run(context.Background(), Request{Argv: []string{"true"}, Sandbox: &shellSandbox{fail: true}}); !errors.Is(err, ErrSandbox) {
		t.Fatalf("err = %v, want ErrSandbox", err)
	}
}
