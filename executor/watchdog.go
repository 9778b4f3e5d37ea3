package executor

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"time"
)

// The goroutine-based run of exec_portable.go (every platform but Linux)
// waits for the leader through a container and ends it with a watchdog.
// Both are compiled on every platform so that their contract is tested
// where the tests run (Linux CI).

// container is the platform mechanism that makes sure nothing the command
// started survives it. Its methods are called from one goroutine, except
// waitExited, which runs in its own goroutine and only overlaps with
// terminate and kill.
type container interface {
	kind() Containment
	// note states the limits of the mechanism, "" when there are none.
	note() string
	// prepare sets the process attributes of cmd (before Sandbox.Wrap).
	prepare(cmd *exec.Cmd) error
	// started is called right after a successful Start.
	started(cmd *exec.Cmd) error
	// isContainmentError reports whether a Start error may be caused by the
	// mechanism itself, so that the next mechanism should be tried.
	isContainmentError(err error) bool
	// terminate asks the command's process group to stop (SIGTERM).
	terminate()
	// kill kills the command and everything it started.
	kill()
	// waitExited blocks until the command's process exited. Where the
	// platform allows it, the process is not reaped yet, so that its process
	// group id cannot be reused before cleanup ran.
	waitExited()
	// cleanup kills what the command left behind after it exited and waits
	// until it is gone.
	cleanup() error
	// reap returns the command's status, reaping it if needed.
	reap() (*os.ProcessState, error)
	// release frees the mechanism's resources; it is always called.
	release()
}

// watchdog ends the command when its deadline passes (SIGKILL to
// everything) or its context is cancelled (SIGTERM, a grace period, then
// SIGKILL), while Run waits for the leader in waitid.
type watchdog struct {
	ct   container
	stop chan struct{} // closed when the leader has exited

	mu        sync.Mutex
	over      bool // the leader has exited: signal nothing more
	fired     chan struct{}
	timedOut  bool
	cancelled bool
}

func newWatchdog(ct container) *watchdog {
	return &watchdog{ct: ct, stop: make(chan struct{}), fired: make(chan struct{})}
}

// watch runs until the leader has exited or the watchdog has ended it.
func (w *watchdog) watch(ctx context.Context, timeout, grace time.Duration) {
	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	select {
	case <-w.stop:
		return
	case <-expire:
		if !w.fire(func() { w.timedOut = true }) {
			return
		}
		w.ct.kill()
	case <-ctx.Done():
		if !w.fire(func() { w.cancelled = true }) {
			return
		}
		w.ct.terminate()
		g := time.NewTimer(grace)
		select {
		case <-w.stop:
		case <-g.C:
		}
		g.Stop()
		// Whatever survived the grace, or was started by the command's
		// cleanup, goes now; the leader is not reaped before this returns
		// (exited waits), so its pid still names it.
		w.ct.kill()
	}
	close(w.fired)
}

// fire records why the watchdog acts, unless the leader has already exited.
func (w *watchdog) fire(set func()) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.over {
		return false
	}
	set()
	return true
}

// exited is called once the leader has exited: it stops the watchdog and,
// if the watchdog acted, waits until it has finished, so that nothing is
// signalled after the leader is reaped. It reports whether the command
// timed out or was cancelled.
func (w *watchdog) exited() (timedOut, cancelled bool) {
	w.mu.Lock()
	w.over = true
	acted := w.timedOut || w.cancelled
	w.mu.Unlock()
	close(w.stop)
	if acted {
		<-w.fired
	}
	return w.timedOut, w.cancelled
}
