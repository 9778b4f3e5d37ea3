package launch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/internal/starttrace"
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
	// GlobScanLimit bounds the directory entries the scan for each deny
	// glob's matches visits (0: landlock.DefaultGlobBudget).
	GlobScanLimit int
	// NoSupervisor disables the seccomp user-notification supervisor:
	// missing protected names then make their writable root non-creatable
	// (the restrictive fallback used where the kernel lacks the supervisor's
	// features; tests exercise it with SBX_LANDLOCK_NO_SUPERVISOR=1).
	NoSupervisor bool
	// Mounts, when set, is the listing Prestart uses (ListMounts, started
	// ahead); otherwise Prestart starts one.
	Mounts *MountListing
	// Early, when set, is an init started ahead by Prestart: New gives it
	// its part of the program, and the first matching Spawn uses it. The
	// caller still closes it (Early.Close), which ends it if unused.
	Early *Early
	// ExitsAfter tells that the caller's process exits right after its
	// runs (sbx run): an init that reported its command's end then waits
	// for that exit before its own, so that the teardown of the sandbox's
	// namespaces and of the memory it shares with sbx comes after sbx's
	// exit instead of in it. Use it with executor.Request.ExitsAfter.
	ExitsAfter bool
}

// The Sandbox starts commands itself and reports their signals.
var (
	_ executor.Spawner        = (*Sandbox)(nil)
	_ executor.SignalReporter = (*Sandbox)(nil)
	_ executor.SeccompSandbox = (*Sandbox)(nil)
	_ executor.ProcessTied    = (*Sandbox)(nil)
)

// TiedToProcess reports true (executor.ProcessTied): the sandbox's init
// watches sbx's process through a pidfd and ends the sandbox when it
// exits, whichever thread started it.
func (s *Sandbox) TiedToProcess() bool { return true }

// ForwardsSignals reports that the init passes SIGTERM, SIGINT and SIGHUP
// on to every process of its namespace (executor.SignalForwarder): the
// executor's cancellation signals the init alone, so that each process
// gets the signal once.
func (s *Sandbox) ForwardsSignals() bool { return true }

// Sandbox enforces a bound Landlock plan on commands it starts itself
// (Spawn). It implements executor.Sandbox, executor.Spawner,
// executor.SignalReporter, executor.SignalForwarder and
// executor.SeccompSandbox, and may serve
// concurrent runs.
type Sandbox struct {
	spec    *landlock.Spec
	report  *landlock.Report
	lastCap int // the kernel's highest capability number
	// status maps each started *exec.Cmd to the read end of its init's
	// status pipe (ExitSignal), so one Sandbox can serve concurrent runs.
	status sync.Map
	// failures maps a started *exec.Cmd to its supervisor's failure
	// (RunFailure), kept until asked.
	failures sync.Map
	mu       sync.Mutex
	early    *Early // see Options.Early; taken by the first Spawn
	linger   bool   // Options.ExitsAfter
}

// New binds plan with b for this kernel. It fails (wrapping
// landlock.ErrABI) when the kernel's Landlock ABI is below what the profile
// needs and degraded mode is not allowed; the error names each rule and the
// ABI and kernel it needs.
func New(plan *landlock.Plan, b ir.Bindings, o Options) (*Sandbox, error) {
	abi := KernelABI()
	var mounts func() ([]landlock.Mount, error)
	if o.Early != nil {
		mounts = o.Early.Mounts
	}
	spec, rep, err := plan.Bind(b, landlock.BindOptions{KernelABI: abi, ABICap: o.ABICap, AllowDegraded: o.AllowDegraded, GlobBudget: o.GlobScanLimit, Root: os.Geteuid() == 0, Mounts: mounts,
		Supervise: !o.NoSupervisor && supervisorAvailable()})
	if err != nil {
		if abi == 0 && errors.Is(err, landlock.ErrABI) && filteredHint() != "" {
			// Not the kernel's ABI: the calls are denied here.
			return nil, fmt.Errorf("%w: profile %s needs Landlock, whose system calls fail in this process: sbx runs under a seccomp filter (Seccomp: 2 in /proc/self/status) that denies them, a sandbox's around sbx (perhaps sbx's own); run sbx outside it, or pass --allow-degraded to run with what is left", landlock.ErrABI, plan.Profile)
		}
		return nil, err
	}
	starttrace.Mark("bound")
	if err := landlock.CheckWritableRoots(spec, plan, rep.Bound, b, landlock.AccountHome(os.Getuid()), os.Getenv); err != nil {
		return nil, err
	}
	return &Sandbox{spec: spec, report: rep, lastCap: lastCapability(), early: o.Early.adopt(spec), linger: o.ExitsAfter}, nil
}

// Spec returns the bound spec (for dry runs and exports).
func (s *Sandbox) Spec() *landlock.Spec { return s.spec }

// Report returns what is enforced (a *landlock.Report).
func (s *Sandbox) Report() any { return s.report }

// UsesSeccomp reports true: commands killed by SIGSYS are likely denials.
func (s *Sandbox) UsesSeccomp() bool { return true }

// Wrap fails: the sandbox starts the command itself (Spawn, an
// executor.Spawner), applying it between fork and exec. An executor that
// ignored Spawn would otherwise run the command unconfined.
func (s *Sandbox) Wrap(*exec.Cmd) error {
	return errors.New("the Landlock sandbox starts the command itself (executor.Spawner)")
}

// carveOutRules names the mount operations that need the namespace.
func (s *Sandbox) carveOutRules() string {
	var names []string
	for _, m := range s.spec.Mounts {
		if m.Kind == landlock.MountReadOnly || m.Kind == landlock.MountMask || m.Kind == landlock.MountPinLink {
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
	if os.Geteuid() == 0 {
		// Root needs no user namespace: the probe of those says nothing.
		return "namespaces, which root creates without a user namespace; creating them failed here" + filteredHint()
	}
	f := Probe()
	if f.UserNS {
		return "unprivileged user namespaces: the kernel offers them, yet creating the sandbox's failed" + filteredHint()
	}
	return "unprivileged user namespaces: " + f.UserNSDetail
}
