//go:build linux

package launch_test

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestInitLingersUntilSbxExits: sbx run (its caller exits right after the
// run) leaves its sandbox's init, which reported the command's end, to
// exit after sbx: the init must then end by itself, promptly, with the
// command's status, whatever the command did (a clean exit, a failure, a
// signal), and nothing else of the run may be left. The test process is a
// child subreaper meanwhile, so that the orphaned init becomes its child.
func TestInitLingersUntilSbxExits(t *testing.T) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	for _, tc := range []struct {
		script string
		code   int // the command's, and the init's exit status
	}{
		{"exit 0", 0},
		{"exit 7", 7},
		{"sleep 60 & sleep 60 & exit 3", 3},
		{"kill -TERM $$", 128 + 15},
	} {
		cmd := exec.Command(filepath.Join(bin, "sbx"), "run", "--cwd", t.TempDir(), "--", "/bin/sh", "-c", tc.script)
		err := cmd.Run()
		if got := cmd.ProcessState.ExitCode(); got != tc.code {
			t.Fatalf("%q: sbx exited %d (%v), want %d", tc.script, got, err, tc.code)
		}
		// The orphaned init: one child, which exits by itself.
		deadline := time.Now().Add(5 * time.Second)
		var reaped []int
		for time.Now().Before(deadline) {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG|unix.WALL, nil)
			if err == unix.ECHILD {
				break
			}
			if pid > 0 {
				reaped = append(reaped, pid)
				if ws.ExitStatus() != tc.code {
					t.Errorf("%q: the init exited with %v, want %d", tc.script, ws, tc.code)
				}
				continue
			}
			time.Sleep(time.Millisecond)
		}
		if len(reaped) != 1 {
			t.Fatalf("%q: %d orphans reaped (%v), want the init alone", tc.script, len(reaped), reaped)
		}
		if err := syscall.Kill(reaped[0], 0); err != syscall.ESRCH {
			t.Errorf("%q: the init's pid %d still exists: %v", tc.script, reaped[0], err)
		}
	}
}
