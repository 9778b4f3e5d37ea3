//go:build linux

package executor

// Red team 28 (faults, executor side): what the earlier passes
// (redteam8/16/24, rt27embed, cmd/sbx's TestRT2x, the launcher's fault
// batteries) did not try.
//
// FINDINGS (each test failed on the code it was written against; both
// fixed):
//
//   - TestRedTeam28CallbackPastDeadline: an OnOutput that holds the loop
//     until the deadline has passed (sbx's live output does so for a
//     reader that stopped reading) while the command ends on its own:
//     the loop acted on the deadline before it polled the leader's exit
//     again, and reported TimedOut, exit 124 and SIGKILL for a command
//     that had exited 3 (exec_linux.go: endPending).
//   - TestRedTeam28MainThreadExited: under cgroup containment, a
//     process whose main thread has ended (pthread_exit) while another
//     thread runs on is not killed by cgroup.kill (the kernel signals a
//     process through its leader thread, which has no signal handlers
//     left): as a descendant it survived the run, reparented to init, in
//     a cgroup left behind, and Run waited 10 s and returned ErrCleanup;
//     as the leader it ran on past its timeout until Run gave up
//     (cgroup_linux.go: killListed).
//
// Held (TestRedTeam28Held): odd Request values (ContainmentJobObject on
// Linux, OutputCap math.MaxInt with both retentions, KillGrace and
// DrainTimeout at math.MaxInt64, Env entries without "=" and duplicate
// PATHs, argv[0] ".", "..", "/bin/sh/", 5,000 bytes, past PATH_MAX,
// CancelFD a descriptor that never becomes readable), the leader's main
// thread ended with threads writing, and a vfork child that pauses, under
// each containment: each a result or an error, never a hang.
//
//	go test -count=1 -run 'TestRedTeam28' -v ./executor

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rt28Thr builds a program whose main thread ends (pthread_exit) once a
// second thread runs: with "write", that thread writes to stdout without
// end; otherwise it prints "ready" once the main thread is a zombie, then
// pauses. With "vfork" the program vforks a child that pauses for ever.
func rt28Thr(t *testing.T) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to build the test program")
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "thr.c"), filepath.Join(dir, "thr")
	os.WriteFile(src, []byte(rt28ThrSrc), 0o644)
	if out, err := exec.Command(gcc, "-O1", "-pthread", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cannot build the test program: %v\n%s", err, out)
	}
	return bin
}

const rt28ThrSrc = `#include <pthread.h>
#include <unistd.h>
#include <string.h>
#include <stdio.h>
#include <fcntl.h>
static int writer;
static void *run(void *a) {
	char b[4096];
	if (writer) {
		memset(b, 't', sizeof b);
		for (;;) write(1, b, sizeof b);
	}
	for (;;) {
		/* the main thread's state, from the process's stat */
		int fd = open("/proc/self/stat", O_RDONLY);
		int n = read(fd, b, sizeof b - 1);
		close(fd);
		b[n > 0 ? n : 0] = 0;
		char *p = strrchr(b, ')');
		if (p && p[2] == 'Z') break;
		usleep(1000);
	}
	write(1, "ready\n", 6);
	for (;;) pause();
	return 0;
}
int main(int argc, char **argv) {
	if (argc > 1 && !strcmp(argv[1], "vfork")) {
		if (vfork() == 0) for (;;) pause();
		return 0;
	}
	writer = argc > 1 && !strcmp(argv[1], "write");
	pthread_t t;
	pthread_create(&t, 0, run, 0);
	pthread_exit(0);
}
`

// TestRedTeam28CallbackPastDeadline: DEFECT (fixed). TimedOut is "the
// expiration fired and the command was killed"; here the command ends by
// itself at once with status 3, and only OnOutput's first call takes
// until past the deadline (it returns once the command is gone and the
// deadline has passed).
func TestRedTeam28CallbackPastDeadline(t *testing.T) {
	for _, c := range []Containment{ContainmentPIDNamespace, ContainmentProcessGroup} {
		t.Run(modeName(c), func(t *testing.T) {
			const timeout = 300 * time.Millisecond
			var pid int
			var started time.Time
			once := false
			req := Request{
				Argv:    []string{"/bin/sh", "-c", "echo out; exit 3"},
				Env:     testEnv(),
				Timeout: timeout,
				OnStart: func(si StartInfo) { pid, started = si.Pid, time.Now() },
				OnOutput: func(Stream, []byte) {
					if once {
						return
					}
					once = true
					// Held until the leader has exited (a zombie: not
					// yet reaped) and the deadline has passed.
					deadline := time.Now().Add(10 * time.Second)
					for time.Now().Before(deadline) {
						st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
						i := strings.LastIndexByte(string(st), ')')
						if i > 0 && i+2 < len(st) && st[i+2] == 'Z' && time.Since(started) > timeout+20*time.Millisecond {
							return
						}
						unix.Poll(nil, 1)
					}
				},
			}
			res := runIn(t, context.Background(), c, req)
			if res.ExitCode != 3 || res.TimedOut || res.Signal != 0 {
				t.Errorf("exit %d, timed out %v, signal %d; want the command's own 3, no timeout", res.ExitCode, res.TimedOut, res.Signal)
			}
		})
	}
}

// TestRedTeam28MainThreadExited: DEFECT (fixed). README: "After the
// command ends ... nothing it started survives"; cgroup containment's
// cgroup.kill missed a process whose main thread had ended.
func TestRedTeam28MainThreadExited(t *testing.T) {
	thr := rt28Thr(t)
	// A descendant whose main thread ended, left running when the leader
	// exits: killed at once, the cgroup removed, no ErrCleanup.
	t.Run("cgroup descendant", func(t *testing.T) {
		req := Request{Argv: []string{"/bin/sh", "-c", "(" + thr + " &) | head -n1"}, Env: testEnv(), Timeout: 20 * time.Second, Containment: ContainmentCgroup}
		start := time.Now()
		res, err := Run(context.Background(), req)
		if errors.Is(err, ErrNoContainment) {
			t.Skipf("cgroup containment unavailable: %v", err)
		}
		t.Cleanup(func() { rt28KillByExe(thr) })
		if err != nil || res.ExitCode != 0 || string(res.Stdout.Head) != "ready\n" || time.Since(start) > 5*time.Second {
			t.Errorf("after %v: err %v, res %+v; want ready, exit 0, no cleanup error", time.Since(start), err, res)
		}
		if left := rt28ByExe(thr); len(left) > 0 {
			t.Errorf("survivors: %v", left)
		}
	})
	// Process-group containment: the same process, which left the
	// session (setsid) but kept the run's token, is found by the token.
	t.Run("process-group setsid", func(t *testing.T) {
		setsid, err := exec.LookPath("setsid")
		if err != nil {
			t.Skip(err)
		}
		start := time.Now()
		res := runIn(t, context.Background(), ContainmentProcessGroup, Request{Argv: []string{"/bin/sh", "-c", "(" + setsid + " " + thr + " &) | head -n1"}, Env: testEnv(), Timeout: 20 * time.Second})
		t.Cleanup(func() { rt28KillByExe(thr) })
		if res.ExitCode != 0 || string(res.Stdout.Head) != "ready\n" || time.Since(start) > 5*time.Second {
			t.Errorf("after %v: res %+v; want ready, exit 0", time.Since(start), res)
		}
		if left := rt28ByExe(thr); len(left) > 0 {
			t.Errorf("survivors: %v", left)
		}
	})
	// The leader itself, writing without end: the timeout ends it.
	t.Run("cgroup leader", func(t *testing.T) {
		req := Request{Argv: []string{thr, "write"}, Env: testEnv(), Timeout: 300 * time.Millisecond, OutputCap: 100, Containment: ContainmentCgroup}
		start := time.Now()
		res, err := Run(context.Background(), req)
		if errors.Is(err, ErrNoContainment) {
			t.Skipf("cgroup containment unavailable: %v", err)
		}
		t.Cleanup(func() { rt28KillByExe(thr) })
		if err != nil || res.ExitCode != TimeoutExitCode || time.Since(start) > 5*time.Second {
			t.Errorf("after %v: err %v, exit %d; want 124 at the deadline", time.Since(start), err, res.ExitCode)
		}
	})
}

// rt28ByExe lists the processes with a live thread running exe (the exe
// link of a process whose main thread ended is read through another of
// its threads).
func rt28ByExe(exe string) []int {
	var pids []int
	names, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range names {
		tasks, _ := filepath.Glob(d + "/task/*")
		for _, task := range tasks {
			if l, err := os.Readlink(task + "/exe"); err == nil && l == exe {
				pid, _ := strconv.Atoi(filepath.Base(d))
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// rt28KillByExe kills what a failed test left behind.
func rt28KillByExe(exe string) {
	for _, pid := range rt28ByExe(exe) {
		unix.Kill(pid, unix.SIGKILL)
	}
}

// TestRedTeam28Held: see the file's comment.
func TestRedTeam28Held(t *testing.T) {
	env := testEnv()
	t.Run("odd requests", func(t *testing.T) {
		long := "/" + strings.Repeat("a/", 3000) + "x"
		cases := []struct {
			name string
			req  Request
			exit int
			err  error
		}{
			{"job-object on Linux", Request{Argv: []string{"/bin/true"}, Env: env, Containment: ContainmentJobObject}, 0, ErrNoContainment},
			{"cap MaxInt head", Request{Argv: []string{"/bin/sh", "-c", "head -c 100000 /dev/zero"}, Env: env, OutputCap: math.MaxInt}, 0, nil},
			{"cap MaxInt head-tail", Request{Argv: []string{"/bin/sh", "-c", "head -c 100000 /dev/zero"}, Env: env, OutputCap: math.MaxInt, Retention: RetainHeadTail}, 0, nil},
			{"grace MaxInt64 with timeout", Request{Argv: []string{"/bin/sleep", "5"}, Env: env, Timeout: 200 * time.Millisecond, KillGrace: math.MaxInt64}, TimeoutExitCode, nil},
			{"drain MaxInt64", Request{Argv: []string{"/bin/true"}, Env: env, DrainTimeout: math.MaxInt64}, 0, nil},
			{"env entries without =", Request{Argv: []string{"sh", "-c", "echo ok"}, Env: []string{"PATH", "PATH=/bin"}}, 0, nil},
			{"argv0 .", Request{Argv: []string{"."}, Env: env}, 126, nil},
			{"argv0 ..", Request{Argv: []string{".."}, Env: env}, 126, nil},
			{"argv0 trailing slash", Request{Argv: []string{"/bin/sh/"}, Env: env}, 127, nil},
			{"argv0 5000 bytes", Request{Argv: []string{strings.Repeat("a", 5000)}, Env: env}, 127, nil},
			{"argv0 past PATH_MAX", Request{Argv: []string{long}, Env: env}, 126, nil},
			{"CancelFD never readable", Request{Argv: []string{"/bin/true"}, Env: env, CancelFD: rt28WriteEnd(t)}, 0, nil},
		}
		for _, c := range cases {
			res, err := Run(context.Background(), c.req)
			switch {
			case c.err != nil:
				if !errors.Is(err, c.err) {
					t.Errorf("%s: err %v; want %v", c.name, err, c.err)
				}
			case err != nil || res.ExitCode != c.exit:
				t.Errorf("%s: err %v, res %+v; want exit %d", c.name, err, res, c.exit)
			case c.exit == 0 && c.req.OutputCap == math.MaxInt && (res.Stdout.Bytes != 100000 || len(res.Stdout.Head) != 100000 || res.Stdout.Truncated):
				t.Errorf("%s: %d bytes, %d retained, truncated %v", c.name, res.Stdout.Bytes, len(res.Stdout.Head), res.Stdout.Truncated)
			}
		}
	})
	t.Run("main thread ended, vfork", func(t *testing.T) {
		thr := rt28Thr(t)
		for _, c := range []Containment{ContainmentPIDNamespace, ContainmentProcessGroup} {
			for _, arg := range []string{"write", "vfork"} {
				start := time.Now()
				res := runIn(t, context.Background(), c, Request{Argv: []string{"/bin/sh", "-c", thr + " " + arg + "; sleep 30"}, Env: env, Timeout: 300 * time.Millisecond, OutputCap: 100})
				if res.ExitCode != TimeoutExitCode || time.Since(start) > 5*time.Second {
					t.Errorf("%s %s: exit %d after %v", modeName(c), arg, res.ExitCode, time.Since(start))
				}
				if left := rt28ByExe(thr); len(left) > 0 {
					rt28KillByExe(thr)
					t.Errorf("%s %s: survivors %v", modeName(c), arg, left)
				}
			}
		}
	})
}

// rt28WriteEnd is the write end of a pipe (open for the test's life): as
// a CancelFD it never becomes readable.
func rt28WriteEnd(t *testing.T) int {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return int(w.Fd())
}
