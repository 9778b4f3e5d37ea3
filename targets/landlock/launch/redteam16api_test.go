//go:build linux && amd64

package launch_test

// Red team 16, capture pipeline and output modes of sbx run under faults:
// --events line framing when the reader stalls, the JSON result at the
// edges of its fields, exit statuses of commands that cannot be executed
// under every containment, as root and as nobody, with and without a
// sandbox. The failures they found (session 11) are fixed: the tests
// guard the fixes.
//
//	go test -count=1 -run 'TestRedTeam16API' ./targets/landlock/launch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rt16Cmd is sbx run ARGS as u, in f's workspace with HOME at f's home.
func rt16Cmd(u user, f *fixture, args ...string) *exec.Cmd {
	argv := append([]string{filepath.Join(bin, "sbx"), "run"}, args...)
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "HOME=" + f.home}
	cmd.Dir = f.ws
	return cmd
}

// rt16Lines checks that every line of out is one JSON object and returns
// their "type" fields; a bad line is reported with its ends.
func rt16Lines(t *testing.T, what string, out []byte) []string {
	t.Helper()
	var types []string
	if len(out) > 0 && out[len(out)-1] != '\n' {
		t.Errorf("%s: output does not end with a newline", what)
	}
	for i, l := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Errorf("%s: line %d (%d bytes) is not one JSON object: %v\n  starts %.80q\n  ends   %q", what, i+1, len(l), err, l, l[max(0, len(l)-80):])
			types = append(types, "INVALID")
			continue
		}
		ty, _ := m["type"].(string)
		types = append(types, ty)
	}
	return types
}

// rt16Stalled runs sbx --events (extra args) as u, stdout into a pipe that
// holds 8 KiB and that nobody reads: the start event and the first 4 KiB
// piece of the first output event (a 20 KB burst) fit, the rest waits.
// Once that piece is in, stall is called with sbx's process; when the
// command (its shell, found by token) is gone, the pipe is read to the end.
func rt16Stalled(t *testing.T, u user, f *fixture, profile string, extra []string, stall func(p *os.Process)) (out []byte, status int, stderr string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, 8192); err != nil {
		t.Skipf("F_SETPIPE_SZ: %v", err)
	}
	tok := rt6Token()
	args := append([]string{"--events", "--profile", profile}, extra...)
	args = append(args, "--", "/bin/sh", "-c", "head -c 20000 /dev/zero | tr '\\0' a; sleep 30; : "+tok)
	cmd := rt16Cmd(u, f, args...)
	cmd.Stdout = w
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	defer func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
		rt11KillAll(tok)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := unix.IoctlGetInt(int(r.Fd()), unix.TIOCINQ)
		if err != nil {
			t.Fatal(err)
		}
		if n >= 4096 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sbx wrote only %d bytes (stderr %q)", n, errb.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	stall(cmd.Process)
	if left := rt11AwaitGone(tok, 10*time.Second); len(left) > 0 {
		t.Fatalf("the command was not ended: %v", left)
	}
	out, _ = io.ReadAll(r)
	<-done
	return out, cmd.ProcessState.ExitCode(), errb.String()
}

// TestRedTeam16APIEventsStalledTimeout: with --events and a reader that
// stops reading, sbx writes an output event in pieces (4 KiB to a pipe)
// and gives up on it when the deadline passes: the event is left cut in
// the middle, without its newline, and the exit event is appended to it,
// so that the last line is no JSON and a reader never gets the result.
// Expected: every line one JSON object (an event dropped whole, or the
// line it began ended), the exit event last, on a line of its own.
// Cause: liveOutput.Write (cmd/sbx/live.go) cuts between pieces of one
// event; eventWriter.write does not know.
func TestRedTeam16APIEventsStalledTimeout(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, profile := range []string{"danger-full-access", "workspace"} {
			out, status, stderr := rt16Stalled(t, u, f, profile, []string{"--timeout", "1s"}, func(*os.Process) {})
			types := rt16Lines(t, profile, out)
			if len(types) == 0 || types[len(types)-1] != "exit" || status != 124 {
				t.Errorf("%s: status %d, events %v; want 124 and the last event exit (stderr %q)", profile, status, types, stderr)
			}
		}
	})
}

// TestRedTeam16APIEventsStalledSignal: the same, but SIGTERM cancels the
// run while sbx waits for room: the output event is cut (no newline), and
// the exit event is then dropped too: liveOutput stays cut once
// boundFor has bounded it again for the result (run.go), so sbx ends
// 143 with no final event. README: "the result is written if the reader
// takes it soon" (a second); this reader reads at once.
func TestRedTeam16APIEventsStalledSignal(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		for _, profile := range []string{"danger-full-access", "workspace"} {
			out, status, stderr := rt16Stalled(t, u, f, profile, []string{"--timeout", "20s"}, func(p *os.Process) { p.Signal(syscall.SIGTERM) })
			types := rt16Lines(t, profile, out)
			if len(types) == 0 || types[len(types)-1] != "exit" || status != 143 {
				t.Errorf("%s: status %d, events %v; want 143 and the last event exit (stderr %q)", profile, status, types, stderr)
			}
		}
	})
}

// TestRedTeam16APIEventsCutNotice: when live output is cut (the reader
// stalled past the deadline), README says "sbx says so on stderr"; in
// terminal mode it does ("the command's output was cut short"), with
// --events stderr stays empty: the notice is printed only in the
// terminal-mode branch of runCommand (cmd/sbx/run.go).
func TestRedTeam16APIEventsCutNotice(t *testing.T) {
	u := users[0]
	f := newFixture(t, u)
	_, status, stderr := rt16Stalled(t, u, f, "danger-full-access", []string{"--timeout", "1s"}, func(*os.Process) {})
	if status != 124 || !strings.Contains(stderr, "cut short") {
		t.Errorf("status %d, stderr %q; want 124 and a notice that the live output was cut", status, stderr)
	}
}

// TestRedTeam16APIConcurrentRuns: eight sbx runs at once, sandboxed and
// not, as root and nobody, keep their own output and status.
func TestRedTeam16APIConcurrentRuns(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		var wg sync.WaitGroup
		for i := range 8 {
			profile := []string{"danger-full-access", "workspace"}[i%2]
			wg.Add(1)
			go func() {
				defer wg.Done()
				tag := fmt.Sprintf("tag%d-", i)
				cmd := rt16Cmd(u, f, "--json", "--profile", profile, "--", "/bin/sh", "-c",
					fmt.Sprintf("i=0; while [ $i -lt 300 ]; do echo %s$i; i=$((i+1)); done; exit %d", tag, 10+i))
				out, _ := cmd.Output()
				var m map[string]any
				if err := json.Unmarshal(out, &m); err != nil {
					t.Errorf("%d: %v", i, err)
					return
				}
				lines := strings.Split(strings.TrimSpace(m["stdout"].(string)), "\n")
				if m["exit_code"] != float64(10+i) || cmd.ProcessState.ExitCode() != 10+i || len(lines) != 300 {
					t.Errorf("%d %s: exit %v/%d, %d lines", i, profile, m["exit_code"], cmd.ProcessState.ExitCode(), len(lines))
				}
				for _, l := range lines {
					if !strings.HasPrefix(l, tag) {
						t.Errorf("%d: foreign line %q", i, l)
						return
					}
				}
			}()
		}
		wg.Wait()
	})
}

// TestRedTeam16APITimeoutMax: --timeout at the largest duration (what a
// profile's timeout saturates to) is reported as a negative timeout_ms:
// the rounding up to whole milliseconds in Result.writeJSON overflows.
func TestRedTeam16APITimeoutMax(t *testing.T) {
	u := users[0]
	f := newFixture(t, u)
	for _, profile := range []string{"danger-full-access", "workspace"} {
		cmd := rt16Cmd(u, f, "--json", "--timeout", "2562047h47m16.854775807s", "--profile", profile, "--", "/bin/true")
		out, _ := cmd.Output()
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("%s: %v: %s", profile, err, out)
		}
		if ms, _ := m["timeout_ms"].(float64); ms <= 0 || m["exit_code"] != float64(0) {
			t.Errorf("%s: timeout_ms %v exit %v; want about 9223372036855 and 0", profile, m["timeout_ms"], m["exit_code"])
		}
	}
}

// TestRedTeam16APICgroupExecFailure: under --containment cgroup a script
// whose interpreter is not executable (execve: EACCES) ends sbx with 125
// "no process containment available" instead of the 126 it gets under
// the other mechanisms: package syscall's exec errno is read as the
// cgroup failing (linuxContainer.isContainmentError).
func TestRedTeam16APICgroupExecFailure(t *testing.T) {
	u := users[0]
	f := newFixture(t, u)
	if err := os.WriteFile(filepath.Join(f.ws, "bad.sh"), []byte("#!/etc/passwd\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	probe := rt16Cmd(u, f, "--json", "--containment", "cgroup", "--profile", "danger-full-access", "--", "/bin/true")
	if err := probe.Run(); err != nil {
		t.Skipf("cgroup containment unavailable: %v", err)
	}
	for _, c := range []string{"auto", "cgroup", "process-group"} {
		cmd := rt16Cmd(u, f, "--json", "--allow-degraded", "--containment", c, "--profile", "danger-full-access", "--", "./bad.sh")
		out, _ := cmd.Output()
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("%s: %v: %s", c, err, out)
		}
		code := cmd.ProcessState.ExitCode()
		if code != 126 || m["exit_code"] != float64(126) || !strings.Contains(m["error"].(string), "permission denied") {
			t.Errorf("--containment %s: status %d, result %v %v %v; want 126, permission denied", c, code, m["exit_code"], m["error"], m["sbx_error"])
		}
	}
}

// TestRedTeam16APIExecFailures: commands that cannot be executed give
// 126/127 and a valid result in --json and --events, under the sandbox
// and without, as root and as nobody.
func TestRedTeam16APIExecFailures(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		files := map[string]string{"bad.sh": "#!/etc/passwd\n", "miss.sh": "#!/nonexistent/sh\n", "noexec": "x", "empty": ""}
		for n, c := range files {
			mode := os.FileMode(0o755)
			if n == "noexec" {
				mode = 0o644
			}
			os.WriteFile(filepath.Join(f.ws, n), []byte(c), mode)
			os.Chown(filepath.Join(f.ws, n), u.uid, u.uid)
		}
		os.Symlink("/nonexistent", filepath.Join(f.ws, "dangling"))
		os.Mkdir(filepath.Join(f.ws, "adir"), 0o755)
		want := map[string]int{"./bad.sh": 126, "./miss.sh": 127, "./noexec": 126, "./empty": 126, "./dangling": 127, "./adir": 126, "nosuchcmd": 127}
		for _, profile := range []string{"danger-full-access", "workspace"} {
			for argv0, code := range want {
				for _, mode := range []string{"--json", "--events"} {
					cmd := rt16Cmd(u, f, mode, "--profile", profile, "--", argv0)
					out, _ := cmd.Output()
					what := profile + " " + mode + " " + argv0
					if got := cmd.ProcessState.ExitCode(); got != code {
						t.Errorf("%s: status %d, want %d: %s", what, got, code, out)
					}
					if mode == "--json" {
						var m map[string]any
						if err := json.Unmarshal(out, &m); err != nil || m["exit_code"] != float64(code) || m["error"] == nil {
							t.Errorf("%s: %v %s", what, err, out)
						}
					} else if types := rt16Lines(t, what, out); len(types) == 0 || types[len(types)-1] != "exit" {
						t.Errorf("%s: events %v", what, types)
					}
				}
			}
		}
	})
}
