//go:build linux && (amd64 || arm64)

package executor

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/internal/killpoint"
)

// TestKillPoints SIGKILLs an executor (the test binary's helper mode) at
// the birth of each process it creates and at every system call those
// make before they exec (see package killpoint): with PID-namespace
// containment nothing may outlive it. (With cgroup containment the rest of
// the cgroup waits for the next run, TestKilledExecutor; process-group
// containment promises nothing then.)
func TestKillPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("one traced run per kill point")
	}
	sleep, err := filepath.EvalSymlinks("/bin/sleep")
	if err != nil {
		t.Fatal(err)
	}
	var token string
	newCmd := func(killpoint.Point) *exec.Cmd {
		token = nonce()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"="+string(ContainmentPIDNamespace), helperScriptEnv+"=sleep 30; : "+token)
		return cmd
	}
	points, err := killpoint.Sweep(newCmd, killpoint.Options{Settle: killpoint.DefaultSettle, Until: sleep}, 8, 500, func(p killpoint.Point, o killpoint.Outcome) {
		if len(o.Survivors) > 0 {
			t.Errorf("killed at %v (%s): alive after the executor died: %s", p, o.Syscall, strings.Join(o.Survivors, "; "))
		}
		if pids := withToken(token); len(pids) > 0 {
			t.Errorf("killed at %v: processes of the command left: %v", p, pids)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d kill points", points)
	if points < 3 {
		t.Errorf("only %d kill points: the tracer saw no process start", points)
	}
}
