//go:build linux

// Command timeline shows where the start-up time of a command goes: it runs
// each command line in turn (interleaved, N rounds), and prints the median
// time, from its fork in this harness, of every checkpoint the command
// reported, of the moment the stamped command started, and of its exit.
//
//	go build -tags sbxtrace -o /tmp/sbx ./cmd/sbx
//	go run ./bench/timeline 500 '/tmp/sbx run -- STAMP' 'bench/golauncher STAMP'
//
// sbx built with -tags sbxtrace writes its checkpoints (package
// internal/starttrace) to the descriptor SBX_TRACE_FD names (3 here). The
// word STAMP in a command line is replaced by a tiny static program
// (compiled with cc from the C source below, no C library) that writes the
// CLOCK_MONOTONIC time at its first instruction and exits: the checkpoint
// "command" is then when the sandboxed command started, and the total
// excludes any real command's own cost. A leading NAME=value word sets an
// environment variable. With TIMELINE_RAW=FILE in the environment, every
// run's checkpoints are also written to FILE as JSON lines.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

const stampC = `
#include <time.h>
#include <sys/syscall.h>
static long sys(long n, long a, long b, long c) {
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}
void _start(void) {
	struct timespec t;
	sys(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&t, 0);
	unsigned long ns = t.tv_sec * 1000000000UL + t.tv_nsec;
	char buf[32];
	int i = 31;
	buf[i--] = '\n';
	do { buf[i--] = '0' + ns % 10; ns /= 10; } while (ns);
	sys(SYS_write, 1, (long)&buf[i + 1], 31 - i);
	sys(SYS_exit_group, 0, 0, 0);
}
`

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: timeline ROUNDS 'COMMAND LINE'...")
		os.Exit(2)
	}
	rounds, err := strconv.Atoi(os.Args[1])
	if err != nil || rounds < 1 {
		fmt.Fprintln(os.Stderr, "timeline: ROUNDS must be a positive number")
		os.Exit(2)
	}
	stamp := ""
	for _, c := range os.Args[2:] {
		if strings.Contains(c, "STAMP") {
			stamp = buildStamp()
			defer os.RemoveAll(filepath.Dir(stamp))
			break
		}
	}
	type line struct {
		argv []string
		env  []string
		seen map[string][]float64
	}
	var lines []*line
	for _, c := range os.Args[2:] {
		l := &line{env: append(os.Environ(), "SBX_TRACE_FD=3"), seen: map[string][]float64{}}
		for _, w := range strings.Fields(strings.ReplaceAll(c, "STAMP", stamp)) {
			if len(l.argv) == 0 && strings.Contains(w, "=") {
				l.env = append(l.env, w)
				continue
			}
			l.argv = append(l.argv, w)
		}
		if len(l.argv) == 0 {
			fmt.Fprintf(os.Stderr, "timeline: empty command %q\n", c)
			os.Exit(2)
		}
		if p, err := exec.LookPath(l.argv[0]); err == nil {
			l.argv[0] = p
		}
		lines = append(lines, l)
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fail(err)
	}
	var raw *os.File
	if name := os.Getenv("TIMELINE_RAW"); name != "" {
		if raw, err = os.Create(name); err != nil {
			fail(err)
		}
		defer raw.Close()
	}
	for r := 0; r <= rounds; r++ {
		// Each round starts with the next command line, so that none always
		// follows the same one (what ran just before changes a start-up).
		for k := range lines {
			l := lines[(r+k)%len(lines)]
			marks, err := once(l.argv, l.env, devNull)
			if err != nil {
				fail(fmt.Errorf("%s: %w", strings.Join(l.argv, " "), err))
			}
			if r == 0 {
				continue // warm-up
			}
			for k, v := range marks {
				l.seen[k] = append(l.seen[k], v)
			}
			if raw != nil {
				b, _ := json.Marshal(map[string]any{"line": (r + k) % len(lines), "marks": marks})
				raw.Write(append(b, '\n'))
			}
		}
	}
	fmt.Printf("%d interleaved rounds; median ms since the fork of each checkpoint (and the step from the previous one)\n", rounds)
	for i, l := range lines {
		fmt.Println(os.Args[2+i])
		type point struct {
			name string
			ms   float64
		}
		var pts []point
		for k, v := range l.seen {
			slices.Sort(v)
			pts = append(pts, point{k, v[len(v)/2]})
		}
		slices.SortFunc(pts, func(a, b point) int {
			switch {
			case a.ms < b.ms:
				return -1
			case a.ms > b.ms:
				return 1
			}
			return 0
		})
		prev := 0.0
		for _, p := range pts {
			fmt.Printf("  %-14s %7.3f  (+%.3f)\n", p.name, p.ms, p.ms-prev)
			prev = p.ms
		}
	}
}

// once runs argv with the checkpoints on descriptor 3 and the stamp on
// stdout, and returns each checkpoint's time since the fork, in ms.
func once(argv, env []string, devNull *os.File) (map[string]float64, error) {
	var marks, out [2]int
	if err := unix.Pipe2(marks[:], unix.O_CLOEXEC); err != nil {
		return nil, err
	}
	if err := unix.Pipe2(out[:], unix.O_CLOEXEC); err != nil {
		return nil, err
	}
	defer unix.Close(marks[0])
	defer unix.Close(out[0])
	t0 := mono()
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{Env: env,
		Files: []uintptr{devNull.Fd(), uintptr(out[1]), devNull.Fd(), uintptr(marks[1])}})
	unix.Close(marks[1])
	unix.Close(out[1])
	if err != nil {
		return nil, err
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		return nil, err
	}
	t1 := mono()
	res := map[string]float64{"total": ms(t1 - t0)}
	parse := func(fd int, name string) {
		b := make([]byte, 64<<10)
		n, _ := unix.Read(fd, b)
		for _, l := range strings.Split(string(b[:max(n, 0)]), "\n") {
			f := strings.Fields(l)
			switch {
			case len(f) == 2 && name == "":
				if v, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					res[f[0]] = ms(v - t0)
				}
			case len(f) == 1 && name != "":
				if v, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					res[name] = ms(v - t0)
				}
			}
		}
	}
	parse(marks[0], "")
	parse(out[0], "command")
	return res, nil
}

func mono() int64 {
	var t unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &t)
	return t.Nano()
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// buildStamp compiles the stamp program (x86-64 only) and returns its path.
func buildStamp() string {
	dir, err := os.MkdirTemp("", "timeline")
	if err != nil {
		fail(err)
	}
	src := filepath.Join(dir, "stamp.c")
	if err := os.WriteFile(src, []byte(stampC), 0o644); err != nil {
		fail(err)
	}
	bin := filepath.Join(dir, "stamp")
	cc := exec.Command("cc", "-O2", "-static", "-nostdlib", "-fno-stack-protector", "-o", bin, src)
	cc.Stderr = os.Stderr
	if err := cc.Run(); err != nil {
		fail(fmt.Errorf("building the stamp program (needs cc on x86-64): %w", err))
	}
	return bin
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "timeline:", err)
	os.Exit(1)
}
