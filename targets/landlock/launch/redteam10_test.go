//go:build linux && amd64

package launch_test

// Red team 10: the init started before the profile is bound (sbx run's
// launch.Prestart), its control socket and the descriptors it receives
// (SCM_RIGHTS), the paths resolved without symlinks, the missing names
// checked again at each start, and the pinned directories above protected
// paths. Everything runs through the real sbx binary (bin, built by
// TestMain), as root and as nobody, in temporary trees below /var/tmp.
//
//	go test -count=1 -run 'TestRedTeam10' ./targets/landlock/launch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/compiler/target"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// ---------------------------------------------------------------------------
// Helpers.

// rt10Tree is a tree owned by the user:
//
//	base/tmp                  TMPDIR (writable root)
//	base/tmp/a/b/proj         cwd, with .git/config "cfg"
//	base/tmp/a/c              a sibling directory
//	base/outside/file         "out" (never writable)
//	base/home                 HOME
type rt10Tree struct {
	base, tmp, a, b, proj, outside, home string
}

func rt10NewTree(t *testing.T, u user) *rt10Tree {
	t.Helper()
	base, err := os.MkdirTemp("/var/tmp", "sbxrt10")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	tr := &rt10Tree{base: base, tmp: base + "/tmp", a: base + "/tmp/a", b: base + "/tmp/a/b", proj: base + "/tmp/a/b/proj", outside: base + "/outside", home: base + "/home"}
	for p, c := range map[string]string{"tmp/a/b/proj/.git/config": "cfg", "tmp/a/b/proj/file": "top", "tmp/a/c/f": "c", "tmp/a/b/other/f": "o", "outside/file": "out", "home/readme": "home"} {
		full := filepath.Join(base, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(base, 0o755)
	filepath.Walk(base, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
	return tr
}

func (tr *rt10Tree) env() []string { return []string{"HOME=" + tr.home, "TMPDIR=" + tr.tmp} }

// intact reports what changed in the protected and outside content.
func (tr *rt10Tree) intact() []string {
	var bad []string
	for f, want := range map[string]string{tr.proj + "/.git/config": "cfg", tr.outside + "/file": "out"} {
		if b, err := os.ReadFile(f); err != nil || string(b) != want {
			bad = append(bad, fmt.Sprintf("%s is %q (%v)", f, b, err))
		}
	}
	for _, d := range []string{tr.a, tr.b, tr.proj, tr.proj + "/.git"} {
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			bad = append(bad, fmt.Sprintf("%s is no longer a directory (%v)", d, err))
		}
	}
	ents, _ := os.ReadDir(tr.outside)
	if len(ents) != 1 {
		bad = append(bad, fmt.Sprintf("outside has %d entries", len(ents)))
	}
	ents, _ = os.ReadDir(tr.proj + "/.git")
	if len(ents) != 1 {
		bad = append(bad, fmt.Sprintf("proj/.git has %d entries", len(ents)))
	}
	return bad
}

// rt10Exec runs argv (sbx run ... as u) with the given shell prefix
// (e.g. "exec 0<&- 1>&-"), stdin data, and returns stdout, stderr and
// the exit status; it fails the test after limit.
func rt10Exec(t *testing.T, u user, env []string, prefix string, stdin string, limit time.Duration, args ...string) (string, string, int) {
	t.Helper()
	argv := append([]string{filepath.Join(bin, "sbx"), "run"}, args...)
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
	}
	if prefix != "" {
		argv = append([]string{"/bin/sh", "-c", prefix + ` && exec "$@"`, "sh"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("sbx %q hung for %v", args, limit)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// rt10SbxProcs lists live processes running this test's sbx binary (sbx,
// its CLONE_VM inits, a supervisor), and zombies named sbx that are this
// test's (rt10OurZombie). Called when no sbx run of this test is in flight,
// any is a leftover.
func rt10SbxProcs() []string {
	want := filepath.Join(bin, "sbx")
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(st)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		comm := s[strings.IndexByte(s, '(')+1 : i]
		f := strings.Fields(s[i+1:])
		exe, _ := os.Readlink("/proc/" + e.Name() + "/exe")
		if exe == want || (comm == "sbx" && len(f) > 1 && f[0] == "Z" && rt10OurZombie(f[1], want)) {
			found = append(found, fmt.Sprintf("pid %d comm %s state %s ppid %s exe %q", pid, comm, f[0], f[1], exe))
		}
	}
	return found
}

// rt10OurZombie reports whether a zombie whose parent is ppid is this
// test's: its parent is this process or a live run of this test's sbx. Other
// packages' tests run in parallel and may leave their own sbx zombies (whose
// exe link is gone, so the name alone cannot tell them apart).
func rt10OurZombie(ppid, want string) bool {
	if ppid == strconv.Itoa(os.Getpid()) {
		return true
	}
	exe, _ := os.Readlink("/proc/" + ppid + "/exe")
	return exe == want
}

// rt10NoSbx waits up to 3 s for no process of this test's sbx to be left,
// and fails (killing them) otherwise.
func rt10NoSbx(t *testing.T, what string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		s := rt10SbxProcs()
		if len(s) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s: %d sbx process(es) left:\n%s", what, len(s), strings.Join(s[:min(len(s), 8)], "\n"))
			for _, l := range s {
				if pid, err := strconv.Atoi(strings.Fields(l)[1]); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rt10Artifact compiles one HCL profile into an artifact file in dir.
func rt10Artifact(t *testing.T, dir, name, src string) string {
	t.Helper()
	res, ds := compiler.CompileSources([]compiler.Source{{Name: "rt10.hcl", Data: []byte(src)}})
	if ds.HasErrors() {
		t.Fatalf("compiling: %v", ds)
	}
	a, ds := target.Build(res.Profile(name), "test", []target.Target{landlock.Target{}})
	if ds.HasErrors() {
		t.Fatalf("artifact: %v", ds)
	}
	data, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ---------------------------------------------------------------------------
// Standard streams.

// TestRedTeam10ClosedStdio: sbx started with some of its descriptors 0, 1
// and 2 closed (the Go runtime opens /dev/null on them, but the init is
// cloned early and receives the command's streams over its socket). The
// command must get /dev/null as stdin and two distinct pipes as stdout and
// stderr, its output must land in the right stream, and the exit status
// must be the command's. A marker file written by the command records what
// its descriptors are, also when sbx's stdout is closed.
func TestRedTeam10ClosedStdio(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		tr := rt10NewTree(t, u)
		script := `cat; echo OUT; echo ERR >&2; x=$(readlink /proc/$$/fd/0 /proc/$$/fd/1 /proc/$$/fd/2; ls /proc/$$/fd | wc -l); echo "$x" > fds; exit 7`
		for _, closed := range [][]int{nil, {0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}} {
			var prefix []string
			isClosed := map[int]bool{}
			for _, fd := range closed {
				prefix = append(prefix, fmt.Sprintf("%d>&-", fd))
				isClosed[fd] = true
			}
			pre := ""
			if len(prefix) > 0 {
				pre = "exec " + strings.Join(prefix, " ")
			}
			for _, mode := range []string{"json", "plain"} {
				name := fmt.Sprintf("closed%v/%s", closed, mode)
				os.Remove(tr.proj + "/fds")
				args := []string{"--cwd", tr.proj, "--", "/bin/sh", "-c", script}
				if mode == "json" {
					args = append([]string{"--json"}, args...)
				}
				out, errs, code := rt10Exec(t, u, tr.env(), pre, "STDIN-DATA\n", 20*time.Second, args...)
				if code != 7 {
					t.Errorf("%s: sbx exit %d, want 7; stdout %q stderr %q", name, code, out, errs)
				}
				if !isClosed[1] {
					switch mode {
					case "json":
						var r rtResult
						if err := json.Unmarshal([]byte(out), &r); err != nil {
							t.Errorf("%s: %v: %q", name, err, out)
						} else if r.ExitCode != 7 || r.Stderr != "ERR\n" || (r.Stdout != "OUT\n" && r.Stdout != "STDIN-DATA\nOUT\n") {
							t.Errorf("%s: result exit %d stdout %q stderr %q sbx_error %q", name, r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
						}
					case "plain":
						if out != "OUT\n" && out != "STDIN-DATA\nOUT\n" {
							t.Errorf("%s: stdout %q", name, out)
						}
						if isClosed[0] && out != "OUT\n" {
							t.Errorf("%s: stdin closed, but the command read %q", name, out)
						}
					}
				}
				if !isClosed[2] && mode == "plain" && errs != "ERR\n" {
					t.Errorf("%s: stderr %q", name, errs)
				}
				b, err := os.ReadFile(tr.proj + "/fds")
				if err != nil {
					t.Errorf("%s: the command wrote no marker: %v (stdout %q stderr %q)", name, err, out, errs)
					continue
				}
				l := strings.Split(strings.TrimSpace(string(b)), "\n")
				if len(l) != 4 {
					t.Errorf("%s: marker %q", name, b)
					continue
				}
				if isClosed[0] && l[0] != "/dev/null" {
					t.Errorf("%s: stdin is %s, want /dev/null", name, l[0])
				}
				if !strings.HasPrefix(l[1], "pipe:") || !strings.HasPrefix(l[2], "pipe:") || l[1] == l[2] {
					t.Errorf("%s: stdout %s, stderr %s: want two distinct pipes", name, l[1], l[2])
				}
				// ls's own directory descriptor plus 0, 1, 2 (and the
				// pipe to wc): nothing of sbx's leaked into the command.
				if n, _ := strconv.Atoi(l[3]); n > 4 {
					t.Errorf("%s: the command has %d descriptors: %q", name, n, b)
				}
			}
		}
		rt10NoSbx(t, "closed stdio")
		if bad := tr.intact(); len(bad) > 0 {
			t.Errorf("tree changed: %v", bad)
		}
	})
}

// ---------------------------------------------------------------------------
// Killing sbx while the early init waits for its program.

// TestRedTeam10KillDuringPrestart: sbx run is killed (SIGKILL, sometimes
// SIGTERM or SIGINT) 0-3 ms after it was started: before the early init
// exists, while it creates its namespaces, while it waits for the init's
// part, between the two parts, and after the command started. Afterwards
// no process of the run may be left: no init (reparented to the host's
// PID 1, holding a namespace), no command, no zombie.
func TestRedTeam10KillDuringPrestart(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		tr := rt10NewTree(t, u)
		start := time.Now()
		n := 0
		for ; n < 200 && time.Since(start) < 8*time.Second && !t.Failed(); n++ {
			tok := rt6Token()
			cmd := rt6Cmd(u, tr.env(), "--timeout", "30s", "--cwd", tr.proj, "--", "/bin/sh", "-c", "sleep 30", tok)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
			sig := syscall.SIGKILL
			switch n % 10 {
			case 3:
				sig = syscall.SIGTERM
			case 7:
				sig = syscall.SIGINT
			}
			// Through setpriv, the pid is setpriv's until it execs sbx: the
			// signal may hit setpriv (then sbx never starts).
			cmd.Process.Signal(sig)
			cmd.Wait()
			rt6NoSurvivors(t, tok)
			rt10NoSbx(t, fmt.Sprintf("iteration %d (%v)", n, sig))
		}
		t.Logf("%d kills", n)
	})
}

// ---------------------------------------------------------------------------
// Paths on which the early init is abandoned.

// TestRedTeam10AbandonedEarly: runs that end before the command starts,
// or without the early init's program (a dry run, an ABI cap below the
// profile's, a TMPDIR that is refused, a missing --cwd, an unknown
// profile, a command not found or not executable), many times: each
// exits with the documented status and leaves no process behind. A
// normal run meanwhile has exactly one init (no zombie of an abandoned
// one, no second init).
func TestRedTeam10AbandonedEarly(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		tr := rt10NewTree(t, u)
		noexec := tr.tmp + "/noexec.sh"
		os.WriteFile(noexec, []byte("#!/bin/sh\necho ran\n"), 0o644)
		os.Lchown(noexec, u.uid, u.uid)
		cases := []struct {
			name string
			env  []string
			args []string
			want int
		}{
			{"dry-run", nil, []string{"--dry-run", "--cwd", tr.proj, "--", "true"}, 0},
			{"abi cap", nil, []string{"--landlock-abi-cap", "1", "--cwd", tr.proj, "--", "/bin/echo", "ran"}, 125},
			{"TMPDIR=/", []string{"TMPDIR=/"}, []string{"--cwd", tr.proj, "--", "/bin/echo", "ran"}, 125},
			{"TMPDIR=/etc", []string{"TMPDIR=/etc"}, []string{"--cwd", tr.proj, "--", "/bin/echo", "ran"}, 125},
			{"missing cwd", nil, []string{"--cwd", tr.base + "/nowhere", "--", "/bin/echo", "ran"}, 125},
			{"unknown profile", nil, []string{"--profile", "no-such-profile", "--cwd", tr.proj, "--", "/bin/echo", "ran"}, 125},
			{"not found", nil, []string{"--cwd", tr.proj, "--", tr.base + "/no-such-command"}, 127},
			{"not executable", nil, []string{"--cwd", tr.proj, "--", noexec}, 126},
			{"ok", nil, []string{"--cwd", tr.proj, "--", "/bin/echo", "ran"}, 0},
		}
		for _, c := range cases {
			for i := 0; i < 15; i++ {
				out, errs, code := rt10Exec(t, u, append(tr.env(), c.env...), "", "", 20*time.Second, append([]string{"--json"}, c.args...)...)
				if code != c.want {
					t.Errorf("%s #%d: exit %d, want %d; stdout %.300q stderr %.300q", c.name, i, code, c.want, out, errs)
					break
				}
				if c.want != 0 && strings.Contains(out, `"stdout":"ran`) {
					t.Errorf("%s: the command ran: %.300q", c.name, out)
				}
			}
			rt10NoSbx(t, c.name)
		}
		// During a run: sbx's children are one init (and nothing else of
		// sbx's but a supervisor, which is not its child); no zombie.
		tok := rt6Token()
		cmd := rt6Cmd(u, tr.env(), "--json", "--cwd", tr.proj, "--", "/bin/sh", "-c", "sleep 2; :", tok)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sbxPid := cmd.Process.Pid // also as another user: setpriv execs sbx
		// Once the command's shell runs (it carries tok), the children are
		// listed within its 2 s.
		if !rt15fAwaitStarted(sbxPid, tok, 10*time.Second) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the command never started")
		}
		var kids []string
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			s := string(st)
			i := strings.LastIndexByte(s, ')')
			f := strings.Fields(s[i+1:])
			if len(f) > 1 && f[1] == strconv.Itoa(sbxPid) {
				kids = append(kids, e.Name()+" "+s[strings.IndexByte(s, '(')+1:i]+" "+f[0])
			}
		}
		cmd.Wait()
		if len(kids) != 1 || strings.HasSuffix(kids[0], " Z") {
			t.Errorf("children of sbx during a run: %q (want one init)", kids)
		}
		rt6NoSurvivors(t, tok)
		rt10NoSbx(t, "normal run")
	})
}

// ---------------------------------------------------------------------------
// Pins.

// rt10RenameSource performs renames and removals given as arguments:
// "ren A B", "xchg A B" (renameat2 RENAME_EXCHANGE), "noreplace A B",
// "rmdir A", and prints "OP A B: OK" or the errno's name for each.
const rt10RenameSource = `
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE 1
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE 2
#endif
int main(int argc, char **argv) {
	for (int i = 1; i < argc; ) {
		const char *op = argv[i];
		long r;
		if (!strcmp(op, "rmdir")) {
			r = rmdir(argv[i+1]);
			printf("%s %s: %s\n", op, argv[i+1], r == 0 ? "OK" : strerrorname_np(errno));
			i += 2;
			continue;
		}
		unsigned flags = 0;
		if (!strcmp(op, "xchg")) flags = RENAME_EXCHANGE;
		if (!strcmp(op, "noreplace")) flags = RENAME_NOREPLACE;
		r = syscall(SYS_renameat2, AT_FDCWD, argv[i+1], AT_FDCWD, argv[i+2], flags);
		printf("%s %s %s: %s\n", op, argv[i+1], argv[i+2], r == 0 ? "OK" : strerrorname_np(errno));
		i += 3;
	}
	return 0;
}
`

// rt10MountOpts returns the per-mount options (field 6) of the mount at
// path in mountinfo, or of the mount that contains it when exact is
// false.
func rt10MountOpts(mountinfo, path string, exact bool) string {
	best, opts := "", ""
	for _, l := range strings.Split(mountinfo, "\n") {
		f := strings.Fields(l)
		if len(f) < 6 {
			continue
		}
		mp := f[4]
		if mp == path || (!exact && (mp == "/" || strings.HasPrefix(path, mp+"/"))) {
			if len(mp) >= len(best) {
				best, opts = mp, f[5] // the last one at a point is on top
			}
		}
	}
	return opts
}

// rt10Flags keeps the flags that matter of a mount's options.
func rt10Flags(opts string) string {
	var keep []string
	for _, o := range []string{"ro", "rw", "nosuid", "nodev", "noexec"} {
		if slices.Contains(strings.Split(opts, ","), o) {
			keep = append(keep, o)
		}
	}
	return strings.Join(keep, ",")
}

// TestRedTeam10Pins: TMPDIR=base/tmp, cwd base/tmp/a/b/proj with .git.
// The directories between them (a, a/b) are pinned: the command cannot
// rename or remove them, exchange them with a sibling, or rename a symlink
// or a directory over them, and proj and .git stay where they are (on the
// host too). Ordinary work in those directories still succeeds, and the
// pinned mounts keep the host's flags.
func TestRedTeam10Pins(t *testing.T) {
	rn := cHelper(t, "rt10ren", rt10RenameSource)
	asUser(t, func(t *testing.T, u user) {
		tr := rt10NewTree(t, u)
		run := func(script string) rtResult {
			t.Helper()
			return rtRun(t, rtOpts{u: u, env: tr.env(), args: []string{"--cwd", tr.proj, "--", "/bin/sh", "-c", script}, timeout: 20 * time.Second})
		}
		attacks := strings.NewReplacer("T", tr.tmp, "RN", rn).Replace(`
cd T
mkdir -p T/c2/x T/emptyd; ln -s T/c2 T/lnk; ln -s T/c2 T/a/lnk2; mkdir -p T/a/emptyb
RN ren T/a T/a.moved  ren T/a/b T/a/b.moved  ren T/a/b T/c2/b  ren T/a/b/proj T/a/b/proj.moved \
   ren T/a/b/proj/.git T/a/b/proj/git.moved \
   xchg T/a T/c2  xchg T/a/b T/a/c  xchg T/a/b/proj T/a/b/other  xchg T/c2 T/a  xchg T/a/c T/a/b \
   ren T/lnk T/a  ren T/a/lnk2 T/a/b  ren T/emptyd T/a  ren T/a/emptyb T/a/b \
   noreplace T/a T/a.nr  rmdir T/a  rmdir T/a/b  rmdir T/a/b/proj
cd T/a/b && mv b ../b.mv 2>/dev/null; cd T/a && mv b b.mv2 && echo MV-OK
true`)
		r := run(attacks)
		if r.SbxError != "" {
			t.Fatalf("attack run refused: %s", r.SbxError)
		}
		for _, l := range strings.Split(r.Stdout, "\n") {
			if strings.HasSuffix(l, ": OK") || l == "MV-OK" {
				t.Errorf("HOLE: %s", l)
			}
		}
		t.Logf("attacks:\n%s", r.Stdout)
		if bad := tr.intact(); len(bad) > 0 {
			t.Errorf("HOLE: the tree changed on the host: %v", bad)
		}
		// The next run still protects .git.
		r = run("echo x >> .git/config && echo WROTE; echo x >> " + tr.outside + "/file && echo WROTE-OUT; true")
		if strings.Contains(r.Stdout, "WROTE") {
			t.Errorf("HOLE: second run: %+v", r)
		}

		// Ordinary work in the pinned directories.
		work := strings.NewReplacer("A", tr.a, "B", tr.b).Replace(`set -e
for d in A B; do
  echo x > $d/new; mv $d/new $d/new2; rm $d/new2
  mkdir -p $d/sub/deep/er; echo y > $d/sub/deep/er/f; mv $d/sub $d/sub2; rm -rf $d/sub2
  ln -s new $d/link; mv $d/link $d/link2; rm $d/link2
done
mv A/c A/c.ren && mv A/c.ren A/c
rm -rf B/other
mkdir A/newrepo && cd A/newrepo && git init -q . && git -c user.email=a@b -c user.name=n commit -q --allow-empty -m m && cd .. && rm -rf newrepo
echo OK`)
		r = run(work)
		if r.SbxError != "" || r.ExitCode != 0 || !strings.Contains(r.Stdout, "OK") {
			t.Errorf("ordinary work failed: exit %d stdout %q stderr %q sbx_error %q", r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
		}

		// Flags: the pinned mounts carry the host's flags of the mount they
		// are on, with nosuid and nodev (those of every writable root since
		// round 12), and are writable.
		host, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			t.Fatal(err)
		}
		r = run("cat /proc/self/mountinfo; touch " + tr.a + "/w1 " + tr.b + "/w2 && echo W-OK")
		if !strings.Contains(r.Stdout, "W-OK") {
			t.Errorf("pinned directories not writable: %+v", r)
		}
		for _, d := range []string{tr.a, tr.b} {
			in := rt10MountOpts(r.Stdout, d, true)
			want := rt10Flags(rt10MountOpts(string(host), d, false) + ",nosuid,nodev")
			if in == "" {
				t.Errorf("%s is not a mount point in the sandbox (not pinned)", d)
				continue
			}
			if got := rt10Flags(in); got != want {
				t.Errorf("pinned %s has flags %q, the host's mount %q", d, got, want)
			}
		}
		rt10NoSbx(t, "pins")
	})
}

// ---------------------------------------------------------------------------
// Paths through symlinks.

// TestRedTeam10SymlinkPaths: a profile whose writable path goes through a
// symlinked directory is refused (125, naming the path), nothing is
// written to the link's target; a cwd and a TMPDIR given through symlinks
// work (the anchors are canonicalised) and are still protected.
func TestRedTeam10SymlinkPaths(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		tr := rt10NewTree(t, u)
		os.MkdirAll(tr.base+"/real/sub", 0o755)
		os.Symlink(tr.base+"/real", tr.proj+"/lnk")
		os.Symlink(tr.proj, tr.base+"/projlink")
		os.Symlink(tr.tmp, tr.base+"/tmplink")
		filepath.Walk(tr.base, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
		art := rt10Artifact(t, tr.base, "rt10lnk", `
profile "rt10lnk" {
  filesystem {
    read    = [root]
    write   = [cwd, path(cwd, "lnk", "sub")]
    protect = [".git"]
  }
  network { mode = "none" }
}`)
		os.Chmod(art, 0o644)
		r := rtRun(t, rtOpts{u: u, env: tr.env(), args: []string{"--artifact", art, "--cwd", tr.proj, "--", "/bin/sh", "-c", "echo pwned > lnk/sub/x; echo RAN"}, timeout: 20 * time.Second})
		// lnk is in the writable {cwd}: a link a command could have
		// planted, so the nested write rule through it is left out (red
		// team 19) and the result says so; a write root through a link
		// that no command could have planted is refused (below).
		if r.SbxError != "" || !strings.Contains(r.Stderr, "Read-only file system") || !strings.Contains(r.Sandbox.String(), `"rule":"write {cwd}/lnk/sub"`) {
			t.Errorf("writable path through a planted symlink: %+v %s (want the rule left out, listed under dropped)", r, r.Sandbox)
		}
		if _, err := os.Stat(tr.base + "/real/sub/x"); err == nil {
			t.Errorf("HOLE: written through the symlink")
		}
		// The same through a link in a directory no run could have
		// written (only root's, outside {cwd}, {tmpdir} and /tmp).
		fixed := tr.base + "/fixed" // root's, created after the tree was given to u
		os.Mkdir(fixed, 0o755)
		os.Symlink(tr.base+"/real", fixed+"/lnk")
		art2 := rt10Artifact(t, tr.base, "rt10lnk2", `
profile "rt10lnk2" {
  filesystem {
    read    = [root]
    write   = [cwd, "`+fixed+`/lnk/sub"]
  }
  network { mode = "none" }
}`)
		os.Chmod(art2, 0o644)
		r = rtRun(t, rtOpts{u: u, env: tr.env(), args: []string{"--artifact", art2, "--cwd", tr.proj, "--", "/bin/sh", "-c", "echo pwned > " + fixed + "/lnk/sub/x; echo RAN"}, timeout: 20 * time.Second})
		if r.SbxError == "" || !strings.Contains(r.SbxError, "lnk/sub") || r.ExitCode != 125 {
			t.Errorf("writable path through a symlink: %+v (want a refusal naming lnk/sub)", r)
		}
		if _, err := os.Stat(tr.base + "/real/sub/x"); err == nil {
			t.Errorf("HOLE: written through the symlink")
		}
		// cwd and TMPDIR through links.
		script := `pwd; echo w > f && echo CWD-OK; echo w > "$TMPDIR/t" && echo TMP-OK; echo x >> .git/config && echo WROTE-GIT; echo x > ` + tr.outside + `/p && echo WROTE-OUT; true`
		r = rtRun(t, rtOpts{u: u, env: []string{"HOME=" + tr.home, "TMPDIR=" + tr.base + "/tmplink"}, args: []string{"--cwd", tr.base + "/projlink", "--", "/bin/sh", "-c", script}, timeout: 20 * time.Second})
		if r.SbxError != "" || !strings.Contains(r.Stdout, "CWD-OK") || !strings.Contains(r.Stdout, "TMP-OK") {
			t.Errorf("cwd/TMPDIR through symlinks: %+v", r)
		}
		if strings.Contains(r.Stdout, "WROTE") {
			t.Errorf("HOLE: %+v", r)
		}
		if bad := tr.intact(); len(bad) > 0 {
			t.Errorf("tree changed: %v", bad)
		}
		rt10NoSbx(t, "symlinks")
	})
}

// ---------------------------------------------------------------------------
// Concurrency.

// TestRedTeam10ConcurrentTrees: 8 concurrent sbx runs over one shared
// TMPDIR with projects p0..p3 (each with .git): half work in their project
// and attack everything outside it (other projects' .git, outside, the
// pinned parents), half have cwd = the shared TMPDIR's subdirectory "a"
// and churn the tree (renames of projects' parents, of files, symlinks
// swapped in). Nothing outside the writable roots is written, no .git
// changes, no run hangs, nothing is left.
func TestRedTeam10ConcurrentTrees(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		tr := rt10NewTree(t, u)
		projs := []string{}
		for i := 0; i < 4; i++ {
			p := fmt.Sprintf("%s/a/g%d/p%d", tr.tmp, i, i)
			os.MkdirAll(p+"/.git", 0o755)
			os.WriteFile(p+"/.git/config", []byte("cfg"), 0o644)
			projs = append(projs, p)
		}
		filepath.Walk(tr.base, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
		var wg sync.WaitGroup
		var mu sync.Mutex
		var holes []string
		redirected := 0
		deadline := time.Now().Add(8 * time.Second)
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for it := 0; time.Now().Before(deadline) && it < 12; it++ {
					var cwd, script string
					if w%2 == 0 {
						cwd = projs[(w/2+it)%4]
						script = strings.NewReplacer("OUT", tr.outside, "TMP", tr.tmp, "PROJ", cwd).Replace(`
echo "PWD=$(pwd -P)"
echo w > f.$$ && rm f.$$
for g in TMP/a/g*/p*/.git/config TMP/a/b/proj/.git/config; do echo x >> $g && echo WROTE-GIT $g; done
echo x >> OUT/file && echo WROTE-OUT
mv .. ../../gx 2>/dev/null && echo MOVED-PARENT
mv PROJ PROJ.x 2>/dev/null && echo MOVED-CWD
true`)
					} else {
						cwd = tr.a
						script = strings.NewReplacer("OUT", tr.outside, "A", tr.a).Replace(`
j=A/j$$; mkdir -p $j/d/e; echo x > $j/d/e/f
for i in 1 2 3 4 5; do mv $j/d $j/d2 && mv $j/d2 $j/d; ln -sfn OUT $j/l; ln -sfn $j/d $j/l; done
rm -rf $j
true`)
					}
					r := rtRun(t, rtOpts{u: u, env: tr.env(), args: []string{"--cwd", cwd, "--", "/bin/sh", "-c", script}, timeout: 20 * time.Second})
					if w%2 == 0 && !strings.Contains(r.Stdout, "PWD="+cwd+"\n") {
						// The churner had swapped the project for a symlink
						// when sbx bound --cwd: sbx canonicalises it (by
						// design), so the run's cwd is the link's target.
						mu.Lock()
						redirected++
						mu.Unlock()
						continue
					}
					if strings.Contains(r.Stdout, "WROTE-OUT") || strings.Contains(r.Stdout, "MOVED") || r.SbxError != "" {
						mu.Lock()
						holes = append(holes, fmt.Sprintf("worker %d cwd %s: %q", w, cwd, r.Stdout))
						mu.Unlock()
					}
					if w%2 == 0 && strings.Contains(r.Stdout, "WROTE-GIT") {
						// A churner's own projects are not protected in its
						// run (its cwd is a); the workers' cwd .git must be.
						for _, l := range strings.Split(r.Stdout, "\n") {
							if strings.HasPrefix(l, "WROTE-GIT ") && strings.HasPrefix(strings.TrimPrefix(l, "WROTE-GIT "), cwd+"/") {
								mu.Lock()
								holes = append(holes, fmt.Sprintf("worker %d wrote its own cwd's .git: %s", w, l))
								mu.Unlock()
							}
						}
					}
				}
			}(w)
		}
		wg.Wait()
		if redirected > 0 {
			t.Logf("%d worker run(s) had their --cwd swapped for a symlink to outside before sbx bound it (canonicalised: the target became the writable cwd; outside/file checks skipped for them, see the report)", redirected)
		}
		for _, h := range holes {
			t.Errorf("HOLE: %s", h)
		}
		if b, _ := os.ReadFile(tr.outside + "/file"); string(b) != "out" && redirected == 0 {
			t.Errorf("HOLE: outside/file is %q", b)
		}
		rt10NoSbx(t, "concurrent")
	})
}
