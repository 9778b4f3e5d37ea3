//go:build linux && amd64

package launch_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/internal/killpoint"
)

// TestKillPoints SIGKILLs sbx at exact points of its start, under ptrace:
// at the birth of each process sbx's own code creates (its init, the
// command's process, the command of an unsandboxed run, probes and, on
// the command's first mkdir of a missing protected name,
// the supervisor), and at every system call each of those makes until it
// execs or the command runs.
// Nothing may outlive sbx at any point. A randomly timed kill hits the
// narrow ones (a child between its fork and PR_SET_PDEATHSIG) once in
// hundreds of runs; here each is a run of its own.
func TestKillPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("one traced run of sbx per kill point")
	}
	sleep, err := filepath.EvalSymlinks("/bin/sleep")
	if err != nil {
		t.Fatal(err)
	}
	asUser(t, func(t *testing.T, u user) {
		for _, profile := range []string{"danger-full-access", "workspace"} {
			t.Run(profile, func(t *testing.T) {
				base, ws := rt11Dir(t, u)
				// mkdir .git: the workspace's missing protected name starts
				// the supervisor, one more process of sbx's.
				script := "mkdir .git 2>/dev/null; sleep 30"
				var tok string
				newCmd := func(killpoint.Point) *exec.Cmd {
					tok = rt6Token()
					// setpriv, not SysProcAttr.Credential: package syscall's
					// fork changes the ids in a child that shares this
					// process's memory, and the kernel then marks this
					// process not dumpable (TestRedTeam7LibraryManyRuns
					// checks it stays dumpable).
					return rt6Cmd(u, []string{"HOME=/nonexistent-killpoint", "TMPDIR=" + base}, "--profile", profile, "--cwd", ws, "--", "/bin/sh", "-c", script, tok)
				}
				points, err := killpoint.Sweep(newCmd, killpoint.Options{Settle: killpoint.DefaultSettle, Until: sleep}, 16, 2000, func(p killpoint.Point, o killpoint.Outcome) {
					if len(o.Survivors) > 0 {
						t.Errorf("killed at %v (%s): alive after sbx died: %s", p, o.Syscall, strings.Join(o.Survivors, "; "))
					}
					if left := rt11AwaitGone(tok, 3*time.Second); len(left) > 0 {
						t.Errorf("killed at %v (%s): left %v", p, o.Syscall, left)
						rt11KillAll(tok)
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%d kill points", points)
				if points < 3 {
					t.Errorf("only %d kill points: the tracer saw no process start", points)
				}
			})
		}
	})
}
