package executor

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows the command is assigned to a job object with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE right after it started, and the whole
// job is terminated when the command ends, expires or is cancelled. A child
// created between process creation and assignment could escape the job.

func containmentPlan(c *config) []Containment {
	if c.Containment != ContainmentAuto {
		return []Containment{c.Containment}
	}
	return []Containment{ContainmentJobObject}
}

func newContainer(k Containment, c *config) (container, error) {
	if c.isDisabled(k) {
		return nil, errors.New("disabled by the request")
	}
	if k != ContainmentJobObject {
		return nil, errors.New("not available on Windows")
	}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("creating job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("configuring job object: %w", err)
	}
	return &jobContainer{job: job}, nil
}

func noContainmentHint(c *config) string { return "job objects are unavailable" }

type jobContainer struct {
	job   windows.Handle
	cmd   *exec.Cmd
	state *os.ProcessState
	err   error
}

func (j *jobContainer) kind() Containment { return ContainmentJobObject }

func (j *jobContainer) note() string { return "" }

func (j *jobContainer) prepare(cmd *exec.Cmd) error { return nil }

func (j *jobContainer) started(cmd *exec.Cmd) error {
	j.cmd = cmd
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		return fmt.Errorf("opening process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(j.job, h); err != nil {
		return fmt.Errorf("assigning process to job object: %w", err)
	}
	return nil
}

func (j *jobContainer) isContainmentError(error) bool { return false }

func (j *jobContainer) terminate() { j.kill() }

func (j *jobContainer) kill() {
	if windows.TerminateJobObject(j.job, 1) != nil && j.cmd != nil {
		j.cmd.Process.Kill()
	}
}

func (j *jobContainer) waitExited() {
	err := j.cmd.Wait()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		j.err = err
	}
	j.state = j.cmd.ProcessState
}

func (j *jobContainer) cleanup() error {
	windows.TerminateJobObject(j.job, 1)
	return nil
}

func (j *jobContainer) reap() (*os.ProcessState, error) { return j.state, j.err }

func (j *jobContainer) release() {
	if j.job != 0 {
		windows.CloseHandle(j.job)
		j.job = 0
	}
}
