//go:build linux

package executor

// Red team 16 (executor side): the capture pipeline and the embedding API
// under faults. Request fields at their edges, callbacks that panic or call
// Run again, concurrent runs sharing nothing, descriptors and processes
// left behind, exact-cap output, bytes that are not text, a descendant
// that holds the pipes past the command, and the JSON of all of it. The
// failures they found (session 11) are fixed: the tests guard the fixes.
//
//	go test -count=1 -run 'TestRedTeam16API' ./executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// rt16FDs returns the number of open descriptors of this process.
func rt16FDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// rt16JSON decodes the JSON of res into a map, failing on invalid JSON.
func rt16JSON(t *testing.T, res *Result) map[string]any {
	t.Helper()
	var b bytes.Buffer
	if err := res.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatalf("invalid result JSON: %v\n%.500s", err, b.Bytes())
	}
	return m
}

func rt16Sh(script string) Request {
	return Request{Argv: []string{"/bin/sh", "-c", script}, Env: testEnv(), Timeout: 10 * time.Second}
}

// TestRedTeam16APITimeoutMsSaturates: a timeout as long as a Duration
// holds (what a profile's timeout saturates to, README "Artifacts") is
// written as a negative timeout_ms: (Timeout + 1ms - 1) overflows in
// Result.writeJSON's rounding.
func TestRedTeam16APITimeoutMsSaturates(t *testing.T) {
	for _, d := range []time.Duration{math.MaxInt64, math.MaxInt64 - 1, math.MaxInt64 - 999_998} {
		req := rt16Sh("exit 0")
		req.Timeout = d
		res := mustRun(t, req)
		m := rt16JSON(t, res)
		ms, _ := m["timeout_ms"].(float64)
		if ms <= 0 {
			t.Errorf("Timeout %d: timeout_ms = %v, want a positive number (the expiration is ~292 years away, not none or negative)", int64(d), m["timeout_ms"])
		}
	}
}

// TestRedTeam16APICgroupExecEACCES: under cgroup containment the command
// starts through package syscall's fork, whose exec errors are bare
// errnos; an EACCES from execve (a script whose #! interpreter is not
// executable: the script itself passes the access check) is taken for the
// cgroup failing, and Run returns ErrNoContainment (sbx: 125) instead of a
// result with 126, as under PID-namespace containment.
func TestRedTeam16APICgroupExecEACCES(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	script := filepath.Join(dir, "bad.sh")
	if err := os.WriteFile(script, []byte("#!/etc/passwd\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	probe := Request{Argv: []string{"/bin/true"}, Env: testEnv(), Containment: ContainmentCgroup}
	if _, err := Run(context.Background(), probe); err != nil {
		t.Skipf("cgroup containment unavailable: %v", err)
	}
	for _, c := range []Containment{ContainmentAuto, ContainmentCgroup, ContainmentProcessGroup} {
		t.Run(modeName(c), func(t *testing.T) {
			req := Request{Argv: []string{script}, Env: testEnv(), Containment: c, AllowDegraded: true}
			res, err := Run(context.Background(), req)
			if err != nil {
				t.Fatalf("Run: %v (want a result with exit code 126: the command cannot be executed)", err)
			}
			if res.ExitCode != 126 || !strings.Contains(res.Error, "permission denied") {
				t.Fatalf("exit %d, error %q; want 126, permission denied", res.ExitCode, res.Error)
			}
		})
	}
}

// TestRedTeam16APIInvalidRequests: edge values are refused as documented,
// with nothing started and no descriptor left.
func TestRedTeam16APIInvalidRequests(t *testing.T) {
	before := rt16FDs(t)
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	cases := []struct {
		name string
		req  Request
		want error
	}{
		{"nil argv", Request{}, ErrInvalidRequest},
		{"empty argv0", Request{Argv: []string{""}}, ErrInvalidRequest},
		{"NUL argv", Request{Argv: []string{"/bin/echo", "a\x00b"}}, ErrInvalidRequest},
		{"NUL argv0", Request{Argv: []string{"/bin/echo\x00x"}}, ErrInvalidRequest},
		{"NUL env", Request{Argv: []string{"/bin/true"}, Env: []string{"A=b\x00c"}}, ErrInvalidRequest},
		{"NUL dir", Request{Argv: []string{"/bin/true"}, Dir: "/tmp\x00x"}, ErrInvalidRequest},
		{"negative cap", Request{Argv: []string{"/bin/true"}, OutputCap: -1}, ErrInvalidRequest},
		{"bad capture", Request{Argv: []string{"/bin/true"}, Capture: 7}, ErrInvalidRequest},
		{"bad retention", Request{Argv: []string{"/bin/true"}, Retention: -1}, ErrInvalidRequest},
		{"bad containment", Request{Argv: []string{"/bin/true"}, Containment: "jail"}, ErrInvalidRequest},
		{"dir missing", Request{Argv: []string{"/bin/true"}, Dir: "/nonexistent/rt16"}, ErrWorkDir},
		{"dir a file", Request{Argv: []string{"/bin/true"}, Dir: file}, ErrWorkDir},
	}
	for _, c := range cases {
		res, err := Run(context.Background(), c.req)
		if !errors.Is(err, c.want) || res != nil {
			t.Errorf("%s: res %v, err %v; want nil, %v", c.name, res, err, c.want)
		}
	}
	if after := rt16FDs(t); after != before {
		t.Errorf("descriptors: %d before, %d after", before, after)
	}
}

// TestRedTeam16APIEnvOddities: entries without '=' and duplicates pass
// through as given; nothing is inherited.
func TestRedTeam16APIEnvOddities(t *testing.T) {
	req := Request{Argv: []string{"/usr/bin/env"}, Env: []string{"NOEQUALS", "A=1", "A=2", "=x", "PATH=/bin"}}
	res := mustRunEnv(t, req)
	got := string(res.Stdout.Head)
	for _, w := range []string{"A=1", "A=2", "PATH=/bin"} {
		if !strings.Contains(got, w+"\n") {
			t.Errorf("env output %q lacks %q", got, w)
		}
	}
	if res.ExitCode != 0 {
		t.Errorf("exit %d", res.ExitCode)
	}
}

func mustRunEnv(t *testing.T, req Request) *Result {
	t.Helper()
	res, err := Run(context.Background(), req)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// TestRedTeam16APICapEdges: exactly cap, cap+1, 2cap+1 bytes, head and
// head+tail, small caps: the counts and the reconstruction hold.
func TestRedTeam16APICapEdges(t *testing.T) {
	for _, cp := range []int{1, 2, 3, 7, 4096} {
		for _, n := range []int{0, cp - 1, cp, cp + 1, 2*cp + 1, 3*cp + 5} {
			if n < 0 {
				continue
			}
			for _, rt := range []Retention{RetainHead, RetainHeadTail} {
				// Distinct bytes so that a misplaced byte shows.
				want := make([]byte, n)
				for i := range want {
					want[i] = byte('a' + i%26)
				}
				req := rt16Sh(fmt.Sprintf("printf '%%s' '%s'; printf '%%s' '%s' >&2", want, want))
				req.OutputCap, req.Retention = cp, rt
				res := mustRun(t, req)
				for _, sr := range []StreamResult{res.Stdout, res.Stderr} {
					if sr.Bytes != int64(n) {
						t.Fatalf("cap %d n %d %s: Bytes %d", cp, n, rt, sr.Bytes)
					}
					if int64(len(sr.Head)+len(sr.Tail))+sr.Omitted != int64(n) || sr.Truncated != (sr.Omitted > 0) {
						t.Fatalf("cap %d n %d %s: head %d tail %d omitted %d", cp, n, rt, len(sr.Head), len(sr.Tail), sr.Omitted)
					}
					if len(sr.Head)+len(sr.Tail) > cp {
						t.Fatalf("cap %d n %d %s: retained %d > cap", cp, n, rt, len(sr.Head)+len(sr.Tail))
					}
					if !bytes.Equal(sr.Head, want[:len(sr.Head)]) || !bytes.Equal(sr.Tail, want[n-len(sr.Tail):]) {
						t.Fatalf("cap %d n %d %s: head %q tail %q of %q", cp, n, rt, sr.Head, sr.Tail, want)
					}
					if rt == RetainHead && len(sr.Tail) > 0 {
						t.Fatalf("tail in head retention")
					}
				}
				agg := res.Aggregated()
				if rt == RetainHead && len(agg) > cp {
					t.Fatalf("cap %d n %d: aggregate %d bytes", cp, n, len(agg))
				}
				m := rt16JSON(t, res)
				if m["stdout_bytes"].(float64) != float64(n) {
					t.Fatalf("json stdout_bytes %v", m["stdout_bytes"])
				}
			}
		}
	}
}

// TestRedTeam16APIBinaryBytes: NUL, \r\n, invalid UTF-8 split across
// reads, U+2028: kept exactly in the Result, valid and marked lossy in
// the JSON.
func TestRedTeam16APIBinaryBytes(t *testing.T) {
	// é split over two writes with a pause, NUL, CR LF, a lone 0xff,
	// U+2028, a truncated 3-byte sequence at the end.
	script := `printf 'a\303'; sleep 0.05; printf '\251\000b\r\n\377\342\200\250z\342\200'`
	want := []byte("a\xc3\xa9\x00b\r\n\xff\xe2\x80\xa8z\xe2\x80")
	var chunks [][]byte
	req := rt16Sh(script)
	req.OnOutput = func(s Stream, b []byte) { chunks = append(chunks, bytes.Clone(b)) }
	res := mustRun(t, req)
	if !bytes.Equal(res.Stdout.Head, want) {
		t.Fatalf("head %q, want %q", res.Stdout.Head, want)
	}
	if got := bytes.Join(chunks, nil); !bytes.Equal(got, want) {
		t.Fatalf("chunks %q", got)
	}
	m := rt16JSON(t, res)
	if m["stdout"] != "a\u00e9\x00b\r\n\ufffd\u2028z\ufffd\ufffd" || m["stdout_lossy"] != true || m["aggregated_lossy"] != true {
		t.Fatalf("json stdout %q lossy %v agg %v", m["stdout"], m["stdout_lossy"], m["aggregated_lossy"])
	}
}

// TestRedTeam16APIPanicCallbacks: a panic in OnStart or OnOutput reaches
// the caller, with the run killed and its descriptors closed.
func TestRedTeam16APIPanicCallbacks(t *testing.T) {
	for _, where := range []string{"start", "output"} {
		t.Run(where, func(t *testing.T) {
			before := rt16FDs(t)
			tok := nonce()
			req := rt16Sh("sleep " + tok + " & echo hi; wait")
			if where == "start" {
				req = rt16Sh("echo hi; sleep " + tok)
				req.OnStart = func(StartInfo) { panic("rt16 start") }
			} else {
				req.OnOutput = func(Stream, []byte) {
					if _, err := waitCount(tok, 1, 5*time.Second); err != nil {
						t.Error(err)
					}
					panic("rt16 output")
				}
			}
			func() {
				defer func() {
					if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "rt16") {
						t.Errorf("recovered %v", r)
					}
				}()
				Run(context.Background(), req)
			}()
			assertGone(t, tok)
			if after := rt16FDs(t); after != before {
				t.Errorf("descriptors: %d before, %d after", before, after)
			}
		})
	}
}

// TestRedTeam16APIRecursiveRun: OnOutput and OnStart may call Run.
func TestRedTeam16APIRecursiveRun(t *testing.T) {
	var inner []string
	req := rt16Sh("echo outer")
	req.OnStart = func(StartInfo) {
		r := mustRun(t, rt16Sh("echo fromstart"))
		inner = append(inner, string(r.Stdout.Head))
	}
	req.OnOutput = func(Stream, []byte) {
		r := mustRun(t, rt16Sh("echo fromoutput"))
		inner = append(inner, string(r.Stdout.Head))
	}
	res := mustRun(t, req)
	if string(res.Stdout.Head) != "outer\n" || strings.Join(inner, "") != "fromstart\nfromoutput\n" {
		t.Fatalf("outer %q inner %q", res.Stdout.Head, inner)
	}
}

// TestRedTeam16APIConcurrent: two dozen runs at once keep their own output
// and leave no descriptor behind.
func TestRedTeam16APIConcurrent(t *testing.T) {
	before := rt16FDs(t)
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tag := fmt.Sprintf("run%02d", i)
			req := rt16Sh(fmt.Sprintf("i=0; while [ $i -lt 200 ]; do echo %s-$i; echo %s-e$i >&2; i=$((i+1)); done; exit %d", tag, tag, i))
			var live bytes.Buffer
			req.OnOutput = func(s Stream, b []byte) {
				if s == Stdout {
					live.Write(b)
				}
			}
			res, err := Run(context.Background(), req)
			if err != nil {
				errs <- err
				return
			}
			if res.ExitCode != i {
				errs <- fmt.Errorf("%s: exit %d", tag, res.ExitCode)
			}
			for _, l := range strings.Split(strings.TrimSpace(string(res.Stdout.Head)), "\n") {
				if !strings.HasPrefix(l, tag+"-") {
					errs <- fmt.Errorf("%s: foreign line %q", tag, l)
					return
				}
			}
			if !bytes.Equal(live.Bytes(), res.Stdout.Head) || strings.Count(string(res.Stderr.Head), tag+"-e") != 200 {
				errs <- fmt.Errorf("%s: live/stderr mismatch", tag)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if after := rt16FDs(t); after != before {
		t.Errorf("descriptors: %d before, %d after", before, after)
	}
}

// TestRedTeam16APICancelEdges: cancelled before Run, in OnStart, after
// the exit.
func TestRedTeam16APICancelEdges(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := Run(ctx, rt16Sh("exit 0")); !errors.Is(err, context.Canceled) || res != nil {
		t.Errorf("cancelled before: %v %v", res, err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	tok := nonce()
	req := rt16Sh("exec sleep " + tok)
	req.OnStart = func(StartInfo) { cancel() }
	res, err := Run(ctx, req)
	if err != nil || !res.Cancelled || res.ExitCode != 128+9 && res.ExitCode != 128+15 {
		t.Errorf("cancelled in OnStart: %+v %v", res, err)
	}
	assertGone(t, tok)
	ctx, cancel = context.WithCancel(context.Background())
	res, err = Run(ctx, rt16Sh("exit 3"))
	cancel()
	if err != nil || res.Cancelled || res.ExitCode != 3 {
		t.Errorf("cancelled after: %+v %v", res, err)
	}
}

// TestRedTeam16APIClosedStdout: a command that closes stdout and keeps
// writing stderr is captured to its end.
func TestRedTeam16APIClosedStdout(t *testing.T) {
	res := mustRun(t, rt16Sh("echo a; exec >&-; sleep 0.1; echo b >&2; exit 4"))
	if string(res.Stdout.Head) != "a\n" || string(res.Stderr.Head) != "b\n" || res.ExitCode != 4 || res.Stdout.CutShort {
		t.Fatalf("%+v", res)
	}
}

// TestRedTeam16APIDrainBound: a descendant that escapes degraded
// containment and holds the pipes is drained for DrainTimeout only, and
// the stream is marked cut short.
func TestRedTeam16APIDrainBound(t *testing.T) {
	tok := nonce()
	req := rt16Sh("setsid env -i /bin/sh -c 'echo held; exec sleep " + tok + "' & sleep 0.2; echo done")
	req.Containment, req.AllowDegraded = ContainmentProcessGroup, true
	req.DrainTimeout = 300 * time.Millisecond
	t0 := time.Now()
	res, err := Run(context.Background(), req)
	el := time.Since(t0)
	for _, pid := range withToken(tok) {
		// Reparented to this process (a child subreaper): reap it too.
		syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
	}
	if err != nil && !errors.Is(err, ErrCleanup) {
		t.Fatal(err)
	}
	if el > 3*time.Second {
		t.Errorf("Run took %v with a 300ms drain bound", el)
	}
	if !strings.Contains(string(res.Stdout.Head), "done") {
		t.Errorf("stdout %q", res.Stdout.Head)
	}
	if !res.Stdout.CutShort || !strings.Contains(string(res.Stdout.Head), "held") {
		t.Errorf("cut short %v, stdout %q: want true and what was read kept", res.Stdout.CutShort, res.Stdout.Head)
	}
	if m := rt16JSON(t, res); m["stdout_cut_short"] != true {
		t.Errorf("json stdout_cut_short %v", m["stdout_cut_short"])
	}
}

// TestRedTeam16APITinyTimeout: a 1ns timeout expires, is reported 124 and
// written as 1 ms.
func TestRedTeam16APITinyTimeout(t *testing.T) {
	tok := nonce()
	req := rt16Sh("exec sleep " + tok)
	req.Timeout = 1
	res := mustRun(t, req)
	if !res.TimedOut || res.ExitCode != 124 {
		t.Fatalf("%+v", res)
	}
	if m := rt16JSON(t, res); m["timeout_ms"] != float64(1) {
		t.Fatalf("timeout_ms %v", m["timeout_ms"])
	}
	assertGone(t, tok)
}

// TestRedTeam16APIMaxOutputEvents: one event per stream, retention whole.
func TestRedTeam16APIMaxOutputEvents(t *testing.T) {
	var calls [2]int
	req := rt16Sh("i=0; while [ $i -lt 50 ]; do echo $i; echo $i >&2; sleep 0.001; i=$((i+1)); done")
	req.MaxOutputEvents = 1
	req.OnOutput = func(s Stream, b []byte) { calls[s]++ }
	res := mustRun(t, req)
	if calls != [2]int{1, 1} || strings.Count(string(res.Stdout.Head), "\n") != 50 {
		t.Fatalf("calls %v, stdout lines %d", calls, strings.Count(string(res.Stdout.Head), "\n"))
	}
}

// TestRedTeam16APIGoexitCallback: a callback that ends its goroutine with
// runtime.Goexit (t.FailNow, t.Fatal, t.SkipNow inside OnOutput or
// OnStart, which run on Run's goroutine) unwinds Run without a panic:
// the deferred cleanup in execute (exec_linux.go) only acts when
// recover() returns non-nil, so the command and everything it started
// keep running, unreaped, after Run is gone. Expected: as for a panic,
// the run killed and reaped.
func TestRedTeam16APIGoexitCallback(t *testing.T) {
	for _, where := range []string{"start", "output"} {
		t.Run(where, func(t *testing.T) {
			tok := nonce()
			req := rt16Sh("echo hi; exec sleep " + tok)
			var pid int
			cb := func() {
				pid = withToken(tok)[0]
				runtime.Goexit()
			}
			if where == "start" {
				req.OnStart = func(si StartInfo) {
					if _, err := waitCount(tok, 1, 5*time.Second); err != nil {
						panic(err)
					}
					cb()
				}
			} else {
				req.OnOutput = func(Stream, []byte) {
					if _, err := waitCount(tok, 1, 5*time.Second); err != nil {
						panic(err)
					}
					cb()
				}
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				Run(context.Background(), req)
			}()
			<-done
			left := withToken(tok)
			for _, p := range left {
				syscall.Kill(p, syscall.SIGKILL)
				var ws syscall.WaitStatus
				syscall.Wait4(p, &ws, 0, nil) // ours: no zombie left
			}
			if len(left) > 0 {
				t.Errorf("the command (pid %d) survives a Run whose callback called runtime.Goexit: %v", pid, left)
			}
		})
	}
}

// TestRedTeam16APIArgTooLong: an argument list past the kernel's limit is
// the command's failure (126, "argument list too long") under every
// containment, not the executor's.
func TestRedTeam16APIArgTooLong(t *testing.T) {
	big := strings.Repeat("x", 200<<10) // above MAX_ARG_STRLEN (128 KiB)
	for _, c := range containmentModes {
		t.Run(modeName(c), func(t *testing.T) {
			res := runIn(t, context.Background(), c, Request{Argv: []string{"/bin/true", big}})
			if res.ExitCode != 126 || !strings.Contains(res.Error, "argument list too long") {
				t.Fatalf("exit %d error %q", res.ExitCode, res.Error)
			}
		})
	}
}
