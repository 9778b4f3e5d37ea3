package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// The scripts' "sbx" is main itself, so that sbx re-executing itself
	// (the sandbox helper) works in tests as in the real binary; main calls
	// run, the testable entry point.
	testscript.Main(m, map[string]func(){
		"sbx": main,
	})
}

// TestScripts runs testdata/script/sbx_*.txtar at the repository root.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "script", "sbx_*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	testscript.Run(t, testscript.Params{
		Files:               files,
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exits CODE PROG [ARG...] runs PROG and checks its exit status.
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exits CODE PROG [ARG...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exits: bad code %q", args[0])
				}
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("exits: %v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
			},
		},
	})
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "1048576", want: 1 << 20},
		{in: "1MiB", want: 1 << 20},
		{in: "512KiB", want: 512 << 10},
		{in: "10MB", want: 10_000_000},
		{in: "2gib", want: 2 << 30},
		{in: "1.5KiB", want: 1536},
		{in: "64 KiB", want: 64 << 10},
		{in: "100B", want: 100},
		{in: "", bad: true},
		{in: "MiB", bad: true},
		{in: "-1", bad: true},
		{in: "1PiB", bad: true},
		{in: "ten", bad: true},
		{in: "99999999999999999999", bad: true},
		// Decimal digits only, and whole bytes (red team 27).
		{in: ".5KiB", want: 512},
		{in: "0.5MiB", want: 512 << 10},
		{in: "1.0", want: 1},
		{in: "1.5", bad: true},
		{in: "1.99", bad: true},
		{in: "0x1p4", bad: true},
		{in: "1_000", bad: true},
		{in: "1e3", bad: true},
		{in: "1.", bad: true},
		{in: "9007199254740993.0", bad: true},
	} {
		got, err := parseSize(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("parseSize(%q) = %d, %v; want %d (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

// TestInterrupt sends signals to a running sbx: the command is cancelled
// (SIGTERM to its group, then SIGKILL), a TERM trap in it runs, and sbx
// exits 128+signal.
func TestInterrupt(t *testing.T) {
	sbx, err := exec.LookPath("sbx")
	if err != nil {
		t.Fatal(err)
	}
	script := `trap 'echo trapped; exit 5' TERM; echo ready; while :; do sleep 0.01; done`
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		mode string
	}{
		{"SIGINT events", syscall.SIGINT, "--events"},
		{"SIGTERM events", syscall.SIGTERM, "--events"},
		{"SIGINT terminal", syscall.SIGINT, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"run", "--profile", "danger-full-access", "--timeout", "60s"}
			if tc.mode != "" {
				args = append(args, tc.mode)
			}
			cmd := exec.Command(sbx, append(args, "--", "bash", "-c", script)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			// Signal only once the command runs (and sbx handles signals).
			sc := bufio.NewScanner(out)
			sc.Buffer(nil, 1<<20)
			var lines []string
			for sc.Scan() {
				lines = append(lines, sc.Text())
				// The start event's argv contains the word too.
				if sc.Text() == "ready" || strings.Contains(sc.Text(), `"text":"ready\n"`) {
					break
				}
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(tc.sig) {
				t.Fatalf("sbx: %v, want exit status %d; stderr %q", err, 128+int(tc.sig), stderr.String())
			}
			// The command traps TERM: it normally exits 5 after printing
			// "trapped" within the 50 ms grace; on a very loaded machine it
			// may be killed first (137). Both are cancellations.
			if tc.mode == "" {
				if !strings.Contains(stderr.String(), "interrupted by SIGINT") {
					t.Fatalf("terminal mode: stdout %q stderr %q", lines, stderr.String())
				}
				return
			}
			var last struct {
				Type   string
				Result struct {
					Cancelled bool   `json:"cancelled"`
					ExitCode  int    `json:"exit_code"`
					Stdout    string `json:"stdout"`
				}
			}
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
				t.Fatalf("last event %q: %v", lines[len(lines)-1], err)
			}
			trapped := last.Result.ExitCode == 5 && strings.Contains(last.Result.Stdout, "trapped")
			if last.Type != "exit" || !last.Result.Cancelled || !(trapped || last.Result.ExitCode == 137) {
				t.Fatalf("exit event %+v", last)
			}
		})
	}
}

// eventCounter counts the events sbx writes (one Write per event) and keeps
// the last one.
type eventCounter struct {
	outputs [2]int
	last    []byte
}

func (c *eventCounter) Write(p []byte) (int, error) {
	switch {
	case bytes.HasPrefix(p, []byte(`{"type":"output","stream":"stdout"`)):
		c.outputs[0]++
	case bytes.HasPrefix(p, []byte(`{"type":"output","stream":"stderr"`)):
		c.outputs[1]++
	default:
		c.last = append(c.last[:0], p...)
	}
	return len(p), nil
}

// TestEventsLimit checks that at most 10,000 output events are written per
// stream while retention and counting continue.
func TestEventsLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MB of output events")
	}
	// 100 MB is more than 10,000 chunks of at most 8 KiB on each stream.
	const size = 100_000_000
	script := "yes | head -c 100000000; yes | head -c 100000000 >&2"
	var events eventCounter
	var stderr bytes.Buffer
	code := run([]string{"run", "--profile", "danger-full-access", "--events", "--timeout", "5m", "--", "sh", "-c", script}, &events, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if events.outputs != [2]int{10_000, 10_000} {
		t.Fatalf("output events %v, want 10,000 per stream", events.outputs)
	}
	var exit struct {
		Type   string
		Result struct {
			StdoutBytes     int  `json:"stdout_bytes"`
			StderrBytes     int  `json:"stderr_bytes"`
			StdoutTruncated bool `json:"stdout_truncated"`
		}
	}
	if err := json.Unmarshal(events.last, &exit); err != nil || exit.Type != "exit" {
		t.Fatalf("last event %q: %v", events.last, err)
	}
	if exit.Result.StdoutBytes != size || exit.Result.StderrBytes != size || !exit.Result.StdoutTruncated {
		t.Fatalf("result %+v", exit.Result)
	}
}
