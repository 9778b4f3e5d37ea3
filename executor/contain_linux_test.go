package executor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// escapes starts processes running "sleep $TOKEN" in every way a command
// can try to outlive its parent, then becomes one itself: 4 in total.
const escapes = `sleep $TOKEN &
setsid sleep $TOKEN &
(sh -c 'sleep $TOKEN &' &)
echo spawned
exec sleep $TOKEN
`

// TestKilledExecutor SIGKILLs a process running the executor and checks
// that nothing the command started survives: at once under PID-namespace
// containment, at the next run under cgroup containment.
func TestKilledExecutor(t *testing.T) {
	for _, c := range []Containment{ContainmentPIDNamespace, ContainmentCgroup} {
		t.Run(modeName(c), func(t *testing.T) {
			// Under cgroup containment the helpers run in a cgroup of the
			// test's own: every executor run clears the leftovers of dead
			// executors in its parent cgroup, and go test runs other
			// packages' executors beside this one, which would clear the
			// leftovers this test counts before it counts them.
			cgroupDir, cgroupFD := "", -1
			if c == ContainmentCgroup {
				cgroupDir, cgroupFD = testCgroup(t)
			}
			startHelper := func(script string, token string) (*exec.Cmd, io.ReadCloser) {
				t.Helper()
				helper := exec.Command(os.Args[0], "-test.run=^$")
				helper.Env = append(os.Environ(), helperEnv+"="+string(c), helperScriptEnv+"="+script, "TOKEN="+token)
				if cgroupFD >= 0 {
					helper.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: cgroupFD}
				}
				out, err := helper.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				helper.Stderr = os.Stderr
				if err := helper.Start(); err != nil {
					t.Fatal(err)
				}
				return helper, out
			}
			token := nonce()
			helper, out := startHelper(escapes, token)
			defer helper.Wait()
			defer helper.Process.Kill()
			sc := bufio.NewScanner(out)
			for sc.Scan() && sc.Text() != "spawned" {
			}
			if _, err := waitCount(token, 4, 20*time.Second); err != nil {
				t.Fatal(err)
			}
			if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			helper.Wait()

			if c == ContainmentCgroup {
				// The leader dies with the executor (parent-death signal);
				// the rest waits in the orphaned cgroup for the next run.
				if _, err := waitCount(token, 3, 20*time.Second); err != nil {
					t.Fatalf("before the next run: %v", err)
				}
				leftovers, _ := filepath.Glob(filepath.Join(cgroupDir, fmt.Sprintf("%s%d-*", cgroupPrefix, helper.Process.Pid)))
				if len(leftovers) != 1 {
					t.Fatalf("leftover cgroups of the killed executor: %v", leftovers)
				}
				next, out := startHelper("true", nonce())
				io.Copy(io.Discard, out)
				if err := next.Wait(); err != nil {
					t.Fatalf("the next run: %v", err)
				}
				if _, err := os.Stat(leftovers[0]); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("leftover cgroup %s not removed: %v", leftovers[0], err)
				}
			}
			waitGone(t, token, 20*time.Second)
		})
	}
}

// testCgroup creates a cgroup below the test's own for helper processes,
// opened for clone3's CLONE_INTO_CGROUP; it is killed and removed when the
// test ends. The test is skipped when this user cannot create cgroups.
func testCgroup(t *testing.T) (dir string, fd int) {
	t.Helper()
	parent, err := ownCgroupDir()
	if err != nil {
		t.Skipf("cgroup containment unavailable: %v", err)
	}
	// Not cgroupPrefix: executors clearing leftovers must not touch it.
	dir = filepath.Join(parent, fmt.Sprintf("sbxtest-%d-%s", os.Getpid(), nonce()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cgroup containment unavailable: %v", err)
	}
	fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Close(fd)
		cg := &cgroup{dir: dir, fd: -1}
		if err := cg.destroy(); err != nil {
			t.Errorf("removing the test cgroup: %v", err)
		}
	})
	return dir, fd
}

func TestFallbackChain(t *testing.T) {
	cgroupOK := true
	if cg, err := newCgroup(); err != nil {
		cgroupOK = false
	} else {
		cg.destroy()
	}
	for _, tc := range []struct {
		name        string
		unavailable []Containment
		degraded    bool
		force       Containment
		want        Containment // "" = ErrNoContainment
		needCgroup  bool
	}{
		{name: "auto prefers pid namespace", want: ContainmentPIDNamespace},
		{name: "no pid namespace", unavailable: []Containment{ContainmentPIDNamespace}, want: ContainmentCgroup, needCgroup: true},
		{name: "nothing available fails closed", unavailable: []Containment{ContainmentPIDNamespace, ContainmentCgroup}},
		{name: "degraded when allowed", unavailable: []Containment{ContainmentPIDNamespace, ContainmentCgroup}, degraded: true, want: ContainmentProcessGroup},
		{name: "forced mechanism unavailable", force: ContainmentCgroup, unavailable: []Containment{ContainmentCgroup}, degraded: true},
		{name: "job object is not on Linux", force: ContainmentJobObject},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needCgroup && !cgroupOK {
				t.Skip("cgroup containment unavailable to this user")
			}
			marker := filepath.Join(t.TempDir(), "ran")
			res, err := Run(context.Background(), Request{
				Argv:          []string{"touch", marker},
				Env:           testEnv(),
				Containment:   tc.force,
				AllowDegraded: tc.degraded,
				unavailable:   tc.unavailable,
			})
			if tc.want == "" {
				if !errors.Is(err, ErrNoContainment) {
					t.Fatalf("err = %v, want ErrNoContainment", err)
				}
				if tc.force == "" && (!strings.Contains(err.Error(), "Delegate=yes") || !strings.Contains(err.Error(), "--allow-degraded") || !strings.Contains(err.Error(), "user namespaces")) {
					t.Errorf("the error does not say what to enable: %v", err)
				}
				if _, err := os.Stat(marker); err == nil {
					t.Fatal("the command ran without containment")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Containment != tc.want || res.ExitCode != 0 {
				t.Fatalf("containment %s exit %d, want %s", res.Containment, res.ExitCode, tc.want)
			}
			if (tc.want == ContainmentProcessGroup) != strings.Contains(res.ContainmentNote, "degraded") {
				t.Errorf("note %q", res.ContainmentNote)
			}
		})
	}
}

func TestCgroupRemovedAfterRun(t *testing.T) {
	parent, err := ownCgroupDir()
	if err != nil {
		t.Skip(err)
	}
	res, err := Run(context.Background(), Request{Argv: []string{"sh", "-c", "sleep 60 & echo x"}, Env: testEnv(), Containment: ContainmentCgroup})
	if errors.Is(err, ErrNoContainment) {
		t.Skip(err)
	}
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("err %v exit %d", err, res.ExitCode)
	}
	mine, _ := filepath.Glob(filepath.Join(parent, fmt.Sprintf("%s%d-*", cgroupPrefix, os.Getpid())))
	if len(mine) != 0 {
		t.Fatalf("cgroups left behind: %v", mine)
	}
}

func TestLeftoverCleanupSparesLiveOwners(t *testing.T) {
	parent, err := ownCgroupDir()
	if err != nil {
		t.Skip(err)
	}
	start, err := procStartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(parent, fmt.Sprintf("%s%d-%d-feedface", cgroupPrefix, os.Getpid(), start))
	// The same pid with another start time is a dead owner whose pid was reused.
	dead := filepath.Join(parent, fmt.Sprintf("%s%d-%d-deadbeef", cgroupPrefix, os.Getpid(), start+1))
	for _, d := range []string{live, dead} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Skipf("cannot create cgroups: %v", err)
		}
	}
	defer removeCgroup(live)
	defer removeCgroup(dead)
	cleanupLeftovers()
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the cgroup of a live owner was removed: %v", err)
	}
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cgroup of a dead owner was kept: %v", err)
	}
}

// TestForkingThreadOutlivesCommand checks that the parent-death signal is
// not triggered by the Go runtime ending threads: goroutines that exit while
// locked to their thread make the runtime end those threads, and the
// executor must not have forked from one of them.
func TestForkingThreadOutlivesCommand(t *testing.T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				done := make(chan struct{})
				go func() {
					runtime.LockOSThread() // never unlocked: the thread ends
					close(done)
				}()
				<-done
			}
		}()
	}
	defer wg.Wait()
	defer close(stop)
	results := make(chan *Result, 16)
	for range 16 {
		go func() {
			res, err := Run(context.Background(), Request{Argv: []string{"sleep", "0.3"}, Env: testEnv()})
			if err != nil {
				t.Error(err)
			}
			results <- res
		}()
	}
	for range 16 {
		if res := <-results; res != nil && res.ExitCode != 0 {
			t.Errorf("exit %d signal %q: killed by the parent-death signal", res.ExitCode, res.SignalName())
		}
	}
}

// TestNoContainmentHint checks that the hint suggests --allow-degraded
// only where it would help: containment auto without it.
func TestNoContainmentHint(t *testing.T) {
	for _, c := range []struct {
		containment Containment
		degraded    bool
		want, not   string
	}{
		{ContainmentAuto, false, "accept degraded process-group containment (--allow-degraded)", "another containment"},
		{ContainmentAuto, true, "delegated cgroup v2", "--allow-degraded"},
		{ContainmentCgroup, true, "another containment than cgroup", "accept degraded"},
		{ContainmentCgroup, false, "another containment than cgroup", "accept degraded"},
		{ContainmentPIDNamespace, false, "another containment than pid-namespace", "accept degraded"},
	} {
		h := noContainmentHint(&config{Request: Request{Containment: c.containment, AllowDegraded: c.degraded}}, false)
		if !strings.Contains(h, c.want) || strings.Contains(h, c.not) {
			t.Errorf("containment %s, allow degraded %v: hint %q: want %q and not %q", c.containment, c.degraded, h, c.want, c.not)
		}
	}
}
