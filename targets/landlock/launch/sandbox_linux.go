package launch

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// Options configure a Sandbox.
type Options struct {
	// ABICap, when positive, caps the Landlock ABI used (tests exercise the
	// refusal and degraded paths on a new kernel with it).
	ABICap int
	// AllowDegraded runs with best effort when the kernel lacks what the
	// profile needs; the report lists every rule not enforced.
	AllowDegraded bool
	// NoSupervisor disables the seccomp user-notification supervisor:
	// missing protected names then make their writable root non-creatable
	// (the restrictive fallback used where the kernel lacks the supervisor's
	// features; tests exercise it with SBX_LANDLOCK_NO_SUPERVISOR=1).
	NoSupervisor bool
}

// Sandbox enforces a bound Landlock plan on one command through the helper
// (see RunHelper). It implements executor.Sandbox and
// executor.SeccompSandbox.
type Sandbox struct {
	spec   *landlock.Spec
	report *landlock.Report
	// status maps each wrapped *exec.Cmd to the read end of its exit-signal
	// pipe (supervised runs only), so one Sandbox can serve concurrent runs.
	status sync.Map
}

// New binds plan with b for this kernel. It fails (wrapping
// landlock.ErrABI) when the kernel's Landlock ABI is below what the profile
// needs and degraded mode is not allowed; the error names each rule and the
// ABI and kernel it needs.
func New(plan *landlock.Plan, b ir.Bindings, o Options) (*Sandbox, error) {
	spec, rep, err := plan.Bind(b, landlock.BindOptions{KernelABI: KernelABI(), ABICap: o.ABICap, AllowDegraded: o.AllowDegraded,
		Supervise: !o.NoSupervisor && supervisorAvailable()})
	if err != nil {
		return nil, err
	}
	if cwd := b[ir.AnchorCwd]; len(cwd) == 1 {
		if err := landlock.CheckWritableCwd(spec, cwd[0]); err != nil {
			return nil, err
		}
	}
	return &Sandbox{spec: spec, report: rep}, nil
}

// Spec returns the bound spec (for dry runs and exports).
func (s *Sandbox) Spec() *landlock.Spec { return s.spec }

// Report returns what is enforced (a *landlock.Report).
func (s *Sandbox) Report() any { return s.report }

// UsesSeccomp reports true: commands killed by SIGSYS are likely denials.
func (s *Sandbox) UsesSeccomp() bool { return true }

// Wrap turns cmd into the helper: /proc/self/exe with HelperArg and the
// spec on a sealed memfd, in fresh mount and IPC namespaces (and a fresh
// network namespace for network none). It requires the executor's PID
// namespace: a fresh /proc is what hides other processes, and PID 1
// containment keeps the command's process tree together.
func (s *Sandbox) Wrap(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Cloneflags&unix.CLONE_NEWPID == 0 {
		return fmt.Errorf("the Landlock sandbox needs PID-namespace containment (a fresh /proc hides other processes, a mount namespace holds the read-only view%s), which needs %s", s.carveOutRules(), userNSHint())
	}
	// Descriptors sbx inherited without close-on-exec would survive the
	// exec into the helper (os/exec passes only stdio and ExtraFiles, but
	// does not close what the process inherited): mark them all
	// close-on-exec. os/exec clears the flag on the ExtraFiles it places.
	if err := unix.CloseRange(3, ^uint(0), closeRangeCloex); err != nil {
		return fmt.Errorf("close_range: %w", err)
	}
	spec := *s.spec
	spec.Path, spec.Argv, spec.Env = cmd.Path, cmd.Args, cmd.Env
	spec.Trace = os.Getenv("SBX_LANDLOCK_TRACE") == "1"
	if spec.Env == nil {
		spec.Env = []string{}
	}
	if cmd.Dir != "" {
		d, err := filepath.Abs(cmd.Dir)
		if err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
		spec.Cwd = d
	}
	if spec.Seccomp.NeedsSupervisor() {
		// The supervising helper stays PID 1 and can only exit with a code:
		// it writes the signal the command died of on this pipe, which
		// ExitSignal reads after the executor has reaped the helper.
		r, w, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("exit-signal pipe: %w", err)
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, w)
		spec.StatusFD = 2 + len(cmd.ExtraFiles)
		s.status.Store(cmd, [2]*os.File{r, w})
	}
	// gob, not JSON: strings travel byte for byte (encoding/json would
	// replace invalid UTF-8 in argv, env, the cwd and paths with U+FFFD).
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&spec); err != nil {
		return fmt.Errorf("encoding the sandbox spec: %w", err)
	}
	fd, err := unix.MemfdCreate("sbx-landlock-spec", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "sbx-landlock-spec")
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("writing the sandbox spec: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return fmt.Errorf("rewinding the sandbox spec: %w", err)
	}
	_, _ = unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE)
	cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	childFd := 2 + len(cmd.ExtraFiles)
	cmd.Path = "/proc/self/exe"
	cmd.Args = []string{"sbx", HelperArg, strconv.Itoa(childFd)}
	cmd.Env = []string{}
	flags := uintptr(unix.CLONE_NEWNS | unix.CLONE_NEWIPC)
	if spec.NewNet {
		flags |= unix.CLONE_NEWNET
	}
	cmd.SysProcAttr.Cloneflags |= flags
	if cmd.SysProcAttr.Cloneflags&unix.CLONE_NEWUSER != 0 {
		// An unprivileged caller's uid is mapped to itself, not to 0, so
		// execve would clear the capabilities the helper holds in its new
		// user namespace; ambient capabilities survive it. The helper needs
		// CAP_SYS_ADMIN (mounts) and CAP_SETPCAP (securebits, bounding set)
		// and drops every capability before exec'ing the command.
		cmd.SysProcAttr.AmbientCaps = append(cmd.SysProcAttr.AmbientCaps, unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP)
		if spec.Seccomp.NeedsSupervisor() {
			// The supervisor reads callers' memory and duplicates their
			// descriptors (ptrace access): same uid suffices unless the
			// command is not dumpable (an unreadable binary).
			cmd.SysProcAttr.AmbientCaps = append(cmd.SysProcAttr.AmbientCaps, unix.CAP_SYS_PTRACE)
		}
	}
	return nil
}

// ExitSignal returns the signal the command run by cmd died of, as its
// supervising helper reported it, or 0. It releases the run's pipe; call it
// once, after the helper has exited (executor.SignalReporter).
func (s *Sandbox) ExitSignal(cmd *exec.Cmd) int {
	v, ok := s.status.LoadAndDelete(cmd)
	if !ok {
		return 0
	}
	files := v.([2]*os.File)
	files[1].Close()
	defer files[0].Close()
	// The helper has exited, so the write end is closed everywhere: the
	// read returns its one byte, or EOF when the command was not signalled.
	var b [1]byte
	if n, _ := files[0].Read(b[:]); n == 1 {
		return int(b[0])
	}
	return 0
}

// carveOutRules names the mount operations that need the namespace.
func (s *Sandbox) carveOutRules() string {
	var names []string
	for _, m := range s.spec.Mounts {
		if m.Kind == landlock.MountReadOnly || m.Kind == landlock.MountMask {
			names = append(names, fmt.Sprintf("%s %s", m.Kind, m.Path))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " and the carve-outs " + strings.Join(names, ", ")
}

// userNSHint explains why unprivileged user namespaces are unavailable.
func userNSHint() string {
	f := Probe()
	if os.Geteuid() == 0 {
		return "namespaces (they could not be created: " + f.UserNSDetail + ")"
	}
	return "unprivileged user namespaces: " + f.UserNSDetail
}

// WaitStatusExit maps a wait status to the shell convention (exported for
// tests).
func WaitStatusExit(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
