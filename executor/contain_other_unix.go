//go:build unix && !linux

package executor

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// On Unix systems other than Linux the command runs in its own session and
// process group, which is killed as a whole. Processes that leave the group
// (setsid) can survive, and nothing ties the command to the executor's
// death; the Result reports ContainmentProcessGroup with that note.

func containmentPlan(c *config) []Containment {
	if c.Containment != ContainmentAuto {
		return []Containment{c.Containment}
	}
	return []Containment{ContainmentProcessGroup}
}

func newContainer(k Containment, c *config) (container, error) {
	if c.isDisabled(k) {
		return nil, errors.New("disabled by the request")
	}
	if k != ContainmentProcessGroup {
		return nil, errors.New("not available on this platform")
	}
	return &groupContainer{}, nil
}

func noContainmentHint(c *config) string {
	return "only process-group containment exists on this platform"
}

type groupContainer struct {
	cmd   *exec.Cmd
	pid   int
	state *os.ProcessState
	err   error
}

func (g *groupContainer) kind() Containment { return ContainmentProcessGroup }

func (g *groupContainer) note() string {
	return "processes that leave the command's process group, and all processes if sbx itself is killed with SIGKILL, may survive"
}

func (g *groupContainer) prepare(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return nil
}

func (g *groupContainer) started(cmd *exec.Cmd) error {
	g.cmd, g.pid = cmd, cmd.Process.Pid
	return nil
}

func (g *groupContainer) isContainmentError(error) bool { return false }

func (g *groupContainer) terminate() { syscall.Kill(-g.pid, syscall.SIGTERM) }

func (g *groupContainer) kill() { syscall.Kill(-g.pid, syscall.SIGKILL) }

func (g *groupContainer) waitExited() {
	err := g.cmd.Wait()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		g.err = err
	}
	g.state = g.cmd.ProcessState
}

func (g *groupContainer) cleanup() error {
	// The leader has been reaped; its group id stays reserved while any
	// member of the group is alive, so this cannot hit an unrelated group.
	syscall.Kill(-g.pid, syscall.SIGKILL)
	return nil
}

func (g *groupContainer) reap() (*os.ProcessState, error) { return g.state, g.err }

func (g *groupContainer) release() {}
