//go:build linux && amd64

package main

// Red team 30, fault battery for sbx run: what the earlier batteries
// (TestRT20* to TestRT29*, testdata/script/sbx_*.txtar, executor's
// redteam8/16/24/28/29 and rt27embed, targets/landlock/launch's fault
// tests) did not try, checked against the README's "Running commands:
// sbx" section and "Known limits". The classes this pass found faults
// in: sbx run nested in sbx run, where the inner sbx sees a /proc that
// belongs to another PID namespace (without a sandbox,
// danger-full-access, the outer run's command is PID 1 of a PID
// namespace of its own, but /proc is the host's: no mount namespace is
// made, which would cost every run its start-up; so /proc shows the
// host's pids, not the ones getpid, kill and wait use there); and the
// cleanup of cgroup containment's leftovers and stuck processes.
//
// FINDINGS (each test failed on the code it was written against):
//
//   - TestRedTeam30FaultNestedProcessGroup (fixed, executor/contain_linux.go,
//     internal/procns): process-group containment's sweep compares the
//     process group and session of every process /proc lists with the
//     leader's pid, and kills and reaps by /proc's pid. In a nested run
//     /proc's pids are the host's: a setsid'd process carrying the run's
//     token was found, "killed" by a pid that named nothing (or another
//     process of the outer run) and counted alive at every pass: sbx
//     waited the 10 s cleanup bound, exited 125 ("processes of the
//     command's session survive") and the process survived the run.
//   - TestRedTeam30FaultNestedCgroupOwner (fixed, executor/cgroup_linux.go):
//     a cgroup run names its cgroup sbx-<pid>-<start>-<random> so that a
//     later cgroup run can tell a leftover of a SIGKILLed sbx (owner
//     gone) from a live one; the pid was getpid's and the start time
//     read from /proc/<that pid>, the host's process of that number. A
//     nested sbx thus named its live cgroup after an unrelated host
//     process: once that process ended, the next cgroup run on the host
//     took the live run's cgroup for a leftover and killed its command
//     (SIGKILL, exit 137, in the middle of the run); and a nested sbx
//     with pid 1 was named after the host's init, so its leftovers were
//     never removed (TestRedTeam30FaultNestedInitLeftover). The owner is
//     now named as /proc shows it.
//   - TestRedTeam30FaultNestedJobControl (fixed, cmd/sbx/jobtree_linux.go):
//     ^Z to a nested sbx stops every process of the run by walking /proc
//     for sbx's descendants; with the host's /proc it looked for the
//     descendants of the host process whose pid is sbx's in its
//     namespace, and signalled what it found by that number in sbx's own
//     namespace: the command's processes that had left its process group
//     ran on while the job was reported stopped.
//   - TestRedTeam30FaultStuckLeftoverDelaysStart (fixed,
//     executor/cgroup_linux.go): a cgroup run kills the leftovers of
//     SIGKILLed runs and then waited up to 2 s for each to empty before
//     starting its command. A leftover whose process cannot die
//     (uninterruptible sleep on a FUSE server that does not answer)
//     never empties: every later cgroup run started 2 s late, for each
//     such leftover, for as long as the process stayed. The leftovers
//     are now killed without waiting and removed once empty (at once, or
//     when the run ends, or by a later run).
//   - TestRedTeam30FaultZombieOwnerLeftover (fixed,
//     executor/cgroup_linux.go): a leftover's owner counted as alive while
//     /proc showed its pid with its start time, which a SIGKILLed sbx
//     that its parent has not reaped (a zombie) does: the next cgroup
//     runs left the leftover alone, and the killed run's background
//     processes ran on until the zombie was reaped. A zombie owner is
//     gone now.
//   - TestRedTeam30FaultStuckGiveUpOnce (fixed, executor/contain_linux.go,
//     cgroup_linux.go): under cgroup containment a process of the command
//     that cannot die (uninterruptible sleep) was waited for with the
//     whole 10 s bound by each of the cleanup's waits in turn (the loop's
//     after the SIGKILL, cleanup's, release's): sbx gave up 22 s after
//     the leader's end, 31 s after a 1 s timeout, where the README says
//     it waits 10 s after its SIGKILL. The waits now share one bound from
//     the first kill.
//   - TestRedTeam30FaultForeignProcLeftover (fixed,
//     executor/cgroup_linux.go): the same with a PID namespace that has a
//     /proc of its own (unshare --pid --mount-proc, a container sharing
//     its host's cgroup): the sbx there named its cgroup after its pid
//     there (1), which the host's /proc shows as init, started at
//     another time; the next cgroup run on the host killed the live
//     run's command (137). A cgroup run now holds a flock on its cgroup
//     directory while it runs, and a cgroup whose lock is held (by a
//     process outside it: a command that waits for the lock gets it when
//     its sbx dies, TestRedTeam30FaultLeftoverLockTakenByCommand) is no
//     leftover, whatever its name says.
//
// Held (TestRedTeam30FaultHeld, and probes not kept as tests): sbx's
// stdout a directory (EBADF), /dev/full, an O_APPEND file on a full
// tmpfs: 125 in every output mode; the terminal going away under sbx;
// PATH with a directory named like the command first, a relative and an
// empty element, resolved from --cwd; --cwd a symlink, a file, missing,
// not enterable or not listable as uid 65534, with a trailing slash;
// duplicate and oddly named environment variables; --timeout from 1ns to
// 10ms and at 2562047h47m16.854775807s, --output-cap and --timeout
// spellings (+5, 5 B, -0.0s, 1µs/1μs, 1e0, 00, 1.0000001KiB); every flag
// empty or garbage; a command closing its stdout while flooding stderr,
// or both pipes and running on; head-tail retention at its exact
// boundaries; 12,000 interleaved lines per stream under --events (seq
// contiguous, bytes exact); 100 MB past a 1 KiB cap in every mode;
// exit-versus-timeout races (37/40 124 with SIGKILL, 3/40 the command's
// own with its output: never mixed); two signals (TERM then INT, QUIT
// then TERM, HUP then QUIT); 16 concurrent cgroup runs; sbx nested in
// the workspace sandbox (a clear 125) and the sandbox helper's hidden
// argument given by hand (125); no descriptor reaches the command in any
// containment and output mode, with a terminal too.
//
// Left as known limits (README, "sbx nested in sbx"): a nested sandboxed
// run reports the command's pid as the host's /proc shows it; a nested
// sbx that is the outer command itself (PID 1) cannot stop itself on ^Z
// (its tree stops). A cleaner in another PID namespace looking between a
// new cgroup's mkdir and its owner's flock (microseconds) can still take
// it for a leftover.
//
//	go test -count=1 -run TestRedTeam30Fault -v ./cmd/sbx

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rt30Fifo makes a FIFO in dir: a command that reads it (cat) waits until
// the test calls the release function returned. The test holds a writer
// from the start (an O_RDWR open never blocks), so that a reader that
// opens it before the release does not wait in its open; the release
// closes it (that reader's EOF) and opens it once more for writing, for
// a reader that opens it after the release (that open waits for a
// writer), and closes it again.
func rt30Fifo(t *testing.T, dir, name string) (string, func()) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := unix.Mkfifo(p, 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o666)
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	released := false
	t.Cleanup(func() {
		f.Close()
		if released {
			// A release's writer still waiting for a reader goes on.
			if r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				r.Close()
			}
		}
	})
	return p, func() {
		released = true
		f.Close()
		go func() {
			if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				w.Close()
			}
		}()
	}
}

// rt30Outer starts sbx (the outer run, danger-full-access: its command is
// PID 1 of a PID namespace of its own, with the host's /proc) running
// script under sh, in terminal mode; the command's stdout is returned
// for reading line by line. attr, when set, gives the credentials.
func rt30Outer(t *testing.T, sbx, dir string, attr *syscall.SysProcAttr, env []string, script string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(sbx, "run", "--profile", "danger-full-access", "--timeout", "60s", "--", "sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = attr
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, bufio.NewReader(out)
}

// rt30Until reads lines until one starts with prefix and returns the rest
// of it.
func rt30Until(t *testing.T, r *bufio.Reader, prefix string) string {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if v, ok := strings.CutPrefix(line, prefix); ok {
			return strings.TrimSuffix(v, "\n")
		}
		if err != nil {
			t.Fatalf("no line %q: %v", prefix, err)
		}
	}
}

// rt30Result is the part of a --json result the tests read.
type rt30Result struct {
	ExitCode   int     `json:"exit_code"`
	Signal     *string `json:"signal"`
	Cancelled  bool    `json:"cancelled"`
	TimedOut   bool    `json:"timed_out"`
	DurationMS int64   `json:"duration_ms"`
	SbxError   string  `json:"sbx_error"`
	Stdout     string  `json:"stdout"`
}

// TestRedTeam30FaultNestedProcessGroup: DEFECT (fixed). README,
// process-group containment: sbx "kills the command's process group, its
// session and every process carrying the run's SBX_CONTAINMENT_TOKEN";
// a command that starts a setsid'd child (which keeps the token) and
// exits ends at once, child killed. So too for an sbx that runs in the
// command of another (danger-full-access), whose /proc shows the host's
// pids: before the fix the child survived, and sbx waited 10 s and
// exited 125. As root, and as uid 65534 (user and PID namespaces).
func TestRedTeam30FaultNestedProcessGroup(t *testing.T) {
	rt30AsBoth(t, func(t *testing.T, sbx, dir string, attr *syscall.SysProcAttr) {
		tok := rt20Token(t)
		defer rt20KillMarked(tok)
		defer rt30KillArgvMarked("rt30-" + tok)
		_, release := rt30Fifo(t, dir, "gate")
		// The inner command: a setsid'd child with the token, which writes
		// its pid once it has its own session; the leader exits when it
		// has. The outer command prints the inner's result and exit status
		// and waits at the FIFO, so that the test looks for survivors
		// while the outer namespace (whose end would kill them) lives.
		// A second one stays in the leader's session but leaves its
		// process group and clears its environment (token included):
		// found by its session, which /proc shows as the host's id.
		inner := `setsid sh -c 'echo $$ > child; exec sleep 1000' & ` +
			`env -i /usr/bin/perl -e 'setpgrp(0, 0); open(F, ">grp"); print F $$; close F; sleep 1000' rt30-` + tok + ` & ` +
			`while ! [ -s child ] || ! [ -s grp ]; do :; done; echo leader-done`
		script := fmt.Sprintf(`%s run --json --profile danger-full-access --containment process-group --timeout 60s -- env RT20_TOKEN=%s sh -c %q > inner.json; echo "inner=$?"; cat gate`, sbx, tok, inner)
		start := time.Now()
		outer, r := rt30Outer(t, sbx, dir, attr, os.Environ(), script)
		status := rt30Until(t, r, "inner=")
		took := time.Since(start)
		alive := append(rt20Marked(tok), rt30ArgvMarked("rt30-"+tok)...)
		release()
		outer.Wait()
		b, _ := os.ReadFile(filepath.Join(dir, "inner.json"))
		var res rt30Result
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatalf("inner result %q: %v", b, err)
		}
		if status != "0" || res.ExitCode != 0 || res.SbxError != "" || !strings.Contains(res.Stdout, "leader-done") {
			t.Errorf("nested process-group run: status %s, result %+v, want 0 and the command's output", status, res)
		}
		if len(alive) != 0 {
			t.Errorf("processes of the nested run alive after it returned: %v", alive)
		}
		if took > 8*time.Second {
			t.Errorf("the nested run took %v (the cleanup's 10 s bound?)", took)
		}
	})
}

// rt30ArgvMarked returns the live processes with marker as an argument
// (those whose environment was cleared).
func rt30ArgvMarked(marker string) []int {
	var pids []int
	names, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range names {
		pid, err := strconv.Atoi(filepath.Base(dir))
		if err != nil {
			continue
		}
		if st, ok := rt20State(pid); !ok || st == 'Z' || st == 'X' {
			continue
		}
		cl, err := os.ReadFile(dir + "/cmdline")
		if err == nil && slices.Contains(strings.Split(string(cl), "\x00"), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// rt30KillArgvMarked kills what a failed test left behind.
func rt30KillArgvMarked(marker string) {
	for _, pid := range rt30ArgvMarked(marker) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// rt30Survivors returns the processes carrying tok that are still alive
// 5 s from now, or none as soon as they are gone: a kill takes effect
// asynchronously (cgroup.kill), never that late.
func rt30Survivors(tok string) []int {
	for deadline := time.Now().Add(5 * time.Second); ; {
		left := rt20Marked(tok)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(2 * time.Millisecond) // polling the condition, not waiting for it to happen
	}
}

// rt30AsBoth runs f as root and as uid 65534 (with a copy of sbx that uid
// may run, and a working directory it may write).
func rt30AsBoth(t *testing.T, f func(t *testing.T, sbx, dir string, attr *syscall.SysProcAttr)) {
	if os.Getuid() != 0 {
		t.Skip("needs root (and uid 65534)")
	}
	t.Run("root", func(t *testing.T) {
		dir, err := os.MkdirTemp("", "rt30fault-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		f(t, rt20Sbx(t), dir, nil)
	})
	t.Run("nobody", func(t *testing.T) {
		sbx, dir, attr := rt22Nobody(t)
		f(t, sbx, dir, attr)
	})
}

// rt30CgroupUsable reports whether cgroup containment works here.
func rt30CgroupUsable(t *testing.T) bool {
	return exec.Command(rt20Sbx(t), "run", "--profile", "danger-full-access", "--containment", "cgroup", "--", "true").Run() == nil
}

// TestRedTeam30FaultNestedCgroupOwner: DEFECT (fixed). README: under cgroup
// containment, "if sbx is SIGKILLed ... the rest of the cgroup is killed
// and removed when the next run using cgroup containment starts"; the
// cgroup of a live run is its own. A nested sbx (in the command of a
// danger-full-access run, as root) whose pid in its namespace is the pid
// of an unrelated host process named its cgroup after that process;
// when it ended, the next cgroup run on the host killed the live nested
// run's command. The test makes the collision certain: the host process
// is the test's own, and the outer command sets its namespace's
// ns_last_pid so that the inner sbx gets that pid.
func TestRedTeam30FaultNestedCgroupOwner(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root (cgroups, ns_last_pid)")
	}
	if !rt30CgroupUsable(t) {
		t.Skip("cgroup containment unavailable here")
	}
	sbx := rt20Sbx(t)
	dir, err := os.MkdirTemp("", "rt30fault-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	gate, release := rt30Fifo(t, dir, "gate")
	// The host process whose pid the nested sbx gets in its namespace.
	host := exec.Command("sleep", "1000")
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer host.Process.Kill()
	hp := host.Process.Pid
	// The outer command makes its next child's pid hp: that child is the
	// nested sbx, whose command reports its parent's pid, says "ready"
	// and waits at the FIFO.
	script := fmt.Sprintf(`echo %d > /proc/sys/kernel/ns_last_pid; %s run --profile danger-full-access --containment cgroup --timeout 60s -- sh -c 'echo "pid=$PPID"; echo ready; cat %s; echo finished'; echo "inner=$?"`,
		hp-1, sbx, gate)
	outer, r := rt30Outer(t, sbx, dir, nil, os.Environ(), script)
	if got := rt30Until(t, r, "pid="); got != strconv.Itoa(hp) {
		t.Skipf("ns_last_pid did not give the nested sbx the pid asked for (%s, want %d)", got, hp)
	}
	rt30Until(t, r, "ready")
	// The host process ends; then a cgroup run starts on the host (its
	// start removes the leftovers of runs whose owner is gone).
	host.Process.Kill()
	host.Wait()
	if out, err := exec.Command(sbx, "run", "--profile", "danger-full-access", "--containment", "cgroup", "--", "true").CombinedOutput(); err != nil {
		t.Fatalf("host cgroup run: %v\n%s", err, out)
	}
	release()
	rest := rt30Until(t, r, "inner=")
	outer.Wait()
	if rest != "0" {
		t.Errorf("the nested cgroup run ended with %s, want 0: its live cgroup was taken for a leftover and killed", rest)
	}
}

// TestRedTeam30FaultNestedJobControl: DEFECT (fixed). README, job control:
// a SIGTSTP to sbx "stops the command's whole tree with it" (through a
// pidfd of the leader, and then every other process of the run: "sbx's
// descendants ... each signalled through a pidfd after its start time is
// checked"), and the SIGCONT that resumes sbx resumes the tree. So too
// for an sbx that is the command of a danger-full-access run (its /proc
// the host's): before the fix the processes of the tree that had left
// the command's process group (setsid, a double fork) ran on.
func TestRedTeam30FaultNestedJobControl(t *testing.T) {
	inner := [][]string{
		{"--profile", "danger-full-access"},
		{"--profile", "danger-full-access", "--containment", "process-group"},
		{"--profile", "workspace"},
	}
	if os.Getuid() == 0 && rt30CgroupUsable(t) {
		inner = append(inner, []string{"--profile", "danger-full-access", "--containment", "cgroup"})
	}
	sbx := rt20Sbx(t)
	for _, c := range inner {
		t.Run(strings.Join(c[1:], " "), func(t *testing.T) {
			tok := rt20Token(t)
			defer rt20KillMarked(tok)
			// The outer command (PID 1 of its namespace) starts the nested
			// sbx, which runs rt20's tree with --events, as its second
			// child: pid 3 there, which the host's /proc shows as a kernel
			// thread. (Not PID 1: an init cannot stop itself.)
			nestedArgv := append(append([]string{"env", "RT20_TOKEN=" + tok, sbx, "run", "--events", "--timeout", "60s"}, c...), "--")
			nestedArgv = append(nestedArgv, rt20TreeArgv(tok)...)
			var quoted []string
			for _, a := range nestedArgv {
				quoted = append(quoted, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
			}
			cmd, out, _ := rt20Start(t, "run", "--profile", "danger-full-access", "--timeout", "60s", "--",
				"sh", "-c", "true & wait; "+strings.Join(quoted, " "))
			rt20UntilReady(t, out)
			rt20Wait(t, "the tree", func() bool { return len(rt20Marked(tok)) >= rt20TreeSize+1 })
			// The nested sbx: the outer command's child running sbx (the
			// tree's orphans are its children too under cgroup
			// containment).
			var kids []int
			if sh := rt29Children(cmd.Process.Pid); len(sh) == 1 {
				for _, pid := range rt29Children(sh[0]) {
					if cl, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); strings.HasPrefix(string(cl), sbx+"\x00run\x00") {
						kids = append(kids, pid)
					}
				}
			}
			if len(kids) != 1 {
				t.Fatalf("the outer command's sbx children: %v, want the nested sbx alone", kids)
			}
			nested := kids[0]
			all := func(state byte) func() bool {
				return func() bool {
					for _, pid := range rt20Marked(tok) {
						if st, ok := rt20State(pid); ok && st != state {
							return false
						}
					}
					return true
				}
			}
			syscall.Kill(nested, syscall.SIGTSTP)
			rt20Wait(t, "the nested sbx stopped", func() bool { st, _ := rt20State(nested); return st == 'T' })
			// Every process of the run stops (a stop is taken by its
			// target asynchronously: polled until the deadline), but the
			// sandbox's init (a clone of sbx, with its command line),
			// which passes the stop on and stays up to pass the SIGCONT.
			var running []string
			for deadline := time.Now().Add(5 * time.Second); ; {
				running = running[:0]
				for _, pid := range rt20Marked(tok) {
					cl, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
					if st, ok := rt20State(pid); ok && st != 'T' && !strings.HasPrefix(string(cl), sbx+"\x00run\x00") {
						running = append(running, fmt.Sprintf("%d %c %q", pid, st, cl))
					}
				}
				if len(running) == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(2 * time.Millisecond) // polling the condition, not waiting for it to happen
			}
			if len(running) > 0 {
				t.Errorf("the nested sbx stopped, but processes of its run were not: %v", running)
			}
			syscall.Kill(nested, syscall.SIGCONT)
			rt20Wait(t, "every process of the tree resumed", all('S'))
			syscall.Kill(nested, syscall.SIGTERM)
			rt20LastExit(t, out)
			cmd.Wait()
			if left := rt20Marked(tok); len(left) > 0 {
				t.Errorf("%d process(es) outlive sbx: %v", len(left), left)
			}
		})
	}
}

// TestRedTeam30FaultStuckLeftoverDelaysStart: DEFECT (fixed). README,
// cgroup containment: "If sbx is SIGKILLed, the command itself dies with
// it and the rest of the cgroup is killed and removed when the next run
// using cgroup containment starts". Where a process of the SIGKILLed run
// cannot die (uninterruptible sleep: a FUSE server that does not
// answer, Known limits), each later cgroup run killed the leftover and
// then waited 2 s for it to empty before starting its own command, for
// as long as the process stayed: every run started 2 s late (per such
// leftover), its --timeout notwithstanding. A later run must start at
// once, and the leftover be removed by a run once it can be.
func TestRedTeam30FaultStuckLeftoverDelaysStart(t *testing.T) {
	t.Cleanup(func() { rt25ReapOrphans(20 * time.Second) })
	if os.Getuid() != 0 {
		t.Skip("mounting FUSE and cgroups need root")
	}
	if !rt30CgroupUsable(t) {
		t.Skip("cgroup containment unavailable here")
	}
	sbx := rt20Sbx(t)
	mnt := t.TempDir()
	os.Chmod(filepath.Dir(mnt), 0o755)
	ops, release := rt25Fuse(t, mnt)
	released := false
	defer func() {
		if !released {
			release()
		}
	}()
	// The run whose sbx is SIGKILLed while its command waits for the
	// FUSE server.
	a := exec.Command(sbx, "run", "--json", "--profile", "danger-full-access", "--containment", "cgroup", "--timeout", "60s", "--", "cat", filepath.Join(mnt, "x"))
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer a.Process.Kill()
	deadline := time.After(20 * time.Second)
wait:
	for {
		select {
		case op := <-ops:
			if op == 1 { // FUSE_LOOKUP: the command waits for the answer
				break wait
			}
		case <-deadline:
			t.Fatal("the command never looked the name up")
		}
	}
	kids := rt29Children(a.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("sbx's children %v, want the command alone", kids)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(kids[0]) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	rel := strings.TrimPrefix(string(unifiedLine(b)), "0::")
	var leftover string
	if own, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		mine := strings.TrimPrefix(string(unifiedLine(own)), "0::")
		if !strings.HasPrefix(rel, strings.TrimSuffix(mine, "/")+"/sbx-") {
			t.Fatalf("the command's cgroup %q is not below the test's %q", rel, mine)
		}
		leftover = filepath.Base(rel)
	}
	a.Process.Kill()
	a.Wait()
	// Later cgroup runs: each starts at once.
	for i := range 2 {
		start := time.Now()
		code, _, stderr := rt27Run(t, "", nil, "run", "--profile", "danger-full-access", "--containment", "cgroup", "--timeout", "5s", "--", "true")
		if took := time.Since(start); code != 0 || took > time.Second {
			t.Errorf("cgroup run %d after the SIGKILLed one: status %d in %v (stderr %q); want 0 at once", i, code, took, stderr)
		}
	}
	// The server goes away: the stuck process ends, and the next run
	// removes the leftover.
	released = true
	release()
	found := true
	// Removed once empty: by the run that kills it, or (its process still
	// ending then) the next.
	for i := 0; i < 3 && found; i++ {
		if code, _, stderr := rt27Run(t, "", nil, "run", "--profile", "danger-full-access", "--containment", "cgroup", "--", "true"); code != 0 {
			t.Fatalf("cgroup run: %d %q", code, stderr)
		}
		found = false
		filepath.WalkDir("/sys/fs/cgroup", func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == leftover {
				found = true
				return filepath.SkipAll
			}
			return nil
		})
	}
	if found {
		t.Errorf("the leftover cgroup %s is still there after a run that started once its process could end", leftover)
	}
}

// rt30Run runs sbx with args in dir (env nil: the test's), stdout to the
// file out when given (else captured), as attr's user when given; it
// returns the status, stdout and stderr.
func rt30Run(t *testing.T, dir string, env []string, out *os.File, attr *syscall.SysProcAttr, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(rt20Sbx(t), args...)
	cmd.Dir, cmd.Env, cmd.SysProcAttr = dir, env, attr
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if out != nil {
		cmd.Stdout = out
	}
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

// TestRedTeam30FaultHeld: what held (each case passes), against the
// README's "Running commands: sbx".
func TestRedTeam30FaultHeld(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root (and uid 65534)")
	}
	sbx := rt20Sbx(t)
	top, err := os.MkdirTemp("", "rt30fault-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(top)
	os.Chmod(top, 0o755)
	nobody := &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	// A copy of sbx uid 65534 may run.
	nsbx, _, _ := rt22Nobody(t)
	profiles := []string{"danger-full-access", "workspace"}
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		// sbx's stdout or stderr a descriptor that cannot be written (a
		// directory opened for reading: EBADF; /dev/full: ENOSPC): 125 in
		// every output mode, and the command does not run on.
		{"unwritable streams", func(t *testing.T) {
			d, err := os.Open(top)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer full.Close()
			for _, f := range []*os.File{d, full} {
				for _, mode := range [][]string{nil, {"--json"}, {"--events"}} {
					args := append(append([]string{"run"}, mode...), "--profile", "danger-full-access", "--", "echo", "hi")
					if code, _, stderr := rt30Run(t, top, nil, f, nil, args...); code != 125 || !strings.Contains(stderr, "writing to standard output") {
						t.Errorf("stdout %s, %v: status %d, stderr %q; want 125 naming the write", f.Name(), mode, code, stderr)
					}
				}
			}
		}},
		// PATH edge cases, resolved as execvp would, in the command's
		// environment and working directory: a directory named like the
		// command first in PATH is skipped, a relative element and an
		// empty one (the working directory) are looked up from --cwd.
		{"PATH lookups", func(t *testing.T) {
			dir := filepath.Join(top, "path")
			for _, d := range []string{"d1/foo", "d2", "bin", "sub"} {
				os.MkdirAll(filepath.Join(dir, d), 0o755)
			}
			os.WriteFile(filepath.Join(dir, "d2/foo"), []byte("#!/bin/sh\necho d2\n"), 0o755)
			os.WriteFile(filepath.Join(dir, "bin/foo"), []byte("#!/bin/sh\necho bin\n"), 0o755)
			os.WriteFile(filepath.Join(dir, "here"), []byte("#!/bin/sh\necho here\n"), 0o755)
			for _, p := range profiles {
				for _, c := range []struct {
					path, cwd, cmd, want string
					code                 int
				}{
					{dir + "/d1:" + dir + "/d2:/usr/bin:/bin", dir, "foo", "d2\n", 0},
					{"bin:/usr/bin:/bin", dir, "foo", "bin\n", 0},
					{":/usr/bin:/bin", dir, "here", "here\n", 0},
					{"bin:/usr/bin:/bin", filepath.Join(dir, "sub"), "foo", "", 127},
				} {
					env := []string{"PATH=" + c.path, "HOME=/root"}
					code, out, stderr := rt30Run(t, dir, env, nil, nil, "run", "--json", "--profile", p, "--cwd", c.cwd, "--", c.cmd)
					var res rt30Result
					if err := json.Unmarshal([]byte(out), &res); err != nil || code != c.code || res.ExitCode != c.code || res.Stdout != c.want {
						t.Errorf("%s: PATH=%s --cwd %s %s: status %d, %+v (%q); want %d and %q", p, c.path, c.cwd, c.cmd, code, res, stderr, c.code, c.want)
					}
				}
			}
		}},
		// --cwd edge cases: a symlink is entered as chdir enters it (the
		// physical directory), a file and a missing directory are 125,
		// a directory the user may not enter is 125 for uid 65534 (and
		// fine for root), one it may enter but not list runs.
		{"cwd edge cases", func(t *testing.T) {
			dir := filepath.Join(top, "cwd")
			for _, d := range []string{"real", "noenter", "nolist"} {
				os.MkdirAll(filepath.Join(dir, d), 0o755)
			}
			os.Symlink("real", filepath.Join(dir, "link"))
			os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
			os.Chmod(filepath.Join(dir, "noenter"), 0)
			os.Chmod(filepath.Join(dir, "nolist"), 0o311)
			os.Chmod(dir, 0o755)
			for _, p := range profiles {
				for _, c := range []struct {
					cwd  string
					as   *syscall.SysProcAttr
					code int
					out  string
				}{
					{"link", nil, 0, filepath.Join(dir, "real") + "\n"},
					{"link", nobody, 0, filepath.Join(dir, "real") + "\n"},
					{"real/", nobody, 0, filepath.Join(dir, "real") + "\n"},
					{"file", nil, 125, ""},
					{"missing", nobody, 125, ""},
					{"noenter", nobody, 125, ""},
					{"nolist", nobody, 0, filepath.Join(dir, "nolist") + "\n"},
				} {
					prog := sbx
					if c.as != nil {
						prog = nsbx
					}
					cmd := exec.Command(prog, "run", "--json", "--profile", p, "--cwd", c.cwd, "--", "pwd")
					cmd.Dir, cmd.SysProcAttr = dir, c.as
					out, _ := cmd.Output()
					var res rt30Result
					json.Unmarshal(out, &res)
					if code := rt20Status(cmd).ExitStatus(); code != c.code || res.ExitCode != c.code || res.Stdout != c.out {
						t.Errorf("%s --cwd %s (uid 65534: %v): status %d, %q; want %d, %q", p, c.cwd, c.as != nil, code, out, c.code, c.out)
					}
				}
			}
		}},
		// Tiny timeouts under the sandbox and without: 124 every time,
		// nothing of the command left.
		{"tiny timeouts", func(t *testing.T) {
			tok := rt20Token(t)
			defer rt20KillMarked(tok)
			for _, p := range profiles {
				for _, d := range []string{"1ns", "100us", "1ms", "3ms", "10ms"} {
					code, _, stderr := rt30Run(t, top, nil, nil, nil, "run", "--json", "--profile", p, "--timeout", d, "--", "env", "RT20_TOKEN="+tok, "sh", "-c", "sleep 50 & setsid sleep 51 & sleep 52")
					if code != 124 {
						t.Errorf("%s --timeout %s: status %d (%q), want 124", p, d, code, stderr)
					}
					if left := rt20Marked(tok); len(left) > 0 {
						t.Errorf("%s --timeout %s: processes left %v", p, d, left)
					}
				}
			}
		}},
		// A command that closes its stdout at once and floods stderr, and
		// one that closes both and runs on: exact counts, the timeout.
		{"closed pipes", func(t *testing.T) {
			code, out, _ := rt30Run(t, top, nil, nil, nil, "run", "--json", "--output-cap", "3000", "--", "sh", "-c", `exec 1>&-; head -c 5000000 /dev/zero >&2; exit 3`)
			var res map[string]any
			json.Unmarshal([]byte(out), &res)
			if code != 3 || res["stdout_bytes"] != 0.0 || res["stderr_bytes"] != 5e6 || res["stderr_omitted_bytes"] != 5e6-3000 || res["stderr_cut_short"] != false {
				t.Errorf("stdout closed, stderr flooded: status %d, %.400s", code, out)
			}
			start := time.Now()
			code, out, _ = rt30Run(t, top, nil, nil, nil, "run", "--json", "--timeout", "300ms", "--", "sh", "-c", `exec >&- 2>&-; sleep 50`)
			json.Unmarshal([]byte(out), &res)
			if took := time.Since(start); code != 124 || res["timed_out"] != true || res["stdout_cut_short"] != false || took > 5*time.Second {
				t.Errorf("pipes closed, running on: status %d in %v, %.400s", code, took, out)
			}
		}},
		// Head-tail retention at its exact boundaries (cap 6: head 3,
		// tail 3): nothing omitted up to the cap, then one byte, two.
		{"head-tail boundaries", func(t *testing.T) {
			for n, want := range map[int][3]string{5: {"12345", "", "0"}, 6: {"123456", "", "0"}, 7: {"123", "567", "1"}, 8: {"123", "678", "2"}} {
				_, out, _ := rt30Run(t, top, nil, nil, nil, "run", "--json", "--retain", "head-tail", "--output-cap", "6", "--", "printf", "%s", "123456789"[:n])
				var res map[string]any
				json.Unmarshal([]byte(out), &res)
				if res["stdout"] != want[0] || res["stdout_tail"] != want[1] || fmt.Sprint(res["stdout_omitted_bytes"]) != want[2] {
					t.Errorf("%d bytes, cap 6, head-tail: %.300s; want %q", n, out, want)
				}
			}
		}},
		// Concurrent cgroup runs (they share the parent cgroup and clean
		// each other's leftovers at their start): all succeed, nothing
		// left.
		{"concurrent cgroup runs", func(t *testing.T) {
			if !rt30CgroupUsable(t) {
				t.Skip("cgroup containment unavailable here")
			}
			errs := make(chan string, 12)
			for range 12 {
				go func() {
					c := exec.Command(sbx, "run", "--json", "--profile", "danger-full-access", "--containment", "cgroup", "--", "sh", "-c", "sleep 0.1 & (setsid sleep 0.2 &); echo x")
					out, _ := c.Output()
					if c.ProcessState == nil || c.ProcessState.ExitCode() != 0 {
						errs <- string(out)
						return
					}
					errs <- ""
				}()
			}
			for range 12 {
				if e := <-errs; e != "" {
					t.Errorf("a concurrent cgroup run failed: %.300s", e)
				}
			}
		}},
		// The terminal goes away (its master closed) while sbx, the
		// session's leader with the terminal as its streams, runs a
		// command that writes: sbx ends at once (the hangup's SIGHUP, or
		// the writes that fail: 125 either way here), in every output
		// mode, and nothing of the command survives.
		{"terminal hangup", func(t *testing.T) {
			for _, p := range profiles {
				for _, mode := range [][]string{nil, {"--json"}, {"--events"}} {
					tok := rt20Token(t)
					master, slave := rt22Pty(t)
					args := append(append([]string{"run"}, mode...), "--profile", p, "--timeout", "30s", "--", "env", "RT20_TOKEN="+tok, "sh", "-c", "sleep 1000 & while :; do echo tick; sleep 0.01; done")
					cmd := exec.Command(sbx, args...)
					cmd.Dir = filepath.Join(top, "proj")
					os.MkdirAll(cmd.Dir, 0o755)
					cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
					cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					slave.Close()
					rt20Wait(t, "the command", func() bool { return len(rt20Marked(tok)) >= 2 })
					master.Close()
					if !rt25Exited(cmd, 10*time.Second) {
						cmd.Process.Kill()
						cmd.Wait()
						t.Errorf("%s %v: sbx still running 10 s after its terminal went away", p, mode)
					} else if st := rt20Status(cmd); st.ExitStatus() != 125 && st.ExitStatus() != 129 {
						t.Errorf("%s %v: status %v after the hangup, want 125 or 129", p, mode, st)
					}
					rt20Wait(t, "the command's end", func() bool { return len(rt20Marked(tok)) == 0 })
				}
			}
		}},
		// sbx nested in a sandboxed run: refused with one clear message.
		{"nested in the sandbox", func(t *testing.T) {
			dir := filepath.Join(top, "proj")
			os.MkdirAll(dir, 0o755)
			b, _ := os.ReadFile(sbx)
			os.WriteFile(filepath.Join(dir, "sbx"), b, 0o755)
			_, out, _ := rt30Run(t, dir, nil, nil, nil, "run", "--json", "--", "./sbx", "run", "--json", "--", "true")
			var outer rt30Result
			json.Unmarshal([]byte(out), &outer)
			if outer.ExitCode != 125 || !strings.Contains(outer.Stdout, `"exit_code":125`) || !strings.Contains(outer.Stdout, "seccomp filter") {
				t.Errorf("sbx in the workspace sandbox: %.500s", out)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// TestRedTeam30FaultZombieOwnerLeftover: DEFECT (fixed). README, cgroup
// containment: "If sbx is SIGKILLed, the command itself dies with it and
// the rest of the cgroup is killed ... when the next run using cgroup
// containment starts". A later run tells a leftover from a live run's
// cgroup by its owner's pid and start time in /proc, and a SIGKILLed sbx
// that its parent has not reaped yet (a supervisor that kills and waits
// later, or never) is still there, as a zombie: its leftover was taken
// for a live run's, and the command's background processes ran on
// through every later run until the zombie was reaped.
func TestRedTeam30FaultZombieOwnerLeftover(t *testing.T) {
	if os.Getuid() != 0 || !rt30CgroupUsable(t) {
		t.Skip("cgroup containment unavailable here (root needed)")
	}
	tok := rt20Token(t)
	defer rt20KillMarked(tok)
	a, out, _ := rt20Start(t, "run", "--events", "--profile", "danger-full-access", "--containment", "cgroup", "--timeout", "60s", "--",
		"env", "RT20_TOKEN="+tok, "sh", "-c", "sleep 1000 & echo ready; wait")
	rt20UntilReady(t, out)
	rt20Wait(t, "the background job", func() bool { return len(rt20Marked(tok)) == 2 })
	// SIGKILLed, not reaped: a zombie until this test waits for it.
	a.Process.Signal(syscall.SIGKILL)
	rt20Wait(t, "sbx a zombie", func() bool { st, _ := rt20State(a.Process.Pid); return st == 'Z' })
	rt20Wait(t, "the command's leader gone", func() bool { return len(rt20Marked(tok)) == 1 })
	if code, _, stderr := rt30Run(t, "", nil, nil, nil, "run", "--profile", "danger-full-access", "--containment", "cgroup", "--", "true"); code != 0 {
		t.Fatalf("the next cgroup run: %d %q", code, stderr)
	}
	// Killed at the next run's start (cgroup.kill), dead soon after.
	if left := rt30Survivors(tok); len(left) > 0 {
		t.Errorf("the SIGKILLed run's background job %v outlived the next cgroup run (its sbx a zombie, not yet reaped)", left)
	}
	a.Wait()
}

// TestRedTeam30FaultCgroupStuckGiveUp: README, Known limits: "A process of
// the command in uninterruptible sleep ... cannot be killed ... sbx waits
// 10 s after its SIGKILL ..., then gives up with 125, saying so, and
// leaves such processes behind". Under cgroup containment, with a
// process of the command stuck (a FUSE server that does not answer),
// sbx must give up about 10 s after the leader's end or the timeout's
// SIGKILL (plus the 2 s drain bound for the pipes the stuck process
// holds), not wait again: before the fix each of the cleanup's waits
// took the whole bound under cgroup containment (22 s after the leader's
// end, 31 s after the timeout; process-group containment held).
func TestRedTeam30FaultStuckGiveUpOnce(t *testing.T) {
	t.Cleanup(func() { rt25ReapOrphans(20 * time.Second) })
	if os.Getuid() != 0 {
		t.Skip("mounting FUSE needs root")
	}
	containments := []string{"process-group"}
	if rt30CgroupUsable(t) {
		containments = append(containments, "cgroup")
	}
	for _, ct := range containments {
		for _, c := range []struct{ name, script string }{
			// The leader ends on its own, a background process is stuck.
			{"leader ends", `cat %s & while ! [ -e /proc/$!/wchan ] || [ "$(cat /proc/$!/wchan)" != request_wait_answer ]; do :; done; echo ready`},
			// The leader is stuck itself, the timeout fires.
			{"timeout", `echo ready; exec cat %s`},
		} {
			t.Run(ct+"/"+c.name, func(t *testing.T) {
				mnt := t.TempDir()
				os.Chmod(filepath.Dir(mnt), 0o755)
				ops, release := rt25Fuse(t, mnt)
				defer release()
				go func() {
					for range ops {
					}
				}()
				start := time.Now()
				cmd := exec.Command(rt20Sbx(t), "run", "--json", "--profile", "danger-full-access", "--containment", ct, "--timeout", "1s", "--",
					"sh", "-c", fmt.Sprintf(c.script, filepath.Join(mnt, "x")))
				var stdout, stderr strings.Builder
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer cmd.Process.Kill()
				ended := rt25Exited(cmd, 40*time.Second)
				took := time.Since(start)
				if !ended {
					t.Fatalf("sbx still running after %v", took)
				}
				if code := rt20Status(cmd).ExitStatus(); code != 125 || !strings.Contains(stdout.String(), "sbx_error") {
					t.Errorf("status %d, %.300q; want 125 and an sbx_error", code, stdout.String())
				}
				// The leader's end (at once, or the 1 s timeout), then 10 s.
				if took > 14*time.Second {
					t.Errorf("sbx gave up %v after the start: it waited twice for the stuck process (stderr %q)", took, stderr.String())
				}
			})
		}
	}
}

// TestRedTeam30FaultForeignProcLeftover: DEFECT (fixed). README, cgroup
// containment: a cgroup run kills the leftovers of SIGKILLed runs, those
// "whose executor process is gone"; a live run's cgroup is its own. An
// sbx in a PID namespace with a /proc of its own (unshare --pid
// --mount-proc: a container that shares its host's cgroup) names its
// cgroup after its pid there (1), which the host's /proc shows as
// another process (init, started long before): the next cgroup run on
// the host took the live run's cgroup for a leftover and killed its
// command. The owner now holds a lock on its cgroup, which tells.
func TestRedTeam30FaultForeignProcLeftover(t *testing.T) {
	if os.Getuid() != 0 || !rt30CgroupUsable(t) {
		t.Skip("cgroup containment unavailable here (root needed)")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare (util-linux) is needed")
	}
	sbx := rt20Sbx(t)
	dir, err := os.MkdirTemp("", "rt30fault-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	gate, release := rt30Fifo(t, dir, "gate")
	cmd := exec.Command(unshare, "--pid", "--fork", "--mount-proc", sbx, "run", "--profile", "danger-full-access", "--containment", "cgroup", "--timeout", "60s", "--",
		"sh", "-c", "echo ready; cat "+gate+"; echo finished")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	r := bufio.NewReader(out)
	rt30Until(t, r, "ready")
	// A cgroup run on the host: its start removes the leftovers of runs
	// whose owner is gone.
	if code, _, stderr := rt30Run(t, dir, nil, nil, nil, "run", "--profile", "danger-full-access", "--containment", "cgroup", "--", "true"); code != 0 {
		t.Fatalf("host cgroup run: %d %q", code, stderr)
	}
	release()
	rest, _ := io.ReadAll(r)
	cmd.Wait()
	if st := rt20Status(cmd); st.ExitStatus() != 0 || string(rest) != "finished\n" {
		t.Errorf("the run in its own PID namespace: status %d, rest of its output %q; want 0 and \"finished\" (its live cgroup taken for a leftover)", st.ExitStatus(), rest)
	}
}

// TestRedTeam30FaultNestedInitLeftover: DEFECT (fixed, with
// TestRedTeam30FaultNestedCgroupOwner). A nested cgroup run whose sbx is
// the outer run's command itself (PID 1 of the outer namespace) named
// its cgroup sbx-1-<start of the host's init>: SIGKILLed, its leftover
// looked owned by the host's init for ever, and no later cgroup run
// removed it ("the rest of the cgroup is killed and removed when the
// next run using cgroup containment starts").
func TestRedTeam30FaultNestedInitLeftover(t *testing.T) {
	if os.Getuid() != 0 || !rt30CgroupUsable(t) {
		t.Skip("cgroup containment unavailable here (root needed)")
	}
	sbx := rt20Sbx(t)
	outer, r := rt30Outer(t, sbx, "", nil, os.Environ(),
		"exec "+sbx+" run --profile danger-full-access --containment cgroup --timeout 60s -- sh -c 'grep ^0:: /proc/self/cgroup; exec sleep 1000'")
	line := rt30Until(t, r, "0::")
	name := filepath.Base(line)
	if !strings.HasPrefix(name, "sbx-") {
		t.Fatalf("the nested run's cgroup line %q", line)
	}
	var nested []int
	for _, pid := range rt29Children(outer.Process.Pid) {
		if cl, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); strings.HasPrefix(string(cl), sbx+"\x00run\x00") {
			nested = append(nested, pid)
		}
	}
	if len(nested) != 1 {
		t.Fatalf("the nested sbx: %v", nested)
	}
	syscall.Kill(nested[0], syscall.SIGKILL)
	outer.Wait()
	// Two cgroup runs: the first kills the leftover (empty by now: its
	// processes died with the outer namespace) and removes it.
	for range 2 {
		if code, _, stderr := rt30Run(t, "", nil, nil, nil, "run", "--profile", "danger-full-access", "--containment", "cgroup", "--", "true"); code != 0 {
			t.Fatalf("host cgroup run: %d %q", code, stderr)
		}
	}
	found := ""
	filepath.WalkDir("/sys/fs/cgroup", func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == name {
			found = p
			return filepath.SkipAll
		}
		return nil
	})
	if found != "" {
		t.Errorf("the SIGKILLed nested run's cgroup %s is still there after two cgroup runs", found)
		os.Remove(found)
	}
}

// TestRedTeam30FaultLeftoverLockTakenByCommand: the lock a cgroup run holds
// on its cgroup (TestRedTeam30FaultForeignProcLeftover's fix) must not
// let the command keep its leftovers: a command that waits for the lock
// (flock(1) on its own cgroup's directory) gets it when its sbx is
// SIGKILLed, and the next cgroup run must still kill what the run left.
func TestRedTeam30FaultLeftoverLockTakenByCommand(t *testing.T) {
	if os.Getuid() != 0 || !rt30CgroupUsable(t) {
		t.Skip("cgroup containment unavailable here (root needed)")
	}
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("flock (util-linux) is needed")
	}
	mnt := ""
	if b, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if pre, post, ok := strings.Cut(line, " - "); ok && strings.HasPrefix(post, "cgroup2 ") {
				if f := strings.Fields(pre); len(f) > 4 {
					mnt = f[4]
					break
				}
			}
		}
	}
	if mnt == "" {
		t.Skip("no cgroup v2 mount")
	}
	tok := rt20Token(t)
	defer rt20KillMarked(tok)
	// The command's background job waits for the lock on the run's
	// cgroup, and holds it (running sleep) once it has it.
	script := fmt.Sprintf(`cg=%s$(sed -n 's/^0:://p' /proc/self/cgroup); %s -x "$cg" sleep 1000 & echo ready; wait`, mnt, flock)
	a, out, _ := rt20Start(t, "run", "--events", "--profile", "danger-full-access", "--containment", "cgroup", "--timeout", "60s", "--",
		"env", "RT20_TOKEN="+tok, "sh", "-c", script)
	rt20UntilReady(t, out)
	a.Process.Signal(syscall.SIGKILL)
	a.Wait()
	// flock(1) took the lock and started its sleep.
	rt20Wait(t, "the lock taken", func() bool {
		for _, pid := range rt20Marked(tok) {
			if cl, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); string(cl) == "sleep\x001000\x00" {
				return true
			}
		}
		return false
	})
	if code, _, stderr := rt30Run(t, "", nil, nil, nil, "run", "--profile", "danger-full-access", "--containment", "cgroup", "--", "true"); code != 0 {
		t.Fatalf("the next cgroup run: %d %q", code, stderr)
	}
	if left := rt30Survivors(tok); len(left) > 0 {
		t.Errorf("the SIGKILLed run's processes %v outlived the next cgroup run: the command holds its cgroup's lock", left)
	}
}
