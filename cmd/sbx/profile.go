package main

import (
	"fmt"
	"io/fs"
	"math"
	"os"
	"time"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// defaultProfile is the profile used without --profile or --artifact.
const defaultProfile = "workspace"

// profile is what "sbx run" takes from a policy.
type profile struct {
	// name is the profile's name (or the artifact's path).
	name string
	// env builds the command's environment from sbx's own.
	env func(parent []string) []string
	// timeout is the profile's expiration for the shell capture policy;
	// zero means the executor's default.
	timeout time.Duration
	// outputCap is the profile's per-stream cap; zero means the default.
	outputCap int
	// allowsNoSandbox reports that the profile enforces nothing, so that no
	// sandbox needs to be applied.
	allowsNoSandbox bool
	// ir is the profile's IR; plan its Landlock plan (from the artifact, or
	// computed from the IR by the same code when the artifact has none; nil
	// when allowsNoSandbox).
	ir   *ir.Profile
	plan *landlock.Plan
}

// loadProfile resolves --profile and --artifact to a profile. It is the one
// place that knows where policies come from: built-in profiles (package
// builtin, precompiled artifacts) and artifact files (ir.ReadArtifact) plug
// in here.
func loadProfile(name, artifact string) (*profile, error) {
	var (
		a   *ir.Artifact
		ip  *ir.Profile
		err error
	)
	if artifact != "" {
		a, ip, err = ir.ReadArtifact(artifact)
		if err != nil {
			err = artifactOpenError(artifact, err)
		}
	} else {
		if name == "" {
			name = defaultProfile
		}
		// Built-in profiles come pre-decoded (Go values generated from the
		// artifacts and checked against them by a test in package builtin):
		// no JSON is decoded on this path.
		ip, err = builtin.Profile(name)
	}
	if err != nil {
		return nil, err
	}
	p := &profile{
		name:            ip.Name,
		env:             ip.Process.Env.Build,
		timeout:         durationMS(ip.Process.TimeoutMS),
		outputCap:       clampInt(ip.Process.OutputCap),
		allowsNoSandbox: ip.Unsandboxed,
		ir:              ip,
	}
	if artifact != "" {
		p.name = artifact
	}
	// An unsandboxed profile never uses its plan, so it is not built (for an
	// artifact file, not decoded: a strict JSON decode costs a noticeable
	// share of sbx's start-up); its bytes are still covered by the digest
	// check of the artifact.
	if !p.allowsNoSandbox {
		if a != nil {
			p.plan, err = landlockPlan(a, ip)
		} else {
			p.plan, err = builtin.Plan(name)
		}
		if err != nil {
			return nil, err
		}
	}
	return p, nil
}

// artifactOpenError names what is wrong with an artifact path that could
// not be opened because of what it is: a Unix socket cannot be opened
// (ENXIO), which would read as "no such device or address".
func artifactOpenError(path string, err error) error {
	if fi, serr := os.Stat(path); serr == nil && fi.Mode()&fs.ModeSocket != 0 {
		return fmt.Errorf("reading artifact %s: not a regular file (a socket): an artifact is a file sbc wrote", path)
	}
	return err
}

// newSandbox returns the sandbox that enforces p on this platform, or nil
// when p enforces nothing. Platform launchers (Landlock on Linux) plug in
// here; a profile that cannot be enforced is an error (exit 125).
func newSandbox(p *profile, o *runOptions) (executor.Sandbox, error) {
	if p.allowsNoSandbox {
		return noSandbox{profile: p.name}, nil
	}
	return platformSandbox(p, o)
}

// durationMS converts a profile's milliseconds to a Duration, saturating at
// the largest one (about 292 years) instead of wrapping: a longer timeout
// than that is no timeout in practice, while a wrapped one would kill the
// command at once or, negative, mean none.
func durationMS(ms int64) time.Duration {
	const maxMS = int64(math.MaxInt64 / time.Millisecond)
	switch {
	case ms > maxMS:
		return time.Duration(math.MaxInt64)
	case ms < -maxMS:
		return -time.Duration(math.MaxInt64)
	}
	return time.Duration(ms) * time.Millisecond
}

// clampInt converts a byte count to int, saturating where int is 32 bits.
func clampInt(n int64) int {
	switch {
	case n > int64(math.MaxInt):
		return math.MaxInt
	case n < int64(math.MinInt):
		return math.MinInt
	}
	return int(n)
}
