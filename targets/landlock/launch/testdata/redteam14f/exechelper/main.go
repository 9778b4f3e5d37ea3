// Command exechelper drives executor.Run (no Sandbox) for the red-team 14
// fault battery (redteam14fault_test.go), so that the library can be
// exercised as uid 65534 and with this process's own standard streams
// closed. It reads one JSON job from its first argument (or from the file
// named after an @) and writes one
// JSON report on descriptor 3.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sbx-dev/sbx/executor"
)

// job is what the test asks for.
type job struct {
	Mode          string   `json:"mode"` // run, many, race
	Argv          []string `json:"argv"`
	Env           []string `json:"env"`
	Dir           string   `json:"dir"`
	TimeoutMS     int      `json:"timeout_ms"`
	Close         []int    `json:"close"`        // descriptors to close first (run)
	Dup           [][2]int `json:"dup"`          // dup2(a, b) after closing (run)
	Containment   string   `json:"containment"`  // "" auto
	AllowDegraded bool     `json:"degraded"`     // process-group fallback
	Goroutines    int      `json:"goroutines"`   // many
	Runs          int      `json:"runs"`         // many, race
	Lock          string   `json:"lock"`         // many: "", "locked", "exit-locked"
	NofileFree    int      `json:"nofile_free"`  // run: leave this many descriptors free (0: no change)
	CancelAfterMS int      `json:"cancel_after"` // run: cancel the context after this long
}

// outcome is one run's result.
type outcome struct {
	Err         string `json:"err,omitempty"`
	Exit        int    `json:"exit"`
	Error       string `json:"error,omitempty"`
	Containment string `json:"containment,omitempty"`
	Stdout      string `json:"stdout"`
	Stderr      string `json:"stderr"`
	Pid         int    `json:"pid"`
	TimedOut    bool   `json:"timed_out"`
	Cancelled   bool   `json:"cancelled"`
	MS          int64  `json:"ms"`
}

// report is what the helper writes on descriptor 3.
type report struct {
	Run       *outcome       `json:"run,omitempty"`
	Counts    map[string]int `json:"counts,omitempty"`
	Failures  []string       `json:"failures,omitempty"`
	FDsBefore int            `json:"fds_before"`
	FDsAfter  int            `json:"fds_after"`
	Children  []string       `json:"children,omitempty"`
	Threads   int            `json:"threads"`
}

func main() {
	out := os.NewFile(3, "report")
	// Descriptors inherited from further up (not the test's) are not the
	// command's business: the executor relies on close-on-exec.
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= 3 {
			syscall.CloseOnExec(fd)
		}
	}
	var j job
	data := []byte(os.Args[1])
	if name, ok := strings.CutPrefix(os.Args[1], "@"); ok {
		data, _ = os.ReadFile(name)
	}
	if err := json.Unmarshal(data, &j); err != nil {
		fmt.Fprintln(out, `{"failures":["bad job"]}`)
		os.Exit(2)
	}
	var r report
	r.FDsBefore = countFDs()
	switch j.Mode {
	case "run":
		for _, fd := range j.Close {
			syscall.Close(fd)
		}
		for _, d := range j.Dup {
			syscall.Dup2(d[0], d[1])
		}
		var held []int
		if j.NofileFree > 0 {
			var lim syscall.Rlimit
			syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
			lim.Cur = 64
			syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
			for {
				fd, err := syscall.Open("/dev/null", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
				if err != nil {
					break
				}
				held = append(held, fd)
			}
			for i := 0; i < j.NofileFree && len(held) > 0; i++ {
				syscall.Close(held[len(held)-1])
				held = held[:len(held)-1]
			}
		}
		o := run(j, j.Argv)
		for _, fd := range held {
			syscall.Close(fd)
		}
		r.Run = &o
	case "many":
		r.Counts = map[string]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for g := 0; g < j.Goroutines; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				if j.Lock != "" && g%2 == 0 {
					runtime.LockOSThread()
					if j.Lock == "locked" {
						defer runtime.UnlockOSThread()
					}
				}
				for i := 0; i < j.Runs; i++ {
					want := "g" + strconv.Itoa(g) + "r" + strconv.Itoa(i)
					o := run(j, append(append([]string(nil), j.Argv...), want))
					mu.Lock()
					switch {
					case o.Err != "":
						r.Failures = append(r.Failures, want+": "+o.Err)
					case o.Exit != 0 || o.Stdout != want+"\n":
						r.Failures = append(r.Failures, fmt.Sprintf("%s: exit %d stdout %q stderr %q error %q", want, o.Exit, o.Stdout, o.Stderr, o.Error))
					default:
						r.Counts[o.Containment]++
					}
					mu.Unlock()
				}
			}(g)
		}
		wg.Wait()
	case "race":
		r.Counts = map[string]int{}
		var stop atomic.Bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			for !stop.Load() {
				os.Rename(j.Dir, j.Dir+".away")
				os.Rename(j.Dir+".away", j.Dir)
			}
		}()
		for i := 0; i < j.Runs; i++ {
			o := run(j, j.Argv)
			k := ""
			switch {
			case o.Err != "":
				k = "error: " + o.Err
				if strings.Contains(o.Err, "working directory") {
					k = "error: working directory"
				}
			default:
				k = fmt.Sprintf("exit %d: %s", o.Exit, o.Error)
			}
			r.Counts[k]++
		}
		stop.Store(true)
		<-done
	}
	r.FDsAfter = countFDs()
	r.Children = children()
	r.Threads = threads()
	json.NewEncoder(out).Encode(r)
}

func run(j job, argv []string) outcome {
	req := executor.Request{
		Argv:          argv,
		Env:           j.Env,
		Dir:           j.Dir,
		Timeout:       time.Duration(j.TimeoutMS) * time.Millisecond,
		AllowDegraded: j.AllowDegraded,
	}
	if j.Containment != "" {
		req.Containment = executor.Containment(j.Containment)
	}
	ctx := context.Background()
	if j.CancelAfterMS > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(j.CancelAfterMS)*time.Millisecond)
		defer cancel()
	}
	start := time.Now()
	res, err := executor.Run(ctx, req)
	o := outcome{MS: time.Since(start).Milliseconds()}
	if err != nil {
		o.Err = err.Error()
	}
	if res != nil {
		o.Exit, o.Error, o.Containment = res.ExitCode, res.Error, string(res.Containment)
		o.Stdout, o.Stderr, o.Pid = string(res.Stdout.Head), string(res.Stderr.Head), res.Pid
		o.TimedOut, o.Cancelled = res.TimedOut, res.Cancelled
	}
	return o
}

func countFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// children lists this process's children (any state) as "pid state comm".
func children() []string {
	var out []string
	self := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == self {
			out = append(out, e.Name()+" "+f[0]+" "+s[:i+1])
		}
	}
	return out
}

func threads() int {
	ents, _ := os.ReadDir("/proc/self/task")
	return len(ents)
}
