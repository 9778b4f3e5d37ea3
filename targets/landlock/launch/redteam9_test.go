//go:build linux && amd64

package launch_test

// Red-team battery 9: a bound Sandbox is reused for many Spawns, possibly
// long after it was bound, and since 5b6526c the launcher compiles each
// Spawn's program with the stat answers the binding saw (Spec.Lstat and
// Spec.Stat, the binding's cachedView) instead of asking the kernel again.
// These tests change the filesystem between Bind (launch.New) and Spawn,
// from the host and from an earlier sandboxed run, and assert that every
// run either fails closed (the Spawn is refused) or enforces at least what
// the profile says: nothing becomes writable or readable that the profile
// does not allow. Everything lives in temporary directories the tests
// create (below /var/tmp, outside every writable root, and below /tmp for
// the default bindings).
//
// Findings. The cached answers themselves never widened anything: every
// change of a path the binding looked at either narrows the run or makes a
// step fail (EINVAL from landlock_add_rule or move_mount, ENOENT from
// open_tree), and the cache is race-free (TestRedTeam9StatCacheRace). The
// battery found holes older than 5b6526c (the same tests failed on
// cf269ee), all fixed since and kept here: the layout is decided once, by
// path name, at Bind, and was applied by path at Spawn, following
// symlinks (now: writable roots and kept paths are resolved with
// RESOLVE_NO_SYMLINKS, missing protected names are checked again at each
// start, writable directories above protected paths are pinned as mount
// points, and a re-grant never covers another non-creatable directory):
//   - an earlier run links the cwd's parent to a directory outside, which
//     the next run's writable mount and rule follow (CwdSwappedByEarlierRun
//     parent/*, HostChangesBeforeSpawn "cwd's parent ...");
//   - an earlier run renames a plain directory above a protected, denied or
//     read-only path: the next run (or the next sbx run) protects the empty
//     stand-in (ProtectedMovedAwayByEarlierRun, MovedAwayCLI);
//   - a protected name missing at Bind and created later is only guarded
//     against creation, not made read-only (HostChangesBeforeSpawn
//     "missing .git created as a directory");
//   - a kept path below a mask is cloned through a symlink, before the
//     mask of the target is mounted (MaskKeepStale, DevMaskStale
//     file-symlink), and a writable rule path through a symlinked
//     directory is mounted over a deeper mask of its target
//     (SymlinkRulePathAtBind);
//   - without the supervisor, a re-grant next to a non-creatable tmpdir
//     re-opens creation in a cwd nested below it (NoSupervisorNestedRootCreate).
//
//	go test -count=1 -run 'TestRedTeam9' ./targets/landlock/launch
//	go test -race -count=1 -run 'TestRedTeam9' ./targets/landlock/launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
	"github.com/sbx-dev/sbx/targets/landlock/launch"

	"golang.org/x/sys/unix"
)

// The supervisor is sbx re-executed (/proc/self/exe, see lazySupervisor):
// in this test binary it is the test binary, so dispatch its hidden
// argument before TestMain, as cmd/sbx does first thing. Without it a
// supervised in-process run that creates a file kills the command (the
// supervisor fails to start).
func init() {
	if len(os.Args) > 1 && os.Args[1] == launch.HelperArg {
		launch.RunHelper(os.Args[2:])
	}
	if mode := os.Getenv(rt9DevChild); mode != "" {
		rt9DevChildMain(mode)
	}
}

// rt9Tree is one test's directory tree:
//
//	base/w               tmpdir and slash_tmp: the writable root
//	base/w/a/ws          cwd (a writable root nested in w, below a plain
//	                     dir; base/w/ws when flat)
//	base/w/a/ws/file     "top"
//	base/w/a/ws/sub/f    "data"
//	base/outside/file    "out"  readable, never writable
//	base/outside/ws/f    "out"  a directory outside named like cwd (/usr/src
//	                     for a cwd called src, /etc for one called etc)
//	base/home            HOME (not writable in workspace)
type rt9Tree struct {
	base, w, a, ws, outside, home string
}

func rt9NewTree(t *testing.T, parent string, flat bool) *rt9Tree {
	t.Helper()
	base, err := os.MkdirTemp(parent, "sbxrt9")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) }) // RemoveAll does not follow symlinks
	tr := &rt9Tree{base: base, w: base + "/w", a: base + "/w/a", ws: base + "/w/a/ws", outside: base + "/outside", home: base + "/home"}
	if flat {
		tr.a, tr.ws = tr.w, tr.w+"/ws"
	}
	rel, _ := filepath.Rel(base, tr.ws)
	for p, c := range map[string]string{rel + "/file": "top", rel + "/sub/f": "data", "outside/file": "out", "outside/ws/f": "out", "home/readme": "home"} {
		full := filepath.Join(base, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// bindings binds cwd to ws, tmpdir and slash_tmp to w, home to home.
func (tr *rt9Tree) bindings(t *testing.T) ir.Bindings {
	t.Helper()
	b, err := landlock.DefaultBindings(tr.ws, func(k string) string {
		switch k {
		case "HOME":
			return tr.home
		case "TMPDIR":
			return tr.w
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	b[ir.AnchorSlashTmp] = []string{tr.w}
	return b
}

// outsideChanged reports what changed in outside: entries other than
// file and ws/f, and their content.
func (tr *rt9Tree) outsideChanged() []string {
	var bad []string
	for _, d := range []string{tr.outside, tr.outside + "/ws"} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if n := e.Name(); n != "file" && n != "f" && !(d == tr.outside && n == "ws") {
				bad = append(bad, d+"/"+n+" was created")
			}
		}
	}
	for _, f := range []string{tr.outside + "/file", tr.outside + "/ws/f"} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "out" {
			bad = append(bad, fmt.Sprintf("%s is %q (%v)", f, b, err))
		}
	}
	return bad
}

// rt9Plan returns the built-in plan name, or compiles the HCL source (one
// profile) into a plan.
func rt9Plan(t *testing.T, name, src string) *landlock.Plan {
	t.Helper()
	if src == "" {
		pl, err := builtin.Plan(name)
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	res, ds := compiler.CompileSources([]compiler.Source{{Name: "rt9.hcl", Data: []byte(src)}})
	if ds.HasErrors() {
		t.Fatalf("compiling: %v", ds)
	}
	pl, err := landlock.Compile(res.Profile(name))
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// rt9New binds plan and fails the test on an error.
func rt9New(t *testing.T, plan *landlock.Plan, b ir.Bindings, o launch.Options) *launch.Sandbox {
	t.Helper()
	sb, err := launch.New(plan, b, o)
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// rt9Sh runs script with /bin/sh in dir under sb. A nil result with an
// error is a refused run (fail closed).
func rt9Sh(sb *launch.Sandbox, dir, script string) (*executor.Result, error) {
	return executor.Run(context.Background(), executor.Request{Argv: []string{"/bin/sh", "-c", script}, Dir: dir,
		Env: []string{"PATH=/usr/bin:/bin", "LANG=C"}, Timeout: 10 * time.Second, Sandbox: sb})
}

// rt9Out is a run's outcome for messages.
func rt9Out(res *executor.Result, err error) string {
	if err != nil {
		return "refused: " + err.Error()
	}
	return fmt.Sprintf("exit %d, stdout %q, stderr %q, error %q", res.ExitCode, res.Stdout.Head, res.Stderr.Head, res.Error)
}

// rt9MustRun runs script and fails the test unless it exits 0.
func rt9MustRun(t *testing.T, sb *launch.Sandbox, dir, script string) *executor.Result {
	t.Helper()
	res, err := rt9Sh(sb, dir, script)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run %q: %s", script, rt9Out(res, err))
	}
	return res
}

// rt9Race reports whether this test binary was built with -race.
func rt9Race() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				return true
			}
		}
	}
	return false
}

// rt9Root skips tests that Spawn unless they can: as root (in-process
// containment), and not under the race detector, with which no Spawn
// works (the clone3 child shares sbx's memory and runs instrumented code:
// "clone3: broken pipe" or a crashed init, also in
// TestRedTeam7LibraryManyRuns and before 5b6526c). Under -race,
// TestRedTeam9StatCacheRace exercises the shared stat cache instead.
func rt9Root(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (in-process containment)")
	}
	if rt9Race() {
		t.Skip("Spawn does not work in a -race build (pre-existing; see rt9Root)")
	}
}

// rt9Attack writes into outside (absolute and through the working
// directory) and into .git of ws: every write the workspace profile
// forbids.
func rt9Attack(tr *rt9Tree) string {
	return strings.NewReplacer("OUT", tr.outside, "WS", tr.ws).Replace(`
echo pwned > OUT/pwned-abs && echo WROTE-ABS
echo pwned >> OUT/file && echo WROTE-FILE
echo pwned >> OUT/ws/f && echo WROTE-INNER
echo pwned > ./pwned-cwd && echo WROTE-CWD
echo pwned >> WS/.git/config && echo WROTE-GIT
mkdir WS/.git/hooks-rt9 && echo WROTE-GITDIR
true`)
}

// TestRedTeam9CwdSwappedByEarlierRun: the working directory is a writable
// root nested in another one below a plain directory (a project in /tmp,
// t.TempDir()). An earlier run of the same Sandbox renames that plain
// directory away (the cwd mount point moves with it, in its namespace and
// on the host) and puts a symlink at the cwd's path (final component), or
// at its parent's path (an intermediate component), to a directory outside
// every writable root. The next run of the same Sandbox must not be able
// to write outside. The mount and the Landlock rule of the cwd are taken
// by path at Spawn: open_tree and open follow every symlink; move_mount
// follows intermediate ones only.
func TestRedTeam9CwdSwappedByEarlierRun(t *testing.T) {
	rt9Root(t)
	for _, via := range []string{"final", "parent"} {
		t.Run(via+"/test-bindings", func(t *testing.T) {
			tr := rt9NewTree(t, "/var/tmp", false)
			sb := rt9New(t, rt9Plan(t, "workspace", ""), tr.bindings(t), launch.Options{})
			rt9SwapAttack(t, sb, tr, via)
		})
		t.Run(via+"/default-bindings", func(t *testing.T) {
			// workspaceSandbox: DefaultBindings, so tmpdir and slash_tmp
			// are /tmp, cwd a directory below a plain directory in /tmp.
			top, err := os.MkdirTemp("/tmp", "sbxrt9")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(top); os.RemoveAll(top + ".old") })
			tr := rt9NewTree(t, "/var/tmp", false) // for outside only
			tr.a, tr.ws, tr.w = top, top+"/ws", "/tmp"
			if err := os.MkdirAll(tr.ws+"/sub", 0o755); err != nil {
				t.Fatal(err)
			}
			sb := workspaceSandbox(t, tr.ws)
			rt9SwapAttack(t, sb, tr, via)
		})
	}
}

func rt9SwapAttack(t *testing.T, sb *launch.Sandbox, tr *rt9Tree, via string) {
	t.Helper()
	// Control: outside is not writable, the workspace is.
	res := rt9MustRun(t, sb, tr.ws, rt9Attack(tr)+"\necho ok > ./ctl && echo CTL")
	if out := string(res.Stdout.Head); strings.Contains(out, "WROTE-ABS") || strings.Contains(out, "WROTE-FILE") || strings.Contains(out, "WROTE-INNER") || !strings.Contains(out, "CTL") {
		t.Fatalf("control: %s", rt9Out(res, nil))
	}
	// The earlier run: move the cwd's parent away, and link the cwd's
	// path (final) or its parent's (parent) to outside.
	swap := fmt.Sprintf("cd / && mv %[1]s %[1]s.old && mkdir %[1]s && ln -s %[2]s %[3]s && echo SWAPPED", tr.a, tr.outside, tr.ws)
	if via == "parent" {
		swap = fmt.Sprintf("cd / && mv %[1]s %[1]s.old && ln -s %[2]s %[1]s && echo SWAPPED", tr.a, tr.outside)
	}
	res, err := rt9Sh(sb, tr.ws, swap)
	if err != nil || !strings.Contains(string(res.Stdout.Head), "SWAPPED") {
		t.Logf("the swap was refused (fine): %s", rt9Out(res, err))
		return
	}
	rp, _ := filepath.EvalSymlinks(tr.ws)
	t.Logf("an earlier sandboxed run made %s resolve to %s", tr.ws, rp)
	// The next run of the same Sandbox, in the cwd it was bound to.
	res, err = rt9Sh(sb, tr.ws, rt9Attack(tr))
	t.Logf("next run: %s", rt9Out(res, err))
	if bad := tr.outsideChanged(); len(bad) > 0 {
		t.Errorf("HOLE: the next run of the same Sandbox wrote outside every writable root:\n  %s", strings.Join(bad, "\n  "))
	}
}

// TestRedTeam9HostChangesBeforeSpawn: after a first run (so both the
// binding's and the first Spawn's answers are cached), the host changes a
// path the binding looked at; the next Spawn of the same Sandbox must fail
// closed or enforce the profile (outside stays untouched, the .git that
// exists at Spawn time stays read-only).
func TestRedTeam9HostChangesBeforeSpawn(t *testing.T) {
	rt9Root(t)
	type tc struct {
		name   string
		gitDir bool // ws/.git/config exists at bind time
		noSup  bool
		nested bool // cwd below a plain directory in tmpdir (else flat: tmpdir/ws)
		mutate func(t *testing.T, tr *rt9Tree)
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mkGit := func(t *testing.T, dir string) {
		must(t, os.MkdirAll(dir+"/.git", 0o755))
		must(t, os.WriteFile(dir+"/.git/config", []byte("cfg"), 0o644))
	}
	cases := []tc{
		{name: "cwd becomes a symlink to outside", mutate: func(t *testing.T, tr *rt9Tree) {
			must(t, os.Rename(tr.ws, tr.ws+".real"))
			must(t, os.Symlink(tr.outside, tr.ws))
		}},
		{name: "cwd becomes a file", mutate: func(t *testing.T, tr *rt9Tree) {
			must(t, os.Rename(tr.ws, tr.ws+".real"))
			must(t, os.WriteFile(tr.ws, []byte("x"), 0o644))
		}},
		{name: "cwd removed", mutate: func(t *testing.T, tr *rt9Tree) { must(t, os.RemoveAll(tr.ws)) }},
		{name: "cwd's parent becomes a symlink to outside", nested: true, mutate: func(t *testing.T, tr *rt9Tree) {
			must(t, os.Rename(tr.a, tr.a+".real"))
			must(t, os.Symlink(tr.outside, tr.a))
		}},
		{name: "tmpdir becomes a symlink to outside", mutate: func(t *testing.T, tr *rt9Tree) {
			must(t, os.Rename(tr.w, tr.base+"/w.real"))
			must(t, os.Symlink(tr.outside, tr.w))
		}},
		{name: "missing .git created as a directory", mutate: func(t *testing.T, tr *rt9Tree) { mkGit(t, tr.ws) }},
		{name: "missing .git created as a directory (no supervisor)", noSup: true, mutate: func(t *testing.T, tr *rt9Tree) { mkGit(t, tr.ws) }},
		{name: "missing .git created as a file", mutate: func(t *testing.T, tr *rt9Tree) {
			must(t, os.WriteFile(tr.ws+"/.git", []byte("gitdir: x"), 0o644))
		}},
		{name: "missing .git created as a symlink to outside", mutate: func(t *testing.T, tr *rt9Tree) {
			must(t, os.Symlink(tr.outside, tr.ws+"/.git"))
		}},
		{name: ".git directory becomes a symlink to outside", gitDir: true, mutate: func(t *testing.T, tr *rt9Tree) {
			must(t, os.Rename(tr.ws+"/.git", tr.ws+"/.git.real"))
			must(t, os.Symlink(tr.outside, tr.ws+"/.git"))
		}},
		{name: ".git directory becomes a file", gitDir: true, mutate: func(t *testing.T, tr *rt9Tree) {
			must(t, os.RemoveAll(tr.ws+"/.git"))
			must(t, os.WriteFile(tr.ws+"/.git", []byte("gitdir: x"), 0o644))
		}},
		{name: ".git directory removed", gitDir: true, mutate: func(t *testing.T, tr *rt9Tree) { must(t, os.RemoveAll(tr.ws+"/.git")) }},
		{name: ".git directory replaced by another directory", gitDir: true, mutate: func(t *testing.T, tr *rt9Tree) {
			must(t, os.Rename(tr.ws+"/.git", tr.ws+"/.git.old"))
			mkGit(t, tr.ws)
		}},
		{name: "re-granted subdirectory becomes a symlink to outside (no supervisor)", noSup: true, mutate: func(t *testing.T, tr *rt9Tree) {
			must(t, os.Rename(tr.ws+"/sub", tr.ws+"/sub.real"))
			must(t, os.Symlink(tr.outside, tr.ws+"/sub"))
		}},
		{name: "re-granted subdirectory becomes a file (no supervisor)", noSup: true, mutate: func(t *testing.T, tr *rt9Tree) {
			must(t, os.Rename(tr.ws+"/sub", tr.ws+"/sub.real"))
			must(t, os.WriteFile(tr.ws+"/sub", nil, 0o644))
		}},
		{name: "new subdirectory after bind (no supervisor)", noSup: true, mutate: func(t *testing.T, tr *rt9Tree) {
			must(t, os.Mkdir(tr.ws+"/newsub", 0o755))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := rt9NewTree(t, "/var/tmp", !c.nested)
			if c.gitDir {
				mkGit(t, tr.ws)
			}
			sb := rt9New(t, rt9Plan(t, "workspace", ""), tr.bindings(t), launch.Options{NoSupervisor: c.noSup})
			rt9MustRun(t, sb, tr.w, "echo ok >> "+tr.ws+"/file")
			c.mutate(t, tr)
			// What .git is at Spawn time (the host's view).
			gitBefore := map[string]string{}
			filepath.Walk(tr.ws+"/.git", func(p string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode().IsRegular() {
					b, _ := os.ReadFile(p)
					gitBefore[p] = string(b)
				}
				return nil
			})
			script := rt9Attack(tr) + strings.NewReplacer("WS", tr.ws, "OUT", tr.outside).Replace(`
echo pwned > WS/sub/pwned && echo WROTE-SUB
echo pwned > WS/newsub/pwned && echo WROTE-NSUB
echo pwned > WS/.git && echo WROTE-GITFILE
`)
			res, err := rt9Sh(sb, tr.w, script)
			t.Logf("%s", rt9Out(res, err))
			if bad := tr.outsideChanged(); len(bad) > 0 {
				t.Errorf("HOLE: wrote outside every writable root:\n  %s", strings.Join(bad, "\n  "))
			}
			for p, was := range gitBefore {
				if b, err := os.ReadFile(p); err != nil || string(b) != was {
					t.Errorf("HOLE: %s (below a protected .git that existed at Spawn) changed: %q -> %q (%v)", p, was, b, err)
				}
			}
			if fi, err := os.Lstat(tr.ws + "/.git/hooks-rt9"); err == nil {
				t.Errorf("HOLE: %s/.git/hooks-rt9 was created (%v)", tr.ws, fi.Mode())
			}
			if fi, err := os.Lstat(tr.ws + "/.git"); err == nil && fi.Mode().IsRegular() {
				if b, _ := os.ReadFile(tr.ws + "/.git"); string(b) != "gitdir: x" {
					t.Errorf("HOLE: the protected file %s/.git was overwritten: %q", tr.ws, b)
				}
			}
		})
	}
}

// TestRedTeam9ProtectedMovedAwayByEarlierRun: protected names, read-only
// carve-outs and denied paths are mount operations on path names, taken
// at Spawn. An earlier run renames a plain directory above them (a
// directory with mount points below can be renamed; the mounts move with
// it), so that the next run (same Sandbox, or a fresh binding, as the
// next `sbx run` would) applies them to the new, empty name, and finds the
// original content, unprotected, at the other name.
func TestRedTeam9ProtectedMovedAwayByEarlierRun(t *testing.T) {
	rt9Root(t)
	const src = `
profile "rt9-carve" {
  filesystem {
    read    = [root, path(cwd, "x", "ro")]
    write   = [cwd, tmpdir]
    deny    = [path(cwd, "x", "secret")]
    protect = [".git"]
  }
  network { mode = "none" }
}`
	for _, fresh := range []bool{false, true} {
		name := "same-sandbox"
		if fresh {
			name = "rebound"
		}
		t.Run("carve-outs/"+name, func(t *testing.T) {
			tr := rt9NewTree(t, "/var/tmp", false)
			for p, c := range map[string]string{"x/ro/f": "ro", "x/secret/data": "S3CRET"} {
				os.MkdirAll(filepath.Dir(tr.ws+"/"+p), 0o755)
				os.WriteFile(tr.ws+"/"+p, []byte(c), 0o644)
			}
			plan := rt9Plan(t, "rt9-carve", src)
			sb := rt9New(t, plan, tr.bindings(t), launch.Options{})
			// Control: the carve-outs hold.
			res := rt9MustRun(t, sb, tr.ws, "cat x/secret/data; echo w >> x/ro/f && echo WROTE-RO; true")
			if out := string(res.Stdout.Head); strings.Contains(out, "S3CRET") || strings.Contains(out, "WROTE-RO") {
				t.Fatalf("control: %s", rt9Out(res, nil))
			}
			res, err := rt9Sh(sb, tr.ws, "mv x x.old && mkdir -p x/ro x/secret && echo MOVED")
			if err != nil || !strings.Contains(string(res.Stdout.Head), "MOVED") {
				t.Logf("the rename was refused (fine): %s", rt9Out(res, err))
				return
			}
			if fresh {
				sb = rt9New(t, plan, tr.bindings(t), launch.Options{})
			}
			res, err = rt9Sh(sb, tr.ws, "cat x.old/secret/data; echo pwned >> x.old/ro/f && echo WROTE-RO; true")
			t.Logf("next run: %s", rt9Out(res, err))
			if err == nil && strings.Contains(string(res.Stdout.Head), "S3CRET") {
				t.Errorf("HOLE: the denied %s/x/secret/data was read after an earlier run renamed x", tr.ws)
			}
			if b, _ := os.ReadFile(tr.ws + "/x.old/ro/f"); string(b) != "ro" {
				t.Errorf("HOLE: the read-only %s/x/ro/f was modified after an earlier run renamed x: %q", tr.ws, b)
			}
		})
	}
	t.Run("git/same-sandbox", func(t *testing.T) {
		// The workspace profile with default bindings (a project in
		// /tmp): the first run moves the project's parent away and leaves
		// an empty stand-in; the second run edits the real .git/config and
		// moves everything back.
		top, err := os.MkdirTemp("/tmp", "sbxrt9")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(top); os.RemoveAll(top + ".old"); os.RemoveAll(top + ".junk") })
		ws := top + "/ws"
		os.MkdirAll(ws+"/.git", 0o755)
		os.WriteFile(ws+"/.git/config", []byte("[core]\n"), 0o644)
		sb := workspaceSandbox(t, ws)
		res := rt9MustRun(t, sb, ws, "echo x >> .git/config && echo WROTE; true")
		if strings.Contains(string(res.Stdout.Head), "WROTE") {
			t.Fatalf("control: .git/config writable: %s", rt9Out(res, nil))
		}
		// The stand-in has a .git too: the next Spawn's read-only bind of
		// ws/.git needs one.
		res, err = rt9Sh(sb, ws, fmt.Sprintf("cd / && mv %[1]s %[1]s.old && mkdir -p %[1]s/ws/.git && echo MOVED", top))
		if err != nil || !strings.Contains(string(res.Stdout.Head), "MOVED") {
			t.Logf("the rename was refused (fine): %s", rt9Out(res, err))
			return
		}
		res, err = rt9Sh(sb, ws, fmt.Sprintf("cd / && printf '\\tfsmonitor = /tmp/evil\\n' >> %[1]s.old/ws/.git/config && mv %[1]s %[1]s.junk && mv %[1]s.old %[1]s && echo EDITED", top))
		t.Logf("next run: %s", rt9Out(res, err))
		for _, p := range []string{ws + "/.git/config", top + ".old/ws/.git/config"} {
			if b, err := os.ReadFile(p); err == nil && string(b) != "[core]\n" {
				t.Errorf("HOLE: the protected .git/config (now %s) was modified by two runs of one Sandbox: %q", p, b)
			}
		}
	})
}

// TestRedTeam9SymlinkRulePathAtBind: rule paths below an anchor are not
// canonicalised; one that is a symlink at bind time is followed by the
// mount and by the Landlock rule. A denied path must stay denied whatever
// other rule path links to it, and anchors given through symlinks are
// canonicalised by DefaultBindings (the system-directory checks see the
// real path).
func TestRedTeam9SymlinkRulePathAtBind(t *testing.T) {
	rt9Root(t)
	t.Run("writable link over a denied path", func(t *testing.T) {
		tr := rt9NewTree(t, "/var/tmp", false)
		os.MkdirAll(tr.outside+"/secret", 0o755)
		os.WriteFile(tr.outside+"/secret/data", []byte("S3CRET"), 0o644)
		os.Symlink(tr.outside, tr.ws+"/out")
		src := fmt.Sprintf(`
profile "rt9-link" {
  filesystem {
    read  = [root]
    write = [path(cwd, "out")]
    deny  = ["%s/secret"]
  }
  network { mode = "none" }
}`, tr.outside)
		sb, err := launch.New(rt9Plan(t, "rt9-link", src), tr.bindings(t), launch.Options{})
		if err != nil {
			t.Logf("refused at bind (fine): %v", err)
			return
		}
		res, err := rt9Sh(sb, tr.ws, fmt.Sprintf("cat %s/secret/data; echo; cat out/secret/data; true", tr.outside))
		t.Logf("%s", rt9Out(res, err))
		if err == nil && strings.Contains(string(res.Stdout.Head), "S3CRET") {
			t.Errorf("HOLE: the denied %s/secret was read through the writable symlink {cwd}/out", tr.outside)
		}
	})
	t.Run("writable path through a linked directory over a denied path", func(t *testing.T) {
		// {cwd}/out is a symlink to outside; the rule is on {cwd}/out/x
		// (the link is an intermediate component), and outside/x/secret is
		// denied by its real path. Mounts are ordered by the depth of the
		// rule paths, not of what they resolve to.
		tr := rt9NewTree(t, "/var/tmp", false)
		os.MkdirAll(tr.outside+"/x/secret", 0o755)
		os.WriteFile(tr.outside+"/x/secret/data", []byte("S3CRET"), 0o644)
		os.Symlink(tr.outside, tr.ws+"/out")
		src := fmt.Sprintf(`
profile "rt9-link2" {
  filesystem {
    read  = [root]
    write = [path(cwd, "out", "x")]
    deny  = ["%s/x/secret"]
  }
  network { mode = "none" }
}`, tr.outside)
		sb, err := launch.New(rt9Plan(t, "rt9-link2", src), tr.bindings(t), launch.Options{})
		if err != nil {
			t.Logf("refused at bind (fine): %v", err)
			return
		}
		res, err := rt9Sh(sb, tr.ws, fmt.Sprintf("cat %s/x/secret/data; echo; cat out/x/secret/data; true", tr.outside))
		t.Logf("%s", rt9Out(res, err))
		if err == nil && strings.Contains(string(res.Stdout.Head), "S3CRET") {
			t.Errorf("HOLE: the denied %s/x/secret was read: the writable {cwd}/out/x (through a symlink) was mounted over its mask", tr.outside)
		}
	})
	t.Run("read-only link inside a writable root", func(t *testing.T) {
		// {cwd}/ro is read-only and a symlink: the link cannot be replaced
		// (NoRemove), its target is what is read-only.
		tr := rt9NewTree(t, "/var/tmp", false)
		os.Symlink(tr.ws+"/sub", tr.ws+"/ro")
		src := `
profile "rt9-rolink" {
  filesystem {
    read    = [root, path(cwd, "ro")]
    write   = [cwd, tmpdir]
    protect = [".git"]
  }
  network { mode = "none" }
}`
		sb, err := launch.New(rt9Plan(t, "rt9-rolink", src), tr.bindings(t), launch.Options{})
		if err != nil {
			t.Logf("refused at bind (fine): %v", err)
			return
		}
		res, err := rt9Sh(sb, tr.ws, "echo x >> ro/f && echo WROTE; rm ro && echo REMOVED; ln -sfn "+tr.outside+" ro && echo RELINKED; true")
		t.Logf("%s", rt9Out(res, err))
		if err == nil {
			out := string(res.Stdout.Head)
			if strings.Contains(out, "WROTE") || strings.Contains(out, "REMOVED") || strings.Contains(out, "RELINKED") {
				t.Errorf("HOLE: the read-only link {cwd}/ro or its target was changed: %q", out)
			}
		}
		if b, _ := os.ReadFile(tr.ws + "/sub/f"); string(b) != "data" {
			t.Errorf("HOLE: %s/sub/f changed through the read-only link: %q", tr.ws, b)
		}
	})
	t.Run("anchors through symlinks", func(t *testing.T) {
		tr := rt9NewTree(t, "/var/tmp", false)
		links := tr.base + "/links"
		os.Mkdir(links, 0o755)
		for name, target := range map[string]string{"ws": tr.ws, "root": "/", "etc": "/etc", "home": tr.home, "tmp": tr.w} {
			if err := os.Symlink(target, links+"/"+name); err != nil {
				t.Fatal(err)
			}
		}
		env := func(home, tmp string) func(string) string {
			return func(k string) string {
				switch k {
				case "HOME":
					return home
				case "TMPDIR":
					return tmp
				}
				return ""
			}
		}
		plan := rt9Plan(t, "workspace", "")
		// TMPDIR or cwd through a symlink to a system directory: refused.
		for _, bad := range []struct{ cwd, tmp string }{{tr.ws, links + "/root"}, {tr.ws, links + "/etc"}, {links + "/root", tr.w}} {
			b, err := landlock.DefaultBindings(bad.cwd, env(tr.home, bad.tmp))
			if err == nil {
				_, err = launch.New(plan, b, launch.Options{})
			}
			if err == nil {
				t.Errorf("cwd %s, TMPDIR %s: bound without error", bad.cwd, bad.tmp)
			}
		}
		// cwd, HOME and TMPDIR through symlinks: bound to the real paths.
		b, err := landlock.DefaultBindings(links+"/ws", env(links+"/home", links+"/tmp"))
		if err != nil {
			t.Fatal(err)
		}
		if b[ir.AnchorCwd][0] != tr.ws || b[ir.AnchorHome][0] != tr.home || b[ir.AnchorTmpdir][0] != tr.w {
			t.Fatalf("bindings not canonical: %v", b)
		}
		sb := rt9New(t, plan, b, launch.Options{})
		// Repoint the links after binding: nothing may follow them.
		for _, n := range []string{"ws", "home", "tmp"} {
			os.Remove(links + "/" + n)
			os.Symlink(tr.outside, links+"/"+n)
		}
		res, err := rt9Sh(sb, tr.ws, rt9Attack(tr)+"\necho ok > ./ctl && echo CTL")
		t.Logf("%s", rt9Out(res, err))
		if err != nil || !strings.Contains(string(res.Stdout.Head), "CTL") {
			t.Errorf("the workspace is no longer writable after the links moved: %s", rt9Out(res, err))
		}
		if bad := tr.outsideChanged(); len(bad) > 0 {
			t.Errorf("HOLE: %s", strings.Join(bad, "; "))
		}
	})
}

// TestRedTeam9MaskKeepStale: a mask that carries a kept path through it (a
// denied directory with a readable child) clones the kept path by name at
// Spawn. The kept path disappears, or becomes a symlink to another denied
// directory, after binding: the run fails closed or the other directory
// stays unreadable.
func TestRedTeam9MaskKeepStale(t *testing.T) {
	rt9Root(t)
	const src = `
profile "rt9-keep" {
  filesystem {
    read  = [root, path(cwd, "d", "keep")]
    write = [cwd, tmpdir]
    deny  = [path(cwd, "d"), path(cwd, "s")]
  }
  network { mode = "none" }
}`
	for _, c := range []struct {
		name   string
		atBind bool // the link is there at bind time
		mutate func(tr *rt9Tree) error
	}{
		{"kept path removed", false, func(tr *rt9Tree) error { return os.RemoveAll(tr.ws + "/d/keep") }},
		{"kept path becomes a symlink to a denied directory", false, func(tr *rt9Tree) error {
			if err := os.RemoveAll(tr.ws + "/d/keep"); err != nil {
				return err
			}
			return os.Symlink(tr.ws+"/s", tr.ws+"/d/keep")
		}},
		{"kept path is a symlink to a denied directory at bind", true, nil},
		{"kept path becomes a file", false, func(tr *rt9Tree) error {
			if err := os.RemoveAll(tr.ws + "/d/keep"); err != nil {
				return err
			}
			return os.WriteFile(tr.ws+"/d/keep", []byte("k"), 0o644)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := rt9NewTree(t, "/var/tmp", false)
			for p, v := range map[string]string{"d/keep/k": "kept", "d/other": "D-SECRET", "s/data": "S3CRET"} {
				os.MkdirAll(filepath.Dir(tr.ws+"/"+p), 0o755)
				os.WriteFile(tr.ws+"/"+p, []byte(v), 0o644)
			}
			if c.atBind {
				os.RemoveAll(tr.ws + "/d/keep")
				os.Symlink(tr.ws+"/s", tr.ws+"/d/keep")
			}
			sb, err := launch.New(rt9Plan(t, "rt9-keep", src), tr.bindings(t), launch.Options{})
			if err != nil {
				t.Logf("refused at bind (fine): %v", err)
				return
			}
			read := "cat d/keep/k d/keep/data d/other s/data d/keep/k/../data 2>/dev/null; true"
			if !c.atBind {
				res := rt9MustRun(t, sb, tr.ws, read)
				if out := string(res.Stdout.Head); out != "kept" {
					t.Fatalf("control: %q", out)
				}
				if err := c.mutate(tr); err != nil {
					t.Fatal(err)
				}
			}
			res, err := rt9Sh(sb, tr.ws, read)
			t.Logf("%s", rt9Out(res, err))
			if err == nil {
				if out := string(res.Stdout.Head); strings.Contains(out, "SECRET") || strings.Contains(out, "S3CRET") {
					t.Errorf("HOLE: a denied file was read through the kept path: %q", out)
				}
			}
		})
	}
}

// TestRedTeam9ConcurrentSwaps: many concurrent Spawns of one Sandbox while
// other goroutines keep swapping paths the binding cached between a
// directory and a symlink to outside (an existing .git, and a re-granted
// subdirectory without the supervisor), and creating and removing a
// re-granted path. Every run must fail closed or leave outside and .git
// untouched; with -race, the shared stat cache must not race.
func TestRedTeam9ConcurrentSwaps(t *testing.T) {
	rt9Root(t)
	for _, noSup := range []bool{false, true} {
		t.Run("no-supervisor="+strconv.FormatBool(noSup), func(t *testing.T) {
			tr := rt9NewTree(t, "/var/tmp", false)
			os.MkdirAll(tr.ws+"/.git", 0o755)
			os.WriteFile(tr.ws+"/.git/config", []byte("cfg"), 0o644)
			sb := rt9New(t, rt9Plan(t, "workspace", ""), tr.bindings(t), launch.Options{NoSupervisor: noSup})
			stop := make(chan struct{})
			var swappers sync.WaitGroup
			swap := func(p string) {
				defer swappers.Done()
				real := p + ".real"
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					if i%2 == 0 {
						os.Rename(p, real)
						os.Symlink(tr.outside, p)
					} else {
						os.Remove(p)
						os.Rename(real, p)
					}
					time.Sleep(time.Duration(i%3) * 100 * time.Microsecond)
				}
			}
			swappers.Add(2)
			go swap(tr.ws + "/.git")
			go swap(tr.ws + "/sub")
			var ran, refused atomic.Int64
			var wg sync.WaitGroup
			errs := make(chan string, 64)
			deadline := time.Now().Add(6 * time.Second)
			for g := 0; g < 6; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					for i := 0; time.Now().Before(deadline); i++ {
						script := strings.NewReplacer("OUT", tr.outside, "WS", tr.ws, "N", fmt.Sprintf("%d-%d", g, i)).Replace(`
echo pwned > OUT/pwned-N
echo pwned >> WS/.git/config
echo pwned > WS/.git/pwned-N
echo pwned > WS/sub/pwned-N
true`)
						res, err := rt9Sh(sb, tr.w, script)
						switch {
						case err != nil:
							if !errors.Is(err, executor.ErrSandbox) {
								select {
								case errs <- "unexpected error: " + err.Error():
								default:
								}
							}
							refused.Add(1)
						case res.ExitCode != 0:
							select {
							case errs <- rt9Out(res, nil):
							default:
							}
						default:
							ran.Add(1)
						}
					}
				}(g)
			}
			wg.Wait()
			close(stop)
			swappers.Wait()
			t.Logf("%d runs, %d refused", ran.Load(), refused.Load())
			close(errs)
			for e := range errs {
				t.Logf("run: %s", e)
			}
			if bad := tr.outsideChanged(); len(bad) > 0 {
				t.Errorf("HOLE: wrote outside:\n  %s", strings.Join(bad[:min(len(bad), 5)], "\n  "))
			}
			// Not asserted: a run that started while .git was the symlink
			// (its read-only bind went to outside) and wrote after the host
			// renamed the real directory back finds .git writable. The
			// protection is by name, taken at Spawn; the command itself can
			// never rename .git.
			for _, p := range []string{tr.ws + "/.git/config", tr.ws + "/.git.real/config"} {
				if b, err := os.ReadFile(p); err == nil && string(b) != "cfg" {
					t.Logf("note: %s changed while the host swapped it (%d bytes)", p, len(b))
				}
			}
		})
	}
}

// TestRedTeam9NoSupervisorNestedRootCreate: without the supervisor, a
// missing protected name makes its writable root non-creatable and the
// root's other real subdirectories are re-granted write. When cwd is a
// writable root nested in another one (tmpdir) below a plain directory
// (tmpdir/a/ws), the outer root's non-creatable directory re-grants "a",
// an ancestor of cwd, with every creation right: Landlock rights add up,
// so cwd is creatable again and the protected names can be created in it.
// No filesystem change is needed; the Sandbox is fresh.
func TestRedTeam9NoSupervisorNestedRootCreate(t *testing.T) {
	rt9Root(t)
	tr := rt9NewTree(t, "/var/tmp", false)
	sb := rt9New(t, rt9Plan(t, "workspace", ""), tr.bindings(t), launch.Options{NoSupervisor: true})
	for _, g := range sb.Spec().Grants {
		t.Logf("grant %s %v nofollow=%v (%s)", g.Path, g.Rights, g.NoFollow, g.Why)
	}
	res, err := rt9Sh(sb, tr.ws, "mkdir .git && echo MADE-GIT; echo x > .hg && echo MADE-HG; ln -s / .jj && echo MADE-JJ; echo x > newfile && echo MADE-FILE; true")
	t.Logf("%s", rt9Out(res, err))
	for _, n := range []string{".git", ".hg", ".jj"} {
		if _, err := os.Lstat(tr.ws + "/" + n); err == nil {
			t.Errorf("HOLE: the protected name %s/%s was created without the supervisor", tr.ws, n)
		}
	}
}

// rt9DevChild names the mode of TestRedTeam9DevMaskStale's child: this test
// binary re-executed under `unshare --mount --propagation private`, so
// that it can change /dev (in its own mount namespace only) between
// binding and spawning.
const rt9DevChild = "SBX_RT9_DEV_CHILD"

// rt9DevChildMain binds a workspace profile that denies $SBX_RT9_DIR/secret
// and secretdir over $SBX_RT9_DIR/ws, runs
// once, replaces /dev by a tmpfs with the standard devices (in the child's
// private mount namespace), one of them changed by mode, runs probe, and
// prints "RT9 <outcome>" lines. It never returns.
func rt9DevChildMain(mode string) {
	say := func(format string, a ...any) { fmt.Printf("RT9 "+format+"\n", a...) }
	dir := os.Getenv("SBX_RT9_DIR")
	// The workspace profile with the secrets denied (as root, the command
	// could read its own 0600 files anyway).
	src := fmt.Sprintf(`
profile "rt9-dev" {
  filesystem {
    read    = [root]
    write   = [cwd, tmpdir, slash_tmp]
    deny    = ["%[1]s/secret", "%[1]s/secretdir"]
    protect = [".git"]
  }
  network { mode = "none" }
}`, dir)
	res0, ds := compiler.CompileSources([]compiler.Source{{Name: "rt9-dev.hcl", Data: []byte(src)}})
	if ds.HasErrors() {
		say("setup-error %v", ds)
		os.Exit(0)
	}
	plan, err := landlock.Compile(res0.Profile("rt9-dev"))
	if err != nil {
		say("setup-error %v", err)
		os.Exit(0)
	}
	b, err := landlock.DefaultBindings(dir+"/ws", func(k string) string {
		if k == "HOME" {
			return "/nonexistent-sbx-home" // not dir: a writable home is refused
		}
		return ""
	})
	if err != nil {
		say("setup-error %v", err)
		os.Exit(0)
	}
	sb, err := launch.New(plan, b, launch.Options{})
	if err != nil {
		say("setup-error %v", err)
		os.Exit(0)
	}
	if res, err := rt9Sh(sb, dir+"/ws", "head -c 4 /dev/zero | od -An -tx1"); err != nil || !strings.Contains(string(res.Stdout.Head), "00 00 00 00") {
		say("setup-error first run: %s", rt9Out(res, err))
		os.Exit(0)
	}
	// A /dev of our own, in this process's mount namespace only.
	if err := unix.Mount("tmpfs", "/dev", "tmpfs", unix.MS_NOSUID, "mode=755"); err != nil {
		say("setup-error mount /dev: %v", err)
		os.Exit(0)
	}
	nodes := map[string][2]uint32{"null": {1, 3}, "zero": {1, 5}, "full": {1, 7}, "random": {1, 8}, "urandom": {1, 9}, "tty": {5, 0}, "ptmx": {5, 2}}
	for name, mm := range nodes {
		p := "/dev/" + name
		switch {
		case mode == "missing" && name == "full":
			continue
		case mode == "file-symlink" && name == "zero":
			err = os.Symlink(dir+"/secret", p)
		case mode == "dir-symlink" && name == "zero":
			err = os.Symlink(dir+"/secretdir", p)
		case mode == "regular" && name == "zero":
			err = os.WriteFile(p, []byte("PLAIN"), 0o666)
		default:
			err = unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(mm[0], mm[1])))
		}
		if err != nil {
			say("setup-error %s: %v", p, err)
			os.Exit(0)
		}
	}
	os.Mkdir("/dev/pts", 0o755)
	os.Mkdir("/dev/shm", 0o1777)
	res, err := rt9Sh(sb, dir+"/ws", `
head -c 64 /dev/zero | tr -d '\000'; echo
cat /dev/zero/data 2>/dev/null; echo
echo x > /dev/full && echo FULL-WRITABLE
cat `+dir+`/secret `+dir+`/secretdir/data 2>/dev/null
true`)
	if err != nil {
		say("refused %v", err)
	} else {
		say("ran exit=%d stdout=%q stderr=%q", res.ExitCode, res.Stdout.Head, res.Stderr.Head)
	}
	os.Exit(0)
}

// TestRedTeam9DevMaskStale: the /dev mask carries the standard devices
// through it, cloned by name at Spawn; the binding's answers say what
// exists. In a private mount namespace (never the host's /dev), /dev is
// replaced after binding by one where a kept device is missing, a symlink
// to a denied file or directory, or a regular file. Each run must fail
// closed or not expose the denied files. (Only root can change /dev: this
// is the host changing under a bound Sandbox, not an attack from inside.)
func TestRedTeam9DevMaskStale(t *testing.T) {
	rt9Root(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare is missing")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"missing", "file-symlink", "dir-symlink", "regular"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(dir+"/ws", 0o755)
			os.MkdirAll(dir+"/secretdir", 0o700)
			os.WriteFile(dir+"/secret", []byte("S3CRET-FILE"), 0o600)
			os.WriteFile(dir+"/secretdir/data", []byte("S3CRET-DIR"), 0o600)
			cmd := exec.Command("unshare", "--mount", "--propagation", "private", self, "-test.run=^$")
			cmd.Env = append(os.Environ(), rt9DevChild+"="+mode, "SBX_RT9_DIR="+dir)
			out, err := cmd.CombinedOutput()
			t.Logf("%s", out)
			if err != nil {
				t.Fatalf("child: %v", err)
			}
			s := string(out)
			if strings.Contains(s, "RT9 setup-error") || !strings.Contains(s, "RT9 ") {
				t.Fatalf("child setup failed")
			}
			if strings.Contains(s, "RT9 ran") {
				line := s[strings.Index(s, "RT9 ran"):]
				line = line[:strings.IndexByte(line+"\n", '\n')]
				if strings.Contains(strings.SplitN(line, "stderr=", 2)[0], "S3CRET") {
					t.Errorf("HOLE: a secret was read through /dev: %s", line)
				}
			}
		})
	}
}

// TestRedTeam9StatCacheRace: the binding's stat cache is shared by every
// Spawn of a Sandbox (each copies the Spec, view included) and filled
// lazily by paths the binding never asked about. Many goroutines ask it
// about the grant paths (through copies of the Spec, as Spawn does), about
// fresh paths, and bind the same plan again, while another swaps a
// re-granted directory between a directory and a symlink. Run with -race.
// The answers for a path never change once given (the snapshot the
// launcher compiles with), and a directory's Stat agrees with its Lstat.
func TestRedTeam9StatCacheRace(t *testing.T) {
	tr := rt9NewTree(t, "/var/tmp", true)
	plan := rt9Plan(t, "workspace", "")
	b := tr.bindings(t)
	sb, err := launch.New(plan, b, launch.Options{NoSupervisor: true})
	if err != nil {
		t.Skipf("cannot bind here: %v", err)
	}
	first := map[string][2]landlock.Kind{}
	for _, g := range sb.Spec().Grants {
		first[g.Path] = [2]landlock.Kind{sb.Spec().Lstat(g.Path), sb.Spec().Stat(g.Path)}
	}
	if k := first[tr.ws+"/sub"]; k != [2]landlock.Kind{landlock.KindDir, landlock.KindDir} {
		t.Fatalf("%s/sub: %v, want a re-granted directory", tr.ws, k)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				os.Rename(tr.ws+"/sub", tr.ws+"/sub.real")
				os.Symlink(tr.outside, tr.ws+"/sub")
			} else {
				os.Remove(tr.ws + "/sub")
				os.Rename(tr.ws+"/sub.real", tr.ws+"/sub")
			}
		}
	}()
	errs := make(chan string, 16)
	var readers sync.WaitGroup
	deadline := time.Now().Add(2 * time.Second)
	for g := 0; g < 8; g++ {
		readers.Add(1)
		go func(g int) {
			defer readers.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				spec := *sb.Spec() // as Spawn does
				for p, want := range first {
					if got := [2]landlock.Kind{spec.Lstat(p), spec.Stat(p)}; got != want {
						select {
						case errs <- fmt.Sprintf("%s: %v, was %v", p, got, want):
						default:
						}
					}
				}
				fresh := fmt.Sprintf("%s/fresh-%d-%d", tr.ws, g, i%97)
				l, st := spec.Stat(fresh), spec.Lstat(fresh)
				if l != st {
					select {
					case errs <- fmt.Sprintf("%s: Stat %v, Lstat %v", fresh, l, st):
					default:
					}
				}
				if i%200 == 0 {
					if _, err := launch.New(plan, b, launch.Options{NoSupervisor: true}); err != nil {
						select {
						case errs <- "New: " + err.Error():
						default:
						}
					}
				}
			}
		}(g)
	}
	readers.Wait()
	close(stop)
	wg.Wait()
	os.Remove(tr.ws + "/sub.real")
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestRedTeam9MovedAwayCLI: TestRedTeam9ProtectedMovedAwayByEarlierRun
// through two `sbx run` invocations (each binds afresh), as root and as
// uid 65534, with the t-carve artifact (.git protected, {cwd}/ro read-only,
// {cwd}/secret denied) and the project inside $TMPDIR below a plain
// directory. The first run renames that directory and leaves an empty
// stand-in at the project's path; the second, bound to the stand-in,
// edits the real project.
func TestRedTeam9MovedAwayCLI(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		tmp := f.base + "/tmpd"
		a := tmp + "/a"
		ws := a + "/ws"
		for p, c := range map[string]string{".git/config": "cfg", "ro/f": "ro", "secret": "S3CRET", "file": "top"} {
			os.MkdirAll(filepath.Dir(ws+"/"+p), 0o755)
			os.WriteFile(ws+"/"+p, []byte(c), 0o644)
		}
		filepath.Walk(tmp, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
		run := func(script string) rtResult {
			return rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home, "TMPDIR=" + tmp},
				args: []string{"--cwd", ws, "--artifact", filepath.Join(bin, "t-carve.json"), "--", "/bin/sh", "-c", script}})
		}
		r := run("cat secret; echo w >> ro/f && echo WROTE-RO; echo w >> .git/config && echo WROTE-GIT; true")
		if r.SbxError != "" || strings.Contains(r.Stdout, "S3CRET") || strings.Contains(r.Stdout, "WROTE") {
			t.Fatalf("control: %+v", r)
		}
		r = run(fmt.Sprintf("cd / && mv %[1]s %[1]s.old && mkdir -p %[1]s/ws && echo MOVED", a))
		if r.SbxError != "" || !strings.Contains(r.Stdout, "MOVED") {
			t.Logf("the rename was refused (fine): %+v", r)
			return
		}
		r = run(fmt.Sprintf("cat %[1]s.old/ws/secret; echo w >> %[1]s.old/ws/ro/f && echo WROTE-RO; echo w >> %[1]s.old/ws/.git/config && echo WROTE-GIT; true", a))
		t.Logf("second sbx run: %+v", r)
		if strings.Contains(r.Stdout, "S3CRET") {
			t.Errorf("HOLE: the denied {cwd}/secret was read by the next sbx run")
		}
		for p, was := range map[string]string{"ro/f": "ro", ".git/config": "cfg"} {
			if b, _ := os.ReadFile(a + ".old/ws/" + p); string(b) != was {
				t.Errorf("HOLE: {cwd}/%s was modified by the next sbx run: %q", p, b)
			}
		}
	})
}
