//go:build !linux

package main

import (
	"fmt"
	"runtime"

	"github.com/sbx-dev/sbx/executor"
)

// platformSandbox fails: only the Linux (Landlock) launcher exists so far.
func platformSandbox(p *profile, o *runOptions) (executor.Sandbox, error) {
	return nil, fmt.Errorf("profile %s cannot be enforced on %s yet: only the Linux (Landlock) launcher exists", p.name, runtime.GOOS)
}

func probeFeatures() any {
	return map[string]string{"os": runtime.GOOS, "landlock": "not available (Linux only)"}
}

func kernelABI() int { return 0 }

func namespacesUsable() (bool, string) { return false, "not Linux" }

// prestart does nothing: no early init on this system.
func prestart(*profile, *runOptions) func() { return func() {} }

// mountListing: no mount table is read here.
type mountListing struct{}

func earlyMounts() *mountListing { return nil }
