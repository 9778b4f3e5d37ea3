//go:build linux && (amd64 || arm64)

package launch

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// The supervisor is sbx re-executed (/proc/self/exe): here the test
// binary, which dispatches its hidden argument first, as cmd/sbx does.
func init() {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		RunHelper(os.Args[2:])
	}
}

// earlySandbox binds the workspace plan over dir with an init started
// ahead (Prestart), as sbx run does.
func earlySandbox(t *testing.T, dir string) (*Sandbox, *Early) {
	t.Helper()
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{".git", ".hg", ".svn", ".jj", ".agents"} {
		if err := os.Mkdir(dir+"/"+n, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := landlock.DefaultBindings(dir, func(k string) string {
		if k == "HOME" {
			return dir
		}
		return os.Getenv(k)
	})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Prestart(false)
	if err != nil {
		t.Fatal(err)
	}
	// No supervisor (a re-executed sbx, which this test binary is not): the
	// protected names present in dir keep it creatable, and the early init
	// also creates the network namespace (network none without it).
	sb, err := New(plan, b, Options{Early: e, NoSupervisor: true})
	if err != nil {
		e.Close()
		t.Fatal(err)
	}
	return sb, e
}

// children lists this process's child processes.
func children(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/task/" + strings.TrimSpace(readSelfTID()) + "/children")
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

func readSelfTID() string {
	b, _ := os.ReadFile("/proc/thread-self/stat")
	return strings.Fields(string(b))[0]
}

// TestEarlyInitRuns: a run takes the early init (it is then spent), the
// sandbox holds (a write outside the workspace fails), and a second run of
// the same Sandbox starts an init of its own.
func TestEarlyInitRuns(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (PID namespace without a user namespace)")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	dir := t.TempDir()
	sb, e := earlySandbox(t, dir)
	defer e.Close()
	if sb.early != e {
		t.Fatal("New did not adopt the early init")
	}
	for i := 0; i < 2; i++ {
		res, err := executor.Run(context.Background(), executor.Request{
			Argv: []string{"/bin/sh", "-c", "echo ok > f; echo x > /etc/sbx-early-test; echo $?"}, Dir: dir,
			Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 10 * time.Second, Sandbox: sb})
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if res.ExitCode != 0 || strings.TrimSpace(string(res.Stdout.Head)) == "0" {
			t.Fatalf("run %d: exit %d, stdout %q, stderr %q: the write outside the workspace must fail", i, res.ExitCode, res.Stdout.Head, res.Stderr.Head)
		}
		if i == 0 && !e.taken {
			t.Fatal("the first run did not take the early init")
		}
	}
	if b, err := os.ReadFile(dir + "/f"); err != nil || string(b) != "ok\n" {
		t.Fatalf("write inside the workspace: %q, %v", b, err)
	}
}

// TestEarlyInitClosed: an early init that no run takes ends with Close,
// after New gave it its part (mounts) or before; nothing is left behind.
func TestEarlyInitClosed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (PID namespace without a user namespace)")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := countFDs(t)
	for i := 0; i < 50; i++ {
		if i%2 == 0 {
			_, e := earlySandbox(t, t.TempDir())
			e.Close()
			e.Close() // twice: a no-op
		} else {
			e, err := Prestart(false)
			if err != nil {
				t.Fatal(err)
			}
			e.Close()
		}
	}
	if after := countFDs(t); after > before {
		t.Errorf("descriptors: %d before, %d after 50 closed early inits", before, after)
	}
	if c := children(t); len(c) > 0 {
		t.Errorf("children left: %v", c)
	}
}

// TestEarlyInitMismatch: an early init prepared for another containment
// (a user namespace here) is closed by Spawn, which starts its own.
func TestEarlyInitMismatch(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b, err := landlock.DefaultBindings(dir, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Prestart(true)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sb, err := New(plan, b, Options{Early: e})
	if err != nil {
		t.Fatal(err)
	}
	res, err := executor.Run(context.Background(), executor.Request{Argv: []string{"/bin/sh", "-c", "id -u"}, Dir: dir,
		Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 10 * time.Second, Sandbox: sb})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || strings.TrimSpace(string(res.Stdout.Head)) != "0" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout.Head, res.Stderr.Head)
	}
	if !e.taken {
		t.Fatal("the mismatched early init was not closed")
	}
}

func countFDs(t *testing.T) int {
	t.Helper()
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(des)
}
