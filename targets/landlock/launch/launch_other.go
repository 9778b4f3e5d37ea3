//go:build !linux

// Package launch enforces Landlock plans on Linux; on other systems it only
// provides stubs so that everything builds.
package launch

import (
	"errors"
	"os/exec"

	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// HelperArg is the hidden argv[1] of the Linux helper.
const HelperArg = "__sbx-landlock-helper"

// ErrUnsupported is returned on systems without Landlock.
var ErrUnsupported = errors.New("Landlock enforcement is only available on Linux")

// Options configure a Sandbox.
type Options struct {
	ABICap        int
	AllowDegraded bool
	GlobScanLimit int
	NoSupervisor  bool
	ExitsAfter    bool
}

// Sandbox is unavailable on this system.
type Sandbox struct{}

// New always fails on this system.
func New(*landlock.Plan, ir.Bindings, Options) (*Sandbox, error) { return nil, ErrUnsupported }

// Spec returns nil.
func (s *Sandbox) Spec() *landlock.Spec { return nil }

// Report returns nil.
func (s *Sandbox) Report() any { return nil }

// UsesSeccomp reports false.
func (s *Sandbox) UsesSeccomp() bool { return false }

// Wrap always fails.
func (s *Sandbox) Wrap(*exec.Cmd) error { return ErrUnsupported }

// RunHelper is never dispatched on this system.
func RunHelper([]string) { panic(ErrUnsupported) }

// KernelABI is 0: no Landlock.
func KernelABI() int { return 0 }

// Features is what this machine offers the sandbox.
type Features struct {
	Kernel      string `json:"kernel"`
	LandlockABI int    `json:"landlock_abi"`
}

// Probe reports no Landlock.
func Probe() Features { return Features{Kernel: "not Linux"} }

// Early is unavailable on this system.
type Early struct{}

// Prestart always fails on this system.
func Prestart(bool, *landlock.Plan, Options) (*Early, error) { return nil, ErrUnsupported }

// Close does nothing.
func (e *Early) Close() {}
