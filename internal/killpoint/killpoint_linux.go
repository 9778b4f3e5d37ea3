package killpoint

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Point says where to kill: when the Birth-th process that the program
// itself creates (1-based; threads and the processes its children create
// do not count) is born, or, with Syscall > 0, when that child enters its
// Syscall-th system call.
type Point struct {
	Birth, Syscall int
}

func (p Point) String() string {
	if p.Syscall == 0 {
		return fmt.Sprintf("birth %d", p.Birth)
	}
	return fmt.Sprintf("birth %d, system call %d", p.Birth, p.Syscall)
}

// Outcome is what one traced run did.
type Outcome struct {
	// Reached: the point was reached and the program killed there.
	// Otherwise the program created fewer processes, or the child made
	// fewer system calls before it exec'd or exited.
	Reached bool
	// Births counts the processes the program created.
	Births int
	// Pids lists the program's pid and every process the tracer saw
	// created below it (also after an exec): what a run leaves that is
	// named after its creator (an executor cgroup, sbx-PID-...) can be
	// told from what other programs on the machine leave.
	Pids []int
	// Syscall names the system call the held child was entering.
	Syscall string
	// Survivors lists processes still alive Settle after the program
	// died (they are killed then), with their command lines.
	Survivors []string
}

// DefaultSettle is the Settle the tests use.
const DefaultSettle = 20 * time.Second

// Options tune Run.
type Options struct {
	// Settle bounds the wait for the program's processes to end after
	// the program died. Every system call and exit of a traced process
	// waits for this tracer, and a traced child's real parent can reap it
	// only once the tracer has: on a loaded machine the sandbox's teardown
	// runs at the tracer's pace (a full suite alongside three fuzzers once
	// took more than 5 s), so the bound is generous (DefaultSettle); it
	// costs nothing when the processes end.
	Settle time.Duration
	// Until is the executable whose exec by any of the program's
	// processes means the start is over: the program is killed then if
	// the point was not reached. "": any executable but the program's
	// own (which its helpers re-execute).
	Until string
}

// Run starts cmd under ptrace and kills it at p. It may only be called by
// a process that can trace cmd (root, or the same user with Yama's
// ptrace_scope at most 1). The point is not reached if the program
// creates fewer processes, or if the chosen child execs before it makes
// that many system calls (its code ends there; PR_SET_PDEATHSIG survives
// the exec), or if the start is over first (Options.Until); the program
// is then killed at that moment instead.
func Run(cmd *exec.Cmd, p Point, o Options) (Outcome, error) {
	runtime.LockOSThread() // ptrace requests come from the tracing thread
	defer runtime.UnlockOSThread()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Ptrace = true
	if err := cmd.Start(); err != nil {
		return Outcome{}, err
	}
	t := &tracer{root: cmd.Process.Pid, point: p, tracees: map[int]*tracee{}, settle: o.Settle, until: o.Until}
	t.out.Pids = []int{t.root}
	err := t.loop()
	cmd.Process.Release()
	return t.out, err
}

type tracee struct {
	known   bool // its creator's event was seen (what it is is known)
	started bool // its first stop was seen
	process bool // not a thread
	ofRoot  bool // created by the program's own threads
	inCall  bool // in a system call (syscall-enter seen, exit not yet)
	held    bool // stopped and left stopped
	calls   int
}

type tracer struct {
	root    int
	point   Point
	settle  time.Duration
	until   string
	tracees map[int]*tracee
	out     Outcome

	rootExe  string
	heldPid  int
	killed   bool
	rootDead bool
	mu       sync.Mutex // guards alive for the settle timer
	alive    map[int]bool
	timer    *time.Timer
}

const opts = unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK |
	unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_TRACESYSGOOD | unix.PTRACE_O_EXITKILL

func (t *tracer) loop() error {
	t.alive = map[int]bool{t.root: true}
	// The program stops with SIGTRAP after its exec.
	var ws unix.WaitStatus
	if _, err := wait4(t.root, &ws); err != nil {
		return err
	}
	if !ws.Stopped() {
		return fmt.Errorf("the program did not stop after exec: %v", ws)
	}
	if err := unix.PtraceSetOptions(t.root, opts); err != nil {
		unix.Kill(t.root, unix.SIGKILL)
		return fmt.Errorf("PTRACE_SETOPTIONS: %w", err)
	}
	t.tracees[t.root] = &tracee{known: true, started: true, process: true}
	t.rootExe, _ = os.Readlink("/proc/" + strconv.Itoa(t.root) + "/exe")
	t.resume(t.root, 0)
	for len(t.tracees) > 0 {
		pid, err := wait4(-1, &ws)
		if err == unix.ECHILD {
			break
		}
		if err != nil {
			return err
		}
		t.event(pid, ws)
	}
	if t.timer != nil {
		t.timer.Stop()
	}
	return nil
}

func wait4(pid int, ws *unix.WaitStatus) (int, error) {
	for {
		r, err := unix.Wait4(pid, ws, unix.WALL, nil)
		if err != unix.EINTR {
			return r, err
		}
	}
}

// resume lets a stopped tracee go on, delivering sig; the held child is
// stepped through its system calls until the point.
func (t *tracer) resume(pid int, sig int) {
	tr := t.tracees[pid]
	if tr != nil && pid == t.heldPid && !t.killed {
		unix.PtraceSyscall(pid, sig)
		return
	}
	unix.PtraceCont(pid, sig)
}

func (t *tracer) event(pid int, ws unix.WaitStatus) {
	tr := t.tracees[pid]
	if ws.Exited() || ws.Signaled() {
		delete(t.tracees, pid)
		t.mu.Lock()
		delete(t.alive, pid)
		t.mu.Unlock()
		if pid == t.root {
			t.rootGone()
		}
		return
	}
	if !ws.Stopped() {
		return
	}
	if tr == nil {
		// A new tracee whose first stop came before its creator's event.
		tr = &tracee{}
		t.tracees[pid] = tr
		t.mu.Lock()
		t.alive[pid] = true
		t.mu.Unlock()
	}
	sig := ws.StopSignal()
	switch {
	case sig == unix.SIGTRAP|0x80: // a system-call stop of the held child
		if !tr.inCall {
			tr.calls++
			if pid == t.heldPid && !t.killed && tr.calls == t.point.Syscall {
				t.out.Syscall = syscallOf(pid)
				tr.inCall = true
				tr.held = true
				t.kill(true)
				return
			}
		}
		tr.inCall = !tr.inCall
		t.resume(pid, 0)
	case sig == unix.SIGTRAP && ws.TrapCause() > 0:
		switch ws.TrapCause() {
		case unix.PTRACE_EVENT_FORK, unix.PTRACE_EVENT_VFORK, unix.PTRACE_EVENT_CLONE:
			msg, err := unix.PtraceGetEventMsg(pid)
			if err == nil {
				t.born(pid, int(msg), ws.TrapCause() != unix.PTRACE_EVENT_CLONE)
			}
		case unix.PTRACE_EVENT_EXEC:
			exe, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
			if pid == t.root {
				// A wrapper (setpriv) became the program.
				t.rootExe = exe
				break
			}
			over := exe == t.until || t.until == "" && pid != t.root && exe != t.rootExe
			if !t.killed && (pid == t.heldPid || over) {
				// The point was not reached: the chosen child's own code
				// ended, or the start is over. Kill now: nothing may
				// survive this either.
				t.kill(false)
			}
		}
		t.resume(pid, 0)
	case !tr.started && sig == unix.SIGSTOP:
		tr.started = true
		if !tr.known {
			if t.rootDead {
				// The program is gone: a child whose first stop comes
				// only now (its creator was killed in the creating call
				// and will report nothing) goes on, as rootGone lets
				// those already waiting go on. Held, it would be
				// reported as a survivor the program did not leave.
				tr.known = true
				t.resume(pid, 0)
			}
			return // otherwise born decides, once its creator's event comes
		}
		if tr.process && pid == t.heldPid && t.point.Syscall == 0 && !t.killed {
			tr.held = true
			t.kill(true)
			return
		}
		if pid == t.heldPid && t.killed && !t.rootDead {
			tr.held = true // released once the program is gone
			return
		}
		t.resume(pid, 0)
	default:
		t.resume(pid, int(sig))
	}
}

// born records a child that tracee parent created.
func (t *tracer) born(parent, child int, fork bool) {
	tr := t.tracees[child]
	if tr == nil {
		tr = &tracee{}
		t.tracees[child] = tr
		t.mu.Lock()
		t.alive[child] = true
		t.mu.Unlock()
	}
	// A clone event may still be a process (clone3 with an exit signal
	// other than SIGCHLD): a thread shares its creator's thread group.
	tr.known = true
	tr.process = fork || tgid(child) == child
	// Processes the program's code creates: its threads', and those of
	// children that have not exec'd (they run the program's code).
	exe, _ := os.Readlink("/proc/" + strconv.Itoa(parent) + "/exe")
	tr.ofRoot = tgid(parent) == t.root || exe == t.rootExe
	if tr.process {
		t.out.Pids = append(t.out.Pids, child)
	}
	if !tr.process || !tr.ofRoot {
		if tr.started && !tr.held {
			// Its first stop came first and left it waiting.
			t.resume(child, 0)
		}
		return
	}
	t.out.Births++
	if t.out.Births != t.point.Birth || t.killed {
		if tr.started && !tr.held {
			t.resume(child, 0)
		}
		return
	}
	t.heldPid = child
	if tr.started {
		if t.point.Syscall == 0 {
			tr.held = true
			t.kill(true)
			return
		}
		t.resume(child, 0)
	}
}

// kill SIGKILLs the program (at the point: while the held child waits).
func (t *tracer) kill(atPoint bool) {
	t.killed = true
	t.out.Reached = atPoint
	unix.Kill(t.root, unix.SIGKILL)
}

// rootGone: the program has died. The held child goes on, and whatever is
// still alive after the settle time is a survivor.
func (t *tracer) rootGone() {
	t.rootDead = true
	if !t.killed {
		// The run ended before the point; kill whatever it left.
		t.killed = true
	}
	if h := t.tracees[t.heldPid]; h != nil && h.held {
		h.held = false
		unix.PtraceCont(t.heldPid, 0)
	}
	// Children whose creator died before it reported them are still
	// waiting at their first stop: they go on too (what they do now is
	// what they would do after such a death).
	for pid, tr := range t.tracees {
		if tr.started && !tr.known {
			tr.known = true
			unix.PtraceCont(pid, 0)
		}
	}
	t.timer = time.AfterFunc(t.settle, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		for pid := range t.alive {
			t.out.Survivors = append(t.out.Survivors, fmt.Sprintf("%d %q (%s)", pid, cmdline(pid), describe(pid)))
			unix.Kill(pid, unix.SIGKILL)
		}
	})
}

func tgid(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return -1
}

// syscallOf names the system call a tracee stopped at its entry is making
// (its number: /proc/<pid>/syscall).
func syscallOf(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/syscall")
	nr, _, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	return "system call " + nr
}

// describe says what a survivor was doing, for the report: its state,
// real parent, kernel wait channel, the system call it is in, and whether
// it is the tracer's (a tracee) or a zombie nobody reaped.
func describe(pid int) string {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	var state, ppid, tracer string
	if b, err := os.ReadFile(dir + "status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimSpace(v)
			switch k {
			case "State":
				state = v
			case "PPid":
				ppid = v
			case "TracerPid":
				tracer = v
			}
		}
	}
	wchan, _ := os.ReadFile(dir + "wchan")
	sc, _ := os.ReadFile(dir + "syscall")
	nr, _, _ := strings.Cut(strings.TrimSpace(string(sc)), " ")
	return fmt.Sprintf("state %s, parent %s, tracer %s, wchan %s, system call %s", state, ppid, tracer, wchan, nr)
}

func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
}

// Sweep runs Run at every point in turn: for births 1, 2, … each system
// call 0, 1, … of that child until it is not reached, and births until one
// is not reached at all (at most maxBirth births and maxCall calls each).
// newCmd makes a fresh command for each run; check gets every outcome.
// It returns how many points were reached.
func Sweep(newCmd func(Point) *exec.Cmd, o Options, maxBirth, maxCall int, check func(Point, Outcome)) (int, error) {
	points := 0
	for birth := 1; birth <= maxBirth; birth++ {
		reached := false
		for call := 0; call <= maxCall; call++ {
			p := Point{Birth: birth, Syscall: call}
			out, err := Run(newCmd(p), p, o)
			if err != nil {
				return points, fmt.Errorf("%v: %w", p, err)
			}
			check(p, out)
			if !out.Reached {
				break
			}
			reached = true
			points++
		}
		if !reached {
			break
		}
	}
	return points, nil
}
