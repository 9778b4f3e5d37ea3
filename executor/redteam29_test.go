//go:build linux

package executor

// Red team 29 (faults, executor side): what the earlier passes
// (redteam8/16/24/28, rt27embed, cmd/sbx's TestRT2x, the launcher's fault
// batteries) did not try.
//
// FINDINGS (each test failed on the code it was written against):
//
//   - TestRedTeam29ProcessGroupReusedPid (fixed, contain_linux.go):
//     process-group containment's sweep remembered the processes it had
//     killed by pid alone, and took any process with such a pid for the
//     run's from then on: once a straggler it killed was reaped, an
//     unrelated process that got its pid (pid_max is 32,768 on this VM;
//     the sweep runs until two clean passes, and up to 10 s while
//     something survives) was SIGKILLed by the next pass, and, when it
//     was a zombie child of the embedding program, reaped from under
//     that program's own wait. The sweep now remembers each killed
//     process's start time with its pid.
//
//	go test -count=1 -run TestRedTeam29 -v ./executor

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

// rt29SpawnAt starts "sleep 60" in a session of its own, with pid pid
// where it can (ns_last_pid: root), and with a start time other than
// before (clock ticks: a pid taken within the same tick as its last
// owner's start cannot be told from it, but a pid comes round again only
// after the machine has used the others, pid_max of them); it reports
// whether it got both.
func rt29SpawnAt(t *testing.T, pid int, before uint64) (*exec.Cmd, bool) {
	t.Helper()
	for range 500 {
		if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(pid-1)), 0); err != nil {
			t.Skipf("ns_last_pid: %v (root in the initial PID namespace is needed)", err)
		}
		cmd := exec.Command("sleep", "60")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if st, err := readProcStat(pid); cmd.Process.Pid == pid && err == nil && st.startTime != before {
			return cmd, true
		}
		// Another process of the machine took the pid first, or the clock
		// has not ticked since the last owner started.
		cmd.Process.Kill()
		cmd.Wait()
	}
	return nil, false
}

// TestRedTeam29ProcessGroupReusedPid: DEFECT (fixed). README: process-group
// containment "kills the command's process group, its session and every
// process carrying the run's SBX_CONTAINMENT_TOKEN"; nothing else. A
// straggler the sweep killed (it carried the token) is reaped, an
// unrelated process (no token, a session of its own) takes its pid, and
// the sweep runs again, as the cleanup's passes do until two in a row
// find nothing: the unrelated process must live.
func TestRedTeam29ProcessGroupReusedPid(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root (ns_last_pid)")
	}
	c, err := newContainer(ContainmentProcessGroup, &config{isDisabled: func(Containment) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	// The run's leader, in a session of its own.
	leader := exec.Command("sleep", "60")
	leader.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { leader.Process.Kill(); leader.Wait() }()
	c.started(&process{pid: leader.Process.Pid, pidfd: -1})

	// A straggler of the run: another session, the run's token.
	straggler := exec.Command("sleep", "60")
	straggler.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	straggler.Env = []string{tokenVar + "=" + c.token}
	if err := straggler.Start(); err != nil {
		t.Fatal(err)
	}
	pid := straggler.Process.Pid
	st, err := readProcStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	if n := c.killStragglers(); n != 1 {
		t.Fatalf("the sweep found %d of the run's processes alive, want 1 (the straggler)", n)
	}
	straggler.Wait() // reaped: its pid is free

	victim, ok := rt29SpawnAt(t, pid, st.startTime)
	if !ok {
		t.Fatalf("could not start a process with the reaped straggler's pid %d", pid)
	}
	if n := c.killStragglers(); n != 0 {
		t.Errorf("the sweep took %d process(es) for the run's, want none", n)
	}
	// Ended now by the test (SIGTERM): a SIGKILL the sweep sent came
	// first, and is what the status shows.
	victim.Process.Signal(syscall.SIGTERM)
	victim.Wait()
	if ws := victim.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("pid %d, an unrelated process (no token, another session) that took the pid of a straggler the sweep had killed and reaped, was killed by the sweep's next pass (%v)", pid, ws.Signal())
	}
}
