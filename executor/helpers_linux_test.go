package executor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Environment variables of the helper mode of the test binary: it runs the
// executor like sbx would, so that a test can SIGKILL it.
const (
	helperEnv       = "SBX_EXECUTOR_TEST_HELPER"        // containment to use
	helperScriptEnv = "SBX_EXECUTOR_TEST_HELPER_SCRIPT" // sh script to run
)

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(helperEnv); ok {
		if e := os.Getenv(denyClone3Env); e != "" {
			n, _ := strconv.Atoi(e)
			if err := denyClone3(syscall.Errno(n)); err != nil {
				fmt.Fprintln(os.Stderr, "helper: installing the clone3 filter:", err)
				os.Exit(125)
			}
		}
		os.Exit(helperMain(Containment(mode)))
	}
	os.Exit(m.Run())
}

func helperMain(mode Containment) int {
	script := os.Getenv(helperScriptEnv)
	res, err := Run(context.Background(), Request{
		Argv:            []string{"/bin/sh", "-c", script},
		Env:             testEnv(),
		Containment:     mode,
		AllowDegraded:   true,
		Timeout:         -1,
		MaxOutputEvents: -1,
		OnOutput: func(s Stream, b []byte) {
			os.Stdout.Write(b)
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 125
	}
	return res.ExitCode
}

// testEnv is the environment given to commands: the test's, without the
// helper variables.
func testEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, helperEnv) {
			env = append(env, kv)
		}
	}
	return env
}

// nonce returns a sleep duration unique to this call ("600.123456789"),
// which identifies the processes a test started by their command line.
func nonce() string {
	return fmt.Sprintf("600.%09d", rand.IntN(1e9))
}

// proc is a live process seen in /proc.
type proc struct {
	pid     int
	stat    procStat
	cmdline string
}

// liveProcs lists the processes that are not zombies. It may be called
// from any goroutine.
func liveProcs() []proc {
	d, err := os.Open("/proc")
	if err != nil {
		panic(err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		panic(err)
	}
	var out []proc
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		st, err := readProcStat(pid)
		if err != nil || st.state == 'Z' || st.state == 'X' {
			continue
		}
		cl, _ := os.ReadFile("/proc/" + n + "/cmdline")
		out = append(out, proc{pid: pid, stat: st, cmdline: string(bytes.ReplaceAll(cl, []byte{0}, []byte{' '}))})
	}
	return out
}

// withToken returns the pids of live processes whose command line
// contains token.
func withToken(token string) []int {
	var pids []int
	for _, p := range liveProcs() {
		if strings.Contains(p.cmdline, token) {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

// waitCount polls until at least n live processes carry token and returns
// their pids, or an error at the deadline. It may be called from any
// goroutine.
func waitCount(token string, n int, timeout time.Duration) ([]int, error) {
	deadline := time.Now().Add(timeout)
	for {
		pids := withToken(token)
		if len(pids) >= n {
			return pids, nil
		}
		if time.Now().After(deadline) {
			return pids, fmt.Errorf("found %d processes with %q, want %d", len(pids), token, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitGone polls until no live process carries token; it fails the test at
// the deadline.
func waitGone(t *testing.T, token string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		pids := withToken(token)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %v with %q still alive after %v", pids, token, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// assertGone fails if a live process carries token now.
func assertGone(t *testing.T, token string) {
	t.Helper()
	if pids := withToken(token); len(pids) > 0 {
		for _, pid := range pids {
			st, _ := readProcStat(pid)
			t.Logf("survivor %d: %+v", pid, st)
		}
		t.Fatalf("processes %v with %q survived the run", pids, token)
	}
}

// containmentModes are the mechanisms every containment test runs under.
var containmentModes = []Containment{ContainmentAuto, ContainmentCgroup, ContainmentProcessGroup}

// modeName names a containment mode in subtest names.
func modeName(c Containment) string {
	if c == ContainmentAuto {
		return "auto"
	}
	return string(c)
}

// runIn runs req under containment mode c, skipping the test when the
// mechanism is unavailable to this user (cgroup as an unprivileged user).
func runIn(t *testing.T, ctx context.Context, c Containment, req Request) *Result {
	t.Helper()
	req.Containment = c
	if c == ContainmentProcessGroup {
		req.AllowDegraded = true
	}
	if req.Env == nil {
		req.Env = testEnv()
	}
	res, err := Run(ctx, req)
	if errors.Is(err, ErrNoContainment) && c != ContainmentAuto {
		t.Skipf("containment %s unavailable: %v", c, err)
	}
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if c != ContainmentAuto && res.Containment != c {
		t.Fatalf("containment = %s, want %s", res.Containment, c)
	}
	return res
}

// mustRun runs req (auto containment) and fails on error.
func mustRun(t *testing.T, req Request) *Result {
	t.Helper()
	return runIn(t, context.Background(), ContainmentAuto, req)
}

// watcher accumulates stdout passed to OnOutput and calls fn once when it
// contains marker.
type watcher struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	fn     func()
	fired  bool
}

func watch(marker string, fn func()) *watcher { return &watcher{marker: marker, fn: fn} }

func (w *watcher) onOutput(s Stream, b []byte) {
	if s != Stdout {
		return
	}
	w.mu.Lock()
	w.buf.Write(b)
	fire := !w.fired && strings.Contains(w.buf.String(), w.marker)
	if fire {
		w.fired = true
	}
	w.mu.Unlock()
	if fire {
		w.fn()
	}
}
