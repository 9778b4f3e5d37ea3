//go:build !linux

package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// execute starts the command and waits for it: the calling goroutine waits
// for the leader, one goroutine per pipe drains it and a watchdog goroutine
// ends the command at its deadline or on cancellation.
func execute(ctx context.Context, cfg *config, path string, res *Result) (*Result, error) {
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, fmt.Errorf("opening %s for stdin: %w", os.DevNull, err)
	}
	defer devNull.Close()
	outR, outW, err := newPipe()
	if err != nil {
		return nil, fmt.Errorf("creating stdout pipe: %w", err)
	}
	defer outR.Close()
	defer outW.Close()
	errR, errW, err := newPipe()
	if err != nil {
		return nil, fmt.Errorf("creating stderr pipe: %w", err)
	}
	defer errR.Close()
	defer errW.Close()

	// The thread that forks the command must outlive the command's leader:
	// Pdeathsig is delivered when the forking OS thread exits, not when the
	// process does, and the Go runtime ends a thread whose goroutine exits
	// while locked to it (runtime.LockOSThread without Unlock, common in
	// callers that use thread-bound APIs). So Run locks its goroutine to its
	// thread, starts the command, and stays locked, blocked in waitid, until
	// the leader has exited: no other goroutine can run on (and end) the
	// thread meanwhile. After the leader exited the signal no longer
	// matters. Waiting in the goroutine that started the command, rather
	// than handing the start to another goroutine, costs no thread wake-up
	// on the start path (≈0.1 ms); the deadline and the context are watched
	// by a goroutine of their own (watchdog), which ends the command when
	// either fires.
	start := time.Now()
	runtime.LockOSThread()
	locked := true
	defer func() {
		if locked {
			runtime.UnlockOSThread()
		}
	}()
	cmd, ct, failed, err := startCommand(cfg, path, devNull, outW, errW, res)
	if err != nil {
		return nil, err
	}
	if failed != nil {
		return failed, nil
	}
	defer ct.release()
	outW.Close()
	errW.Close()
	res.Pid = cmd.Process.Pid
	res.Containment = ct.kind()
	res.ContainmentNote = ct.note()
	if cfg.OnStart != nil {
		cfg.OnStart(StartInfo{Pid: res.Pid, Path: path, Containment: ct.kind()})
	}

	d := &delivery{cb: cfg.OnOutput, max: cfg.maxEvents}
	headTail := cfg.Retention == RetainHeadTail
	out := &reader{stream: Stdout, f: outR, ret: newRetention(cfg.capLimit, headTail), d: d, done: make(chan struct{})}
	errs := &reader{stream: Stderr, f: errR, ret: newRetention(cfg.capLimit, headTail), d: d, done: make(chan struct{})}
	go out.run()
	go errs.run()

	w := newWatchdog(ct)
	go w.watch(ctx, cfg.timeout, cfg.grace)
	ct.waitExited()
	runtime.UnlockOSThread()
	locked = false
	res.TimedOut, res.Cancelled = w.exited()
	cleanupErr := ct.cleanup()
	state, waitErr := ct.reap()

	// Whatever still holds the pipes is outside the command's containment
	// (or the containment is degraded): drain for a bounded time only.
	deadline := time.Now().Add(cfg.drain)
	out.finishBy(deadline)
	errs.finishBy(deadline)
	res.Duration = time.Since(start)

	if state != nil {
		res.ExitCode, res.Signal = exitStatus(state)
		// Asked whenever the launcher was reaped, so that the sandbox can
		// release what the run held; used when the launcher exited.
		if sr, ok := cfg.Sandbox.(SignalReporter); ok {
			if sig := sr.ExitSignal(cmd); sig > 0 && res.Signal == 0 {
				res.ExitCode, res.Signal = 128+sig, sig
			}
		}
	} else if waitErr != nil {
		cleanupErr = errors.Join(cleanupErr, fmt.Errorf("waiting for command: %w", waitErr))
	}
	if res.TimedOut {
		res.ExitCode = TimeoutExitCode
	}
	res.Stdout = out.result()
	res.Stderr = errs.result()
	if cfg.Sandbox != nil && res.ExitCode != 0 {
		res.DeniedLikely = deniedLikely(cfg.Sandbox, res.ExitCode,
			res.Stdout.Head, res.Stdout.Tail, res.Stderr.Head, res.Stderr.Tail, res.Aggregated())
	}
	if cleanupErr != nil {
		return res, fmt.Errorf("%w: %v", ErrCleanup, cleanupErr)
	}
	return res, nil
}

// reader drains one pipe to EOF, retaining what fits.
type reader struct {
	stream Stream
	f      *os.File
	d      *delivery

	mu       sync.Mutex // guards ret, closed, cutShort against an abandoned read
	ret      *retention
	closed   bool
	cutShort bool
	done     chan struct{}
}

func (r *reader) run() {
	defer close(r.done)
	// Most commands write little: start with OutputChunkSize reads and
	// switch to readBufSize once a read fills the buffer.
	buf := make([]byte, OutputChunkSize)
	for {
		n, err := r.f.Read(buf)
		if n > 0 {
			if !r.consume(buf[:n]) {
				return
			}
			if r.onlyCounting() && r.discard() {
				return
			}
			if n == len(buf) && len(buf) < readBufSize {
				buf = make([]byte, readBufSize)
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.mu.Lock()
				r.cutShort = r.cutShort || errors.Is(err, os.ErrDeadlineExceeded)
				r.mu.Unlock()
			}
			return
		}
	}
}

// consume retains and delivers p. It reports false once the stream has
// been abandoned (the drain bound passed on a platform without deadlines).
func (r *reader) consume(p []byte) bool {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return false
	}
	r.ret.Write(p)
	r.mu.Unlock()
	r.d.deliver(r.stream, p)
	return true
}

// onlyCounting reports whether the rest of the stream only needs to be
// counted: head retention is full and nothing is delivered live any more.
func (r *reader) onlyCounting() bool {
	r.mu.Lock()
	full := r.ret.full()
	r.mu.Unlock()
	return full && r.d.exhausted(r.stream)
}

// finishBy waits for the reader to reach EOF until deadline. If something
// still holds the pipe then, the stream is marked cut short and what was
// read so far is kept.
func (r *reader) finishBy(deadline time.Time) {
	select {
	case <-r.done:
		return // already at EOF: no deadline needed
	default:
	}
	if err := r.f.SetReadDeadline(deadline); err == nil {
		// The read returns at the deadline at the latest; the extra second
		// only guards against a platform that ignores deadlines.
		deadline = deadline.Add(time.Second)
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-r.done:
	case <-t.C:
		r.mu.Lock()
		r.cutShort = true
		r.mu.Unlock()
	}
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
}

func (r *reader) result() StreamResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	head, tail, omitted := r.ret.finish()
	return StreamResult{
		Head:      head,
		Tail:      tail,
		Bytes:     r.ret.total,
		Omitted:   omitted,
		Truncated: omitted > 0,
		CutShort:  r.cutShort,
	}
}

// startCommand starts the command under the first containment mechanism of
// the plan that works. It returns the started command and its container; or
// a Result when the command itself cannot be executed (126, 127); or an
// error when the executor failed.
func startCommand(cfg *config, path string, stdin, stdout, stderr *os.File, res *Result) (*exec.Cmd, container, *Result, error) {
	env := cfg.Env
	if env == nil {
		env = []string{} // never inherit
	}
	plan := containmentPlan(cfg)
	var reasons []string
	for i, kind := range plan {
		c, err := newContainer(kind, cfg)
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("%s: %v", kind, err))
			continue
		}
		cmd := &exec.Cmd{
			Path:   path,
			Args:   cfg.Argv,
			Env:    env,
			Dir:    cfg.Dir,
			Stdin:  stdin,
			Stdout: stdout,
			Stderr: stderr,
		}
		if err := c.prepare(cmd); err != nil {
			c.release()
			reasons = append(reasons, fmt.Sprintf("%s: %v", kind, err))
			continue
		}
		spawner, _ := cfg.Sandbox.(Spawner)
		if cfg.Sandbox != nil && spawner == nil {
			if err := cfg.Sandbox.Wrap(cmd); err != nil {
				c.release()
				return nil, nil, nil, fmt.Errorf("%w: %v", ErrSandbox, err)
			}
		}
		if spawner != nil {
			var p *os.Process
			var sp Spawned
			sp, err = spawner.Spawn(cmd)
			if sp.Pid > 0 {
				// (Spawned.Pidfd is Linux only, where execute is another.)
				p, _ = os.FindProcess(sp.Pid)
			}
			if p != nil && err != nil {
				// Started, then the sandbox failed: the sandbox killed it.
				cmd.Process = p
				c.started(cmd)
				c.kill()
				c.waitExited()
				c.cleanup()
				c.reap()
				c.release()
				return nil, nil, nil, err
			}
			if errors.Is(err, ErrSandbox) {
				c.release()
				return nil, nil, nil, err
			}
			var pe *fs.PathError
			if errors.As(err, &pe) && pe.Op == "exec" {
				c.release()
				if resourceFailure(err) {
					return nil, nil, nil, fmt.Errorf("starting the command: %w", err)
				}
				return nil, nil, execFailure(cfg, kind, res, err), nil
			}
			cmd.Process = p
		} else {
			err = cmd.Start()
		}
		if err == nil {
			if err := c.started(cmd); err != nil {
				c.kill()
				c.waitExited()
				c.cleanup()
				c.reap()
				c.release()
				return nil, nil, nil, fmt.Errorf("containment %s: %w", kind, err)
			}
			return cmd, c, nil, nil
		}
		c.release()
		if c.isContainmentError(err) && (i+1 < len(plan) || len(plan) == 1) {
			reasons = append(reasons, fmt.Sprintf("%s: %v", kind, err))
			continue
		}
		if resourceFailure(err) {
			return nil, nil, nil, fmt.Errorf("starting the command: %w", err)
		}
		// The command itself could not be executed.
		return nil, nil, execFailure(cfg, kind, res, err), nil
	}
	return nil, nil, nil, fmt.Errorf("%w: %s; %s", ErrNoContainment, strings.Join(reasons, "; "), noContainmentHint(cfg))
}

// cancelled reports false: Request.CancelFD is Linux only.
func cancelled(int) bool { return false }

// validCancelFD reports true: CancelFD is ignored on this platform.
func validCancelFD(int) bool { return true }

// discard would drain the rest of the pipe without copying it; it reports
// false (not used) on this platform, and the reader keeps reading.
func (r *reader) discard() bool { return false }
