//go:build linux && amd64

package launch_test

// Red team 27 (embedding host): what a program that embeds executor.Run
// with the Landlock sandbox (launch.New) experiences, in process and as a
// separate host program (rt27mEmbedder), as root and as uid 65534.
//
//   - FINDING: TestRedTeam27EmbedHelperNotDispatched — an embedding program
//     that does not dispatch launch.HelperArg at the top of its main (the
//     README never says it must) has its own main re-executed as the
//     sandbox's supervisor on the command's first supervised call;
//   - held: TestRedTeam27EmbedHeld.
//
//	go test -count=1 -run 'TestRedTeam27Embed' -v ./targets/landlock/launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/targets/landlock"
	"github.com/sbx-dev/sbx/targets/landlock/launch"
)

// rt27mSandbox binds the built-in workspace profile over ws, as the
// README's embedding example and rt26Embedder do.
func rt27mSandbox(t *testing.T, ws string) executor.Sandbox {
	t.Helper()
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	b, err := landlock.DefaultBindings(ws, func(k string) string {
		if k == "HOME" {
			return "/nonexistent-sbx-home"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := launch.New(plan, b, launch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

func rt27mReq(sb executor.Sandbox, ws, script string) executor.Request {
	return executor.Request{Argv: []string{"/bin/sh", "-c", script}, Dir: ws, Env: []string{"PATH=/usr/bin:/bin"},
		Sandbox: sb, Timeout: 30 * time.Second}
}

func rt27mFDs() int {
	e, _ := os.ReadDir("/proc/self/fd")
	return len(e)
}

func rt27mChildren() []string {
	var out []string
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, e := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + e.Name() + "/children")
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

// rt27mSettled waits (bounded) until descriptors and goroutines are back
// to fds and gs and no child is left (the launcher of a run is reaped in
// the background after Run returns: EndReporter).
func rt27mSettled(fds, gs int) (int, int, []string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		f, g, k := rt27mFDs(), runtime.NumGoroutine(), rt27mChildren()
		if (f <= fds && g <= gs && len(k) == 0) || time.Now().After(deadline) {
			return f, g, k
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func rt27mRSS() int {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	return 0
}

// rt27mThreadFlags returns the NoNewPrivs and Seccomp values of every
// thread of this process that are not 0.
func rt27mThreadFlags() []string {
	var out []string
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, e := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + e.Name() + "/status")
		for _, l := range strings.Split(string(b), "\n") {
			if (strings.HasPrefix(l, "NoNewPrivs:") || strings.HasPrefix(l, "Seccomp:")) && !strings.HasSuffix(l, "\t0") {
				out = append(out, e.Name()+" "+l)
			}
		}
	}
	return out
}

// rt27mEmbedder is a host program embedding the executor and the Landlock
// sandbox. argv: MODE WS SCRIPT OUTSIDE. MODE puts the host in a state an
// embedding host may be in first: "plain", "nnp" (no_new_privs on every
// thread), "landlock" (no_new_privs and a Landlock domain of its own,
// handling file writes and allowing them everywhere). It runs SCRIPT three
// times under the workspace profile over WS, then writes into OUTSIDE (not
// a root of the sandbox) from 16 threads. DISPATCH is what it does with
// the helper's argument.
const rt27mEmbedder = `package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/targets/landlock"
	"github.com/sbx-dev/sbx/targets/landlock/launch"
)

var _ = time.Second

func status(key string) string {
	var vals []string
	ents, _ := os.ReadDir("/proc/self/task")
	for _, e := range ents {
		b, _ := os.ReadFile("/proc/self/task/" + e.Name() + "/status")
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, key+":") {
				vals = append(vals, strings.TrimSpace(l[len(key)+1:]))
			}
		}
	}
	return strings.Join(vals, ",")
}

func word(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, " ", "_"), "\n", "_") }

func main() {
	if len(os.Args) > 1 && os.Args[1] == launch.HelperArg {
		DISPATCH
	}
	mode, dir, script, outside := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	switch mode {
	case "nnp", "landlock":
		if _, _, e := syscall.AllThreadsSyscall(syscall.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0); e != 0 {
			fmt.Println("setup=nnp", e)
			return
		}
	}
	if mode == "landlock" {
		attr := unix.LandlockRulesetAttr{Handled_access_fs: unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_REG}
		rs, _, e := syscall.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), 24, 0)
		if e != 0 {
			fmt.Println("setup=ruleset", e)
			return
		}
		root, _ := unix.Open("/", unix.O_PATH|unix.O_CLOEXEC, 0)
		pb := unix.LandlockPathBeneathAttr{Allowed_access: attr.Handled_access_fs, Parent_fd: int32(root)}
		if _, _, e := syscall.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, rs, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&pb)), 0, 0, 0); e != 0 {
			fmt.Println("setup=rule", e)
			return
		}
		if _, _, e := syscall.AllThreadsSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, rs, 0, 0); e != 0 {
			fmt.Println("setup=restrict", e)
			return
		}
	}
	if mode == "closed012" {
		// A daemon: no standard streams. Results go to a copy of stdout.
		out, _ := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 100)
		os.Stdout = os.NewFile(uintptr(out), "out")
		unix.Close(0)
		unix.Close(1)
		unix.Close(2)
	}
	fmt.Printf("setup=ok\nnnp_before=%s\nseccomp_before=%s\n", status("NoNewPrivs"), status("Seccomp"))
	plan, err := builtin.Plan("workspace")
	if err != nil {
		panic(err)
	}
	b, err := landlock.DefaultBindings(dir, func(k string) string {
		if k == "HOME" {
			return "/nonexistent-sbx-home"
		}
		return ""
	})
	if err != nil {
		panic(err)
	}
	sb, err := launch.New(plan, b, launch.Options{})
	if err != nil {
		fmt.Println("new_err=" + word(err.Error()))
		return
	}
	ok, sandboxErr := 0, 0
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		r, err := executor.Run(context.Background(), executor.Request{Argv: []string{"/bin/sh", "-c", script}, Dir: dir,
			Env: []string{"PATH=/usr/bin:/bin"}, Sandbox: sb, Timeout: 20e9})
		fmt.Printf("run_ms=%d\n", time.Since(t0).Milliseconds())
		if err != nil {
			fmt.Println("run_err=" + word(err.Error()))
			if errors.Is(err, executor.ErrSandbox) {
				sandboxErr++
			}
			continue
		}
		fmt.Printf("exit=%d\nsandbox_error=%s\n%s", r.ExitCode, word(r.SandboxError), r.Stdout.Head)
		if r.ExitCode == 0 && strings.Contains(string(r.Stdout.Head), "made=yes") {
			ok++
		}
	}
	fmt.Printf("runs_ok=%d\nruns_errsandbox=%d\n", ok, sandboxErr)
	if r, err := executor.Run(context.Background(), executor.Request{Argv: []string{"/bin/sh", "-c", "echo unsb; echo e >&2"}, Dir: dir,
		Env: []string{"PATH=/usr/bin:/bin"}}); err == nil && r.ExitCode == 0 && string(r.Stdout.Head) == "unsb\n" && string(r.Stderr.Head) == "e\n" {
		fmt.Println("unsandboxed_ok=1")
	} else {
		fmt.Printf("unsandboxed_ok=0 %v %+v\n", err, r)
	}
	fmt.Printf("nnp_after=%s\nseccomp_after=%s\n", status("NoNewPrivs"), status("Seccomp"))
	var wg sync.WaitGroup
	var mu sync.Mutex
	bad := 0
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread() // a thread of its own; not unlocked: it ends with the goroutine
			if err := os.WriteFile(fmt.Sprintf("%s/host%d", outside, i), []byte("x"), 0o644); err != nil {
				mu.Lock()
				bad++
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	fmt.Printf("host_write_fail=%d\n", bad)
}
`

// rt27mDispatch dispatches the helper's argument as cmd/sbx does.
const rt27mDispatch = "launch.RunHelper(os.Args[2:])"

// rt27mNoDispatch is a host that never heard of the helper's argument:
// its own main goes on (here: it leaves a mark saying what it is and where
// it runs, and works for two seconds, as a host's main does).
const rt27mNoDispatch = `nnp, _ := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
		sec, _ := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
		os.WriteFile("MARK", []byte(fmt.Sprintf("host main ran again: argv %q, pid %d, uid %d, no_new_privs %d, seccomp mode %d", os.Args, os.Getpid(), os.Getuid(), nnp, sec)), 0o644)
		time.Sleep(2 * time.Second)
		os.Exit(0)`

// rt27mBuildEmbedder builds rt27mEmbedder (with dispatch in place of
// DISPATCH) against this module, CGO_ENABLED=0 (AllThreadsSyscall), into a
// directory every user can read, or skips.
func rt27mBuildEmbedder(t *testing.T, dispatch string) string {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o755)
	gomod := "module rt27memb\n\ngo 1.26\n\nrequire (\n\tgithub.com/sbx-dev/sbx v0.0.0\n\tgolang.org/x/sys v0.50.0\n)\n\nreplace github.com/sbx-dev/sbx => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(rt27mEmbedder, "DISPATCH", dispatch, 1)
	src = strings.Replace(src, "\"context\"\n", "\"context\"\n\t\"errors\"\n", 1)
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": []byte(src)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "-o", "emb", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("cannot build the embedding program: %v\n%s", err, out)
	}
	return filepath.Join(dir, "emb")
}

// rt27mHost runs the embedder as u and returns its k=v fields.
func rt27mHost(t *testing.T, emb string, u user, mode, ws, script, outside string) map[string]string {
	t.Helper()
	argv := []string{emb, mode, ws, script, outside}
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}
	out, err := cmd.CombinedOutput()
	t.Logf("%s %s: %v\n%s", u.name, mode, err, out)
	if ctx.Err() != nil {
		t.Fatalf("the embedding program hung")
	}
	return rx13Fields(string(out))
}

// rt27mOutside is a directory every user may write, outside the
// workspace profile's writable roots (ws, /tmp) and read-only in the
// sandbox's view.
func rt27mOutside(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "rt27m")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(d, 0o777)
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// TestRedTeam27EmbedHelperNotDispatched: FINDING (fails on the current
// code), as root and as uid 65534.
//
// The sandbox's seccomp supervisor is "sbx re-executed
// (__sbx-landlock-helper supervise)": /proc/self/exe, which in a program
// that embeds the library is the host program. cmd/sbx and the package's
// own tests dispatch launch.HelperArg first thing in main/init; nothing
// tells an embedder to: the README's "Using the executor from Go" shows
// `Sandbox: sb // from a platform launcher` and never names HelperArg or
// RunHelper, launch.New accepts a program that does not dispatch it, and
// rt26Embedder (a test) is the only example. In such a host, the first
// supervised call of the command (here `echo x > made`, a file creation
// in the workspace) re-executes the host's own main with argv
// ["sbx", "__sbx-landlock-helper", "supervise", "-ra", "11", <guarded
// paths>...] in the sandbox's user, mount and IPC namespaces, outside its
// PID namespace, without the command's Landlock domain or seccomp filter
// (with CAP_SYS_PTRACE and CAP_SETPCAP ambient when unprivileged). Seen:
// the host's main runs again and writes (its mark lands in /tmp, a
// writable root of the view); the command's creation waits as long as
// that main runs (2 s here; a server's main: until the run's timeout),
// then fails (exit 2, no SandboxError when the host's main exits 0), and
// no error tells the embedder why. A command can trigger this at will
// (any creation), so it can make the host's main run any number of times.
//
// Expected: the host's code never runs as the supervisor unless the host
// asked for it; a sandbox that needs a supervisor the program cannot
// start fails closed with ErrSandbox at launch.New (or Run) naming
// HelperArg/RunHelper.
//
// Fix direction: dispatch in the package itself (an init func in
// targets/landlock/launch/helper_linux.go: `if len(os.Args) > 1 &&
// os.Args[1] == HelperArg { RunHelper(os.Args[2:]) }`, which runs before
// any importer's main), or have New refuse a supervised plan unless the
// program registered the dispatch (launch.Main() called from main); and
// document the requirement in the README's embedding section.
func TestRedTeam27EmbedHelperNotDispatched(t *testing.T) {
	markDir, err := os.MkdirTemp("/tmp", "rt27m")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(markDir)
	os.Chmod(markDir, 0o777)
	mark := filepath.Join(markDir, "mark")
	emb := rt27mBuildEmbedder(t, strings.Replace(rt27mNoDispatch, "MARK", mark, 1))
	asUser(t, func(t *testing.T, u user) {
		os.Remove(mark)
		f := newFixture(t, u)
		got := rt27mHost(t, emb, u, "plain", f.ws, "echo ran=yes; echo x > made && echo made=yes", rt27mOutside(t))
		if got["ran"] != "yes" {
			t.Fatalf("control: the sandboxed command did not run: %v", got)
		}
		if b, err := os.ReadFile(mark); err == nil {
			t.Errorf("as %s: the embedding host's own main was re-executed as the sandbox's supervisor (it does not dispatch launch.HelperArg, "+
				"which the README never asks for), and ran: %s; the command's creation then %s (exit %s, sandbox_error %q, %s ms per run)",
				u.name, b, map[bool]string{true: "succeeded", false: "failed"}[got["made"] == "yes"], got["exit"], got["sandbox_error"], got["run_ms"])
		}
	})
}

// TestRedTeam27EmbedHeld: what held for an embedding host (must pass).
func TestRedTeam27EmbedHeld(t *testing.T) {
	t.Run("InProcess", func(t *testing.T) {
		ws := t.TempDir()
		sb := rt27mSandbox(t, ws)
		outside := rt27mOutside(t)
		fds0, gs0 := rt27mFDs(), runtime.NumGoroutine()

		// A host descriptor without close-on-exec, and a host thread with
		// SIGTERM and SIGCHLD blocked: the sandboxed command has neither.
		secret := filepath.Join(t.TempDir(), "secret")
		os.WriteFile(secret, []byte("rt27-secret"), 0o600)
		fd, err := syscall.Open(secret, syscall.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Dup2(fd, 277); err != nil {
			t.Fatal(err)
		}
		syscall.Close(fd)
		func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var set, old unix.Sigset_t
			set.Val[0] = 1<<(uint(syscall.SIGTERM)-1) | 1<<(uint(syscall.SIGCHLD)-1)
			unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old)
			defer unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
			res, err := executor.Run(context.Background(), rt27mReq(sb, ws, `cat /proc/self/fd/277 2>/dev/null; ls /proc/self/fd | tr '\n' ' '; grep SigBlk /proc/self/status`))
			if err != nil {
				t.Fatal(err)
			}
			out := string(res.Stdout.Head)
			if strings.Contains(out, "rt27-secret") || strings.Contains(out, "277") || !strings.Contains(out, "SigBlk:\t0000000000000000") {
				t.Errorf("the sandboxed command got the host's descriptor or blocked mask: %q", out)
			}
		}()
		syscall.Close(277)

		// 3 rounds of 48 concurrent runs, every other one sandboxed.
		for round := 0; round < 3; round++ {
			var wg sync.WaitGroup
			var mu sync.Mutex
			var bad []string
			for i := 0; i < 48; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					req := rt27mReq(nil, ws, fmt.Sprintf("printf o%d; printf e%d >&2; echo x > f%d_%d && exit %d", i, i, round, i, i%100))
					if i%2 == 0 {
						req.Sandbox = sb
					}
					var live strings.Builder
					req.OnOutput = func(s executor.Stream, b []byte) {
						if s == executor.Stderr {
							live.Write(b)
						}
					}
					res, err := executor.Run(context.Background(), req)
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						bad = append(bad, fmt.Sprintf("%d: %v", i, err))
					} else if res.ExitCode != i%100 || string(res.Stdout.Head) != fmt.Sprintf("o%d", i) || string(res.Stderr.Head) != fmt.Sprintf("e%d", i) ||
						live.String() != fmt.Sprintf("e%d", i) || res.SandboxError != "" {
						bad = append(bad, fmt.Sprintf("%d: exit %d %q %q %q", i, res.ExitCode, res.Stdout.Head, res.Stderr.Head, res.SandboxError))
					}
				}(i)
			}
			wg.Wait()
			if len(bad) > 0 {
				t.Fatalf("round %d: %d of 48 runs wrong: %v", round, len(bad), bad[:min(5, len(bad))])
			}
		}

		// Run from OnStart and from OnOutput (same goroutine, same locked
		// thread), sandboxed.
		var nested []int
		res, err := executor.Run(context.Background(), executor.Request{Argv: []string{"/bin/sh", "-c", "echo outer"}, Dir: ws,
			Env: []string{"PATH=/usr/bin:/bin"}, Sandbox: sb, Timeout: 20 * time.Second,
			OnStart: func(executor.StartInfo) {
				r, err := executor.Run(context.Background(), rt27mReq(sb, ws, "exit 3"))
				if err == nil {
					nested = append(nested, r.ExitCode)
				}
			},
			OnOutput: func(executor.Stream, []byte) {
				r, err := executor.Run(context.Background(), rt27mReq(sb, ws, "exit 4"))
				if err == nil {
					nested = append(nested, r.ExitCode)
				}
			}})
		if err != nil || res.ExitCode != 0 || fmt.Sprint(nested) != "[3 4]" {
			t.Errorf("nested runs: %v %v %v", err, res, nested)
		}

		// A panic in OnStart or OnOutput of a sandboxed run whose command
		// left a background job: the panic reaches the caller, the run is
		// gone (checked with everything else at the end).
		for _, where := range []string{"OnStart", "OnOutput"} {
			func() {
				defer func() {
					if r := recover(); r != "rt27m" {
						t.Errorf("%s: recovered %v", where, r)
					}
				}()
				req := rt27mReq(sb, ws, "echo hi; (sleep 30 &); exec sleep 30")
				if where == "OnStart" {
					req.OnStart = func(executor.StartInfo) { panic("rt27m") }
				} else {
					req.OnOutput = func(executor.Stream, []byte) { panic("rt27m") }
				}
				executor.Run(context.Background(), req)
			}()
		}

		// A context ending at every point of the start: cancelled, or not
		// started; nothing left.
		for i := 0; i < 60; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i)*200*time.Microsecond)
			res, err := executor.Run(ctx, rt27mReq(sb, ws, "echo hi; exec sleep 30"))
			cancel()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("sweep %d: %v", i, err)
			} else if err == nil && (!res.Cancelled || res.Duration > 5*time.Second) {
				t.Errorf("sweep %d: %+v", i, res)
			}
		}

		// Descriptors running out (RLIMIT_NOFILE just above what is open)
		// under 16 concurrent runs: errors, no panic, nothing left.
		var rl, old syscall.Rlimit
		syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old)
		rl = old
		rl.Cur = uint64(rt27mFDs() + 12)
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
		var wg sync.WaitGroup
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				req := rt27mReq(nil, ws, "echo hi")
				if i%2 == 0 {
					req.Sandbox = sb
				}
				res, err := executor.Run(context.Background(), req)
				if err == nil && (res.ExitCode != 0 || string(res.Stdout.Head) != "hi\n") {
					t.Errorf("under EMFILE: a run that was not refused ended %d %q %q", res.ExitCode, res.Stdout.Head, res.Error)
				}
			}(i)
		}
		wg.Wait()
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)

		// Memory over 600 runs (half sandboxed) with output.
		var r0 int
		for i := 0; i < 600; i++ {
			req := rt27mReq(nil, ws, "head -c 70000 /dev/zero")
			if i%2 == 0 {
				req.Sandbox = sb
			}
			if res, err := executor.Run(context.Background(), req); err != nil || res.Stdout.Bytes != 70000 {
				t.Fatalf("run %d: %v %v", i, err, res)
			}
			if i == 99 {
				runtime.GC()
				r0 = rt27mRSS()
			}
		}
		runtime.GC()
		if r1 := rt27mRSS(); r1 > r0+16<<10 {
			t.Errorf("RSS grew from %d to %d KiB over 500 runs", r0, r1)
		}

		// The sandbox never applied to the host: no thread has
		// no_new_privs or a seccomp filter, and every thread writes outside
		// the sandbox's roots.
		if fl := rt27mThreadFlags(); len(fl) > 0 {
			t.Errorf("host threads restricted after sandboxed runs: %v", fl)
		}
		var mu sync.Mutex
		failed := 0
		for i := 0; i < 32; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				if err := os.WriteFile(fmt.Sprintf("%s/host%d", outside, i), []byte("x"), 0o644); err != nil {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			}(i)
		}
		wg.Wait()
		if failed > 0 {
			t.Errorf("%d of 32 host threads could not write outside the sandbox's roots", failed)
		}
		if f, g, k := rt27mSettled(fds0, gs0); f > fds0 || g > gs0 || len(k) > 0 {
			t.Errorf("left behind: descriptors %d -> %d, goroutines %d -> %d, children %v", fds0, f, gs0, g, k)
		}
	})

	t.Run("HostStates", func(t *testing.T) {
		emb := rt27mBuildEmbedder(t, rt27mDispatch)
		asUser(t, func(t *testing.T, u user) {
			f := newFixture(t, u)
			outside := rt27mOutside(t)
			script := "echo ran=yes; echo x > made && echo made=yes; echo x > " + outside + "/cmd 2>/dev/null && echo escaped=yes; true"
			for _, mode := range []string{"plain", "nnp", "landlock", "closed012"} {
				got := rt27mHost(t, emb, u, mode, f.ws, script, outside)
				if got["setup"] != "ok" {
					t.Fatalf("%s: host setup failed: %v", mode, got)
				}
				if got["escaped"] == "yes" {
					t.Errorf("%s: the sandboxed command wrote outside its roots", mode)
				}
				want := map[bool]string{true: "1", false: "0"}[mode == "nnp" || mode == "landlock"]
				if got["host_write_fail"] != "0" || strings.Trim(got["nnp_after"], want+",") != "" {
					t.Errorf("%s: host changed by the runs (host threads' writes outside, no_new_privs): %v", mode, got)
				}
				if got["unsandboxed_ok"] != "1" {
					t.Errorf("%s: the unsandboxed run failed: %v", mode, got)
				}
				if strings.Trim(got["seccomp_after"], "0,") != "" {
					t.Errorf("%s: a host thread has a seccomp filter: %q", mode, got["seccomp_after"])
				}
				switch mode {
				case "landlock":
					// A host already in a Landlock domain cannot build the
					// view (mounts are denied): fail closed, ErrSandbox.
					if got["runs_errsandbox"] != "3" || got["ran"] == "yes" {
						t.Errorf("%s: want ErrSandbox for each run and no command: %v", mode, got)
					}
				default:
					if got["runs_ok"] != "3" {
						t.Errorf("%s: runs failed: %v", mode, got)
					}
				}
			}
		})
	})
}
