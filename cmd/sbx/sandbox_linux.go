package main

import (
	"fmt"
	"os"

	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/targets/landlock"
	"github.com/sbx-dev/sbx/targets/landlock/launch"
)

// platformSandbox binds the profile's Landlock plan to this invocation
// (cwd from --cwd or the current directory, home and tmpdir from the
// environment) and returns the launcher that enforces it. It refuses (exit
// 125) when the kernel's Landlock ABI is below what the profile needs,
// unless --allow-degraded.
func platformSandbox(p *profile, o *runOptions) (executor.Sandbox, error) {
	b, err := landlock.DefaultBindings(o.cwd, os.Getenv)
	if err != nil {
		return nil, err
	}
	sb, err := launch.New(p.plan, b, launch.Options{ABICap: o.abiCap, AllowDegraded: o.allowDegraded,
		NoSupervisor: os.Getenv("SBX_LANDLOCK_NO_SUPERVISOR") == "1"})
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", p.name, err)
	}
	return sb, nil
}

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
