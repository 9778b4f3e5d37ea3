//go:build linux && !amd64 && !arm64

package launch

import (
	"fmt"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// buildFilter fails closed on architectures whose system call table the
// filter does not know.
func buildFilter(landlock.SeccompSpec) ([]unix.SockFilter, error) {
	return nil, fmt.Errorf("the sandbox's seccomp filter is not available on %s", runtime.GOARCH)
}

// supervisorAvailable is false: the supervisor decodes this filter's
// system call numbers.
func supervisorAvailable() bool { return false }

func runSupervisor([]guardedPath, []listedSocket, bool, bool, bool) {
	fail(exitSetup, "sbx: the seccomp supervisor is not available on %s", runtime.GOARCH)
}

// Spawn fails closed: the launcher applies the sandbox with a program of
// raw system calls whose fork needs per-architecture support (amd64 and
// arm64), and the seccomp filter knows only those system call tables.
func (s *Sandbox) Spawn(*exec.Cmd) (executor.Spawned, error) {
	return executor.Spawned{Pidfd: -1}, fmt.Errorf("%w: the Landlock sandbox is not available on %s (amd64 and arm64 only)", executor.ErrSandbox, runtime.GOARCH)
}

func lastCapability() int { return 0 }

// retUserNotif is SECCOMP_RET_USER_NOTIF (the probe asks the kernel about it).
const retUserNotif = 0x7fc00000

// ExitSignal reports no signal: nothing is started here.
func (s *Sandbox) ExitSignal(*exec.Cmd) int { return 0 }

// Early is unavailable on this architecture.
type Early struct{}

// MountListing is unused on this architecture: no early init reads it.
type MountListing struct{}

// ListMounts reads nothing here (nil).
func ListMounts() *MountListing { return nil }

// Prestart fails: see Spawn.
func Prestart(bool, *landlock.Plan, Options) (*Early, error) {
	return nil, fmt.Errorf("no early init on %s", runtime.GOARCH)
}

// Close does nothing.
func (e *Early) Close() {}

func (e *Early) adopt(*landlock.Spec) *Early { return nil }

// Mounts lists the mounts as the view does (an Early never exists here).
func (e *Early) Mounts() ([]landlock.Mount, error) {
	if ml, ok := landlock.OSView().(landlock.MountLister); ok {
		return ml.Mounts()
	}
	return nil, nil
}
