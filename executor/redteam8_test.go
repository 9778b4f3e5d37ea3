//go:build linux

package executor

// Red team 8 (executor side): Run starts the command on its own locked
// thread and waits for it in waitid there; a watchdog goroutine ends it at
// the deadline (SIGKILL, 124, TimedOut) or on cancellation (SIGTERM, grace,
// SIGKILL, Cancelled); exited() must make sure nothing is signalled once
// the leader is reaped.
//
//	go test -count=1 -race -run 'TestRedTeam8' ./executor

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// rt8Fake is a container whose leader "exits" when killed, when terminated
// (if it obeys SIGTERM) or at a chosen moment, and which records every
// signal, in particular one sent after reap.
type rt8Fake struct {
	exitOnce  sync.Once
	exitCh    chan struct{}
	obeysTerm bool

	reaped     atomic.Bool
	kills      atomic.Int64
	terms      atomic.Int64
	afterReap  atomic.Int64
	inWaitDone atomic.Bool
}

func newRT8Fake(obeysTerm bool) *rt8Fake {
	return &rt8Fake{exitCh: make(chan struct{}), obeysTerm: obeysTerm}
}

func (f *rt8Fake) exit() { f.exitOnce.Do(func() { close(f.exitCh) }) }

func (f *rt8Fake) kind() Containment               { return ContainmentPIDNamespace }
func (f *rt8Fake) note() string                    { return "" }
func (f *rt8Fake) prepare(*exec.Cmd) error         { return nil }
func (f *rt8Fake) started(*exec.Cmd) error         { return nil }
func (f *rt8Fake) isContainmentError(error) bool   { return false }
func (f *rt8Fake) cleanup() error                  { return nil }
func (f *rt8Fake) release()                        {}
func (f *rt8Fake) waitExited()                     { <-f.exitCh; f.inWaitDone.Store(true) }
func (f *rt8Fake) reap() (*os.ProcessState, error) { f.reaped.Store(true); return nil, nil }

func (f *rt8Fake) terminate() {
	if f.reaped.Load() {
		f.afterReap.Add(1)
	}
	f.terms.Add(1)
	if f.obeysTerm {
		f.exit()
	}
}

func (f *rt8Fake) kill() {
	if f.reaped.Load() {
		f.afterReap.Add(1)
	}
	f.kills.Add(1)
	f.exit()
}

// rt8Dur is a random short duration: 0, 1 ns, or up to 300 µs.
func rt8Dur() time.Duration {
	switch rand.IntN(4) {
	case 0:
		return time.Nanosecond
	case 1:
		return 0
	default:
		return time.Duration(rand.IntN(300)) * time.Microsecond
	}
}

// TestRedTeam8WatchdogContract drives the watchdog exactly as Run does
// (watch on its own goroutine, waitExited, exited, reap) against a fake
// container, 20000 times with random deadlines, cancellations, natural
// exits, graces and TERM behaviour racing each other. It checks: never
// both TimedOut and Cancelled; TimedOut implies a kill before exited()
// returned; Cancelled implies a terminate and a kill before it returned;
// neither implies no signal at all; and no signal ever after reap (with
// every watchdog goroutine finished before the check).
func TestRedTeam8WatchdogContract(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var fails []string
	fail := func(format string, a ...any) {
		mu.Lock()
		if len(fails) < 20 {
			fails = append(fails, fmt.Sprintf(format, a...))
		}
		mu.Unlock()
	}
	var fakes []*rt8Fake
	var fakesMu sync.Mutex
	var counts [4]atomic.Int64 // neither, timed out, cancelled, both
	sem := make(chan struct{}, 32)
	for i := 0; i < 20000; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			f := newRT8Fake(rand.IntN(2) == 0)
			fakesMu.Lock()
			fakes = append(fakes, f)
			fakesMu.Unlock()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			timeout := time.Duration(-1)
			if rand.IntN(3) != 0 {
				timeout = rt8Dur()
			}
			grace := rt8Dur() + time.Nanosecond
			natural := rand.IntN(3) != 0
			cancelIt := rand.IntN(2) == 0
			if timeout <= 0 && !cancelIt {
				natural = true // something must end the leader
			}
			switch rand.IntN(3) {
			case 0:
				if cancelIt {
					cancel() // before the watchdog starts
				}
			default:
				if cancelIt {
					time.AfterFunc(rt8Dur(), cancel)
				}
			}
			if natural {
				time.AfterFunc(rt8Dur(), f.exit)
			}
			w := newWatchdog(f)
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.watch(ctx, timeout, grace)
			}()
			f.waitExited()
			to, ca := w.exited()
			k, tm := f.kills.Load(), f.terms.Load()
			f.reap()
			idx := 0
			if to {
				idx |= 1
			}
			if ca {
				idx |= 2
			}
			counts[idx].Add(1)
			switch {
			case to && ca:
				fail("run %d: both timed out and cancelled", i)
			case to && k == 0:
				fail("run %d: timed out but not killed before exited() returned", i)
			case ca && (tm == 0 || k == 0):
				fail("run %d: cancelled but terminate %d kill %d before exited() returned", i, tm, k)
			case !to && !ca && (k != 0 || tm != 0):
				fail("run %d: neither timed out nor cancelled, yet %d kills %d terms", i, k, tm)
			}
		}(i)
	}
	wg.Wait() // every watch has returned
	for i, f := range fakes {
		if n := f.afterReap.Load(); n > 0 {
			fail("run %d: %d signal(s) after reap", i, n)
		}
	}
	t.Logf("neither %d, timed out %d, cancelled %d, both %d", counts[0].Load(), counts[1].Load(), counts[2].Load(), counts[3].Load())
	for _, f := range fails {
		t.Error(f)
	}
}

// rt8Consistent checks that a Result's flags and status agree.
func rt8Consistent(t *testing.T, what string, res *Result, err error) bool {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return false
	}
	switch {
	case res.TimedOut && res.Cancelled:
		t.Errorf("%s: both timed out and cancelled", what)
	case res.TimedOut && res.ExitCode != TimeoutExitCode:
		t.Errorf("%s: timed out with exit %d", what, res.ExitCode)
	case !res.TimedOut && res.ExitCode == TimeoutExitCode:
		t.Errorf("%s: exit 124 without TimedOut", what)
	case res.Signal != 0 && !res.TimedOut && res.ExitCode != 128+res.Signal:
		t.Errorf("%s: signal %d with exit %d", what, res.Signal, res.ExitCode)
	default:
		return true
	}
	return false
}

// TestRedTeam8WatchdogRealRuns: real commands under every containment:
// deadlines of 1 ns, 1 µs and 1 ms racing the start; a command exiting
// around its deadline; a deadline and a cancellation racing; cancellation
// before, at (OnStart) and just after the start; a TERM-ignoring command
// with a TERM-ignoring child. Eight goroutines at once; results must be
// consistent, durations bounded, and no process with the run's token may
// survive; no goroutine is left behind.
func TestRedTeam8WatchdogRealRuns(t *testing.T) {
	for _, c := range containmentModes {
		t.Run(modeName(c), func(t *testing.T) {
			if _, err := Run(context.Background(), Request{Argv: []string{"true"}, Env: testEnv(), Containment: c, AllowDegraded: true}); errors.Is(err, ErrNoContainment) {
				t.Skipf("containment %s unavailable: %v", c, err)
			}
			g0 := runtime.NumGoroutine()
			token := nonce()
			run := func(ctx context.Context, req Request) (*Result, error) {
				req.Containment = c
				req.AllowDegraded = true
				req.Env = append(testEnv(), "TOKEN="+token)
				return Run(ctx, req)
			}
			var wg sync.WaitGroup
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					for i := 0; i < 12; i++ {
						k := g*12 + i
						switch k % 6 {
						case 0: // deadlines racing the start
							d := []time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond}[k%3]
							res, err := run(context.Background(), Request{Argv: []string{"sleep", token}, Timeout: d})
							if rt8Consistent(t, fmt.Sprintf("sleep, timeout %v", d), res, err) && (!res.TimedOut || res.Duration > 3*time.Second) {
								t.Errorf("sleep with timeout %v: timed out %v after %v", d, res.TimedOut, res.Duration)
							}
							d = []time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond}[(k+1)%3]
							res, err = run(context.Background(), Request{Argv: []string{"true"}, Timeout: d})
							if rt8Consistent(t, fmt.Sprintf("true, timeout %v", d), res, err) && !res.TimedOut && res.ExitCode != 0 {
								t.Errorf("true with timeout %v: exit %d", d, res.ExitCode)
							}
						case 1: // exits around its deadline
							d := 40*time.Millisecond + time.Duration(rand.IntN(20000))*time.Microsecond
							res, err := run(context.Background(), Request{Argv: []string{"sh", "-c", "sleep 0.05; exit 3"}, Timeout: d})
							if rt8Consistent(t, fmt.Sprintf("sleep 0.05 with %v", d), res, err) && !res.TimedOut && (res.ExitCode != 3 || res.Signal != 0 || res.Cancelled) {
								t.Errorf("sleep 0.05 with %v: exit %d signal %d", d, res.ExitCode, res.Signal)
							}
						case 2: // deadline and cancellation racing
							ctx, cancel := context.WithCancel(context.Background())
							time.AfterFunc(time.Duration(rand.IntN(2000))*time.Microsecond, cancel)
							res, err := run(ctx, Request{Argv: []string{"sleep", token}, Timeout: time.Millisecond, KillGrace: time.Millisecond})
							cancel()
							if errors.Is(err, context.Canceled) {
								break
							}
							if rt8Consistent(t, "deadline vs cancel", res, err) && !res.TimedOut && !res.Cancelled {
								t.Errorf("deadline vs cancel: neither flag, exit %d", res.ExitCode)
							}
						case 3: // cancelled at the start
							ctx, cancel := context.WithCancel(context.Background())
							res, err := run(ctx, Request{Argv: []string{"sleep", token}, Timeout: 10 * time.Second, KillGrace: 10 * time.Millisecond,
								OnStart: func(StartInfo) { cancel() }})
							cancel()
							if rt8Consistent(t, "cancel in OnStart", res, err) && (!res.Cancelled || res.TimedOut || res.ExitCode == 0 || res.Duration > 3*time.Second) {
								t.Errorf("cancel in OnStart: cancelled %v exit %d after %v", res.Cancelled, res.ExitCode, res.Duration)
							}
						case 4: // cancelled just after the start
							ctx, cancel := context.WithCancel(context.Background())
							time.AfterFunc(time.Duration(rand.IntN(3000))*time.Microsecond, cancel)
							res, err := run(ctx, Request{Argv: []string{"sleep", token}, Timeout: 10 * time.Second, KillGrace: 10 * time.Millisecond})
							cancel()
							if errors.Is(err, context.Canceled) {
								break // before the start
							}
							if rt8Consistent(t, "cancel after start", res, err) && (!res.Cancelled || res.ExitCode == 0 || res.Duration > 3*time.Second) {
								t.Errorf("cancel after start: cancelled %v exit %d after %v", res.Cancelled, res.ExitCode, res.Duration)
							}
						case 5: // ignores TERM, so does its child
							ctx, cancel := context.WithCancel(context.Background())
							w := watch("ready", cancel)
							res, err := run(ctx, Request{Argv: []string{"sh", "-c", `trap '' TERM; (trap '' TERM; sleep $TOKEN) & echo ready; wait`},
								Timeout: 10 * time.Second, KillGrace: 30 * time.Millisecond, OnOutput: w.onOutput, MaxOutputEvents: -1})
							cancel()
							if rt8Consistent(t, "TERM ignored", res, err) && (!res.Cancelled || res.ExitCode != 137 || res.Duration > 3*time.Second) {
								t.Errorf("TERM ignored: cancelled %v exit %d signal %d after %v", res.Cancelled, res.ExitCode, res.Signal, res.Duration)
							}
						}
					}
				}(g)
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(18 * time.Second):
				t.Fatalf("runs hung")
			}
			waitGone(t, token, 5*time.Second)
			deadline := time.Now().Add(3 * time.Second)
			for runtime.NumGoroutine() > g0+1 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > g0+1 {
				buf := make([]byte, 1<<16)
				t.Errorf("goroutines: %d before, %d after\n%s", g0, n, buf[:runtime.Stack(buf, true)])
			}
		})
	}
}

// TestRedTeam8RunKeepsCallerLock: Run locks and unlocks its goroutine's
// thread; a caller that had locked its goroutine itself (thread-bound
// APIs) must still be locked, on the same thread, after Run returns
// (LockOSThread nests).
func TestRedTeam8RunKeepsCallerLock(t *testing.T) {
	done := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid := unix.Gettid()
		for i := 0; i < 5; i++ {
			if _, err := Run(context.Background(), Request{Argv: []string{"true"}, Env: testEnv()}); err != nil {
				done <- err
				return
			}
			// Block and reschedule: an unlocked goroutine may resume on
			// another thread.
			for j := 0; j < 200; j++ {
				c := make(chan struct{})
				go func() { close(c) }()
				<-c
				runtime.Gosched()
				if got := unix.Gettid(); got != tid {
					done <- fmt.Errorf("run %d: the caller's goroutine moved from thread %d to %d: Run dropped the caller's lock", i, tid, got)
					return
				}
			}
		}
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestRedTeam8SignalAfterExitNotReused: the watchdog's kill after the
// leader exited targets the unreaped zombie. With a pid-only Process, a
// kill after reap could hit a recycled pid: 300 runs whose deadline fires
// right around their natural exit, while other processes are created
// continuously (so freed pids get reused), must never kill one of those
// bystanders.
func TestRedTeam8SignalAfterExitNotReused(t *testing.T) {
	stop := make(chan struct{})
	var bystanderKilled atomic.Int64
	var bw sync.WaitGroup
	for g := 0; g < 2; g++ {
		bw.Add(1)
		go func() {
			defer bw.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				cmd := exec.Command("sleep", "0.002")
				if err := cmd.Run(); err != nil {
					var ee *exec.ExitError
					if errors.As(err, &ee) {
						if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
							bystanderKilled.Add(1)
						}
					}
				}
			}
		}()
	}
	for i := 0; i < 300; i++ {
		d := time.Duration(500+rand.IntN(1500)) * time.Microsecond
		res, err := Run(context.Background(), Request{Argv: []string{"sh", "-c", "exit 0"}, Env: testEnv(), Timeout: d})
		rt8Consistent(t, "exit around deadline", res, err)
	}
	close(stop)
	bw.Wait()
	if n := bystanderKilled.Load(); n > 0 {
		t.Errorf("%d bystander process(es) died of a signal", n)
	}
}
