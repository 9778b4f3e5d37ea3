//go:build linux && amd64

package launch_test

// Red team 13, fault battery: the capture pipeline and sbx's own
// descriptors, in classes the earlier batteries did not cover.
//
//   - sbx's standard output on a terminal nobody reads (a pty whose
//     master is open and never read), cooked (OPOST|ONLCR) and raw: the
//     timeout and SIGTERM must still end the run.
//   - sbx's standard streams: stdout and stderr the same pipe or the same
//     socket with both streams flooding (every byte of each stream, in
//     order), stderr a pipe without a reader with SIGPIPE default and
//     ignored (EPIPE), stdin closed / a directory / a socket, stdout an
//     O_APPEND file, a directory, read-only, O_PATH, closed.
//   - Output caps at their boundaries: caps 1, 2, 3, 7, 4 KiB and 64 KiB
//     against outputs of 0, cap-1, cap, cap+1 and 3*cap+5 bytes on both
//     streams at once, head and head-tail: the retained bytes are the
//     stream's own prefix and suffix, the counts add up; multi-byte UTF-8
//     split by the cap (one U+FFFD per cut byte, lossy set, the exact bytes
//     in --events).
//   - --timeout at its edges: sub-millisecond, zero spelled three ways,
//     signs, compound units, and values a duration does not parse.
//   - JSON validity of every failure path: --json and --events failures
//     (flag values, usage conflicts, profiles, artifacts, working
//     directories) are one object / one error event.
//   - The command against the sandbox's init: every signal to PID 1,
//     kill -KILL -1 with the supervisor running; pseudo file systems
//     (/proc/sys, /sys, /dev/pts, /sys/fs/cgroup) as the working directory.
//   - sbx's helpers from outside: the supervisor SIGSTOPped for good or
//     SIGKILLed mid-run, sbx's process group stopped (job control) past
//     the timeout and continued.
//   - --artifact through pipes: late, paused, byte by byte, via /dev/stdin,
//     never finished (SIGTERM still ends sbx).
//   - 16 concurrent runs alternating root and uid 65534 with supervisors
//     and a shared TMPDIR: no output or file crosses between runs.
//   - sbx SIGKILLed at start-up moments swept from 0 to 1.5 times the time
//     its command needs to start (measured with a sentinel file): no
//     process, mount, temporary file, /dev/shm entry or cgroup left.
//   - The library (executor.Run with the Landlock sandbox, as root):
//     a cancelled context, an expired deadline, cancellation from the
//     output callback, a panicking callback, one Request shared by
//     concurrent runs; no descriptor, child or process left.
//
// The standard: never a hang or a panic, never lost or corrupted output,
// the right status (125 and one JSON failure object for sbx's own
// failures), nothing left behind, never less enforcement. Every sbx case
// runs as root and as uid 65534.
//
//	go test -count=1 -run 'TestRedTeam13Fault' ./targets/landlock/launch
//
// Holes found are skipped unless SBX_RT13_HOLES=1.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
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
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/executor"
)

// ---------------------------------------------------------------------------
// Helpers.

// rt13fHoles skips a test that reproduces a known hole unless
// SBX_RT13_HOLES=1.
func rt13fHoles(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("SBX_RT13_HOLES") != "1" {
		t.Skip("HOLE: " + what + " (SBX_RT13_HOLES=1 to run)")
	}
}

// rt13fPty opens a pseudo-terminal pair (the slave without becoming the
// controlling terminal); raw clears OPOST on the slave, so that output
// is not expanded (no "\n" -> "\r\n").
func rt13fPty(t *testing.T, raw bool) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip(err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Skip(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Skip(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skip(err)
	}
	tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if raw {
		tio.Oflag &^= unix.OPOST
	} else {
		tio.Oflag |= unix.OPOST | unix.ONLCR
	}
	if err := unix.IoctlSetTermios(int(s.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// rt13fStart starts cmd and returns a channel closed when it has been
// reaped.
func rt13fStart(t *testing.T, cmd *exec.Cmd) <-chan struct{} {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return done
}

// rt13fEnded waits up to limit for done.
func rt13fEnded(done <-chan struct{}, limit time.Duration) bool {
	select {
	case <-done:
		return true
	case <-time.After(limit):
		return false
	}
}

// rt13fStatus is cmd's exit status, or 128+signal.
func rt13fStatus(cmd *exec.Cmd) int {
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// rt13fOneJSON decodes s as exactly one JSON object (whitespace around it
// only).
func rt13fOneJSON(s string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, errors.New("not an object")
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		return nil, fmt.Errorf("more than one value (%v)", err)
	}
	return v, nil
}

// rt13fInt reads a JSON number field (-1 when missing or not a number).
func rt13fInt(v map[string]any, k string) int64 {
	n, ok := v[k].(json.Number)
	if !ok {
		return -1
	}
	i, err := n.Int64()
	if err != nil {
		return -1
	}
	return i
}

// rt13fStr reads a JSON string field ("" when missing).
func rt13fStr(v map[string]any, k string) string {
	s, _ := v[k].(string)
	return s
}

// rt13fBool reads a JSON boolean field.
func rt13fBool(v map[string]any, k string) bool {
	b, _ := v[k].(bool)
	return b
}

// rt13fFailure checks an sbx failure in mode ("--json", "--events" or ""):
// status 125, no crash, a message on stderr, and on stdout exactly one
// failure object (--json: exit_code 125 and sbx_error; --events: one line
// {"type":"error","message":...,"exit_code":125}).
func rt13fFailure(mode string, o rt11Out) string {
	switch {
	case o.hung:
		return "sbx hung"
	case rt11Crashed(o.stderr):
		return "sbx crashed"
	case o.code != 125:
		return fmt.Sprintf("status %d, want 125", o.code)
	case !strings.HasPrefix(o.stderr, "sbx: "):
		return "no message on stderr"
	}
	switch mode {
	case "--json":
		v, err := rt13fOneJSON(o.stdout)
		if err != nil {
			return fmt.Sprintf("stdout is not one JSON object (%v)", err)
		}
		if rt13fInt(v, "exit_code") != 125 || rt13fStr(v, "sbx_error") == "" {
			return "the JSON object is not a failure object"
		}
	case "--events":
		lines := strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
		if o.stdout == "" {
			lines = nil
		}
		if len(lines) != 1 || !strings.HasSuffix(o.stdout, "\n") {
			return fmt.Sprintf("%d event lines, want one error event", len(lines))
		}
		v, err := rt13fOneJSON(lines[0])
		if err != nil {
			return fmt.Sprintf("the event is not JSON (%v)", err)
		}
		if rt13fStr(v, "type") != "error" || rt13fInt(v, "exit_code") != 125 || rt13fStr(v, "message") == "" {
			return "the event is not an error event"
		}
	}
	return ""
}

// rt13fPattern is n position-dependent printable bytes: "%07d\n" lines
// (line i holds i), cut at n.
func rt13fPattern(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%07d\n", i)
	}
	return b.Bytes()[:n]
}

// ---------------------------------------------------------------------------
// 1. A terminal nobody reads.

// TestRedTeam13FaultPtyNoReader: was a hole, fixed. sbx's stdout is a terminal whose
// master side is open but never read (a hung terminal emulator, a
// detached multiplexer, a stopped pager on the pty), the command writes
// a few MB and sleeps, --timeout is 1 s. In terminal mode sbx must kill
// the command on time (124) and end; SIGTERM must end it too. It does
// when the output holds no newlines or the terminal is raw (the controls
// here), but not with newlines on a cooked terminal (OPOST|ONLCR, every
// terminal's default): sbx writes live output in pieces of 256 bytes once
// poll reports room (cmd/sbx/live_unix.go, blockingFD: "a terminal
// reports room from WAKEUP_CHARS (256) free bytes on"), but n_tty expands
// each "\n" to "\r\n", so 256 bytes need up to 512 bytes of room (more
// with tab expansion): the write(2) blocks in n_tty_write (wchan
// wait_woken), the poll loop with it, the deadline never fires, the
// command keeps running, and SIGTERM is only written to the signal pipe
// nobody polls any more. Only SIGKILL ends sbx. Fixed: sbx writes to a
// terminal through a non-blocking descriptor of its own (opened again
// through /proc/self/fd), or, where it may not open it (here as nobody:
// the pty is root's), on a goroutine the loop waits for with poll.
//
//	python3 -c 'import os,pty,subprocess; m,s=pty.openpty(); subprocess.run(["sbx","run","--timeout","1s","--","sh","-c","yes \"\" | head -c 3000000; sleep 30"],stdout=s)'
//	# still running 30 s later; kill -TERM <sbx> has no effect
func TestRedTeam13FaultPtyNoReader(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		_, ws := rt11Dir(t, u)
		for _, tc := range []struct {
			name string
			raw  bool
			gen  string
		}{
			{"NUL bytes, cooked", false, "head -c 3000000 /dev/zero"},
			{"newlines, raw", true, "yes '' | head -c 3000000"},
			{"newlines, cooked", false, "yes '' | head -c 3000000"},
			{"stderr: NUL bytes, cooked", false, "head -c 3000000 /dev/zero >&2"}, // ends blocked on its status line: allowed
			{"stderr: newlines, cooked", false, "yes '' | head -c 3000000 >&2"},
		} {
			for _, profile := range []string{"workspace", "danger-full-access"} {
				t.Run(tc.name+"/"+profile, func(t *testing.T) {
					_, slave := rt13fPty(t, tc.raw)
					tok := rt6Token()
					cmd := rt6Cmd(u, nil, "--timeout", "1s", "--profile", profile, "--cwd", ws, "--", "/bin/sh", "-c", tc.gen+"; sleep 30", tok)
					var errb bytes.Buffer
					cmd.Stdout, cmd.Stderr = slave, &errb
					if strings.HasPrefix(tc.name, "stderr") {
						cmd.Stdout, cmd.Stderr = io.Discard, slave
					}
					start := time.Now()
					done := rt13fStart(t, cmd)
					if !rt13fEnded(done, 4*time.Second) {
						alive := len(rt11Procs(tok)) > 0
						cmd.Process.Signal(syscall.SIGTERM)
						termed := rt13fEnded(done, 3*time.Second)
						if !termed {
							cmd.Process.Kill()
							<-done
						}
						// sbx blocked writing its final status line to the
						// stalled terminal, after the run, is as documented
						// (signals have their default action there); the
						// command outliving its timeout, or sbx deaf to
						// SIGTERM, is not.
						if alive || !termed {
							t.Errorf("sbx still runs 4 s into a 1 s timeout (the command alive: %v); SIGTERM ended it: %v", alive, termed)
						}
					} else if st := rt13fStatus(cmd); st != 124 || rt11Crashed(errb.String()) {
						t.Errorf("status %d after %v, want 124: %q", st, time.Since(start).Round(time.Millisecond), errb.String())
					}
					if left := rt11AwaitGone(tok, 3*time.Second); len(left) > 0 {
						t.Errorf("%d process(es) of the run left: %v", len(left), left[:min(3, len(left))])
						rt11KillAll(tok)
					}
				})
			}
		}
	})
}

// TestRedTeam13FaultPtyComplete: the terminal paths that fixed the stall
// above deliver everything, in order: 200,000 lines (with the newlines
// the terminal turns into "\r\n") through sbx's own non-blocking
// descriptor (root opens the pty again) and through the terminal's
// goroutine (nobody may not open root's pty), read by a reader that keeps
// up.
func TestRedTeam13FaultPtyComplete(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		_, ws := rt11Dir(t, u)
		for _, profile := range []string{"workspace", "danger-full-access"} {
			master, slave := rt13fPty(t, false)
			cmd := rt6Cmd(u, nil, "--timeout", "60s", "--profile", profile, "--cwd", ws, "--", "/bin/sh", "-c", "seq 1 200000; echo done")
			var errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = slave, &errb
			done := rt13fStart(t, cmd)
			slave.Close()
			got, _ := io.ReadAll(master) // EIO once every writer has gone
			<-done
			var want bytes.Buffer
			for i := 1; i <= 200000; i++ {
				fmt.Fprintf(&want, "%d\r\n", i)
			}
			want.WriteString("done\r\n")
			if st := rt13fStatus(cmd); st != 0 || !bytes.Equal(got, want.Bytes()) {
				t.Errorf("%s: status %d, %d bytes on the terminal (want %d, equal %v): %q", profile, st, len(got), want.Len(), bytes.Equal(got, want.Bytes()), errb.String())
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 2. sbx's standard streams.

// rt13fAlphabet maps the digits and the newline of `seq` output to two
// disjoint alphabets, one per stream.
const (
	rt13fOutSet = "abcdefghijx"
	rt13fErrSet = "ABCDEFGHIJX"
)

// rt13fSeq is what `seq 1 n | tr '0-9\n' set` writes.
func rt13fSeq(n int, set string) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		for _, c := range strconv.Itoa(i) {
			b.WriteByte(set[c-'0'])
		}
		b.WriteByte(set[10])
	}
	return b.Bytes()
}

// rt13fFilter keeps the bytes of data that belong to set.
func rt13fFilter(data []byte, set string) []byte {
	var out []byte
	for _, c := range data {
		if strings.IndexByte(set, c) >= 0 {
			out = append(out, c)
		}
	}
	return out
}

// rt13fDropSbxLines removes sbx's own lines ("sbx: ...\n", written before
// the command starts or after it ended) from a merged stream.
func rt13fDropSbxLines(data []byte) []byte {
	for _, pre := range []string{"sbx: WARNING: profile danger-full-access applies NO sandbox: the command runs with all of your rights\n"} {
		data = bytes.Replace(data, []byte(pre), nil, 1)
	}
	return data
}

// TestRedTeam13FaultSharedStream: sbx's stdout and stderr are one and the
// same pipe (2>&1), or one socket, and the command floods both streams at
// once (200,000 lines each, written concurrently): in terminal mode every
// byte of each stream arrives, in order, with nothing else mixed in, and
// the status is the command's.
func TestRedTeam13FaultSharedStream(t *testing.T) {
	const n = 200000
	wantOut, wantErr := rt13fSeq(n, rt13fOutSet), rt13fSeq(n, rt13fErrSet)
	script := fmt.Sprintf("seq 1 %d | tr '0-9\\n' '%s' & seq 1 %d | tr '0-9\\n' '%s' >&2; wait; exit 6", n, rt13fOutSet, n, rt13fErrSet)
	asUser(t, func(t *testing.T, u user) {
		_, ws := rt11Dir(t, u)
		for _, kind := range []string{"pipe", "socket"} {
			for _, profile := range []string{"workspace", "danger-full-access"} {
				t.Run(kind+"/"+profile, func(t *testing.T) {
					var r, w *os.File
					if kind == "pipe" {
						var err error
						if r, w, err = os.Pipe(); err != nil {
							t.Fatal(err)
						}
					} else {
						fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
						if err != nil {
							t.Fatal(err)
						}
						r, w = os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
					}
					defer r.Close()
					tok := rt6Token()
					cmd := rt6Cmd(u, nil, "--timeout", "60s", "--profile", profile, "--cwd", ws, "--", "/bin/sh", "-c", script, tok)
					cmd.Stdout, cmd.Stderr = w, w
					done := rt13fStart(t, cmd)
					w.Close()
					got := make(chan []byte, 1)
					go func() { b, _ := io.ReadAll(r); got <- b }()
					if !rt13fEnded(done, 60*time.Second) {
						cmd.Process.Kill()
						<-done
						t.Fatal("sbx hung")
					}
					var data []byte
					select {
					case data = <-got:
					case <-time.After(10 * time.Second):
						t.Fatal("the stream was not closed after sbx ended")
					}
					if st := rt13fStatus(cmd); st != 6 {
						t.Errorf("status %d, want 6", st)
					}
					data = rt13fDropSbxLines(data)
					o, e := rt13fFilter(data, rt13fOutSet), rt13fFilter(data, rt13fErrSet)
					if !bytes.Equal(o, wantOut) || !bytes.Equal(e, wantErr) || len(o)+len(e) != len(data) {
						t.Errorf("merged stream of %d bytes: stdout %d/%d bytes intact %v, stderr %d/%d intact %v, %d foreign bytes (%.200q)",
							len(data), len(o), len(wantOut), bytes.Equal(o, wantOut), len(e), len(wantErr), bytes.Equal(e, wantErr), len(data)-len(o)-len(e),
							bytes.Map(func(r rune) rune {
								if strings.ContainsRune(rt13fOutSet+rt13fErrSet, r) {
									return -1
								}
								return r
							}, data))
					}
					if left := rt11AwaitGone(tok, 3*time.Second); len(left) > 0 {
						t.Errorf("process(es) left: %v", left)
						rt11KillAll(tok)
					}
				})
			}
		}
	})
}

// TestRedTeam13FaultStderrBroken: sbx's stderr is a pipe whose reader is
// gone before the start, with SIGPIPE at its default action and ignored
// (so that writes fail with EPIPE). Whatever sbx has to say on stderr
// (the command's stderr in terminal mode, the danger warning, the timeout
// line), it ends promptly, by SIGPIPE or with 125, never hangs, and no
// process of the run outlives it. With --json (nothing for sbx's stderr)
// the result is complete and the status the command's.
func TestRedTeam13FaultStderrBroken(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		_, ws := rt11Dir(t, u)
		for _, ignore := range []bool{false, true} {
			for _, profile := range []string{"workspace", "danger-full-access"} {
				for _, tc := range []struct {
					name  string
					flags []string
					sh    string
				}{
					{"stderr flood", nil, "yes err >&2"},
					{"one line then sleep", nil, "echo x >&2; sleep 30"},
					{"timeout line", []string{"--timeout", "1s"}, "sleep 30"},
					{"json", []string{"--json"}, "yes err | head -c 100000 >&2; exit 4"},
				} {
					name := fmt.Sprintf("%s/%s/sigpipe-ignored=%v", tc.name, profile, ignore)
					t.Run(name, func(t *testing.T) {
						r, w, err := os.Pipe()
						if err != nil {
							t.Fatal(err)
						}
						r.Close()
						defer w.Close()
						tok := rt6Token()
						cmd := rt6Cmd(u, nil, append(append([]string{"--profile", profile, "--cwd", ws}, tc.flags...), "--", "/bin/sh", "-c", tc.sh, tok)...)
						if ignore {
							// The caller ignores SIGPIPE (sbx inherits SIG_IGN).
							cmd.Args = append([]string{"/bin/sh", "-c", "trap '' PIPE; exec \"$@\"", "sh"}, cmd.Args...)
							cmd.Path = "/bin/sh"
						}
						var out bytes.Buffer
						cmd.Stdout, cmd.Stderr = &out, w
						start := time.Now()
						done := rt13fStart(t, cmd)
						if !rt13fEnded(done, 8*time.Second) {
							cmd.Process.Kill()
							<-done
							t.Fatalf("sbx hung with a broken stderr")
						}
						st := rt13fStatus(cmd)
						if tc.flags != nil && tc.flags[0] == "--json" {
							v, err := rt13fOneJSON(out.String())
							if st != 4 || err != nil || rt13fInt(v, "stderr_bytes") != 100000 {
								t.Errorf("--json: status %d, result %v (%.300s)", st, err, out.String())
							}
						} else if st != 128+int(syscall.SIGPIPE) && st != 125 && !(tc.name == "timeout line" && st == 124) {
							t.Errorf("status %d after %v, want SIGPIPE (141) or 125", st, time.Since(start).Round(time.Millisecond))
						}
						if left := rt11AwaitGone(tok, 3*time.Second); len(left) > 0 {
							t.Errorf("%d process(es) of the run outlive sbx: %v", len(left), left[:min(3, len(left))])
							rt11KillAll(tok)
						}
					})
				}
			}
		}
	})
}

// TestRedTeam13FaultStdDescriptors: sbx's own descriptors in odd states.
// stdin closed, a directory, a socket: the command still reads EOF from
// /dev/null. stdout an O_APPEND file with content: the output and the
// result are appended, nothing before them is overwritten. stdout a
// directory, a read-only file or an O_PATH descriptor: 125 and a message
// in every mode (the output cannot be delivered).
func TestRedTeam13FaultStdDescriptors(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		base, ws := rt11Dir(t, u)
		for _, profile := range []string{"workspace", "danger-full-access"} {
			t.Run(profile, func(t *testing.T) {
				// stdin.
				for _, kind := range []string{"closed", "directory", "socket"} {
					cmd := rt6Cmd(u, nil, "--json", "--profile", profile, "--cwd", ws, "--", "/bin/sh", "-c", `cat; echo "cat=$?"; stat -L -c '%t:%T' /dev/stdin`)
					switch kind {
					case "closed":
						cmd.Args = append([]string{"/bin/sh", "-c", "exec \"$@\" <&-", "sh"}, cmd.Args...)
						cmd.Path = "/bin/sh"
					case "directory":
						d, err := os.Open(base)
						if err != nil {
							t.Fatal(err)
						}
						defer d.Close()
						cmd.Stdin = d
					case "socket":
						fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
						if err != nil {
							t.Fatal(err)
						}
						a, b := os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b")
						defer a.Close()
						defer b.Close()
						b.WriteString("SECRET-INPUT\n")
						cmd.Stdin = a
					}
					o := rt11Wait(cmd, 20*time.Second)
					v, err := rt13fOneJSON(o.stdout)
					if o.code != 0 || err != nil || rt13fStr(v, "stdout") != "cat=0\n1:3\n" {
						t.Errorf("stdin %s: %v (%v)", kind, o, err)
					}
				}
				// stdout O_APPEND.
				for _, mode := range [][]string{nil, {"--json"}, {"--events"}} {
					p := filepath.Join(base, "append.out")
					if err := os.WriteFile(p, []byte("PRE-EXISTING\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
					if err != nil {
						t.Fatal(err)
					}
					cmd := rt6Cmd(u, nil, append(append([]string{"--profile", profile, "--cwd", ws}, mode...), "--", "/bin/sh", "-c", "echo one; echo two; exit 3")...)
					cmd.Stdout = f
					o := rt11Wait(cmd, 20*time.Second)
					f.Close()
					b, _ := os.ReadFile(p)
					ok := bytes.HasPrefix(b, []byte("PRE-EXISTING\n"))
					switch {
					case mode == nil:
						ok = ok && string(b) == "PRE-EXISTING\none\ntwo\n"
					case mode[0] == "--json":
						v, err := rt13fOneJSON(strings.TrimPrefix(string(b), "PRE-EXISTING\n"))
						ok = ok && err == nil && rt13fStr(v, "stdout") == "one\ntwo\n"
					default:
						ok = ok && bytes.Contains(b, []byte(`"type":"exit"`)) && bytes.Count(b, []byte("\n")) >= 3
					}
					if o.code != 3 || !ok {
						t.Errorf("stdout O_APPEND %v: %v; file %.400q", mode, o, b)
					}
				}
				// stdout unwritable.
				for _, kind := range []string{"directory", "read-only", "O_PATH"} {
					for _, mode := range [][]string{nil, {"--json"}, {"--events"}} {
						var fd int
						var err error
						switch kind {
						case "directory":
							fd, err = unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
						case "read-only":
							fd, err = unix.Open("/etc/hostname", unix.O_RDONLY|unix.O_CLOEXEC, 0)
						case "O_PATH":
							fd, err = unix.Open("/etc/hostname", unix.O_PATH|unix.O_CLOEXEC, 0)
						}
						if err != nil {
							t.Fatal(err)
						}
						f := os.NewFile(uintptr(fd), kind)
						cmd := rt6Cmd(u, nil, append(append([]string{"--profile", profile, "--cwd", ws}, mode...), "--", "/bin/sh", "-c", "echo one; exit 3")...)
						cmd.Stdout = f
						o := rt11Wait(cmd, 20*time.Second)
						f.Close()
						if o.hung || rt11Crashed(o.stderr) || o.code != 125 || !strings.Contains(o.stderr, "sbx: writing to standard output") {
							t.Errorf("stdout %s %v: %v", kind, mode, o)
						}
					}
				}
			})
		}
	})
}

// TestRedTeam13FaultStdoutClosed: a documented limit (README, Known
// limits), skipped unless SBX_RT13_HOLES=1. sbx started with its standard
// output (or error) closed. The README's exit status table: 125 when
// "its standard output or error could not be written (a full disk, a
// closed descriptor: the output or the result would be incomplete)". But
// the Go runtime reopens a closed descriptor 0-2 as /dev/null (O_RDWR)
// before main, so sbx writes the --json result (and the command's live
// output, and its own failure messages) into /dev/null and exits with the
// command's status, as if everything had been delivered.
//
//	sbx run --json -- sh -c 'echo hi; exit 3' >&-; echo $?     # 3, nothing anywhere
//	sbx run -- sh -c 'echo hi >&2; exit 3' 2>&-; echo $?       # 3
func TestRedTeam13FaultStdoutClosed(t *testing.T) {
	rt13fHoles(t, "documented limit: a closed stdout/stderr is replaced by /dev/null by the Go runtime before main; the result is lost and the status is the command's, not 125")
	asUser(t, func(t *testing.T, u user) {
		_, ws := rt11Dir(t, u)
		for _, tc := range []struct {
			name, redir string
			flags       []string
			script      string
		}{
			{"--json, stdout closed", ">&-", []string{"--json"}, "echo hi; exit 3"},
			{"terminal, stdout closed", ">&-", nil, "echo hi; exit 3"},
			{"terminal, stderr closed", "2>&-", nil, "echo hi >&2; exit 3"},
		} {
			cmd := rt6Cmd(u, nil, append(append([]string{"--cwd", ws}, tc.flags...), "--", "/bin/sh", "-c", tc.script)...)
			cmd.Args = append([]string{"/bin/sh", "-c", "exec \"$@\" " + tc.redir, "sh"}, cmd.Args...)
			cmd.Path = "/bin/sh"
			o := rt11Wait(cmd, 20*time.Second)
			if o.hung || o.code != 125 {
				t.Errorf("%s: %v, want 125 (the output could not be delivered)", tc.name, o)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 3. Output caps at their boundaries.

// TestRedTeam13FaultCapBoundaries: caps 1, 2, 3, 7, 4 KiB and 64 KiB
// against outputs of 0, cap-1, cap, cap+1 and 3*cap+5 bytes, both streams
// written at once (stdout the head of a position-dependent pattern,
// stderr its tail), head and head-tail retention. The counts are exact,
// a stream at exactly the cap is not truncated, the retained head is the
// stream's prefix and the retained tail its suffix (nothing shifted or
// duplicated), head+omitted+tail add up to the stream, and the aggregate
// of streams within the cap is stdout then stderr.
func TestRedTeam13FaultCapBoundaries(t *testing.T) {
	const pat = 3*65536 + 5
	data := rt13fPattern(pat)
	asUser(t, func(t *testing.T, u user) {
		base, ws := rt11Dir(t, u)
		src := filepath.Join(base, "pattern")
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, profile := range []string{"workspace", "danger-full-access"} {
			for _, retain := range []string{"head", "head-tail"} {
				for _, c := range []int{1, 2, 3, 7, 4096, 65536} {
					for _, n := range []int{0, c - 1, c, c + 1, 3*c + 5} {
						m := (n + 1) / 2 // stderr: a different size
						what := fmt.Sprintf("%s %s cap %d stdout %d stderr %d", profile, retain, c, n, m)
						o := rt11Sbx(u, nil, 20*time.Second, "--json", "--profile", profile, "--cwd", ws, "--output-cap", strconv.Itoa(c), "--retain", retain, "--",
							"/bin/sh", "-c", fmt.Sprintf("head -c %d %s & tail -c %d %s >&2; wait", n, src, m, src))
						v, err := rt13fOneJSON(o.stdout)
						if o.code != 0 || err != nil {
							t.Errorf("%s: %v (%v)", what, o, err)
							continue
						}
						for _, s := range []struct {
							name string
							want []byte
						}{{"stdout", data[:n]}, {"stderr", data[len(data)-m:]}} {
							if msg := rt13fCheckStream(v, s.name, s.want, c, retain == "head-tail"); msg != "" {
								t.Errorf("%s: %s", what, msg)
							}
						}
						if n+m <= c && rt13fStr(v, "aggregated_output") != string(data[:n])+string(data[len(data)-m:]) {
							t.Errorf("%s: aggregated_output %.100q, want stdout then stderr", what, rt13fStr(v, "aggregated_output"))
						}
						if rt13fInt(v, "output_cap") != int64(c) || rt13fBool(v, "stdout_lossy") || rt13fBool(v, "stderr_lossy") {
							t.Errorf("%s: output_cap %d, lossy %v/%v", what, rt13fInt(v, "output_cap"), v["stdout_lossy"], v["stderr_lossy"])
						}
					}
				}
			}
		}
	})
}

// rt13fCheckStream checks one stream of a result against the bytes the
// command wrote.
func rt13fCheckStream(v map[string]any, name string, want []byte, c int, headTail bool) string {
	head, tail := rt13fStr(v, name), rt13fStr(v, name+"_tail")
	total, omitted, trunc := rt13fInt(v, name+"_bytes"), rt13fInt(v, name+"_omitted_bytes"), rt13fBool(v, name+"_truncated")
	n := len(want)
	switch {
	case total != int64(n):
		return fmt.Sprintf("%s_bytes %d, want %d", name, total, n)
	case trunc != (n > c):
		return fmt.Sprintf("%s_truncated %v with %d bytes against cap %d", name, trunc, n, c)
	case n <= c && (head != string(want) || tail != "" || omitted != 0):
		return fmt.Sprintf("%s within the cap: %d bytes retained (intact %v), tail %q, omitted %d", name, len(head), head == string(want), tail, omitted)
	case n <= c:
		return ""
	case !headTail && (head != string(want[:c]) || tail != "" || omitted != int64(n-c)):
		return fmt.Sprintf("%s head: %d bytes retained (the prefix: %v), tail %q, omitted %d (want %d)", name, len(head), strings.HasPrefix(string(want), head), tail, omitted, n-c)
	case headTail && (len(head)+len(tail) != c || !strings.HasPrefix(string(want), head) || !strings.HasSuffix(string(want), tail) || int64(len(head)+len(tail))+omitted != int64(n)):
		return fmt.Sprintf("%s head-tail: head %d bytes (prefix %v), tail %d bytes (suffix %v), omitted %d, total %d, cap %d",
			name, len(head), strings.HasPrefix(string(want), head), len(tail), strings.HasSuffix(string(want), tail), omitted, n, c)
	}
	return ""
}

// TestRedTeam13FaultCapSplitsUTF8: a cap that cuts a multi-byte character
// (2- and 4-byte characters cut at every inner position, in the head and
// at the start of the tail): the JSON stays valid, the cut bytes become
// one U+FFFD each, the rest is intact, lossy is set, the counts are the
// real byte counts; --events delivers the exact bytes.
func TestRedTeam13FaultCapSplitsUTF8(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		_, ws := rt11Dir(t, u)
		for _, profile := range []string{"workspace", "danger-full-access"} {
			for _, ch := range []string{"é", "😀"} {
				text := "a" + ch + "b"
				for c := 2; c < 1+len(ch); c++ {
					k := c - 1 // bytes of ch kept in the head
					what := fmt.Sprintf("%s %q cap %d", profile, text, c)
					o := rt11Sbx(u, nil, 20*time.Second, "--json", "--profile", profile, "--cwd", ws, "--output-cap", strconv.Itoa(c), "--", "printf", text)
					v, err := rt13fOneJSON(o.stdout)
					if o.code != 0 || err != nil {
						t.Errorf("%s: %v (%v)", what, o, err)
						continue
					}
					want := "a" + strings.Repeat("\uFFFD", k)
					if got := rt13fStr(v, "stdout"); got != want || !utf8.ValidString(got) || !rt13fBool(v, "stdout_lossy") || rt13fInt(v, "stdout_bytes") != int64(len(text)) || rt13fInt(v, "stdout_omitted_bytes") != int64(len(text)-c) {
						t.Errorf("%s: stdout %q (want %q), lossy %v, bytes %d, omitted %d", what, got, want, v["stdout_lossy"], rt13fInt(v, "stdout_bytes"), rt13fInt(v, "stdout_omitted_bytes"))
					}
				}
				// Head-tail, cap 4: head 2 bytes ("a" + 1 byte of ch), tail 2
				// bytes (the last byte of ch, when ch has more than 2, and "b").
				text = "a" + ch + "b" + strings.Repeat("z", 10) + ch + "b"
				o := rt11Sbx(u, nil, 20*time.Second, "--json", "--profile", profile, "--cwd", ws, "--output-cap", "4", "--retain", "head-tail", "--", "printf", text)
				v, err := rt13fOneJSON(o.stdout)
				if o.code != 0 || err != nil {
					t.Errorf("%s head-tail %q: %v (%v)", profile, ch, o, err)
				} else if head, tail := rt13fStr(v, "stdout"), rt13fStr(v, "stdout_tail"); head != "a\uFFFD" || tail != "\uFFFDb" || !rt13fBool(v, "stdout_lossy") {
					t.Errorf("%s head-tail %q: head %q tail %q lossy %v", profile, ch, head, tail, v["stdout_lossy"])
				}
				// --events: the exact bytes, whatever the chunking.
				o = rt11Sbx(u, nil, 20*time.Second, "--events", "--profile", profile, "--cwd", ws, "--output-cap", "2", "--", "printf", text)
				if got := rt13fEventBytes(t, o, "stdout"); got != text {
					t.Errorf("%s --events %q: bytes %q", profile, ch, got)
				}
			}
		}
	})
}

// rt13fEventBytes concatenates the output events of stream.
func rt13fEventBytes(t *testing.T, o rt11Out, stream string) string {
	t.Helper()
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(o.stdout), "\n") {
		var ev struct {
			Type, Stream, Text string
			Data               string `json:"data_b64"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Errorf("event %q: %v", l, err)
			continue
		}
		if ev.Type != "output" || ev.Stream != stream {
			continue
		}
		if ev.Data != "" {
			d, err := base64.StdEncoding.DecodeString(ev.Data)
			if err != nil {
				t.Errorf("event %q: %v", l, err)
			}
			b.Write(d)
		} else {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// 4. --timeout at its edges.

// TestRedTeam13FaultTimeoutEdges: sub-millisecond timeouts fire (124,
// timed_out, a timeout_ms that is not null, the command cut before its
// end, nothing left); zero spelled "0s" and "-0s" disables the timeout
// (timeout_ms null); "+2s" and "1h1m1s" are the durations they say;
// values Go's time.ParseDuration refuses (spaces, capitals, days,
// exponents, hexadecimal, a lone sign) are refused with 125 and the
// command never runs.
func TestRedTeam13FaultTimeoutEdges(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		_, ws := rt11Dir(t, u)
		marker := ws + "/ran"
		for _, profile := range []string{"workspace", "danger-full-access"} {
			for _, d := range []string{"1ns", "1us", "999us", "0.0001s"} {
				tok := rt6Token()
				o := rt11Sbx(u, nil, 20*time.Second, "--json", "--profile", profile, "--timeout", d, "--cwd", ws, "--", "/bin/sh", "-c", "sleep 5; echo done", tok)
				v, err := rt13fOneJSON(o.stdout)
				if err != nil || o.code != 124 || !rt13fBool(v, "timed_out") || v["timeout_ms"] == nil || rt13fStr(v, "stdout") != "" || o.elapsed > 4*time.Second {
					t.Errorf("%s --timeout %s: %v (%v)", profile, d, o, err)
				}
				if left := rt11AwaitGone(tok, 3*time.Second); len(left) > 0 {
					t.Errorf("%s --timeout %s: left %v", profile, d, left)
					rt11KillAll(tok)
				}
			}
			for d, ms := range map[string]int64{"0s": -1, "-0s": -1, "+2s": 2000, "1h1m1s": 3661000} {
				o := rt11Sbx(u, nil, 20*time.Second, "--json", "--profile", profile, "--timeout", d, "--cwd", ws, "--", "/bin/sh", "-c", "sleep 0.2; echo done")
				v, err := rt13fOneJSON(o.stdout)
				got := rt13fInt(v, "timeout_ms")
				if err != nil || o.code != 0 || rt13fStr(v, "stdout") != "done\n" || got != ms || (ms < 0 && v["timeout_ms"] != nil) {
					t.Errorf("%s --timeout %q: timeout_ms %v (want %d, -1: null): %v (%v)", profile, d, v["timeout_ms"], ms, o, err)
				}
			}
			for _, d := range []string{" 2s", "2s ", "2S", "1d", "1e3ms", "0x10s", "-", "+", "1ms2", ".s", "2s\n"} {
				o := rt11Sbx(u, nil, 20*time.Second, "--profile", profile, "--timeout", d, "--cwd", ws, "--", "/bin/sh", "-c", "echo > "+marker)
				rt11Refused(t, fmt.Sprintf("%s --timeout %q", profile, d), o, false)
				if fileExists(marker) {
					t.Errorf("%s --timeout %q: the command ran", profile, d)
					os.Remove(marker)
				}
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 5. JSON validity of every failure path.

// rt13fFailureCases are sbx failures before the command runs; each fn
// returns the flags given the scratch tree.
var rt13fFailureCases = []struct {
	name string
	args func(base, ws string) []string
	hole bool // the flag parser's usage errors: no JSON (see TestRedTeam13FaultJSONUsageErrors)
}{
	{"--retain bogus", func(b, w string) []string { return []string{"--retain", "middle", "--cwd", w} }, false},
	{"--capture bogus", func(b, w string) []string { return []string{"--capture", "none", "--cwd", w} }, false},
	{"--containment bogus", func(b, w string) []string { return []string{"--containment", "jail", "--cwd", w} }, false},
	{"unknown profile", func(b, w string) []string { return []string{"--profile", "rt13-none", "--cwd", w} }, false},
	{"missing artifact", func(b, w string) []string { return []string{"--artifact", b + "/none.json", "--cwd", w} }, false},
	{"artifact a directory", func(b, w string) []string { return []string{"--artifact", b, "--cwd", w} }, false},
	{"artifact /dev/null", func(b, w string) []string { return []string{"--artifact", "/dev/null", "--cwd", w} }, false},
	{"artifact not JSON", func(b, w string) []string { return []string{"--artifact", b + "/notjson", "--cwd", w} }, false},
	{"missing cwd", func(b, w string) []string { return []string{"--cwd", b + "/none"} }, false},
	{"cwd a file", func(b, w string) []string { return []string{"--cwd", b + "/notjson"} }, false},
	{"cwd /proc writable", func(b, w string) []string { return []string{"--cwd", "/proc"} }, false},
	{"cwd / writable", func(b, w string) []string { return []string{"--cwd", "/"} }, false},
	{"--timeout unparsable", func(b, w string) []string { return []string{"--timeout", "2S", "--cwd", w} }, true},
	{"--timeout negative", func(b, w string) []string { return []string{"--timeout", "-1s", "--cwd", w} }, true},
	{"--output-cap unparsable", func(b, w string) []string { return []string{"--output-cap", "lots", "--cwd", w} }, true},
	{"--output-cap 0", func(b, w string) []string { return []string{"--output-cap", "0", "--cwd", w} }, true},
	{"unknown flag", func(b, w string) []string { return []string{"--rt13-no-such-flag", "--cwd", w} }, true},
	{"--profile and --artifact", func(b, w string) []string {
		return []string{"--profile", "read-only", "--artifact", filepath.Join("..", "..", "..", "builtin", "artifacts", "read-only.json"), "--cwd", w}
	}, true},
	{"--profile empty", func(b, w string) []string { return []string{"--profile", "", "--cwd", w} }, true},
}

// rt13fFailurePaths runs the cases whose hole flag is hole in --json and
// --events mode (the mode flag first, so that sbx has seen it).
func rt13fFailurePaths(t *testing.T, hole bool) {
	asUser(t, func(t *testing.T, u user) {
		base, ws := rt11Dir(t, u)
		os.WriteFile(base+"/notjson", []byte("not json\n"), 0o644)
		marker := ws + "/ran"
		for _, tc := range rt13fFailureCases {
			if tc.hole != hole {
				continue
			}
			for _, mode := range []string{"--json", "--events"} {
				args := append([]string{mode}, tc.args(base, ws)...)
				args = append(args, "--", "/bin/sh", "-c", "echo > "+marker)
				o := rt11Sbx(u, nil, 20*time.Second, args...)
				if msg := rt13fFailure(mode, o); msg != "" {
					t.Errorf("%s %s: %s: %v", mode, tc.name, msg, o)
				}
				if fileExists(marker) {
					t.Errorf("%s %s: the command ran", mode, tc.name)
					os.Remove(marker)
				}
			}
		}
		// No command at all.
		if hole {
			for _, mode := range []string{"--json", "--events"} {
				for _, args := range [][]string{{mode}, {mode, "--"}} {
					if msg := rt13fFailure(mode, rt11Sbx(u, nil, 20*time.Second, args...)); msg != "" {
						t.Errorf("%v (no command): %s", args, msg)
					}
				}
			}
		}
	})
}

// TestRedTeam13FaultJSONFailurePaths: sbx failures before the command runs
// (bad option values, unknown profile, unreadable or invalid artifacts,
// unusable working directories) under --json are exactly one failure
// object on stdout and under --events exactly one error event, with 125
// and a message on stderr; the command never runs.
func TestRedTeam13FaultJSONFailurePaths(t *testing.T) {
	rt13fFailurePaths(t, false)
}

// TestRedTeam13FaultJSONUsageErrors: was a hole, fixed. The README: "An sbx failure in
// --json mode is still one object" (and under --events an error event).
// Errors of the flag parser and the usage checks of parseRunFlags
// (cmd/sbx/run.go) print only the usage on stderr and nothing on stdout,
// also when --json or --events came first: an unparsable --timeout or
// --output-cap, a negative --timeout, --output-cap 0, an unknown flag,
// --profile with --artifact, an empty --profile, no command. A caller that
// parses stdout gets no JSON at all. parseRunFlags returned nil options
// with the usage error, so run() could not know the mode; it now returns
// the options with it (the mode read from every flag when the parser
// stopped early).
//
//	sbx run --json --timeout 2S -- true; echo $?     # nothing on stdout, 125
//	sbx run --json --retain x -- true                 # {"exit_code":125,"sbx_error":...}
func TestRedTeam13FaultJSONUsageErrors(t *testing.T) {
	rt13fFailurePaths(t, true)
}

// ---------------------------------------------------------------------------
// 6. The command against the sandbox's init; pseudo file systems.

// TestRedTeam13FaultSignalInit: under a sandbox the command is not PID 1:
// the sandbox's init is. The command sending any signal to PID 1 (TERM,
// INT, HUP, KILL, STOP, QUIT, USR1, CHLD, PIPE, ALRM, SEGV) changes
// nothing: it keeps running, the run ends with its status, no sbx_error.
// kill -KILL -1 (every process it may signal) with a supervisor running
// (the workspace has no .git: missing protected names) and background
// children: the command survives, the supervisor keeps enforcing (.git
// still cannot be created, other creations work), nothing is left.
func TestRedTeam13FaultSignalInit(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		_, ws := rt11Dir(t, u)
		for _, profile := range []string{"workspace", "read-only"} {
			for _, sig := range []string{"TERM", "INT", "HUP", "KILL", "STOP", "QUIT", "USR1", "CHLD", "PIPE", "ALRM", "SEGV"} {
				tok := rt6Token()
				o := rt11Sbx(u, nil, 20*time.Second, "--json", "--timeout", "10s", "--profile", profile, "--cwd", ws, "--", "/bin/sh", "-c", "kill -"+sig+" 1 2>/dev/null; sleep 0.2; echo alive; exit 7", tok)
				v, err := rt13fOneJSON(o.stdout)
				if err != nil || o.code != 7 || rt13fStr(v, "stdout") != "alive\n" || rt13fStr(v, "sbx_error") != "" || v["signal"] != nil {
					t.Errorf("%s kill -%s 1: %v (%v)", profile, sig, o, err)
				}
				if left := rt11AwaitGone(tok, 3*time.Second); len(left) > 0 {
					t.Errorf("%s kill -%s 1: left %v", profile, sig, left)
					rt11KillAll(tok)
				}
			}
		}
		tok := rt6Token()
		script := "mkdir d1 && (sleep 30 & sleep 30 &) && kill -KILL -1 2>/dev/null; mkdir d2 && echo d2ok; mkdir .git 2>/dev/null && echo GIT; exit 5"
		o := rt11Sbx(u, nil, 20*time.Second, "--json", "--timeout", "10s", "--profile", "workspace", "--cwd", ws, "--", "/bin/sh", "-c", script, tok)
		v, err := rt13fOneJSON(o.stdout)
		if err != nil || rt13fStr(v, "stdout") != "d2ok\n" || fileExists(ws+"/.git") {
			t.Errorf("kill -KILL -1 under the supervisor: %v (%v); .git exists: %v", o, err, fileExists(ws+"/.git"))
		} else if o.code != 5 && !(o.code == 125 && rt13fStr(v, "sbx_error") != "") {
			t.Errorf("kill -KILL -1 under the supervisor: status %d, want 5 (or 125 with sbx_error: fail closed)", o.code)
		}
		if left := rt11AwaitGone(tok, 3*time.Second); len(left) > 0 {
			t.Errorf("kill -KILL -1: left %v", left)
			rt11KillAll(tok)
		}
		os.RemoveAll(ws + "/.git")
	})
}

// TestRedTeam13FaultPseudoFSCwd: kernel file systems as --cwd under the
// workspace profile (which makes the working directory writable): the
// run is refused (125) or runs, and in neither case can the command
// change kernel state: /proc/sys/kernel/domainname keeps its value, no
// cgroup can be created, nothing is written through /sys or /dev/pts
// (/dev/shm, an ordinary tmpfs, is the control: writable as a cwd).
// The JSON stays valid either way.
func TestRedTeam13FaultPseudoFSCwd(t *testing.T) {
	before, err := os.ReadFile("/proc/sys/kernel/domainname")
	if err != nil {
		t.Skip(err)
	}
	asUser(t, func(t *testing.T, u user) {
		cg := rt11CgroupRoot()
		for _, dir := range []string{"/proc/sys/kernel", "/proc/sys", "/proc/self", "/proc/self/fd", "/sys/kernel", "/sys/fs/cgroup", cg, "/dev/pts", "/dev/shm"} {
			if _, err := os.Stat(dir); err != nil {
				continue
			}
			name := "rt13cg" + strconv.Itoa(os.Getpid())
			script := "echo rt13pwned > /proc/sys/kernel/domainname; echo rt13pwned > ./domainname; mkdir ./" + name + "; mkdir " + cg + "/" + name + "; echo x > /proc/self/attr/current; :"
			o := rt11Sbx(u, nil, 20*time.Second, "--json", "--profile", "workspace", "--cwd", dir, "--", "/bin/sh", "-c", script)
			if _, err := rt13fOneJSON(o.stdout); err != nil || o.hung || rt11Crashed(o.stderr) || (o.code != 0 && o.code != 125) {
				t.Errorf("--cwd %s: %v (%v)", dir, o, err)
			}
			if now, _ := os.ReadFile("/proc/sys/kernel/domainname"); !bytes.Equal(now, before) {
				t.Errorf("--cwd %s: the host's domainname changed to %q", dir, now)
				os.WriteFile("/proc/sys/kernel/domainname", before, 0)
			}
			for _, p := range []string{filepath.Join(dir, name), filepath.Join(cg, name)} {
				if dir == "/dev/shm" && p == filepath.Join(dir, name) {
					os.Remove(p) // an ordinary writable directory
					continue
				}
				if fileExists(p) {
					t.Errorf("--cwd %s: the command created %s", dir, p)
					os.Remove(p)
				}
			}
			if dir == "/dev/shm" {
				os.Remove("/dev/shm/domainname")
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 7. SIGKILL swept over the start-up.

// rt13fEntries lists the names in dir.
func rt13fEntries(dir string) map[string]bool {
	m := map[string]bool{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		m[e.Name()] = true
	}
	return m
}

// rt13fNew lists the names of now missing from before.
func rt13fNew(before, now map[string]bool) []string {
	var out []string
	for k := range now {
		if !before[k] {
			out = append(out, k)
		}
	}
	return out
}

// TestRedTeam13FaultKillSweep: sbx SIGKILLed at 40 moments evenly spread
// over 0 to 1.5 times the time its command needs to start (measured first:
// the command creates a sentinel file, and the test waits for it), so that
// every stage of the start-up is hit (flags, profile, the init's clone,
// the mount view, Landlock, seccomp, exec, the command running). The
// command starts setsid'd, SIGTERM-immune children. After each kill: no
// process of the run, no new mount in the test's namespace, nothing new
// in the run's TMPDIR or in /dev/shm. (Cgroups: neither run here uses
// cgroup containment; TestRedTeam14FaultKillPointsProfiles sweeps that
// case, counting only the cgroups of processes its tracer saw created,
// since the cmd/sbx and executor tests that run beside this package make
// and leave their own.)
func TestRedTeam13FaultKillSweep(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		base, ws := rt11Dir(t, u)
		tmp := base + "/tmp"
		os.Mkdir(tmp, 0o755)
		os.Lchown(tmp, u.uid, u.uid)
		env := []string{"TMPDIR=" + tmp, "HOME=/nonexistent-rt13-home"}
		for _, profile := range []string{"workspace", "danger-full-access"} {
			t.Run(profile, func(t *testing.T) {
				sentinel := ws + "/started"
				script := "setsid sh -c 'trap \"\" TERM HUP; sleep 30' \"$0\" & (trap '' TERM; sleep 30) & echo > " + sentinel + "; sleep 30"
				args := func(tok string) []string {
					return []string{"--timeout", "30s", "--profile", profile, "--cwd", ws, "--", "/bin/sh", "-c", script, tok}
				}
				// Calibration: how long until the command runs.
				var startup time.Duration
				for i := 0; i < 3; i++ {
					os.Remove(sentinel)
					tok := rt6Token()
					cmd := rt6Cmd(u, env, args(tok)...)
					start := time.Now()
					done := rt13fStart(t, cmd)
					for !fileExists(sentinel) && time.Since(start) < 10*time.Second {
						time.Sleep(100 * time.Microsecond)
					}
					startup = max(startup, time.Since(start))
					cmd.Process.Kill()
					<-done
					if !fileExists(sentinel) {
						t.Fatal("calibration: the command never started")
					}
					if left := rt11AwaitGone(tok, 3*time.Second); len(left) > 0 {
						t.Fatalf("calibration: left %v", left)
					}
				}
				mounts, shm, tmpd := rt12fMountCount(), rt13fEntries("/dev/shm"), rt13fEntries(tmp)
				const steps = 40
				started := 0
				for i := 0; i <= steps && !t.Failed(); i++ {
					os.Remove(sentinel)
					d := startup * 3 / 2 * time.Duration(i) / steps
					tok := rt6Token()
					cmd := rt6Cmd(u, env, args(tok)...)
					done := rt13fStart(t, cmd)
					time.Sleep(d) // the moment of the kill: the attack itself
					cmd.Process.Kill()
					<-done
					if fileExists(sentinel) {
						started++
					}
					if left := rt11AwaitGone(tok, 3*time.Second); len(left) > 0 {
						t.Errorf("kill at %v: %d process(es) left: %v", d, len(left), left[:min(3, len(left))])
						rt11KillAll(tok)
					}
					if n := rt12fMountCount(); n != mounts {
						t.Errorf("kill at %v: %d mounts in the test's namespace, %d before", d, n, mounts)
						mounts = n
					}
					if n := rt13fNew(shm, rt13fEntries("/dev/shm")); len(n) > 0 {
						t.Errorf("kill at %v: new in /dev/shm: %v", d, n)
					}
					if n := rt13fNew(tmpd, rt13fEntries(tmp)); len(n) > 0 {
						t.Errorf("kill at %v: new in TMPDIR: %v", d, n)
					}
				}
				if started == 0 || started == steps+1 {
					t.Errorf("the sweep did not straddle the start: the command ran in %d of %d kills (start-up %v)", started, steps+1, startup)
				}
				t.Logf("start-up %v; the command had started in %d of %d kills", startup, started, steps+1)
				o := rt11Sbx(u, env, 20*time.Second, "--json", "--profile", profile, "--cwd", ws, "--", "/bin/echo", "after")
				if v, err := rt13fOneJSON(o.stdout); err != nil || o.code != 0 || rt13fStr(v, "stdout") != "after\n" {
					t.Errorf("run after the kills: %v", o)
				}
			})
		}
	})
}

// ---------------------------------------------------------------------------
// 8. The library.

// TestRedTeam13FaultLibraryContext drives executor.Run with the Landlock
// sandbox in this process (root: in-process containment). An already
// cancelled context and an expired deadline: nothing runs (no marker
// file), and the run is an error or a cancelled result, never a success.
// Cancellation from inside the output callback (the command traps TERM):
// cancelled, prompt, nothing left. One Request value shared by 8
// concurrent runs, half of them with a cancelled context: the others get
// their own full output. No descriptor, child or init stack left in this
// process.
func TestRedTeam13FaultLibraryContext(t *testing.T) {
	rt8NeedRoot(t)
	dir := t.TempDir()
	sb := workspaceSandbox(t, dir)
	before := rt8Count(t)
	marker := dir + "/ran"
	env := []string{"PATH=/usr/bin:/bin"}
	req := executor.Request{Argv: []string{"/bin/sh", "-c", "echo > " + marker + "; echo ran"}, Dir: dir, Env: env, Timeout: 10 * time.Second, Sandbox: sb}

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	for name, ctx := range map[string]context.Context{"cancelled": cancelled, "expired deadline": expired} {
		res, err := executor.Run(ctx, req)
		switch {
		case fileExists(marker):
			t.Errorf("%s: the command ran", name)
			os.Remove(marker)
		case err == nil && res == nil:
			t.Errorf("%s: nil result and nil error", name)
		case err == nil && (!res.Cancelled || res.ExitCode == 0):
			t.Errorf("%s: result %s", name, summary(res))
		}
	}

	// Cancellation from the callback.
	tok := rt6Token()
	ctx, cancel3 := context.WithCancel(context.Background())
	r2 := req
	r2.Argv = []string{"/bin/sh", "-c", "trap '' TERM; echo ready; sleep 30", tok}
	r2.OnOutput = func(s executor.Stream, b []byte) {
		if bytes.Contains(b, []byte("ready")) {
			cancel3()
		}
	}
	start := time.Now()
	res, err := executor.Run(ctx, r2)
	cancel3()
	if err != nil || !res.Cancelled || time.Since(start) > 5*time.Second {
		t.Errorf("cancel from the callback: err %v, after %v, result %s", err, time.Since(start), summary(res))
	}
	if left := rt11AwaitGone(tok, 3*time.Second); len(left) > 0 {
		t.Errorf("cancel from the callback: left %v", left)
		rt11KillAll(tok)
	}

	// One Request, concurrent runs.
	r4 := req
	r4.Argv = []string{"/bin/sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done"}
	var want bytes.Buffer
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&want, "line%d\n", i)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := context.Background()
			if i%2 == 1 {
				c = cancelled
			}
			res, err := executor.Run(c, r4)
			switch {
			case i%2 == 1 && err == nil && !res.Cancelled:
				errs <- fmt.Sprintf("run %d (cancelled): %s", i, summary(res))
			case i%2 == 0 && (err != nil || res.ExitCode != 0 || string(res.Stdout.Head) != want.String()):
				errs <- fmt.Sprintf("run %d: err %v, %d bytes of stdout", i, err, len(resultOut(res)))
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	rt8NoChildren(t, "library runs")
	rt8NoLeak(t, "library runs", before, 2)
}

// TestRedTeam13FaultLibraryCallbackPanic: HOLE. A library caller whose
// OnOutput (or OnStart) callback panics and who recovers (as net/http
// does for its handlers, as any long-running server would): the panic
// unwinds out of executor.Run past its clean-up, and the sandboxed command
// it was running (sleep 30 under a 1 s Timeout) keeps running, outliving
// its timeout and the Run call that owned it; the sandbox's init stays a
// child of the caller (a zombie once reaped by nobody) and Run's
// descriptors (pidfd, pipes, eventfd) leak, one set per panic. The README:
// "no process outlives the command". Fixed: Run kills and reaps the run on
// the way out and closes its descriptors, then re-panics.
//
//	executor.Run(ctx, executor.Request{Argv: []string{"sh", "-c", "echo x; sleep 30"}, Timeout: time.Second,
//		Sandbox: sb, OnOutput: func(executor.Stream, []byte) { panic("bug") }})   // recovered by the caller
//	# sleep 30 runs on; /proc/self/fd grows by 4
func TestRedTeam13FaultLibraryCallbackPanic(t *testing.T) {
	rt8NeedRoot(t)
	dir := t.TempDir()
	sb := workspaceSandbox(t, dir)
	before := rt8Count(t)
	for _, where := range []string{"OnOutput", "OnStart"} {
		for _, sandboxed := range []bool{true, false} {
			tok := rt6Token()
			req := executor.Request{Argv: []string{"/bin/sh", "-c", "echo ready; sleep 30", tok}, Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}, Timeout: time.Second}
			if sandboxed {
				req.Sandbox = sb
			}
			if where == "OnOutput" {
				req.OnOutput = func(executor.Stream, []byte) { panic("rt13 callback panic") }
			} else {
				req.OnStart = func(executor.StartInfo) { panic("rt13 callback panic") }
			}
			func() {
				defer func() {
					if p := recover(); p != "rt13 callback panic" {
						t.Errorf("%s sandboxed=%v: the callback's panic did not reach the caller: %v", where, sandboxed, p)
					}
				}()
				executor.Run(context.Background(), req)
			}()
			// 3 s: past the run's 1 s timeout and the 50 ms grace.
			if left := rt11AwaitGone(tok, 3*time.Second); len(left) > 0 {
				t.Errorf("%s sandboxed=%v: the command outlives the panicking Run and its 1 s timeout: %v", where, sandboxed, left[:min(2, len(left))])
				rt11KillAll(tok)
			}
		}
	}
	rt8NoChildren(t, "after the panics")
	rt8NoLeak(t, "after the panics", before, 2)
}

// TestRedTeam13FaultArtifactPipes: --artifact through a pipe whose writer
// is slow to start, pauses in the middle, or is sbx's own stdin: sbx reads
// to the end and enforces the artifact (read-only: the workspace stays
// unwritable). A pipe whose writer never finishes keeps sbx waiting, and
// SIGTERM then ends it (the default action before the run), the command
// never having run.
func TestRedTeam13FaultArtifactPipes(t *testing.T) {
	art, err := os.ReadFile(filepath.Join("..", "..", "..", "builtin", "artifacts", "read-only.json"))
	if err != nil {
		t.Fatal(err)
	}
	asUser(t, func(t *testing.T, u user) {
		_, ws := rt11Dir(t, u)
		marker := ws + "/written"
		for _, tc := range []struct {
			name   string
			write  func(w io.Writer)
			finish bool
		}{
			{"at once", func(w io.Writer) { w.Write(art) }, true},
			{"late", func(w io.Writer) { time.Sleep(300 * time.Millisecond); w.Write(art) }, true},
			{"paused midway", func(w io.Writer) { w.Write(art[:100]); time.Sleep(300 * time.Millisecond); w.Write(art[100:]) }, true},
			{"in single bytes", func(w io.Writer) {
				for i := range art {
					w.Write(art[i : i+1])
				}
			}, true},
			{"never finished", func(w io.Writer) { w.Write(art[:100]) }, false},
		} {
			for _, how := range []string{"fd 3", "stdin"} {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				// The pipe is the user's own (a pipe's inode is mode 0600,
				// reopened through /dev/fd by its owner only).
				if err := unix.Fchown(int(r.Fd()), u.uid, u.uid); err != nil {
					t.Fatal(err)
				}
				path := "/dev/fd/3"
				if how == "stdin" {
					path = "/dev/stdin"
				}
				cmd := rt6Cmd(u, nil, "--json", "--artifact", path, "--cwd", ws, "--", "/bin/sh", "-c", "echo x > "+marker+"; echo ran")
				if how == "stdin" {
					cmd.Stdin = r
				} else {
					cmd.ExtraFiles = []*os.File{r}
				}
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				done := rt13fStart(t, cmd)
				r.Close()
				wrote := make(chan struct{})
				go func() { tc.write(w); close(wrote) }()
				<-wrote
				if tc.finish {
					w.Close()
					if !rt13fEnded(done, 20*time.Second) {
						cmd.Process.Kill()
						<-done
						t.Errorf("%s via %s: sbx hung", tc.name, how)
						continue
					}
					v, err := rt13fOneJSON(out.String())
					if st := rt13fStatus(cmd); err != nil || st != 0 || rt13fStr(v, "stdout") != "ran\n" || fileExists(marker) {
						t.Errorf("%s via %s: status %d, %v, stdout %.300q, stderr %.300q; the workspace written: %v", tc.name, how, st, err, out.String(), errb.String(), fileExists(marker))
					}
				} else {
					// sbx waits for the rest of the artifact: SIGTERM ends it.
					if rt13fEnded(done, 300*time.Millisecond) {
						t.Errorf("%s via %s: sbx did not wait for the end of the artifact: status %d, %.300q %.300q", tc.name, how, rt13fStatus(cmd), out.String(), errb.String())
					} else {
						cmd.Process.Signal(syscall.SIGTERM)
						if !rt13fEnded(done, 5*time.Second) {
							cmd.Process.Kill()
							<-done
							t.Errorf("%s via %s: SIGTERM did not end sbx waiting for its artifact", tc.name, how)
						}
					}
					w.Close()
					if fileExists(ws + "/written") {
						t.Errorf("%s via %s: the command ran", tc.name, how)
					}
				}
				os.Remove(marker)
			}
		}
	})
}

// TestRedTeam13FaultConcurrentUsers: 16 sbx runs at once, alternately as
// root and as uid 65534, each in its own workspace (no .git: the
// supervisor starts for each creation), all with one shared TMPDIR: each
// result carries its own output only (stdout and all 300 stderr lines,
// nothing of another run), each creation lands in its own workspace, and
// no run writes into another's workspace (for root's runs only the
// sandbox stops that: file permissions would not).
func TestRedTeam13FaultConcurrentUsers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run as both users")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("setpriv is missing")
	}
	base, err := os.MkdirTemp("/var/tmp", "sbxrt13f")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	os.Chmod(base, 0o755)
	tmp := base + "/tmp"
	os.Mkdir(tmp, 0o1777)
	os.Chmod(tmp, 0o1777)
	const n = 16
	type run struct {
		u   user
		ws  string
		tok string
	}
	runs := make([]run, n)
	for i := range runs {
		u := users[i%2]
		ws := fmt.Sprintf("%s/ws%d", base, i)
		os.Mkdir(ws, 0o755)
		os.Lchown(ws, u.uid, u.uid)
		os.WriteFile(ws+"/owned", []byte("owner"), 0o644)
		os.Lchown(ws+"/owned", u.uid, u.uid)
		runs[i] = run{u, ws, rt6Token()}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*n)
	for i, r := range runs {
		other := runs[(i+1)%n].ws // a workspace of the other user
		wg.Add(1)
		go func(i int, r run) {
			defer wg.Done()
			script := fmt.Sprintf("mkdir d && echo %s > d/f && cat d/f; echo x 2>/dev/null >%s/owned && echo WROTE-OTHER; echo x 2>/dev/null >%s/sneak && echo WROTE-OTHER; i=0; while [ $i -lt 300 ]; do echo %s-$i >&2; i=$((i+1)); done", r.tok, other, other, r.tok)
			o := rt11Sbx(r.u, []string{"TMPDIR=" + tmp, "HOME=/nonexistent-rt13-home"}, 60*time.Second, "--json", "--timeout", "30s", "--profile", "workspace", "--cwd", r.ws, "--", "/bin/sh", "-c", script)
			v, err := rt13fOneJSON(o.stdout)
			stderr := rt13fStr(v, "stderr")
			switch {
			case err != nil || o.code != 0:
				errs <- fmt.Sprintf("run %d (%s): %v (%v)", i, r.u.name, o, err)
			case rt13fStr(v, "stdout") != r.tok+"\n":
				errs <- fmt.Sprintf("run %d (%s): stdout %q, want its own token", i, r.u.name, rt13fStr(v, "stdout"))
			case strings.Count(stderr, r.tok+"-") != 300 || strings.Count(stderr, "\n") != 300:
				errs <- fmt.Sprintf("run %d (%s): stderr holds %d of its 300 lines and %d lines in all", i, r.u.name, strings.Count(stderr, r.tok+"-"), strings.Count(stderr, "\n"))
			}
			if b, _ := os.ReadFile(r.ws + "/d/f"); string(b) != r.tok+"\n" {
				errs <- fmt.Sprintf("run %d (%s): its file holds %q", i, r.u.name, b)
			}
		}(i, r)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for i, r := range runs {
		if b, _ := os.ReadFile(r.ws + "/owned"); string(b) != "owner" {
			t.Errorf("workspace %d (%s): its file was overwritten by another run: %q", i, r.u.name, b)
		}
		if fileExists(r.ws + "/sneak") {
			t.Errorf("workspace %d (%s): another run created a file in it", i, r.u.name)
		}
	}
}

// rt13fChildren lists the children of pid whose command line contains
// sub.
func rt13fChildren(pid int, sub string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
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
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(pid) {
			continue
		}
		if cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); bytes.Contains(cl, []byte(sub)) {
			out = append(out, p)
		}
	}
	return out
}

// TestRedTeam13FaultStoppedHelpers: the processes sbx starts besides the
// command, stopped from outside. The supervisor SIGSTOPped for good after
// the command's first creation: the next creation waits on it, the 1 s
// timeout still ends the run (124) on time, the waiting creation never
// happens (fail closed), and the stopped supervisor is not left behind.
// sbx's whole process group stopped (job control: what ^Z does to the
// foreground job; sbx and its supervisor, not the command's session) for
// past the timeout and continued: the run ends timed out, nothing left.
// The supervisor SIGKILLed (the OOM killer, a user): the command is killed
// at once, the run is an sbx failure (125, sbx_error), nothing more is
// created.
func TestRedTeam13FaultStoppedHelpers(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		_, ws := rt11Dir(t, u)
		for _, what := range []string{"supervisor", "supervisor killed", "process group"} {
			t.Run(what, func(t *testing.T) {
				os.RemoveAll(ws + "/a")
				os.RemoveAll(ws + "/b")
				tok := rt6Token()
				cmd := rt6Cmd(u, nil, "--json", "--timeout", "1s", "--profile", "workspace", "--cwd", ws, "--", "/bin/sh", "-c", "mkdir a; sleep 0.3; mkdir b; sleep 30", tok)
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				var out bytes.Buffer
				cmd.Stdout = &out
				done := rt13fStart(t, cmd)
				for deadline := time.Now().Add(10 * time.Second); !fileExists(ws+"/a") && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
				sup := rt13fChildren(cmd.Process.Pid, "__sbx-landlock-helper")
				if !fileExists(ws+"/a") || len(sup) != 1 {
					cmd.Process.Kill()
					<-done
					t.Fatalf("the command's first creation: %v, supervisors %v", fileExists(ws+"/a"), sup)
				}
				start := time.Now()
				switch what {
				case "supervisor":
					syscall.Kill(sup[0], syscall.SIGSTOP)
				case "supervisor killed":
					syscall.Kill(sup[0], syscall.SIGKILL)
				default:
					syscall.Kill(-cmd.Process.Pid, syscall.SIGSTOP)
					time.Sleep(2 * time.Second) // stopped past the timeout: the fault itself
					syscall.Kill(-cmd.Process.Pid, syscall.SIGCONT)
				}
				if !rt13fEnded(done, 5*time.Second) {
					syscall.Kill(sup[0], syscall.SIGCONT)
					cmd.Process.Kill()
					<-done
					t.Fatalf("sbx hung %v after the stop", time.Since(start).Round(time.Millisecond))
				}
				v, err := rt13fOneJSON(out.String())
				if what == "supervisor killed" {
					if st := rt13fStatus(cmd); err != nil || st != 125 || rt13fStr(v, "sbx_error") == "" || time.Since(start) > 900*time.Millisecond {
						t.Errorf("supervisor killed: status %d after %v, result %v %.300q; want 125 with sbx_error before the timeout", st, time.Since(start).Round(time.Millisecond), err, out.String())
					}
				} else if st := rt13fStatus(cmd); err != nil || st != 124 || !rt13fBool(v, "timed_out") {
					t.Errorf("status %d, result %v %.300q", st, err, out.String())
				}
				// (Under job control the supervisor resumes with sbx and
				// may serve the pending creation, which the profile allows.)
				if what != "process group" && fileExists(ws+"/b") {
					t.Errorf("the creation made while the supervisor was stopped happened")
				}
				if left := rt11AwaitGone(tok, 3*time.Second); len(left) > 0 {
					t.Errorf("left: %v", left)
					rt11KillAll(tok)
				}
				// The supervisor's pid: gone, or reused by something else.
				if cl, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", sup[0])); err == nil && bytes.Contains(cl, []byte("__sbx-landlock-helper")) {
					t.Errorf("the stopped supervisor %d is left behind", sup[0])
					syscall.Kill(sup[0], syscall.SIGKILL)
				}
			})
		}
	})
}
