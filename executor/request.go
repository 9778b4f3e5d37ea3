package executor

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Defaults of the shell capture policy. They are the values of the capture
// pipeline that agent hosts already rely on.
const (
	// DefaultOutputCap is the number of bytes retained per stream (1 MiB).
	DefaultOutputCap = 1 << 20
	// DefaultTimeout is the expiration of the shell capture policy.
	DefaultTimeout = 10 * time.Second
	// DefaultDrainTimeout bounds how long the pipes are drained after the
	// command has ended, when something still holds them open.
	DefaultDrainTimeout = 2 * time.Second
	// DefaultKillGrace is the time between SIGTERM and SIGKILL on cancellation.
	DefaultKillGrace = 50 * time.Millisecond
	// DefaultMaxOutputEvents is the number of OnOutput calls per stream
	// after which live delivery stops (retention continues).
	DefaultMaxOutputEvents = 10000
	// OutputChunkSize is the largest chunk handed to OnOutput. Reads from the
	// pipes may be larger; they are split so that one callback never carries
	// more than this, as in the modelled pipeline's 8 KiB reads.
	OutputChunkSize = 8 << 10
	// TimeoutExitCode is the exit code reported when the expiration fired.
	TimeoutExitCode = 124
)

// readBufSize is the size of the per-stream read buffer. It equals the
// default Linux pipe capacity so that one read empties a full pipe; with
// 8 KiB reads the Go read path costs about twice the CPU of dd per byte and
// cannot keep up with a fast producer (see bench/).
const readBufSize = 64 << 10

// CapturePolicy selects how output is retained and whether the command expires.
type CapturePolicy int

const (
	// CaptureShell retains at most the output cap per stream and expires the
	// command after the timeout (DefaultTimeout unless set). It is the default.
	CaptureShell CapturePolicy = iota
	// CaptureFullBuffer is for trusted callers: output is retained without a
	// cap and the command never expires (Timeout and OutputCap are ignored).
	// Cancellation through the context still applies.
	CaptureFullBuffer
)

// String returns the name used in JSON results ("shell" or "full_buffer").
func (p CapturePolicy) String() string {
	switch p {
	case CaptureShell:
		return "shell"
	case CaptureFullBuffer:
		return "full_buffer"
	}
	return fmt.Sprintf("CapturePolicy(%d)", int(p))
}

// Retention selects which part of a stream is kept once it exceeds the cap.
type Retention int

const (
	// RetainHead keeps the first cap bytes of each stream (the default).
	RetainHead Retention = iota
	// RetainHeadTail keeps the first cap/2 and the last cap-cap/2 bytes of
	// each stream, so errors printed at the end of a long build are kept.
	RetainHeadTail
)

// String returns the name used in JSON results ("head" or "head_tail").
func (r Retention) String() string {
	switch r {
	case RetainHead:
		return "head"
	case RetainHeadTail:
		return "head_tail"
	}
	return fmt.Sprintf("Retention(%d)", int(r))
}

// Containment names the mechanism that guarantees no process started by the
// command outlives it.
type Containment string

const (
	// ContainmentAuto picks the strongest mechanism available (the zero value).
	ContainmentAuto Containment = ""
	// ContainmentPIDNamespace runs the command as PID 1 of a new PID
	// namespace (Linux; with a user namespace when unprivileged).
	ContainmentPIDNamespace Containment = "pid-namespace"
	// ContainmentCgroup puts the command in a fresh cgroup v2 that is killed
	// with cgroup.kill (Linux).
	ContainmentCgroup Containment = "cgroup"
	// ContainmentProcessGroup kills the process group, the session and the
	// descendants it can identify (on Linux: by the SBX_CONTAINMENT_TOKEN
	// variable it adds to the command's environment, with the calling
	// process marked a child subreaper for good, so that orphans are
	// reparented to it and reaped). It is degraded: a descendant that leaves
	// the session and clears its environment, and anything once the executor
	// is SIGKILLed, can survive. Used only when forced or when
	// Request.AllowDegraded permits it.
	ContainmentProcessGroup Containment = "process-group"
	// ContainmentJobObject puts the command in a Windows job object that is
	// terminated as a whole.
	ContainmentJobObject Containment = "job-object"
)

// Stream identifies one of the command's output streams.
type Stream int

const (
	// Stdout is the command's standard output.
	Stdout Stream = iota
	// Stderr is the command's standard error.
	Stderr
)

// String returns "stdout" or "stderr".
func (s Stream) String() string {
	if s == Stderr {
		return "stderr"
	}
	return "stdout"
}

// Sandbox prepares a command to run confined. Implementations live in
// platform launchers.
type Sandbox interface {
	// Wrap rewrites cmd before it starts: it may replace Path/Args (e.g.
	// re-exec sbx as a helper that confines itself and then execs the real
	// command), append ExtraFiles, and OR extra namespace flags into
	// cmd.SysProcAttr.Cloneflags. The executor has already set
	// Stdin/Stdout/Stderr, Env, Dir, Setsid, Pdeathsig and the PID-namespace
	// flags, and cmd.Path is already the resolved absolute path of argv[0].
	//
	// Wrap is called once per start attempt on a fresh *exec.Cmd: if the
	// first attempt fails because the containment could not be created, the
	// executor falls back to another mechanism and calls Wrap again.
	//
	// A helper that execs the real command must exec it directly (no fork)
	// so that it keeps the executor's containment (it stays PID 1). If the
	// helper cannot exec it, it must exit with 127 (not found) or 126 (found
	// but not executable) after writing exactly one line
	// "sbx: <argv0>: <reason>" to stderr.
	Wrap(cmd *exec.Cmd) error
	// Report describes what is enforced, for Result.Sandbox (JSON-encodable).
	Report() any
}

// Spawner is optionally implemented by a Sandbox that starts the command
// itself, applying the sandbox between fork and exec instead of through a
// helper (Wrap is then not called). cmd is prepared as for Wrap, with its
// containment in cmd.SysProcAttr; Spawn must honour it (clone flags, uid
// and gid maps, Setsid, Pdeathsig, the cgroup descriptor) and return the
// started process, a child of the caller. It is called on the OS thread
// that must stay alive while the command runs (Pdeathsig follows it),
// unless the Spawner is ProcessTied.
//
// Errors: one that wraps ErrSandbox means the sandbox could not be
// applied (exit code 125); an *fs.PathError with Op "exec" means the
// command itself could not be executed (126, or 127 for ENOENT); any other
// error is taken as the containment failing (the next mechanism is tried
// when it carries an errno the mechanism may cause). A Spawned with a Pid
// returned together with an error is a process that started and that the
// sandbox then killed: the executor reaps it.
type Spawner interface {
	Spawn(cmd *exec.Cmd) (Spawned, error)
}

// ProcessTied is optionally implemented by a Spawner whose launcher is
// tied to the executor's process rather than to the thread that started
// it: it ends the command when the executor's process exits, whichever of
// its threads ends first (a parent-death signal follows the thread). Run
// then need not lock its goroutine to its thread while the command runs.
type ProcessTied interface {
	TiedToProcess() bool
}

// Spawned is a process started by a Spawner.
type Spawned struct {
	// Pid is the process id (0: nothing was started).
	Pid int
	// Pidfd is a pidfd of the process (Linux), or -1. The executor owns it
	// (and closes it) from then on.
	Pidfd int
	// CommandPid is the command's own process id when Pid is a process
	// that started it and stays (a sandbox's init, PID 1 of its
	// namespace), in the executor's PID namespace; 0 when Pid is the
	// command's or the command's is unknown. It is what the result and
	// OnStart report; the executor waits on and signals Pid.
	CommandPid int
}

// SeccompSandbox is optionally implemented by a Sandbox that installs a
// seccomp filter. When UsesSeccomp reports true, a command killed by SIGSYS
// (exit code 159) is flagged as likely denied by the sandbox.
type SeccompSandbox interface {
	UsesSeccomp() bool
}

// Enforcer is optionally implemented by a Sandbox to say whether it
// enforces anything. A Sandbox whose Enforcing returns false only reports
// (for example that a profile deliberately applies no sandbox), and the
// likely-denied heuristic treats it as no sandbox.
type Enforcer interface {
	Enforcing() bool
}

// SignalReporter is optionally implemented by a Sandbox whose launcher
// stays between the executor and the command (an init that remains PID 1
// of the command's namespace). Such a launcher can only exit with a code,
// so the executor asks the sandbox, after the launcher has been reaped,
// which signal the command itself died of (0: none, or unknown). It is
// asked once per reaped launcher, also when the launcher itself was
// killed, so that the sandbox can release what the run held.
type SignalReporter interface {
	ExitSignal(cmd *exec.Cmd) int
}

// SignalForwarder is optionally implemented by a Spawner whose launcher
// stays the leader of the command's containment and passes SIGTERM, SIGINT
// and SIGHUP on to every process in it, those that left its process group
// included (the Landlock sandbox's init). Cancellation then signals the
// launcher alone: signalling its process group as well would deliver the
// signal twice to every process still in the group, and a command that
// counts them (many servers take a second SIGTERM or SIGINT to mean "stop
// now, skip the graceful shutdown") would not stop gracefully.
type SignalForwarder interface {
	ForwardsSignals() bool
}

// EndReporter is optionally implemented by a Sandbox whose launcher stays
// the leader of the command's containment (the init of its PID namespace)
// and reports the command's end itself, once the command and everything it
// started are gone and before the launcher exits (Linux). The executor
// then does not wait for the launcher's own exit, in which the kernel
// tears the sandbox's namespaces down: it reaps the launcher in the
// background, and only then asks its SignalReporter (which releases the
// run).
type EndReporter interface {
	// EndFD returns a descriptor of the run of cmd that becomes readable
	// when the report has come or the launcher ended without one; -1 when
	// there is none.
	EndFD(cmd *exec.Cmd) int
	// End returns the command's wait status (as wait4 reports it) once
	// EndFD is readable; ok is false when the launcher ended without a
	// report (it was killed, or failed), and its own exit then counts.
	End(cmd *exec.Cmd) (status syscall.WaitStatus, ok bool)
}

// FailureReporter is optionally implemented by a Sandbox that can fail
// after the command started (the Landlock sandbox's supervisor, started
// on the command's first supervised call): such a failure ends the command
// (fail closed), and RunFailure, asked once the run has ended, returns it
// (nil: none). The Result then reports the sandbox's failure, exit code
// SandboxFailureExitCode with SandboxError, instead of the end the failure
// caused.
type FailureReporter interface {
	RunFailure(cmd *exec.Cmd) error
}

// SandboxFailureExitCode is the exit code of a run whose sandbox failed
// after the command started (FailureReporter).
const SandboxFailureExitCode = 125

// Watcher is optionally implemented by a Sandbox that must act while its
// command runs (Linux). Right after the start, the executor asks it for a
// descriptor to poll with the command's pipes; when that becomes readable
// the executor calls ready, once, on the polling goroutine, and polls the
// descriptor no more. fd -1: nothing to watch. The Landlock sandbox
// watches its seccomp listener so and starts its supervisor on the
// command's first notified system call.
type Watcher interface {
	Watch(cmd *exec.Cmd) (fd int, ready func())
}

// StartInfo describes a started command; it is passed to Request.OnStart.
type StartInfo struct {
	// Pid is the process id of the command as seen by the executor.
	Pid int
	// LauncherPid is the process the executor started, waits on and
	// signals when it is not the command's (a sandbox's init, the root of
	// the command's tree; Spawned.CommandPid), and 0 otherwise. Signals
	// meant for the run as a whole go to it.
	LauncherPid int
	// Path is the resolved executable (before Sandbox.Wrap).
	Path string
	// Containment is the mechanism in use.
	Containment Containment
}

// Request describes one command to run. The zero value of each optional
// field selects the documented default; a Request may be reused.
type Request struct {
	// Argv is the command and its arguments; Argv[0] is resolved against the
	// PATH in Env (not the caller's), relative entries against Dir.
	Argv []string
	// Dir is the working directory; empty means the caller's. A directory
	// that does not exist is an error of Run, not a command failure.
	Dir string
	// Env is the exact environment of the command. Nothing is inherited: a
	// nil Env starts the command with an empty environment.
	Env []string

	// Capture selects the capture policy (CaptureShell by default).
	Capture CapturePolicy
	// Timeout is the expiration of the shell capture policy: zero means
	// DefaultTimeout, negative means no expiration. Ignored by
	// CaptureFullBuffer.
	Timeout time.Duration
	// OutputCap is the number of bytes retained per stream under the shell
	// capture policy (zero means DefaultOutputCap). Ignored by
	// CaptureFullBuffer.
	OutputCap int
	// Retention selects head or head+tail retention.
	Retention Retention

	// OnStart, if set, is called once after the command started and before
	// any OnOutput call. On Linux, where both run on the calling
	// goroutine, a panic in OnStart or OnOutput makes Run kill the run
	// (and everything it started), reap it and close its descriptors
	// before the panic goes on to the caller. (Elsewhere OnOutput runs on
	// the readers' goroutines, where a panic ends the program.) The
	// deadline counts from the start, OnStart's time included; it is acted
	// on once OnStart returns.
	OnStart func(StartInfo)
	// OnOutput, if set, receives output as it is read, in chunks of at most
	// OutputChunkSize bytes. Calls are serialised (never concurrent), the
	// chunk is only valid during the call, and a slow callback slows the
	// command down (the pipes are not read meanwhile). The deadline and
	// the cancellation are acted on between calls (with a callback, the
	// pipes are read one chunk at a time, so that each call is followed
	// by that check): a callback must not
	// block without bound (sbx's own gives up a write once the deadline
	// has passed or a signal came, see cmd/sbx/live.go).
	OnOutput func(stream Stream, chunk []byte)
	// MaxOutputEvents limits OnOutput calls per stream: zero means
	// DefaultMaxOutputEvents, negative means unlimited. Retention is not
	// affected.
	MaxOutputEvents int

	// Sandbox, if set, confines the command. The likely-denied heuristic
	// only applies when a Sandbox is set (and, if it implements Enforcer,
	// enforcing).
	Sandbox Sandbox
	// Containment forces a containment mechanism; ContainmentAuto picks the
	// strongest available and fails closed if none is.
	Containment Containment
	// AllowDegraded permits ContainmentProcessGroup when nothing stronger is
	// available instead of failing with ErrNoContainment.
	AllowDegraded bool

	// CancelFD, when positive, is a descriptor (Linux) whose readability
	// cancels the run as cancelling ctx does: the executor polls it with
	// the command's pipes and never reads it. It lets a signal handler
	// cancel a run by writing to a pipe, with no goroutine in between
	// (sbx run does so). One that is not open is an ErrInvalidRequest
	// (closed later, it does not cancel). Elsewhere it is ignored.
	CancelFD int

	// ExitsAfter tells Run that the caller's process exits as soon as Run
	// returns (sbx run does): a launcher that reported its command's end
	// and is still exiting (EndReporter) is then left to the system to
	// reap, instead of to a goroutine of the caller's. Nothing of the
	// command is left either way.
	ExitsAfter bool

	// DrainTimeout bounds draining the pipes after the command ended
	// (zero means DefaultDrainTimeout).
	DrainTimeout time.Duration
	// KillGrace is the time between SIGTERM and SIGKILL on cancellation
	// (zero means DefaultKillGrace).
	KillGrace time.Duration

	// unavailable lists mechanisms treated as unavailable, so that tests can
	// exercise the fallback chain without changing the machine.
	unavailable []Containment
}

// Errors returned by Run. They are wrapped with details; test with errors.Is.
var (
	// ErrInvalidRequest reports a Request that cannot be run.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrWorkDir reports a working directory that does not exist or is not a directory.
	ErrWorkDir = errors.New("working directory")
	// ErrNoContainment reports that no containment mechanism could be set up
	// and degraded containment was not allowed.
	ErrNoContainment = errors.New("no process containment available")
	// ErrSandbox reports that the sandbox could not be applied.
	ErrSandbox = errors.New("sandbox could not be applied")
)

// config is a Request with defaults applied.
type config struct {
	Request
	capLimit   int // per-stream retention limit; -1 = unlimited
	timeout    time.Duration
	maxEvents  int // -1 = unlimited
	drain      time.Duration
	grace      time.Duration
	isDisabled func(Containment) bool
}

func (r *Request) config() (*config, error) {
	if len(r.Argv) == 0 || r.Argv[0] == "" {
		return nil, fmt.Errorf("%w: empty command", ErrInvalidRequest)
	}
	// execve takes C strings: a NUL byte would cut them, and the fork
	// would fail in a way that looks like a containment problem. (A
	// Sandbox builds its launch from them and reports it, ErrSandbox.)
	if r.Sandbox == nil {
		if err := checkNUL(r); err != nil {
			return nil, err
		}
	}
	c := &config{Request: *r}
	switch r.Capture {
	case CaptureShell:
		switch {
		case r.OutputCap < 0:
			return nil, fmt.Errorf("%w: negative output cap %d", ErrInvalidRequest, r.OutputCap)
		case r.OutputCap == 0:
			c.capLimit = DefaultOutputCap
		default:
			c.capLimit = r.OutputCap
		}
		switch {
		case r.Timeout == 0:
			c.timeout = DefaultTimeout
		case r.Timeout > 0:
			c.timeout = r.Timeout
		}
	case CaptureFullBuffer:
		c.capLimit = -1
	default:
		return nil, fmt.Errorf("%w: unknown capture policy %d", ErrInvalidRequest, int(r.Capture))
	}
	if r.Retention != RetainHead && r.Retention != RetainHeadTail {
		return nil, fmt.Errorf("%w: unknown retention %d", ErrInvalidRequest, int(r.Retention))
	}
	switch {
	case r.MaxOutputEvents == 0:
		c.maxEvents = DefaultMaxOutputEvents
	case r.MaxOutputEvents < 0:
		c.maxEvents = -1
	default:
		c.maxEvents = r.MaxOutputEvents
	}
	c.drain = r.DrainTimeout
	if c.drain <= 0 {
		c.drain = DefaultDrainTimeout
	}
	c.grace = r.KillGrace
	if c.grace <= 0 {
		c.grace = DefaultKillGrace
	}
	switch r.Containment {
	case ContainmentAuto, ContainmentPIDNamespace, ContainmentCgroup, ContainmentProcessGroup, ContainmentJobObject:
	default:
		return nil, fmt.Errorf("%w: unknown containment %q", ErrInvalidRequest, r.Containment)
	}
	unavailable := r.unavailable
	c.isDisabled = func(k Containment) bool {
		for _, u := range unavailable {
			if u == k {
				return true
			}
		}
		return false
	}
	return c, nil
}

// checkNUL rejects NUL bytes in the strings execve and chdir take.
func checkNUL(r *Request) error {
	for i, a := range r.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return fmt.Errorf("%w: argument %d contains a NUL byte", ErrInvalidRequest, i)
		}
	}
	for _, kv := range r.Env {
		if strings.IndexByte(kv, 0) >= 0 {
			name, _, _ := strings.Cut(kv, "=")
			return fmt.Errorf("%w: environment variable %q contains a NUL byte", ErrInvalidRequest, name)
		}
	}
	if strings.IndexByte(r.Dir, 0) >= 0 {
		return fmt.Errorf("%w: working directory contains a NUL byte", ErrInvalidRequest)
	}
	return nil
}
