package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
	"github.com/sbx-dev/sbx/targets/landlock/launch"
)

// platformSandbox binds the profile's Landlock plan to this invocation
// (cwd from --cwd or the current directory, home and tmpdir from the
// environment) and returns the launcher that enforces it. It refuses (exit
// 125) when the kernel's Landlock ABI is below what the profile needs,
// unless --allow-degraded.
func platformSandbox(p *profile, o *runOptions) (executor.Sandbox, error) {
	// The launcher builds the sandbox in the namespaces of PID-namespace
	// containment: a forced cgroup or process-group containment cannot
	// hold it. Said here, naming the flag (the launcher, asked to start
	// without them, could only say that creating namespaces failed).
	if c := o.containMech; c == executor.ContainmentCgroup || c == executor.ContainmentProcessGroup {
		err := fmt.Errorf("profile %s: --containment %s cannot hold the Landlock sandbox, which runs the command in a PID namespace of its own: use --containment pid-namespace or auto (only an unsandboxed profile such as danger-full-access runs under %s containment)", p.name, c, c)
		if ok, why := namespacesUsable(); !ok {
			err = fmt.Errorf("%w; and the namespaces it needs cannot be created here: %s", err, why)
		}
		return nil, err
	}
	b, err := landlock.DefaultBindings(o.cwd, os.Getenv)
	if err != nil {
		return nil, err
	}
	lo := launchOptions(o)
	lo.Early, lo.ExitsAfter = o.early, exitsAfterRun
	sb, err := launch.New(p.plan, b, lo)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", p.name, err)
	}
	if o.artifact != "" {
		if rep, ok := sb.Report().(*landlock.Report); ok {
			if err := artifactWritable(o.artifact, rep.Bound); err != nil {
				return nil, err
			}
		}
	}
	return sb, nil
}

// artifactWritable refuses an artifact file the profile it holds makes
// writable: a command run under it could rewrite it (to a profile with no
// limits: an artifact's digest proves consistency, not authorship), and
// the next run from the same file would enforce what the command wrote.
// An artifact that is not a regular file (a pipe) is not kept for a next
// run.
func artifactWritable(file string, bound []ir.BoundRule) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	bd := &ir.Bound{Rules: bound}
	if a, r, _ := bd.Access(abs); a == ir.Write && r != nil {
		// The name to protect: the first below the writable root (protected
		// names are looked up directly below each writable root).
		name := filepath.Base(abs)
		if rel, err := filepath.Rel(r.Path, abs); err == nil && rel != "." {
			name, _, _ = strings.Cut(rel, "/")
		}
		return fmt.Errorf("the artifact %s is writable under the profile it holds (write %s, %s): a command run under it could rewrite it, and the next run from it would enforce what the command wrote; keep the artifact outside the profile's writable roots, or make it read-only there (protect = [%q], or a read rule on its path)",
			file, r.Symbolic, r.Source, name)
	}
	return nil
}

// launchOptions are the launcher's options from the flags (and, for
// tests, SBX_LANDLOCK_NO_SUPERVISOR), the same for Prestart and New.
func launchOptions(o *runOptions) launch.Options {
	return launch.Options{ABICap: o.abiCap, AllowDegraded: o.allowDegraded, GlobScanLimit: o.globScanLimit,
		NoSupervisor: os.Getenv("SBX_LANDLOCK_NO_SUPERVISOR") == "1", Mounts: o.mounts}
}

// earlyMounts starts reading the host's mount table for the sandbox that
// sbx run will most likely start (launch.ListMounts), before the flags
// are parsed and the profile is loaded.
func earlyMounts() *mountListing { return launch.ListMounts() }

// mountListing is launch's listing of the host's mounts.
type mountListing = launch.MountListing

// probeFeatures reports what this machine offers (sbx doctor).
func probeFeatures() any { return launch.Probe() }

// kernelABI is the running kernel's Landlock ABI.
func kernelABI() int { return launch.KernelABI() }

// namespacesUsable reports whether the launcher can create its namespaces.
func namespacesUsable() (bool, string) {
	f := launch.Probe()
	if f.Root || f.UserNS {
		return true, ""
	}
	return false, f.UserNSDetail
}

// prestart starts the sandbox's init ahead (launch.Prestart) for a run
// that will use PID-namespace containment, and returns what ends it if no
// run took it. The init is tied to sbx's process, not to this thread.
func prestart(p *profile, o *runOptions) (release func()) {
	if p.allowsNoSandbox || o.dryRun || (o.containMech != executor.ContainmentAuto && o.containMech != executor.ContainmentPIDNamespace) {
		return func() {}
	}
	e, err := launch.Prestart(!hasCapSysAdmin(), p.plan, launchOptions(o))
	if err != nil {
		// The run starts an init of its own, and reports what fails then.
		return func() {}
	}
	o.early = e
	return e.Close
}

// hasCapSysAdmin reports whether sbx may create namespaces without a user
// namespace (the executor's PID-namespace containment asks the same).
func hasCapSysAdmin() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[0].Effective&(1<<unix.CAP_SYS_ADMIN) != 0
}
