//go:build linux && (amd64 || arm64)

package launch

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// The supervisor is sbx re-executed (/proc/self/exe): here the test
// binary, which dispatches its hidden argument first, as cmd/sbx does.
func init() {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		RunHelper(os.Args[2:])
	}
}

// workspaceBindings binds the anchors with dir as the working directory
// and a home that does not exist (not dir: a writable home is refused).
func workspaceBindings(t *testing.T, dir string) ir.Bindings {
	t.Helper()
	b, err := landlock.DefaultBindings(dir, func(k string) string {
		if k == "HOME" {
			return "/nonexistent-sbx-home"
		}
		return os.Getenv(k)
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// earlySandbox binds the workspace plan over dir with an init started
// ahead (Prestart), as sbx run does.
func earlySandbox(t *testing.T, dir string) (*Sandbox, *Early) {
	t.Helper()
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plan.Protect {
		if err := os.Mkdir(dir+"/"+p.Name, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b := workspaceBindings(t, dir)
	e, err := Prestart(false, plan, Options{NoSupervisor: true})
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
			e, err := Prestart(false, nil, Options{})
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

// TestEarlyInitOutlivesItsThread: the init is tied to sbx's process, not to
// the thread that cloned it (a parent-death signal would follow that
// thread): started from a locked goroutine whose thread then exits, it
// still runs the command.
func TestEarlyInitOutlivesItsThread(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (PID namespace without a user namespace)")
	}
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	type started struct {
		e   *Early
		tid int
		err error
	}
	ch := make(chan started)
	var st started
	for st.e == nil {
		go func() {
			// Never unlocked: the thread exits with the goroutine, unless
			// it is the main thread, which the runtime keeps.
			runtime.LockOSThread()
			if unix.Gettid() == os.Getpid() {
				ch <- started{}
				return
			}
			e, err := Prestart(false, plan, Options{NoSupervisor: true})
			ch <- started{e, unix.Gettid(), err}
		}()
		if st = <-ch; st.err != nil {
			t.Fatal(st.err)
		}
	}
	defer st.e.Close()
	// Wait (bounded) until the thread is gone.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(st.tid)); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the locked thread did not exit")
		}
		time.Sleep(time.Millisecond)
	}
	dir := t.TempDir()
	b, err := landlock.DefaultBindings(dir, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := New(plan, b, Options{Early: st.e, NoSupervisor: true})
	if err != nil {
		t.Fatal(err)
	}
	if sb.early != st.e {
		t.Fatal("New did not adopt the early init")
	}
	res, err := executor.Run(context.Background(), executor.Request{Argv: []string{"/bin/sh", "-c", "echo alive; exit 4"}, Dir: dir,
		Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 10 * time.Second, Sandbox: sb})
	if err != nil {
		t.Fatal(err)
	}
	if !st.e.taken || res.ExitCode != 4 || string(res.Stdout.Head) != "alive\n" {
		t.Fatalf("taken %v, exit %d, stdout %q, stderr %q", st.e.taken, res.ExitCode, res.Stdout.Head, res.Stderr.Head)
	}
}

// TestEarlyInitNetMismatch: the network namespace is the init's, created
// in its first part from Prestart's prediction. An early init predicted
// without one (the supervisor available) is not adopted by a sandbox whose
// spec asks for one (no supervisor): the run starts an init of its own,
// in a namespace of its own, and the early init is ended.
func TestEarlyInitNetMismatch(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (PID namespace without a user namespace)")
	}
	if !supervisorAvailable() || KernelABI() < 6 {
		t.Skip("without the supervisor and the scopes both predictions ask for the namespace")
	}
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b, err := landlock.DefaultBindings(dir, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Prestart(false, plan, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.newNet {
		t.Fatal("a network namespace was predicted with the supervisor available")
	}
	sb, err := New(plan, b, Options{Early: e, NoSupervisor: true})
	if err != nil {
		t.Fatal(err)
	}
	if !sb.spec.NewNet || sb.early != nil || !e.taken {
		t.Fatalf("new_net %v, adopted %v, taken %v: the mispredicted early init must be ended", sb.spec.NewNet, sb.early != nil, e.taken)
	}
	// The init's entry is read from here, at the start (the sandbox's
	// /proc hides it from the command).
	var initDev []byte
	var initErr error
	res, err := executor.Run(context.Background(), executor.Request{Argv: []string{"/bin/sh", "-c", "grep -c : /proc/self/net/dev"}, Dir: dir,
		Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 10 * time.Second, Sandbox: sb,
		OnStart: func(si executor.StartInfo) {
			initDev, initErr = os.ReadFile("/proc/" + strconv.Itoa(si.LauncherPid) + "/net/dev")
		}})
	if err != nil {
		t.Fatal(err)
	}
	// Only lo, seen from the init's entry and the command's.
	if res.ExitCode != 0 || string(res.Stdout.Head) != "1\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout.Head, res.Stderr.Head)
	}
	if initErr != nil || strings.Count(string(initDev), ":") != 1 {
		t.Fatalf("the init's /proc/PID/net/dev: %v\n%s", initErr, initDev)
	}
}

// TestInitPartsInOrder: an init takes its first part, then its own, each
// once; one aborted before its first part ends without running anything.
func TestInitPartsInOrder(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (PID namespace without a user namespace)")
	}
	before := countFDs(t)
	flags := uint64(unix.CLONE_NEWPID | unix.CLONE_NEWNS | unix.CLONE_NEWIPC)
	h, err := startInit(flags, -1)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.sendInit(newProgram()); err == nil {
		t.Error("the init's part was sent before the first part")
	}
	if err := h.sendPre(newProgram(), lastCapability(), true, false); err != nil {
		t.Fatal(err)
	}
	if err := h.sendPre(newProgram(), lastCapability(), true, false); err == nil {
		t.Error("a second first part was sent")
	}
	if err := h.sendInit(newProgram()); err != nil {
		t.Fatal(err)
	}
	h.abort()
	// Aborted at once: the init reads 'x' where it waits for 'p'.
	h, err = startInit(flags, -1)
	if err != nil {
		t.Fatal(err)
	}
	h.abort()
	if after := countFDs(t); after > before {
		t.Errorf("descriptors: %d before, %d after", before, after)
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
	e, err := Prestart(true, nil, Options{})
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

// viewOf runs a command under sb that prints what the mount view shows of
// /dev, and returns its output with mount ids and device numbers (which
// differ between namespaces and instances) taken out, the mounts sorted.
func viewOf(t *testing.T, sb *Sandbox, dir string) string {
	t.Helper()
	script := `awk '{ $1 = ""; $2 = ""; $3 = ""; print }' /proc/self/mountinfo | sort
stat -c '%n %a %F %t:%T' /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty /dev/ptmx /dev/pts /dev/fd /dev/stdin /dev/stdout /dev/stderr
ls -la /dev/pts | tail -n +2 | awk '{ print $1, $NF }'
echo x > /dev/null && head -c 4 /dev/zero | od -An -tx1
ls /dev 2>&1 | head -1
ls /proc/self/fd
grep -E '^(Cap|NoNewPrivs|Seccomp:)' /proc/self/status`
	res, err := executor.Run(context.Background(), executor.Request{Argv: []string{"/bin/sh", "-c", script}, Dir: dir,
		Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 10 * time.Second, Sandbox: sb})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout.Head, res.Stderr.Head)
	}
	return string(res.Stdout.Head)
}

// TestEarlyPrebuiltMask: with the plan, the early init builds the mask of
// /dev while the profile is bound, and the view it attaches is the view a
// sandbox without an early init builds: same mounts with the same flags,
// same device nodes and links, a working private devpts, an unlistable
// /dev, and no descriptor of the mask left to the command.
func TestEarlyPrebuiltMask(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (PID namespace without a user namespace)")
	}
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b, err := landlock.DefaultBindings(dir, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := New(plan, b, Options{NoSupervisor: true})
	if err != nil {
		t.Fatal(err)
	}
	want := viewOf(t, plain, dir)
	for i := 0; i < 3; i++ {
		e, err := Prestart(false, plan, Options{NoSupervisor: true})
		if err != nil {
			t.Fatal(err)
		}
		if e.pre == nil {
			e.Close()
			t.Fatal("no mask was prebuilt for the workspace plan")
		}
		sb, err := New(plan, b, Options{Early: e, NoSupervisor: true})
		if err != nil {
			e.Close()
			t.Fatal(err)
		}
		got := viewOf(t, sb, dir)
		e.Close()
		if !e.pre.used {
			t.Fatal("the prebuilt mask was not used")
		}
		if got != want {
			t.Fatalf("the view with the prebuilt mask differs:\n--- prebuilt\n%s\n--- built in the init's part\n%s", got, want)
		}
	}
	if !strings.Contains(want, "ptmx") || !strings.Contains(want, "Permission denied") || !strings.Contains(want, "00 00 00 00") {
		t.Fatalf("unexpected view:\n%s", want)
	}
	// The first part of either init emptied the bounding and ambient sets
	// (compileBoundingDrop), the command's part the others.
	for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if !strings.Contains(want, set+":\t0000000000000000\n") {
			t.Errorf("%s is not empty in the command:\n%s", set, want)
		}
	}
}

// TestEarlyPrebuiltMaskDiscarded: an early init that prebuilt the mask of
// /dev for one plan, adopted for a plan that masks nothing there (it
// reads /usr only), discards the mask: the command's view has the host's
// /dev under the read-only base, and none of the mask's descriptors.
func TestEarlyPrebuiltMaskDiscarded(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (PID namespace without a user namespace)")
	}
	workspace, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	narrow := *workspace
	narrow.Rules = nil
	for _, r := range workspace.Rules {
		if r.Path.Anchor == ir.AnchorRoot && r.Path.Rel == "" {
			r.Path.Rel = "usr"
		}
		narrow.Rules = append(narrow.Rules, r)
	}
	dir := t.TempDir()
	b, err := landlock.DefaultBindings(dir, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Prestart(false, workspace, Options{NoSupervisor: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sb, err := New(&narrow, b, Options{Early: e, NoSupervisor: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := executor.Run(context.Background(), executor.Request{Argv: []string{"/usr/bin/env", "sh", "-c", "ls /proc/self/fd; grep -c ' /dev ' /proc/self/mountinfo"},
		Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 10 * time.Second, Sandbox: sb})
	if err != nil {
		t.Fatal(err)
	}
	if !e.pre.used {
		t.Fatal("the prebuilt mask was neither used nor discarded")
	}
	out := strings.Fields(string(res.Stdout.Head))
	if res.ExitCode != 0 || len(out) < 2 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout.Head, res.Stderr.Head)
	}
	// ls shows 0, 1, 2 and its own directory descriptor; the count is the
	// host's /dev mount, not a mask's tmpfs.
	if fds := out[:len(out)-1]; len(fds) > 4 {
		t.Errorf("descriptors in the command: %v", fds)
	}
	if out[len(out)-1] != "1" {
		t.Errorf("/dev mounts in the view: %s, want the host's one", out[len(out)-1])
	}
}

// TestExitsAfterLingers: with ExitsAfter (sbx run: the process exits
// right after the run), the init that reported the end stays until sbx's
// process exits, so that its teardown comes after that exit; the run's
// result is complete meanwhile. Here the process goes on, so the init is
// still there after Run, blocked; killed, it is reaped.
func TestExitsAfterLingers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (PID namespace without a user namespace)")
	}
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b, err := landlock.DefaultBindings(dir, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := New(plan, b, Options{NoSupervisor: true, ExitsAfter: true})
	if err != nil {
		t.Fatal(err)
	}
	// The init is the process the executor started (LauncherPid); the
	// result's pid is the command's.
	initPid := 0
	res, err := executor.Run(context.Background(), executor.Request{Argv: []string{"/bin/sh", "-c", "echo done; exit 4"}, Dir: dir,
		Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 10 * time.Second, Sandbox: sb, ExitsAfter: true,
		OnStart: func(si executor.StartInfo) { initPid = si.LauncherPid }})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 4 || string(res.Stdout.Head) != "done\n" {
		t.Fatalf("exit %d, stdout %q", res.ExitCode, res.Stdout.Head)
	}
	// The init reported the end and goes to sleep waiting for this
	// process's exit: poll until it sleeps (it must not exit meanwhile).
	var st []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		st, err = os.ReadFile("/proc/" + strconv.Itoa(initPid) + "/stat")
		if err != nil {
			t.Fatalf("the init is gone: %v", err)
		}
		if f := strings.Fields(string(st)); len(f) >= 3 && f[2] == "S" || time.Now().After(deadline) {
			break
		}
	}
	if f := strings.Fields(string(st)); len(f) < 3 || f[2] != "S" {
		t.Fatalf("the init is not waiting: %s", st)
	}
	syscall.Kill(initPid, syscall.SIGKILL)
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(initPid, &ws, 0, nil); err != nil || !ws.Signaled() {
		t.Fatalf("reaping the init: %v %v", ws, err)
	}
}

// TestAbsentStillMissing: a protected name missing when the profile was
// bound and created before the run starts (a directory, a dangling link, a
// file) refuses the run with the name, and nothing runs; missing again,
// the same Sandbox runs. On ext4 (the test's temporary directory here) and
// tmpfs (/dev/shm).
func TestAbsentStillMissing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (PID namespace without a user namespace)")
	}
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	shm, err := os.MkdirTemp("/dev/shm", "sbx-absent-")
	if err != nil {
		t.Skip("no /dev/shm:", err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	for _, dir := range []string{t.TempDir(), shm} {
		sb, err := New(plan, workspaceBindings(t, dir), Options{NoSupervisor: true})
		if err != nil {
			t.Fatal(err)
		}
		run := func() (*executor.Result, error) {
			return executor.Run(context.Background(), executor.Request{
				Argv: []string{"/bin/sh", "-c", "echo ran"}, Dir: dir,
				Env: []string{"PATH=/usr/bin:/bin"}, Timeout: 10 * time.Second, Sandbox: sb})
		}
		for _, tc := range []struct {
			name   string
			create func(p string) error
		}{
			{".git", func(p string) error { return os.Mkdir(p, 0o755) }},
			{".hg", func(p string) error { return os.Symlink("/nonexistent-target", p) }},
			{".mise.toml", func(p string) error { return os.WriteFile(p, nil, 0o644) }},
		} {
			p := filepath.Join(dir, tc.name)
			if err := tc.create(p); err != nil {
				t.Fatal(err)
			}
			res, err := run()
			if err == nil && res != nil && strings.Contains(string(res.Stdout.Head), "ran") {
				t.Errorf("%s created after binding: the command ran", p)
			} else if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "was created after the profile was bound") {
				t.Errorf("%s created after binding: %v, want an error naming it", p, err)
			}
			os.Remove(p)
		}
		res, err := run()
		if err != nil || !strings.Contains(string(res.Stdout.Head), "ran") {
			t.Fatalf("%s with the names missing again: %v, %v", dir, res, err)
		}
	}
}
