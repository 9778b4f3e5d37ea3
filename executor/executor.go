package executor

import (
	"context"
	"errors"
	"fmt"
	"github.com/sbx-dev/sbx/internal/starttrace"
	"os"
	"sync"
	"syscall"
)

// ErrCleanup reports that the processes the command left behind could not
// be confirmed gone. Run returns it together with the Result.
var ErrCleanup = errors.New("containment cleanup failed")

// Run runs the command of req and reports what happened. It returns an
// error only when the executor itself failed (invalid request, missing
// working directory, no containment, sandbox not applicable, pipes); a
// command that cannot be found or executed is a Result with exit code 127
// or 126 and Result.Error set. On ErrCleanup both the Result and the error
// are returned.
//
// Cancelling ctx sends SIGTERM to the command's process group (or, when
// the Sandbox's launcher forwards signals, SignalForwarder, to the
// launcher alone, which passes it on once to every process), waits
// KillGrace, then kills everything that remains; the Result then has
// Cancelled set. Run may be called concurrently; it keeps no global state
// (except that process-group containment on Linux marks the calling process
// as a child subreaper, see ContainmentProcessGroup).
func Run(ctx context.Context, req Request) (*Result, error) {
	cfg, err := req.config()
	if err != nil {
		return nil, err
	}
	if cfg.Dir != "" {
		st, err := os.Stat(cfg.Dir)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("%w %s does not exist", ErrWorkDir, cfg.Dir)
		case err != nil:
			return nil, fmt.Errorf("%w %s: %v", ErrWorkDir, cfg.Dir, err)
		case !st.IsDir():
			return nil, fmt.Errorf("%w %s is not a directory", ErrWorkDir, cfg.Dir)
		}
		if err := searchable(cfg.Dir); err != nil {
			return nil, fmt.Errorf("%w %s cannot be entered: %v", ErrWorkDir, cfg.Dir, err)
		}
	}
	res := &Result{
		Argv:      cfg.Argv,
		Dir:       cfg.Dir,
		Capture:   cfg.Capture,
		Retention: cfg.Retention,
		OutputCap: cfg.capLimit,
		Timeout:   cfg.timeout,
	}
	if cfg.Sandbox != nil {
		res.Sandbox = cfg.Sandbox.Report()
	}
	starttrace.Mark("config")
	path, code, reason := resolve(cfg.Argv[0], cfg.Env, cfg.Dir)
	starttrace.Mark("resolved")
	if code != 0 {
		// The lookup ran here, on the host's view, before any sandbox
		// existed: the sandbox cannot be what refused (denied_likely
		// stays false; an exec the sandbox refuses is execFailure's).
		res.ExitCode, res.Error = code, reason
		return res, nil
	}
	res.Path = path
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("not started: %w", err)
	}
	if !validCancelFD(cfg.CancelFD) {
		return nil, fmt.Errorf("%w: CancelFD %d is not an open descriptor", ErrInvalidRequest, cfg.CancelFD)
	}
	if cancelled(cfg.CancelFD) {
		return nil, fmt.Errorf("not started: %w", context.Canceled)
	}
	return execute(ctx, cfg, path, res)
}

// delivery serialises OnOutput calls and counts them per stream.
type delivery struct {
	mu     sync.Mutex
	cb     func(Stream, []byte)
	max    int // -1 = unlimited
	events [2]int
}

// exhausted reports whether nothing more of stream s will be delivered.
func (d *delivery) exhausted(s Stream) bool {
	if d.cb == nil {
		return true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.max >= 0 && d.events[s] >= d.max
}

func (d *delivery) deliver(s Stream, p []byte) {
	if d.cb == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(p) > 0 && (d.max < 0 || d.events[s] < d.max) {
		k := min(len(p), OutputChunkSize)
		d.cb(s, p[:k])
		d.events[s]++
		p = p[k:]
	}
}

// resourceFailure reports whether a failed start is the executor's own
// (descriptors, processes or memory ran out: EMFILE, ENFILE, EAGAIN,
// ENOMEM), which is an error of Run, not a command that cannot be
// executed (126).
func resourceFailure(err error) bool {
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.EAGAIN, syscall.ENOMEM} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// execFailure fills res for a command that could not be executed (126, or
// 127 when it does not exist).
func execFailure(cfg *config, kind Containment, res *Result, err error) *Result {
	res.Containment = kind
	res.ExitCode = 126
	var errno syscall.Errno
	if errors.As(err, &errno) && errno == syscall.ENOENT {
		res.ExitCode = 127
	}
	res.Error = cfg.Argv[0] + ": " + reasonOf(err)
	res.DeniedLikely = deniedLikely(cfg.Sandbox, res.ExitCode, []byte(res.Error))
	return res
}
