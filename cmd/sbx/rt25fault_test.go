//go:build linux

package main

// Red team 25, fault battery for sbx run (the four defects below are
// fixed; each test failed before its fix): what the earlier batteries
// (TestRT20*, TestRT22*, TestRT23*, testdata/script/sbx_*.txtar,
// executor's redteam8/16/24, targets/landlock/launch's redteam11..15
// fault tests) did not try, checked against the README's "Running
// commands: sbx" section and "Known limits".
//
//   - Job control: a SIGCONT (or a second SIGTSTP) that comes after a
//     SIGTSTP was caught but before sbx has stopped itself (a
//     supervisor's `kill -TSTP; kill -CONT`, ^Z twice then fg) is
//     consumed or acted on out of turn by the job-control loop: sbx and
//     the command stay stopped, past --timeout, until another SIGCONT
//     (TestRT25StopThenContinue, root and uid 65534).
//   - A background job on a terminal with tostop: the command's first
//     output gets sbx a SIGTTOU, which stops sbx alone; the command runs
//     on past --timeout for as long as the job stays stopped
//     (TestRT25BackgroundTtyOutput).
//   - A process of the run in uninterruptible sleep (a FUSE request its
//     server never answers): under PID-namespace containment sbx never
//     ends after --timeout, nor on SIGTERM (TestRT25UninterruptibleSleep);
//     process-group containment gives up after its bound with 125.
//   - A profile's output cap so large that the RLIMIT_AS check's
//     arithmetic wraps (an artifact, valid JSON with a nonsense value):
//     accepted, and the Go runtime aborts part-way through the run
//     (TestRT25CapMemoryCheckWraps).
//   - What held (TestRT25Held): pipes closed by a command that runs on,
//     or held by a setsid'd child; a tree traced by strace with a stopped
//     shell; busy loops pinned with sbx to one CPU; umask 777; the
//     capture's and the aggregate's invariants over small caps; the
//     process-group sweep's bound with an unkillable process.
//
// Every test starts sbx as a process of its own (the test binary acting
// as sbx, see TestMain).
//
//	go test -count=1 -run TestRT25 -v ./cmd/sbx

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/ir"
)

// rt25Exited waits up to d for cmd (started) to end and reports whether
// it did; it never reaps a process that has not ended.
func rt25Exited(cmd *exec.Cmd, d time.Duration) bool {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// rt25Reap reaps pid where it became this process's child: the shell
// that started it is gone, and this test process may be a child subreaper
// (an in-process process-group run makes it one), where an orphan would
// stay a zombie for the other packages' tests to find (CI: "sbx processes
// left", state Z, in targets/landlock/launch).
func rt25Reap(pid int) {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		var ws syscall.WaitStatus
		r, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if r == pid || err == syscall.ECHILD {
			if err == syscall.ECHILD && rt25State(pid) == 'Z' {
				time.Sleep(5 * time.Millisecond) // not ours yet: reparenting
				continue
			}
			return
		}
		time.Sleep(5 * time.Millisecond) // polling the condition
	}
}

// rt25ReapOrphans reaps, for up to d, the sbx processes that became this
// test process's children and ended: after a give-up on a process in
// uninterruptible sleep, sbx exits and leaves the sandbox's init, which a
// subreaper (this process, after an in-process process-group run) gets;
// unreaped, it stays a zombie that launch's "sbx processes left" checks,
// run in parallel by CI, count.
func rt25ReapOrphans(d time.Duration) {
	self := os.Getpid()
	for end := time.Now().Add(d); ; {
		found := false
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			i := bytes.LastIndexByte(b, ')')
			if err != nil || i < 0 || i+2 >= len(b) || !bytes.Contains(b[:i], []byte("(sbx")) {
				continue
			}
			f := strings.Fields(string(b[i+2:]))
			if len(f) < 2 || f[1] != strconv.Itoa(self) {
				continue
			}
			found = true
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
		if !found || time.Now().After(end) {
			return
		}
		time.Sleep(10 * time.Millisecond) // polling the condition
	}
}

// rt25State is the state letter of pid ('?' when it is gone).
func rt25State(pid int) byte {
	st, ok := rt20State(pid)
	if !ok {
		return '?'
	}
	return st
}

// rt25Children lists the children of pid.
//
// A child is listed under the thread that forked it, which in sbx, a Go
// program, may be any of its threads (CI: "sbx has no child" when only the
// main thread's list was read): every thread's list is read.
func rt25Children(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var kids []int
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids
}

// rt25Many starts 1,000 waiting processes, says ready and waits: a stop's
// walk of the run's tree takes a while. Each is a forked subshell blocked
// reading fd 3, the FIFO named by $RT25_FIFO, until the test closes its
// end (not an exec of sleep: 1,000 execs of a dynamically linked program
// took more than 5 s on a loaded CI machine). The run thus ends as soon as
// the test lets it, and its --timeout is only a backstop: a run that ended
// by its timeout made the test depend on how fast a loaded machine starts
// 1,000 processes (the "ready" line once came after a 12 s timeout).
const rt25Many = `exec 3<"$RT25_FIFO"; i=0; while [ $i -lt 1000 ]; do read x <&3 & i=$((i+1)); done; echo ready; wait`

// rt25Fifo makes a FIFO in dir that anyone may open and opens it
// read-write (which never blocks, and keeps a writer for the command's
// readers until the returned file is closed).
func rt25Fifo(t *testing.T, dir string) (string, *os.File) {
	t.Helper()
	p := filepath.Join(dir, "rt25.fifo")
	os.Remove(p)
	if err := unix.Mkfifo(p, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o666); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return p, f
}

// TestRT25StopThenContinue: was a DEFECT, fixed in this round. README, Job control: "a SIGTSTP to
// sbx (^Z at a terminal) stops the command's whole tree with it ...
// then sbx stops itself with SIGSTOP ...; the SIGCONT that resumes sbx
// (fg, bg) resumes the tree." A job-control signal that comes after a
// SIGTSTP was caught but before sbx's job-control loop has sent itself
// the SIGSTOP (the loop is still stopping the tree: without a sandbox a
// walk of /proc) is read from the loop's channel only after sbx is
// continued, or never:
//
//   - stop-continue: a SIGCONT in that window (a supervisor's `kill -TSTP
//     $p; kill -CONT $p`) is consumed before sbx stops itself, and
//     nothing continues sbx: it stays stopped (state T) with its command
//     stopped (or, for root, its leader running on), the --timeout (12 s)
//     never acts, and no result comes until another SIGCONT. As root and
//     as uid 65534.
//   - stop-stop-continue: ^Z pressed twice, then fg once: the second
//     SIGTSTP, caught in that window, is acted on after the SIGCONT, so
//     the job stops again at once.
//
// A program with the default SIGTSTP action ends up running after either
// sequence (a SIGCONT discards pending stops; one that comes after the
// stop resumes it). The window is made wide and observable: 1,000
// processes in the tree, and the next signal sent as soon as the
// command's leader is seen stopped (the loop is then walking /proc for
// the rest of the tree). Cause: cmd/sbx/jobctl_unix.go, jobControl.loop:
// after signalTree(SIGTSTP) it sends itself SIGSTOP unconditionally,
// though a SIGCONT (or another SIGTSTP) may already wait on the channel,
// and a SIGTSTP read after the continue is treated as a new stop
// (jobctl_unix.go:113-114).
func TestRT25StopThenContinue(t *testing.T) {
	for _, c := range []struct{ user, mode string }{{"root", "stop-continue"}, {"nobody", "stop-continue"}, {"root", "stop-stop-continue"}} {
		user, mode := c.user, c.mode
		t.Run(user+"/"+mode, func(t *testing.T) {
			stuck := 0
			const runs = 3
			for i := 0; i < runs; i++ {
				tok := rt20Token(t)
				var cmd *exec.Cmd
				var fifo string
				var writer *os.File
				args := func() []string {
					return []string{"run", "--events", "--timeout", "60s", "--profile", "danger-full-access", "--",
						"env", "RT20_TOKEN=" + tok, "RT25_FIFO=" + fifo, "sh", "-c", rt25Many}
				}
				if user == "root" {
					fifo, writer = rt25Fifo(t, t.TempDir())
					cmd = exec.Command(rt20Sbx(t), args()...)
				} else {
					sbx, dir, attr := rt22Nobody(t)
					fifo, writer = rt25Fifo(t, dir)
					cmd = exec.Command(sbx, args()...)
					cmd.Dir, cmd.SysProcAttr = dir, attr
				}
				pipe, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				out := bufio.NewReaderSize(pipe, 1<<20)
				rt20UntilReady(t, out)
				go readAllString(out)
				kids := rt25Children(cmd.Process.Pid)
				for wait := time.Now().Add(5 * time.Second); len(kids) == 0 && time.Now().Before(wait); kids = rt25Children(cmd.Process.Pid) {
					time.Sleep(time.Millisecond) // polling the condition
				}
				if len(kids) == 0 {
					t.Fatal("sbx has no child")
				}
				cmd.Process.Signal(syscall.SIGTSTP)
				// The continue goes as soon as the stop reached the command's
				// leader (a tight poll: the window is the walk of the tree).
				deadline := time.Now().Add(5 * time.Second)
				for rt25State(kids[0]) != 'T' && time.Now().Before(deadline) {
				}
				if mode == "stop-stop-continue" {
					// ^Z twice, then fg once: the second stop comes while the
					// first is being passed on; once sbx is stopped, the
					// continue.
					cmd.Process.Signal(syscall.SIGTSTP)
					for rt25State(cmd.Process.Pid) != 'T' && time.Now().Before(deadline) {
						time.Sleep(time.Millisecond) // polling the state
					}
				}
				cmd.Process.Signal(syscall.SIGCONT)
				// Closing the FIFO's last writer ends every reader: a
				// continued run then ends by itself. A run whose sbx (or
				// tree) stays stopped does not.
				writer.Close()
				if !rt25Exited(cmd, 20*time.Second) {
					stuck++
					t.Logf("run %d: sbx still in state %c 20 s after the continue and the end of its input, its child in state %c", i, rt25State(cmd.Process.Pid), rt25State(kids[0]))
					cmd.Process.Signal(syscall.SIGCONT)
					if !rt25Exited(cmd, 10*time.Second) {
						cmd.Process.Kill()
						cmd.Wait()
					}
				}
				rt20Wait(t, "no survivor", func() bool { return len(rt20Marked(tok)) == 0 })
			}
			if stuck > 0 {
				t.Errorf("%d of %d runs (%s): the last signal a SIGCONT, sbx (and its command) stayed stopped for good, past --timeout", stuck, runs, mode)
			}
		})
	}
}

// rt25Fuse mounts a FUSE file system at dir whose server (this process)
// answers INIT and reads every later request without answering it: a
// process that looks a name up there sleeps uninterruptibly once its
// request was read (a fatal signal cannot end that wait). It returns a
// channel that gets the opcode of each request read, and a function that
// aborts the connection (every waiting request then fails) and unmounts.
func rt25Fuse(t *testing.T, dir string) (<-chan uint32, func()) {
	t.Helper()
	fd, err := unix.Open("/dev/fuse", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no FUSE here: %v", err)
	}
	opts := fmt.Sprintf("fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd)
	if err := unix.Mount("rt25fuse", dir, "fuse", 0, opts); err != nil {
		unix.Close(fd)
		t.Skipf("cannot mount FUSE here: %v", err)
	}
	ops := make(chan uint32, 64)
	go func() {
		buf := make([]byte, 1<<20+4096)
		for {
			n, err := unix.Read(fd, buf)
			if err == unix.EINTR {
				continue
			}
			if err != nil || n < 40 {
				close(ops)
				return
			}
			op := binary.LittleEndian.Uint32(buf[4:])
			unique := binary.LittleEndian.Uint64(buf[8:])
			if op == 26 { // FUSE_INIT: protocol 7.31, nothing else
				body := make([]byte, 64)
				binary.LittleEndian.PutUint32(body[0:], 7)
				binary.LittleEndian.PutUint32(body[4:], 31)
				binary.LittleEndian.PutUint16(body[16:], 16)
				binary.LittleEndian.PutUint16(body[18:], 12)
				binary.LittleEndian.PutUint32(body[20:], 4096)
				binary.LittleEndian.PutUint32(body[24:], 1)
				binary.LittleEndian.PutUint16(body[28:], 1)
				hdr := make([]byte, 16)
				binary.LittleEndian.PutUint32(hdr[0:], uint32(16+len(body)))
				binary.LittleEndian.PutUint64(hdr[8:], unique)
				unix.Write(fd, append(hdr, body...))
			}
			select {
			case ops <- op:
			default:
			}
		}
	}()
	release := func() {
		// MNT_FORCE aborts a FUSE connection: the requests waiting for an
		// answer fail, the reader above gets ENODEV.
		unix.Unmount(dir, unix.MNT_FORCE)
		unix.Unmount(dir, unix.MNT_DETACH)
		for range ops {
		}
		unix.Close(fd)
	}
	return ops, release
}

// TestRT25UninterruptibleSleep: was a DEFECT, fixed in this round (sbx gives up 10 s after its SIGKILL, 125). README, exit status "124 the
// timeout fired; everything the command started was killed", and
// Cancellation: SIGTERM "sends SIGTERM ... then SIGKILLs whatever
// remains; the result says cancelled and sbx exits 128+signal". A
// command whose process waits for a FUSE request its server (outside the
// run) read and never answers cannot be killed (the kernel waits for the
// answer in TASK_UNINTERRUPTIBLE once a fatal signal is pending), and
// sbx waits for it for ever: past --timeout 1s, and past the SIGTERM and
// SIGINT sent to it afterwards; it reports only when the server goes
// away (here: minutes later, a result saying timed_out with a
// duration_ms of the whole wait, status 143). Nothing bounds the wait
// for the leader after the SIGKILL: executor/exec_linux.go:564, loop.run,
// after "lp.timedOut = true; lp.ct.kill()" the poll waits on exitFD with
// no deadline (next is zero once timed out, line 433), and a cancellation
// after a timeout is not listened to (the eventfd and CancelFD are polled
// only while neither timed out nor cancelled, line 409). The PID
// namespace's init cannot exit before every process of the namespace
// has, so the leader's pidfd never becomes readable. Process-group
// containment has a bound for the same situation
// (executor/contain_linux.go:316: "processes of the command's session
// survive after 10s", 125; TestRT25Held). The Known limits do not mention
// it; a bound after which sbx reports what it could not kill (125, like
// its other cleanup failures) would keep the promise that sbx ends.
func TestRT25UninterruptibleSleep(t *testing.T) {
	t.Cleanup(func() { rt25ReapOrphans(20 * time.Second) })
	if os.Getuid() != 0 {
		t.Skip("mounting FUSE needs root")
	}
	for _, profile := range []string{"danger-full-access", "workspace"} {
		t.Run(profile, func(t *testing.T) {
			mnt := t.TempDir()
			os.Chmod(filepath.Dir(mnt), 0o755)
			ops, release := rt25Fuse(t, mnt)
			released := false
			defer func() {
				if !released {
					release()
				}
			}()
			cmd := exec.Command(rt20Sbx(t), "run", "--json", "--timeout", "1s", "--profile", profile, "--", "cat", filepath.Join(mnt, "x"))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			// The lookup reached the server: the command is now waiting.
			deadline := time.After(20 * time.Second)
		wait:
			for {
				select {
				case op := <-ops:
					if op == 1 { // FUSE_LOOKUP
						break wait
					}
				case <-deadline:
					t.Fatalf("the command never looked the name up; stderr %q", stderr.String())
				}
			}
			// sbx gives up 10 s after its SIGKILL (at the 1 s timeout).
			ended := rt25Exited(cmd, 15*time.Second)
			if !ended {
				// A cancellation does not end it either.
				cmd.Process.Signal(syscall.SIGTERM)
				ended = rt25Exited(cmd, 5*time.Second)
				if !ended {
					t.Errorf("--timeout 1s: sbx still running 10 s after the command blocked, and 5 s after a SIGTERM (state %c)", rt25State(cmd.Process.Pid))
				}
			}
			released = true
			release()
			if !ended && !rt25Exited(cmd, 20*time.Second) {
				t.Errorf("sbx did not end once the FUSE connection was aborted")
				return
			}
			if ended {
				var res rt20Exit
				if json.Unmarshal(stdout.Bytes(), &res) != nil {
					t.Logf("no result (status %d): %q %q", rt20Status(cmd).ExitStatus(), stdout.String(), stderr.String())
				}
				if st := rt20Status(cmd).ExitStatus(); st != 125 || !strings.Contains(stdout.String()+stderr.String(), "uninterruptible sleep") {
					t.Errorf("status %d, %.300q %.300q; want 125 naming the uninterruptible sleep", st, stdout.String(), stderr.String())
				}
			}
		})
	}
}

// TestRT25CapMemoryCheckWraps: was a DEFECT, fixed in this round. README, Known limits: "An
// --output-cap that RLIMIT_AS cannot hold (both streams retained, about
// three times the cap each while a buffer grows, plus 1 GiB for the
// runtime) is refused at the start with 125 (before red team 22 the run
// ended part-way in the runtime's out-of-memory abort, status 2, no
// result)." The check (cmd/sbx/fds_linux.go:145, checkCapMemory:
// "need := uint64(2*3*outputCap) + capSlack") applies to the profile's
// cap as well, but multiplies without an overflow check: a profile whose
// output_cap is ceil(2^64/6) (an artifact: valid JSON, the digests
// right, a nonsense value the IR's validation accepts, as it refuses only
// negative caps) makes need 1 GiB + 2 bytes, which passes under a 2.5 GB
// limit. A command writing 900 MB then ends sbx in the Go runtime's
// out-of-memory abort (status 2, a goroutine dump, no JSON). The same
// profile with output_cap 1 TiB is refused with 125 as promised.
func TestRT25CapMemoryCheckWraps(t *testing.T) {
	pl, err := exec.LookPath("prlimit")
	if err != nil {
		t.Fatalf("prlimit (util-linux) is needed: %v", err)
	}
	sbx := rt20Sbx(t)
	run := func(cap int64) (int, string, string) {
		art := rt20Artifact(t, "rt25cap", func(p *ir.Profile) { p.Process.OutputCap = cap }, nil)
		cmd := exec.Command(pl, "--as="+strconv.FormatInt(2500<<20, 10), sbx, "run", "--json", "--timeout", "60s",
			"--artifact", art, "--", "head", "-c", "900000000", "/dev/zero")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		return rt20Status(cmd).ExitStatus(), stdout.String(), stderr.String()
	}
	// Holds: a cap the check computes right is refused.
	if code, out, errs := run(1 << 40); code != 125 || !strings.Contains(out+errs, "RLIMIT_AS") {
		t.Errorf("output_cap 1 TiB under RLIMIT_AS 2.5 GB: status %d, %.200q %.200q; want 125 naming RLIMIT_AS", code, out, errs)
	}
	// 6 * ceil(2^64/6) = 2^64 + 2.
	const wraps = (1<<64-1)/6 + 1
	code, out, errs := run(wraps)
	var res struct {
		ExitCode int `json:"exit_code"`
	}
	jsonErr := json.Unmarshal([]byte(out), &res)
	if code != 125 || jsonErr != nil || res.ExitCode != 125 {
		t.Errorf("output_cap %d under RLIMIT_AS 2.5 GB: status %d, stdout %.200q, stderr %.300q; want 125 and the JSON failure object (refused at the start, as for 1 TiB)", int64(wraps), code, out, errs)
	}
}

// TestRT25BackgroundTtyOutput: was a DEFECT, fixed in this round (the job stops as a whole). A background job of an
// interactive shell (its own process group, not the terminal's
// foreground) on a terminal with `stty tostop`: the command's first line
// of output, which sbx writes live to the terminal, gets sbx a SIGTTOU,
// whose default action stops sbx alone. The shell reports the job as
// stopped, but the command (in a session of its own, never signalled)
// runs on, and so past --timeout 1s: the deadline cannot be enforced
// while sbx is stopped, for as long as the job stays stopped. README:
// "--timeout DUR expiration", exit status 124 "the timeout fired;
// everything the command started was killed", and for job control "a
// SIGTSTP ... stops the command's whole tree with it ... The timeout goes
// on counting while the job is stopped": SIGTTOU (and SIGTTIN), the
// terminal's other stops, are neither passed on to the tree as SIGTSTP is
// nor kept from stopping sbx. Cause: cmd/sbx/jobctl_unix.go (and
// jobsig_linux_amd64.go:24) catch SIGTSTP and SIGCONT only; SIGTTOU keeps
// its default action during the run. Without sbx the command itself would
// be the one stopped by its write.
func TestRT25BackgroundTtyOutput(t *testing.T) {
	// sbx outlives the shell that started it: a subreaper gets it, to
	// reap (rt25Reap), instead of an init that may not.
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	master, slave := rt22Pty(t)
	tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Lflag |= unix.TOSTOP
	if err := unix.IoctlSetTermios(int(slave.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	tok := rt20Token(t)
	defer rt20KillMarked(tok)
	pidFile := filepath.Join(t.TempDir(), "pid")
	// A shell with job control on (set -m) starts sbx as a background job.
	script := `set -m; "$1" run --profile workspace --timeout 1s -- env RT20_TOKEN=` + tok + ` sh -c 'echo hi; exec sleep 30' & echo $! > "$2"; exec sleep 3600`
	sh := exec.Command("sh", "-c", script, "sh", rt20Sbx(t), pidFile)
	sh.Stdin, sh.Stdout, sh.Stderr = slave, slave, slave
	sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sh.Process.Kill(); sh.Wait() }()
	var sbxPid int
	rt20Wait(t, "the background job's pid", func() bool {
		b, err := os.ReadFile(pidFile)
		sbxPid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && sbxPid > 0
	})
	defer func() {
		// Whatever happened, sbx (a child of the shell, ended with it) goes.
		if st := rt25State(sbxPid); st != '?' && st != 'Z' {
			syscall.Kill(sbxPid, syscall.SIGKILL)
		}
		sh.Process.Kill()
		sh.Wait()
		rt25Reap(sbxPid)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !(len(rt20Marked(tok)) > 0 && rt25State(sbxPid) == 'T') {
		if time.Now().After(deadline) {
			master.SetReadDeadline(time.Now().Add(time.Second))
			b := make([]byte, 4096)
			n, _ := master.Read(b)
			t.Fatalf("the command did not start, or sbx did not stop at its output: sbx in state %c, %d processes of the run; the terminal shows %q", rt25State(sbxPid), len(rt20Marked(tok)), b[:n])
		}
		time.Sleep(2 * time.Millisecond) // polling the condition
	}
	// Job control: the stop is the whole job's, as without sbx (the
	// command's shell would have been stopped at its own write): every
	// process of the run stops with sbx. (Before: sbx stopped alone and
	// the command ran on past its timeout for as long as the job stayed
	// stopped.) The timeout goes on counting and takes effect once sbx
	// runs again, as after a ^Z (README, Job control).
	deadline = time.Now().Add(5 * time.Second)
	for {
		var running []string
		for _, p := range rt20Marked(tok) {
			if st := rt25State(p); st != 'T' && st != 't' && st != 'Z' && st != '?' {
				running = append(running, fmt.Sprintf("%d:%c", p, st))
			}
		}
		if len(running) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sbx was stopped by SIGTTOU (state %c), and 5 s later the command still runs (%s)", rt25State(sbxPid), strings.Join(running, " "))
		}
		time.Sleep(5 * time.Millisecond) // polling the condition
	}
	// Without tostop sbx's writes go through: continued, it ends.
	tio.Lflag &^= unix.TOSTOP
	unix.IoctlSetTermios(int(slave.Fd()), unix.TCSETS, tio)
	go io.Copy(io.Discard, master)
	syscall.Kill(sbxPid, syscall.SIGCONT)
	rt20Wait(t, "sbx to end once continued", func() bool { st := rt25State(sbxPid); return st == '?' || st == 'Z' })
	// Its timeout had passed: nothing of the run is left.
	if live := rt20Marked(tok); len(live) > 0 {
		t.Errorf("sbx ended, processes of the run are left: %v", live)
	}
}

// TestRT25Held: what held, and is not covered by the earlier batteries.
func TestRT25Held(t *testing.T) {
	sbx := rt20Sbx(t)
	result := func(t *testing.T, cmd *exec.Cmd) (int, map[string]any, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		var res map[string]any
		json.Unmarshal(stdout.Bytes(), &res)
		return rt20Status(cmd).ExitStatus(), res, stdout.String() + stderr.String()
	}
	// A command that closes both pipes and runs on is ended at its
	// deadline (the loop waits on the leader, not on EOF), and one that
	// leaves a setsid'd child holding the pipes ends at once, in every
	// containment this test may use.
	t.Run("pipes closed or held", func(t *testing.T) {
		for _, c := range [][]string{{"--profile", "danger-full-access"}, {"--profile", "danger-full-access", "--containment", "process-group"}, {"--profile", "workspace"}} {
			args := append(append([]string{"run", "--json", "--timeout", "500ms"}, c...), "--", "sh", "-c", "exec >&- 2>&-; sleep 30")
			code, res, out := result(t, exec.Command(sbx, args...))
			if code != 124 || res["timed_out"] != true || res["duration_ms"].(float64) > 1500 {
				t.Errorf("%v: status %d, %.300s; want 124 at the deadline", c, code, out)
			}
			args = append(append([]string{"run", "--json", "--timeout", "20s"}, c...), "--", "sh", "-c", "setsid sleep 30 & echo hi")
			code, res, out = result(t, exec.Command(sbx, args...))
			if code != 0 || res["stdout"] != "hi\n" || res["duration_ms"].(float64) > 1500 {
				t.Errorf("%v: status %d, %.300s; want 0 at once", c, code, out)
			}
		}
	})
	// A tree traced by strace (-f), with a stopped shell and a setsid'd
	// child: killed at the deadline, nothing left.
	t.Run("traced tree", func(t *testing.T) {
		if _, err := exec.LookPath("strace"); err != nil {
			t.Skip("no strace")
		}
		for _, c := range [][]string{{"--profile", "danger-full-access"}, {"--profile", "danger-full-access", "--containment", "process-group"}} {
			tok := rt20Token(t)
			args := append(append([]string{"run", "--json", "--timeout", "1s"}, c...), "--", "env", "RT20_TOKEN="+tok,
				"strace", "-f", "-o", "/dev/null", "sh", "-c", "sleep 100 & setsid sleep 101 & kill -STOP $$; wait")
			code, res, out := result(t, exec.Command(sbx, args...))
			if code != 124 || res["timed_out"] != true {
				t.Errorf("%v: status %d, %.300s; want 124", c, code, out)
			}
			rt20Wait(t, "no survivor", func() bool { return len(rt20Marked(tok)) == 0 })
		}
	})
	// Busy loops pinned with sbx to one CPU: the deadline holds.
	t.Run("one CPU", func(t *testing.T) {
		ts, err := exec.LookPath("taskset")
		if err != nil {
			t.Skip("no taskset")
		}
		for _, p := range []string{"danger-full-access", "workspace"} {
			code, res, out := result(t, exec.Command(ts, "-c", "0", sbx, "run", "--json", "--timeout", "300ms", "--profile", p, "--",
				"sh", "-c", "for i in 1 2 3 4; do (while :; do :; done) & done; wait"))
			if code != 124 || res["duration_ms"].(float64) > 800 {
				t.Errorf("%s: status %d, %.300s; want 124 at the deadline", p, code, out)
			}
		}
	})
	// umask 777: the workspace run works, its files are created mode 000.
	t.Run("umask 777", func(t *testing.T) {
		dir := t.TempDir()
		cmd := exec.Command("sh", "-c", `umask 777; exec "$0" "$@"`, sbx, "run", "--json", "--profile", "workspace", "--", "sh", "-c", "echo x > f && stat -c %a f")
		cmd.Dir = dir
		code, res, out := result(t, cmd)
		if code != 0 || res["stdout"] != "0\n" {
			t.Errorf("status %d, %.300s; want 0 and a mode-000 file", code, out)
		}
	})
	// The capture's invariants over caps and sizes (head and head-tail):
	// each stream is its own prefix (and suffix), the counts add up, the
	// aggregate's portions follow the budget rule and its markers count
	// what the portion leaves out.
	t.Run("caps", func(t *testing.T) {
		dir := t.TempDir()
		marker := func(s string) (string, []string) {
			var marks []string
			for {
				i := strings.Index(s, "\n[sbx: ")
				if i < 0 {
					return s, marks
				}
				j := strings.Index(s[i+1:], "]\n")
				marks = append(marks, s[i+1:i+1+j+1])
				s = s[:i] + s[i+1+j+2:]
			}
		}
		for _, capN := range []int{1, 2, 3, 5, 7, 16} {
			for _, sizes := range [][2]int{{0, 0}, {capN, 0}, {capN + 1, 1}, {3*capN + 2, 2*capN + 1}, {1, 3 * capN}} {
				for _, mode := range []string{"head", "head-tail"} {
					var so, se []byte
					for i := 0; i < sizes[0]; i++ {
						so = append(so, byte('A'+i%26))
					}
					for i := 0; i < sizes[1]; i++ {
						se = append(se, byte('a'+i%26))
					}
					os.WriteFile(filepath.Join(dir, "o"), so, 0o644)
					os.WriteFile(filepath.Join(dir, "e"), se, 0o644)
					cmd := exec.Command(sbx, "run", "--json", "--profile", "danger-full-access", "--output-cap", strconv.Itoa(capN), "--retain", mode, "--", "sh", "-c", "cat o; cat e >&2")
					cmd.Dir = dir
					code, res, out := result(t, cmd)
					if code != 0 {
						t.Fatalf("status %d: %s", code, out)
					}
					str := func(k string) string { s, _ := res[k].(string); return s }
					num := func(k string) int { f, _ := res[k].(float64); return int(f) }
					kept := [2]int{}
					for i, name := range []string{"stdout", "stderr"} {
						full := string(so)
						if i == 1 {
							full = string(se)
						}
						h, tl, om := str(name), str(name+"_tail"), num(name+"_omitted_bytes")
						kept[i] = len(h) + len(tl)
						ok := num(name+"_bytes") == len(full) && len(h)+om+len(tl) == len(full) && strings.HasPrefix(full, h) && strings.HasSuffix(full, tl) && res[name+"_truncated"] == (om > 0) && len(h)+len(tl) <= capN
						if mode == "head-tail" && om > 0 {
							ok = ok && len(h) == capN/2 && len(tl) == capN-capN/2
						}
						if !ok {
							t.Errorf("cap %d %s, %d+%d bytes: %s: %q + %d + %q", capN, mode, sizes[0], sizes[1], name, h, om, tl)
						}
					}
					ob, eb := kept[0], kept[1]
					if ob+eb > capN {
						o := min(ob, capN/3)
						eb = min(kept[1], capN-o)
						ob = min(kept[0], capN-eb)
					}
					agg, marks := marker(str("aggregated_output"))
					want := 0
					if ob < sizes[0] && (mode == "head-tail") {
						want++
					}
					if eb < sizes[1] && (mode == "head-tail") {
						want++
					}
					if len(agg) != ob+eb || len(marks) != want {
						t.Errorf("cap %d %s, %d+%d bytes: aggregate %q; want %d+%d bytes and %d markers", capN, mode, sizes[0], sizes[1], str("aggregated_output"), ob, eb, want)
					}
				}
			}
		}
	})
	// Process-group containment with a process it cannot kill (a FUSE
	// request never answered): the sweep gives up after its bound and
	// says so (125), unlike the PID-namespace wait
	// (TestRT25UninterruptibleSleep).
	t.Run("process-group D state", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("mounting FUSE needs root")
		}
		mnt := t.TempDir()
		os.Chmod(filepath.Dir(mnt), 0o755)
		_, release := rt25Fuse(t, mnt)
		defer release()
		cmd := exec.Command(sbx, "run", "--json", "--timeout", "5s", "--profile", "danger-full-access", "--containment", "process-group", "--",
			"sh", "-c", "cat "+filepath.Join(mnt, "x")+" & sleep 0.3; echo leader-exits")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if !rt25Exited(cmd, 30*time.Second) {
			cmd.Process.Kill()
			t.Fatalf("sbx still running after 30 s")
		}
		if code := rt20Status(cmd).ExitStatus(); code != 125 || !strings.Contains(stderr.String(), "survive") {
			t.Errorf("status %d, %.300q %.300q; want 125 saying what survives", code, stdout.String(), stderr.String())
		}
	})
}
