package executor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/internal/starttrace"
)

// On Linux the whole run is driven from the calling goroutine, locked to
// its thread: it polls the two pipes, a pidfd of the command's leader and
// an eventfd that cancellation writes, and the poll's timeout carries the
// deadline, the kill grace and the drain bound. No goroutine, timer or
// runtime-poller registration is involved, so a short command costs no
// thread wake-ups and no goroutine stacks: what a C launcher would do.
// (Other platforms use one goroutine per pipe and a watchdog: see
// exec_portable.go.)

// process is the command's leader as the executor tracks it.
type process struct {
	pid int
	// pidfd refers to the leader; -1 where the kernel gives none (before
	// Linux 5.3), in which case a goroutine waits for the exit instead.
	pidfd int
	// cmdPid is the command's own process when pid started it and stays
	// (Spawned.CommandPid), 0 otherwise: reported, never signalled or
	// waited on here.
	cmdPid int
}

// signal sends sig to the leader. It is only called before the leader is
// reaped, so that even without a pidfd its pid still names it.
func (p *process) signal(sig syscall.Signal) {
	if p.pidfd >= 0 {
		unix.PidfdSendSignal(p.pidfd, sig, nil, 0)
		return
	}
	syscall.Kill(p.pid, sig)
}

// execute starts the command and drives it to its end (see above).
func execute(ctx context.Context, cfg *config, path string, res *Result) (*Result, error) {
	// The command's ends (standard input and the pipes' write ends) are
	// *os.File for the Spawner interface, closed once it started; the
	// loop's descriptors are raw.
	var fds fdSet
	defer fds.closeAll()
	var stdio [3]*os.File
	defer func() {
		for _, f := range stdio {
			if f != nil {
				f.Close()
			}
		}
	}()
	devNull, err := unix.Open(os.DevNull, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening %s for stdin: %w", os.DevNull, err)
	}
	stdio[0] = os.NewFile(uintptr(devNull), os.DevNull)
	outR, outW, err := fds.pipe()
	if err != nil {
		return nil, fmt.Errorf("creating stdout pipe: %w", err)
	}
	fds.forget(outW)
	stdio[1] = os.NewFile(uintptr(outW), "|1")
	errR, errW, err := fds.pipe()
	if err != nil {
		return nil, fmt.Errorf("creating stderr pipe: %w", err)
	}
	fds.forget(errW)
	stdio[2] = os.NewFile(uintptr(errW), "|2")
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("creating the cancellation eventfd: %w", err)
	}
	fds.add(wake)

	// The thread that forks the command must outlive the command's leader:
	// Pdeathsig is delivered when the forking OS thread exits, not when the
	// process does, and the Go runtime ends a thread whose goroutine exits
	// while locked to it (runtime.LockOSThread without Unlock, common in
	// callers that use thread-bound APIs). So the goroutine stays locked to
	// its thread, which starts the command and then polls, until the leader
	// has been reaped: no other goroutine can run on (and end) the thread
	// meanwhile.
	start := time.Now()
	if pt, ok := cfg.Sandbox.(ProcessTied); !ok || !pt.TiedToProcess() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	starttrace.Mark("start")
	cmd, p, ct, failed, err := startCommand(cfg, path, stdio, res)
	// The deadline counts from here: an OnStart that takes its time does
	// not extend it (red team 24: a 0.6 s OnStart let a command with a
	// 0.3 s timeout run to its end).
	spawned := time.Now()
	starttrace.Mark("started")
	if err != nil {
		return nil, err
	}
	if failed != nil {
		return failed, nil
	}
	defer ct.release()
	if p.pidfd >= 0 {
		fds.add(p.pidfd)
	}
	// A callback (OnStart, OnOutput) that panics, or ends its goroutine
	// (runtime.Goexit: t.FailNow in a test), unwinds through here: the run
	// is killed, the loop's descriptors closed and the leader reaped before
	// the panic or the exit goes on, so that a caller that recovers (a
	// server) keeps no process, zombie or descriptor of the run. finished
	// marks the returns, which clean up for themselves.
	var lp *loop
	finished := false
	defer func() {
		if finished {
			return
		}
		r := recover()
		if lp == nil || !lp.reaped {
			ct.kill()
			waitExitedPID(p.pid)
			if lp != nil && p.pidfd < 0 && lp.exitFD >= 0 {
				// The goroutine that waits for the exit writes the eventfd
				// (closed below): let it write first.
				pfd := []unix.PollFd{{Fd: int32(lp.exitFD), Events: unix.POLLIN}}
				for {
					if _, err := unix.Poll(pfd, -1); err != unix.EINTR {
						break
					}
				}
			}
			ct.cleanup()
			reap(p)
		}
		if lp != nil {
			lp.streams[Stdout].close()
			lp.streams[Stderr].close()
			if lp.null > 0 {
				unix.Close(lp.null)
			}
		}
		if fr, ok := cfg.Sandbox.(FailureReporter); ok {
			fr.RunFailure(cmd)
		}
		if sr, ok := cfg.Sandbox.(SignalReporter); ok {
			sr.ExitSignal(cmd) // releases the sandbox's run
		}
		if r != nil {
			panic(r)
		}
	}()
	// Only the command holds its ends now.
	for i, f := range stdio {
		f.Close()
		stdio[i] = nil
	}
	res.Pid = p.pid
	launcher := 0
	if p.cmdPid > 0 && p.cmdPid != p.pid {
		res.Pid, launcher = p.cmdPid, p.pid
	}
	res.Containment = ct.kind()
	res.ContainmentNote = ct.note()
	if cfg.OnStart != nil {
		cfg.OnStart(StartInfo{Pid: res.Pid, LauncherPid: launcher, Path: path, Containment: ct.kind()})
	}

	lp = &loop{
		spawned: spawned,
		cfg:     cfg,
		ct:      ct,
		p:       p,
		cmd:     cmd,
		wake:    wake,
		d:       &delivery{cb: cfg.OnOutput, max: cfg.maxEvents},
		endFD:   -1,
		watchFD: -1,
	}
	lp.sr, _ = cfg.Sandbox.(SignalReporter)
	// (Not with a cgroup: removing it waits for the launcher's exit.)
	if er, ok := cfg.Sandbox.(EndReporter); ok && ct.k == ContainmentPIDNamespace {
		lp.er, lp.endFD = er, er.EndFD(cmd)
	}
	if w, ok := cfg.Sandbox.(Watcher); ok {
		lp.watchFD, lp.ready = w.Watch(cmd)
	}
	headTail := cfg.Retention == RetainHeadTail
	// The loop closes the read ends (at EOF or when it gives up on them).
	fds.forget(outR)
	fds.forget(errR)
	lp.streams[Stdout] = pipeStream{s: Stdout, fd: outR, ret: newRetention(cfg.capLimit, headTail)}
	lp.streams[Stderr] = pipeStream{s: Stderr, fd: errR, ret: newRetention(cfg.capLimit, headTail)}
	if p.pidfd >= 0 {
		lp.exitFD = p.pidfd
	} else {
		// No pidfd: a goroutine waits for the exit (without reaping) and
		// reports it on an eventfd.
		efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
		if err != nil {
			lp.streams[Stdout].close()
			lp.streams[Stderr].close()
			ct.kill()
			waitExitedPID(p.pid)
			ct.cleanup()
			reap(p)
			finished = true
			return nil, fmt.Errorf("creating the exit eventfd: %w", err)
		}
		fds.add(efd)
		lp.exitFD = efd
		go func() {
			waitExitedPID(p.pid)
			unix.Write(efd, eventOne[:])
		}()
	}
	// Cancellation wakes the poll; no goroutine waits for it meanwhile.
	// The eventfd is closed only once a callback that started has written.
	woke := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		unix.Write(wake, eventOne[:])
		close(woke)
	})
	defer func() {
		if !stop() {
			<-woke
		}
	}()
	cleanupErr, waitErr := lp.run()
	starttrace.Mark("drained")
	// Asked before the run is released (ExitSignal, below or in the loop
	// once the launcher was reaped: the failure is kept until asked).
	var sandboxErr error
	if fr, ok := cfg.Sandbox.(FailureReporter); ok {
		sandboxErr = fr.RunFailure(cmd)
	}
	res.Duration = time.Since(start)
	res.TimedOut, res.Cancelled = lp.timedOut, lp.cancelled
	if lp.reported && !cfg.ExitsAfter {
		// The launcher reported the end and is exiting (the kernel tears
		// its namespaces down meanwhile): it is reaped in the background,
		// and only then is the run released. The goroutine owns the pidfd.
		fds.forget(p.pidfd)
		sr := lp.sr
		go func() {
			reap(p)
			if sr != nil {
				sr.ExitSignal(cmd)
			}
			if p.pidfd >= 0 {
				unix.Close(p.pidfd)
			}
		}()
	}

	if lp.reaped || lp.reported {
		res.ExitCode, res.Signal = lp.code, lp.sig
	} else if waitErr != nil {
		cleanupErr = errors.Join(cleanupErr, fmt.Errorf("waiting for command: %w", waitErr))
	}
	if res.TimedOut {
		res.ExitCode = TimeoutExitCode
	}
	if sandboxErr != nil {
		res.ExitCode, res.Signal, res.SandboxError = SandboxFailureExitCode, 0, sandboxErr.Error()
	}
	res.Stdout = lp.streams[Stdout].result()
	res.Stderr = lp.streams[Stderr].result()
	if cfg.Sandbox != nil && res.ExitCode != 0 && res.SandboxError == "" {
		res.DeniedLikely = deniedLikely(cfg.Sandbox, res.ExitCode,
			res.Stdout.Head, res.Stdout.Tail, res.Stderr.Head, res.Stderr.Tail, res.Aggregated())
	}
	finished = true
	if cleanupErr != nil {
		return res, fmt.Errorf("%w: %v", ErrCleanup, cleanupErr)
	}
	return res, nil
}

// cancelled reports whether the descriptor of Request.CancelFD is readable.
func cancelled(fd int) bool {
	if fd <= 0 {
		return false
	}
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(p, 0)
	return err == nil && n > 0 && p[0].Revents&cancelEvents != 0
}

// cancelEvents are the poll events of CancelFD that cancel: readable, or
// its write end closed. POLLNVAL (not an open descriptor: Run refuses one
// at the start, and the caller may have closed it since) does not.
const cancelEvents = unix.POLLIN | unix.POLLHUP | unix.POLLERR

// validCancelFD reports whether fd, a Request's CancelFD, is open.
func validCancelFD(fd int) bool {
	if fd <= 0 {
		return true
	}
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}

// eventOne is the eventfd increment that wakes the loop.
var eventOne = [8]byte{1}

// loop is the state of one run's poll loop.
type loop struct {
	spawned time.Time // when the command was started: the deadline's origin
	cfg     *config
	ct      *linuxContainer
	p       *process
	cmd     *exec.Cmd
	d       *delivery
	sr      SignalReporter
	er      EndReporter
	endFD   int    // the EndReporter's descriptor, -1 when none or done
	watchFD int    // the Watcher's descriptor, -1 when none or done
	ready   func() // called when watchFD is readable
	streams [2]pipeStream
	wake    int // eventfd written on cancellation
	exitFD  int // readable once the leader exited: its pidfd, or an eventfd
	buf     []byte
	null    int // /dev/null for splice, opened when first needed (0: not yet)

	timedOut, cancelled bool
	exited              bool // the leader exited, or reported the end (and was cleaned up)
	reaped              bool // the leader was reaped here
	reported            bool // the launcher reported the end (reaped later)
	code, sig           int
}

// run polls until the leader has exited and both pipes are drained (or the
// drain bound passed). It returns the cleanup's error and the reap's.
func (lp *loop) run() (cleanupErr, waitErr error) {
	defer func() {
		for i := range lp.streams {
			lp.streams[i].close()
		}
		if lp.null > 0 {
			unix.Close(lp.null)
		}
	}()
	// stuckEnd bounds the wait for the leader after the final SIGKILL (of
	// the timeout, or after a cancellation's grace): a process in
	// uninterruptible sleep (a FUSE or NFS server that does not answer)
	// cannot die, and the namespace's init waits for it (red team 25:
	// sbx waited as long as the server did, ten minutes).
	var expire, graceEnd, drainEnd, stuckEnd time.Time
	// gcKick is when the drain next has the kernel collect unreachable
	// Unix sockets (kickUnixGC), and gcWait the wait before the one after.
	var gcKick time.Time
	gcWait := firstGCKick
	if lp.cfg.timeout > 0 {
		expire = lp.spawned.Add(lp.cfg.timeout)
	}
	// due tells drain, between reads, that the loop has something to act
	// on: the deadline or the grace has passed, or a cancellation is
	// waiting. Only with an OnOutput callback, whose calls may take their
	// time: without one, reads are quick (red team 24: 5 ms callbacks on
	// a fast writer put the deadline off by a second, the cancellation by
	// two).
	graceKilled := false
	var cancelPoll [2]unix.PollFd
	due := func() bool {
		if lp.d.cb == nil || lp.exited {
			return false
		}
		now := time.Now()
		switch {
		case lp.cancelled:
			return !graceKilled && !graceEnd.IsZero() && !now.Before(graceEnd)
		case lp.timedOut:
			return false
		case !expire.IsZero() && !now.Before(expire):
			return true
		}
		cancelPoll[0] = unix.PollFd{Fd: int32(lp.wake), Events: unix.POLLIN}
		cancelPoll[1] = unix.PollFd{Fd: -1}
		if lp.cfg.CancelFD > 0 {
			cancelPoll[1] = unix.PollFd{Fd: int32(lp.cfg.CancelFD), Events: unix.POLLIN}
		}
		n, err := unix.Poll(cancelPoll[:], 0)
		return err == nil && n > 0 && (cancelPoll[0].Revents != 0 || cancelPoll[1].Revents&cancelEvents != 0)
	}
	// The deadlines are an absolute timer's (a timer descriptor on
	// CLOCK_MONOTONIC), not ppoll's relative timeout: a ppoll that a stop
	// (SIGSTOP, ^Z) interrupts is restarted on resumption with the time it
	// had left when stopped, so the time the job spent stopped would not
	// count toward the deadline, which goes on counting (as timeout(1)'s
	// does). Without the descriptor, ppoll's timeout serves.
	tfd, terr := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if terr != nil {
		tfd = -1
	} else {
		defer unix.Close(tfd)
	}
	var armed time.Time // the deadline tfd is set to (zero: none)
	var pfd [8]unix.PollFd
	// Most commands write little: reads start at OutputChunkSize and grow
	// to readBufSize once a read fills the buffer.
	lp.buf = make([]byte, OutputChunkSize)
	for {
		if lp.exited && lp.streams[Stdout].fd < 0 && lp.streams[Stderr].fd < 0 {
			return cleanupErr, waitErr
		}
		pfd[0] = unix.PollFd{Fd: int32(lp.streams[Stdout].fd), Events: unix.POLLIN}
		pfd[1] = unix.PollFd{Fd: int32(lp.streams[Stderr].fd), Events: unix.POLLIN}
		for i := 2; i < len(pfd); i++ {
			pfd[i] = unix.PollFd{Fd: -1, Events: unix.POLLIN}
		}
		if !lp.exited {
			pfd[2].Fd = int32(lp.exitFD)
			if !lp.timedOut && !lp.cancelled {
				pfd[3].Fd = int32(lp.wake)
				if lp.cfg.CancelFD > 0 {
					pfd[6].Fd = int32(lp.cfg.CancelFD)
				}
			}
			pfd[4].Fd = int32(lp.endFD)
			pfd[5].Fd = int32(lp.watchFD)
		} else if !lp.cancelled {
			// Draining what something outside the containment still
			// holds open: a cancellation ends that at once (red team 23:
			// a Ctrl-C waited for the whole drain bound).
			pfd[3].Fd = int32(lp.wake)
			if lp.cfg.CancelFD > 0 {
				pfd[6].Fd = int32(lp.cfg.CancelFD)
			}
		}
		// The nearest deadline bounds the wait.
		var next time.Time
		switch {
		case lp.exited:
			next = drainEnd
			if !gcKick.IsZero() && gcKick.Before(next) {
				next = gcKick
			}
		case lp.cancelled && !graceKilled:
			next = graceEnd
		case !lp.timedOut && !lp.cancelled:
			next = expire
		default:
			next = stuckEnd
		}
		var ts *unix.Timespec
		if !next.IsZero() && tfd >= 0 {
			if !next.Equal(armed) && armTimer(tfd, next) == nil {
				armed = next
			}
			if next.Equal(armed) {
				pfd[7] = unix.PollFd{Fd: int32(tfd), Events: unix.POLLIN}
			}
		}
		if !next.IsZero() && pfd[7].Fd < 0 {
			d := max(time.Until(next), 0)
			t := unix.NsecToTimespec(int64(d))
			ts = &t
		}
		n, err := unix.Ppoll(pfd[:], ts, nil)
		if err != nil && err != unix.EINTR {
			// Cannot wait any more: end the command and give up on the
			// pipes (poll only fails on a kernel resource shortage).
			if !lp.exited {
				lp.ct.kill()
				waitExitedPID(lp.p.pid)
				cleanupErr = lp.ct.cleanup()
				waitErr = lp.reap()
				lp.exited = true
			}
			lp.streams[Stdout].cutShort = lp.streams[Stdout].fd >= 0
			lp.streams[Stderr].cutShort = lp.streams[Stderr].fd >= 0
			return cleanupErr, errors.Join(waitErr, fmt.Errorf("poll: %w", err))
		}
		if n > 0 {
			if pfd[7].Revents != 0 {
				// Expired: cleared, and set again next time round if the
				// deadline has not passed by the clock checked below.
				var b [8]byte
				unix.Read(tfd, b[:])
				armed = time.Time{}
			}
			for i := range lp.streams {
				if pfd[i].Revents != 0 {
					lp.drain(&lp.streams[i], due)
				}
			}
			if pfd[3].Revents != 0 || pfd[6].Revents&cancelEvents != 0 {
				if pfd[3].Revents != 0 {
					var b [8]byte
					unix.Read(lp.wake, b[:])
				}
				if !lp.exited && !lp.timedOut && !lp.cancelled {
					lp.cancelled = true
					lp.ct.terminate()
					graceEnd = time.Now().Add(lp.cfg.grace)
				} else if lp.exited && !lp.cancelled {
					// The command has ended: only the drain is cut short
					// (and a run that timed out stays timed out).
					lp.cancelled = !lp.timedOut
					for i := range lp.streams {
						if lp.streams[i].fd >= 0 {
							lp.streams[i].cutShort = true
							lp.streams[i].close()
						}
					}
				}
			}
			if pfd[4].Revents != 0 && !lp.exited {
				if st, ok := lp.er.End(lp.cmd); ok {
					// Everything the command started is gone; the launcher
					// is exiting.
					starttrace.Mark("ended")
					lp.exited, lp.reported = true, true
					lp.code, lp.sig = waitCode(st)
					cleanupErr = lp.ct.cleanup()
					drainEnd = time.Now().Add(lp.cfg.drain)
					gcKick = time.Now().Add(gcWait)
					continue
				}
				// No report: the launcher's own exit tells.
				lp.endFD = -1
			}
			if pfd[5].Revents != 0 && !lp.exited {
				lp.watchFD = -1
				// POLLIN only: a seccomp listener without filtered tasks
				// left reports POLLHUP, which is no notification.
				if pfd[5].Revents&unix.POLLIN != 0 {
					lp.ready()
				}
			}
			if pfd[2].Revents != 0 && !lp.exited {
				// The leader exited. What it left behind goes now; it is
				// reaped only after that, so that its pid and process group
				// cannot name anything else meanwhile.
				starttrace.Mark("exited")
				lp.exited = true
				cleanupErr = lp.ct.cleanup()
				waitErr = lp.reap()
				starttrace.Mark("reaped")
				// Asked whenever the launcher was reaped, so that the
				// sandbox can release what the run held (what still holds
				// the pipes, say) before they are drained.
				if lp.sr != nil && lp.reaped {
					if sig := lp.sr.ExitSignal(lp.cmd); sig > 0 && lp.sig == 0 {
						lp.code, lp.sig = 128+sig, sig
					}
				}
				// Whatever still holds the pipes is outside the command's
				// containment (or the containment is degraded): drain for a
				// bounded time only.
				drainEnd = time.Now().Add(lp.cfg.drain)
				gcKick = time.Now().Add(gcWait)
				continue
			}
		}
		now := time.Now()
		if !lp.exited && !stuckEnd.IsZero() && !now.Before(stuckEnd) {
			for i := range lp.streams {
				if lp.streams[i].fd >= 0 {
					lp.streams[i].cutShort = true
					lp.streams[i].close()
				}
			}
			// What the containment can still reach goes (a process group's
			// members that left it: red team 25's review found them left
			// running). The leader is reaped, and the run released, in the
			// background once it ends (reported); its status is the
			// SIGKILL it was sent, which it has not yet acted on.
			cleanupErr = errors.Join(cleanupErr, lp.ct.cleanup())
			lp.exited, lp.reported = true, true
			lp.code, lp.sig = 128+int(unix.SIGKILL), int(unix.SIGKILL)
			return errors.Join(cleanupErr, fmt.Errorf("processes of the command have not ended %v after SIGKILL: a process in uninterruptible sleep (state D: waiting on a file system such as FUSE or NFS, or a device, that does not answer) cannot die until that call returns; they are left behind", cleanupTimeout)), waitErr
		}
		switch {
		case lp.exited:
			if !gcKick.IsZero() && !now.Before(gcKick) {
				kickUnixGC()
				gcWait *= 3
				gcKick = now.Add(gcWait)
			}
			if !now.Before(drainEnd) {
				for i := range lp.streams {
					if lp.streams[i].fd >= 0 {
						lp.streams[i].cutShort = true
						lp.streams[i].close()
					}
				}
			}
		case lp.cancelled:
			if !graceKilled && !now.Before(graceEnd) {
				// Whatever survived the grace, or was started by the
				// command's cleanup, goes now.
				graceKilled = true
				lp.ct.kill()
				stuckEnd = now.Add(cleanupTimeout)
			}
		case !lp.timedOut && !expire.IsZero() && !now.Before(expire):
			// The leader may have ended while this round's reads held the
			// loop (an OnOutput that waited, as sbx's live output does
			// for a reader that stopped reading, up to this very
			// deadline): its end, which the poll above did not see, comes
			// first. Red team 28: a command that had exited 3 long
			// before was reported as timed out (124) and "killed".
			if lp.endPending() {
				continue
			}
			lp.timedOut = true
			lp.ct.kill()
			stuckEnd = now.Add(cleanupTimeout)
		}
	}
}

// endPending reports whether the leader's exit (its pidfd, or the exit
// eventfd) or the launcher's end report is readable now, not yet handled:
// the next round of the loop takes it.
func (lp *loop) endPending() bool {
	pfd := [2]unix.PollFd{{Fd: int32(lp.exitFD), Events: unix.POLLIN}, {Fd: int32(lp.endFD), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(pfd[:], 0)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n > 0
	}
}

// firstGCKick is how long the drain waits for the pipes' end before it
// first has the kernel collect unreachable Unix sockets; the waits then
// triple. Pipes normally reach their end within microseconds of the
// command's: nothing is kicked then.
const firstGCKick = 10 * time.Millisecond

// kickUnixGC has the kernel's Unix-socket garbage collector run. A command
// can leave descriptors (its stdout, say) in flight in a cycle of sockets
// that carry each other (SCM_RIGHTS) and exit: only that collector frees
// them, and the kernel schedules it when a socket is released, skipping
// it while a collection is in progress, so a cycle whose last descriptor
// closed during one stays until some other socket on the machine is
// released (red team 26: the run's pipes were held for the whole drain
// bound, a FIFO's writer beyond the run). A socket sent over its own pair
// and released is such a release (and garbage the collection frees).
func kickUnixGC() {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return
	}
	unix.Sendmsg(fds[0], []byte{0}, unix.UnixRights(fds[1]), nil, unix.MSG_DONTWAIT)
	unix.Close(fds[0])
	unix.Close(fds[1])
}

// armTimer sets the timer descriptor tfd to expire at t (at once when t
// has passed), on CLOCK_MONOTONIC, which counts while the process is
// stopped.
func armTimer(tfd int, t time.Time) error {
	var now unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &now); err != nil {
		return err
	}
	at := unix.NsecToTimespec(now.Nano() + int64(max(time.Until(t), 1)))
	return unix.TimerfdSettime(tfd, unix.TFD_TIMER_ABSTIME, &unix.ItimerSpec{Value: at}, nil)
}

// drain reads what the pipe holds now, until it would block or ends, or
// due reports something for the loop to act on.
func (lp *loop) drain(ps *pipeStream, due func() bool) {
	// A few reads per wake-up at most, so that a fast writer on one pipe
	// cannot starve the other one or the exit and cancellation checks.
	for i := range 16 {
		if ps.fd < 0 || i > 0 && due() {
			return
		}
		if ps.counting {
			if !lp.spliceAway(ps) {
				return
			}
			continue
		}
		n, err := unix.Read(ps.fd, lp.buf)
		switch {
		case n > 0:
			ps.ret.Write(lp.buf[:n])
			lp.d.deliver(ps.s, lp.buf[:n])
			// With an OnOutput callback, reads stay one chunk long, so
			// that due is asked after every call (a slow callback would
			// otherwise take eight calls per read before the loop acts).
			if n == len(lp.buf) && len(lp.buf) < readBufSize && lp.d.cb == nil {
				lp.buf = make([]byte, readBufSize)
			}
			// Once head retention is full and nothing more is delivered,
			// the rest only needs counting.
			ps.counting = ps.ret.full() && lp.d.exhausted(ps.s)
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			return
		default:
			// EOF, or an error that ends the stream.
			ps.close()
			return
		}
	}
}

// spliceAway moves what the pipe holds to /dev/null without copying it to
// user space (splice) and counts it. It reports false when the pipe would
// block; at EOF, or when splice is unavailable (then the stream goes back
// to reading), it handles the stream itself and reports true.
func (lp *loop) spliceAway(ps *pipeStream) bool {
	if lp.null == 0 {
		fd, err := unix.Open(os.DevNull, unix.O_WRONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			lp.null = -1
		} else {
			lp.null = fd
		}
	}
	if lp.null < 0 {
		ps.counting = false
		return true
	}
	n, err := unix.Splice(ps.fd, nil, lp.null, nil, 1<<20, unix.SPLICE_F_NONBLOCK)
	switch {
	case n > 0:
		ps.ret.total += int64(n)
		return true
	case err == unix.EINTR:
		return true
	case err == unix.EAGAIN:
		return false
	case err != nil:
		// No splice for this pipe (EINVAL): read it instead.
		ps.counting = false
		return true
	}
	ps.close() // EOF
	return true
}

// reap collects the leader's status; it has exited and was not reaped.
func (lp *loop) reap() error {
	code, sig, err := reap(lp.p)
	if err != nil {
		return err
	}
	lp.reaped, lp.code, lp.sig = true, code, sig
	return nil
}

// reap waits for p, which has exited, and returns the shell's exit code
// and the signal it died of.
func reap(p *process) (code, sig int, err error) {
	var ws syscall.WaitStatus
	for {
		_, err = syscall.Wait4(p.pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return 0, 0, err
	}
	code, sig = waitCode(ws)
	return code, sig, nil
}

// waitCode maps a wait status to the shell's exit code and the signal.
func waitCode(ws syscall.WaitStatus) (code, sig int) {
	if ws.Signaled() {
		return 128 + int(ws.Signal()), int(ws.Signal())
	}
	return ws.ExitStatus(), 0
}

// waitExitedPID blocks until pid has exited, without reaping it.
func waitExitedPID(pid int) {
	var info unix.Siginfo
	for {
		if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != unix.EINTR {
			return
		}
	}
}

// pipeStream is the read end of one of the command's pipes.
type pipeStream struct {
	s        Stream
	fd       int // -1 once at EOF or abandoned
	ret      *retention
	counting bool // only counted from now on (spliced to /dev/null)
	cutShort bool
}

func (ps *pipeStream) close() {
	if ps.fd >= 0 {
		unix.Close(ps.fd)
		ps.fd = -1
	}
}

func (ps *pipeStream) result() StreamResult {
	head, tail, omitted := ps.ret.finish()
	return StreamResult{
		Head:      head,
		Tail:      tail,
		Bytes:     ps.ret.total,
		Omitted:   omitted,
		Truncated: omitted > 0,
		CutShort:  ps.cutShort,
	}
}

// fdSet holds the descriptors of a run until they are closed or handed on.
type fdSet struct{ fds []int }

func (s *fdSet) add(fd int) { s.fds = append(s.fds, fd) }

// pipe returns a pipe whose read end is non-blocking (polled).
func (s *fdSet) pipe() (r, w int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, err
	}
	s.add(p[0])
	s.add(p[1])
	if err := unix.SetNonblock(p[0], true); err != nil {
		return -1, -1, fmt.Errorf("setting the pipe non-blocking: %w", err)
	}
	return p[0], p[1], nil
}

// close closes fd now.
func (s *fdSet) close(fd int) {
	if s.forget(fd) {
		unix.Close(fd)
	}
}

// forget drops fd from the set without closing it (its new owner will).
func (s *fdSet) forget(fd int) bool {
	for i, f := range s.fds {
		if f == fd {
			s.fds = append(s.fds[:i], s.fds[i+1:]...)
			return true
		}
	}
	return false
}

func (s *fdSet) closeAll() {
	for _, fd := range s.fds {
		unix.Close(fd)
	}
	s.fds = nil
}

// startCommand starts the command under the first containment mechanism of
// the plan that works. It returns the started command and its container; or
// a Result when the command itself cannot be executed (126, 127); or an
// error when the executor failed.
func startCommand(cfg *config, path string, stdio [3]*os.File, res *Result) (*exec.Cmd, *process, *linuxContainer, *Result, error) {
	env := cfg.Env
	if env == nil {
		env = []string{} // never inherit
	}
	plan := containmentPlan(cfg)
	var reasons []string
	limited := false // a namespace limit was reached
	spawner, _ := cfg.Sandbox.(Spawner)
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
			Stdin:  stdio[0],
			Stdout: stdio[1],
			Stderr: stdio[2],
		}
		if err := c.prepare(cmd); err != nil {
			c.release()
			reasons = append(reasons, fmt.Sprintf("%s: %v", kind, err))
			continue
		}
		var p *process
		if spawner != nil {
			var sp Spawned
			sp, err = spawner.Spawn(cmd)
			if sp.Pid > 0 {
				p = &process{pid: sp.Pid, pidfd: sp.Pidfd, cmdPid: sp.CommandPid}
			}
			if f, ok := spawner.(SignalForwarder); ok && f.ForwardsSignals() {
				c.forwards = true
			}
			if p != nil && err != nil {
				// Started, then the sandbox failed: the sandbox killed it.
				c.started(p)
				c.kill()
				waitExitedPID(p.pid)
				c.cleanup()
				reap(p)
				if sr, ok := cfg.Sandbox.(SignalReporter); ok {
					sr.ExitSignal(cmd) // releases the run
				}
				if p.pidfd >= 0 {
					unix.Close(p.pidfd)
				}
				c.release()
				return nil, nil, nil, nil, err
			}
			if errors.Is(err, ErrSandbox) {
				c.release()
				return nil, nil, nil, nil, err
			}
			var pe *fs.PathError
			if errors.As(err, &pe) && pe.Op == "exec" {
				c.release()
				if resourceFailure(err) {
					return nil, nil, nil, nil, fmt.Errorf("starting the command: %w", err)
				}
				return nil, nil, nil, execFailure(cfg, kind, res, err), nil
			}
		} else {
			if cfg.Sandbox != nil {
				if err := cfg.Sandbox.Wrap(cmd); err != nil {
					c.release()
					return nil, nil, nil, nil, fmt.Errorf("%w: %v", ErrSandbox, err)
				}
			}
			c.execDenied = func() bool { return execDenied(cmd.Path) }
			p, err = startProcess(kind, cmd)
			var pe *fs.PathError
			var se *nsStepError
			switch {
			case errors.As(err, &pe) && pe.Op == "exec":
				c.release()
				if resourceFailure(err) {
					return nil, nil, nil, nil, fmt.Errorf("starting the command: %w", err)
				}
				return nil, nil, nil, execFailure(cfg, kind, res, err), nil
			case errors.As(err, &pe) && pe.Op == "chdir":
				// Checked before the start: it changed since (removed,
				// renamed, its mode), or names something else in the child
				// (/proc/self/...).
				c.release()
				return nil, nil, nil, nil, fmt.Errorf("%w %s cannot be entered: %v", ErrWorkDir, cfg.Dir, pe.Err)
			case errors.As(err, &se):
				// The namespace could not be set up: the next containment.
				c.release()
				reasons = append(reasons, fmt.Sprintf("%s: %v", kind, containmentReason(err)))
				limited = limited || namespaceLimit(err)
				continue
			}
		}
		if err == nil {
			if err := c.started(p); err != nil {
				c.kill()
				waitExitedPID(p.pid)
				c.cleanup()
				reap(p)
				if p.pidfd >= 0 {
					unix.Close(p.pidfd)
				}
				c.release()
				return nil, nil, nil, nil, fmt.Errorf("containment %s: %w", kind, err)
			}
			return cmd, p, c, nil, nil
		}
		c.release()
		if c.isContainmentError(err) && (i+1 < len(plan) || len(plan) == 1) {
			reasons = append(reasons, fmt.Sprintf("%s: %v", kind, containmentReason(err)))
			limited = limited || namespaceLimit(err)
			continue
		}
		if resourceFailure(err) {
			return nil, nil, nil, nil, fmt.Errorf("starting the command: %w", err)
		}
		// The command itself could not be executed.
		return nil, nil, nil, execFailure(cfg, kind, res, err), nil
	}
	return nil, nil, nil, nil, fmt.Errorf("%w: %s; %s", ErrNoContainment, strings.Join(reasons, "; "), noContainmentHint(cfg, limited))
}

// containmentReason says why a containment could not be set up, naming
// the user-namespace limit when that is what failed (ENOSPC: the
// namespaces exist, the count allowed is used up).
func containmentReason(err error) string {
	if namespaceLimit(err) {
		limit := readSysctl("user/max_user_namespaces")
		return fmt.Sprintf("%v (the limit of user or PID namespaces is reached: user.max_user_namespaces = %s, user.max_pid_namespaces = %s, or the nesting depth of 32)", err, limit, readSysctl("user/max_pid_namespaces"))
	}
	return err.Error()
}

// namespaceLimit reports an error of creating namespaces past their limit.
func namespaceLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EUSERS)
}

// startProcess starts cmd, prepared for containment kind: the init of a
// PID namespace through nsFork where it can (see nsfork_linux.go),
// everything else with package syscall's fork.
func startProcess(kind Containment, cmd *exec.Cmd) (*process, error) {
	// nsFork's clone asks for CLONE_PIDFD (Linux 5.2; the pidfd is polled,
	// 5.3). Where clone itself fails, package syscall's fork would make
	// the same call: its errno is classified as forkExec's would be.
	if kind == ContainmentPIDNamespace && nsForkable(cmd) && pidfdUsable() {
		return nsFork(cmd)
	}
	return forkExec(cmd)
}

// nsStepError is a step of nsFork's child (nsfork_linux.go) that failed before the exec: the
// namespace could not be set up (EPERM writing the maps where user
// namespaces are restricted, ENOENT where /proc is another namespace's).
type nsStepError struct {
	Step  string
	Errno syscall.Errno
}

func (e *nsStepError) Error() string { return e.Step + ": " + e.Errno.Error() }

func (e *nsStepError) Unwrap() error { return e.Errno }

// errNeedFiles: a standard stream of the command is not a file.
var errNeedFiles = errors.New("the executor needs *os.File standard streams")

// forkExec starts cmd (prepared: absolute Path, Env, Dir, *os.File
// standard streams, SysProcAttr) with package syscall's fork, asking for
// a pidfd. It is what os/exec does minus the first-use probe of pidfd
// support that package os makes by forking a throwaway child.
func forkExec(cmd *exec.Cmd) (*process, error) {
	files := make([]uintptr, 0, 3+len(cmd.ExtraFiles))
	for _, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		file, ok := f.(*os.File)
		if !ok {
			return nil, errNeedFiles
		}
		files = append(files, file.Fd())
	}
	for _, f := range cmd.ExtraFiles {
		files = append(files, f.Fd())
	}
	var sys syscall.SysProcAttr
	if cmd.SysProcAttr != nil {
		sys = *cmd.SysProcAttr
	}
	pidfd := -1
	if pidfdUsable() {
		sys.PidFD = &pidfd
	}
	attr := &syscall.ProcAttr{Dir: cmd.Dir, Env: cmd.Env, Files: files, Sys: &sys}
	// Package syscall's child keeps every descriptor not marked
	// close-on-exec: the calling program's own are marked first (red team
	// 27: an embedding program's credentials file and pipes reached the
	// command). The files passed are dup2'd into place in the child, which
	// clears the flag there.
	markCloseOnExec()
	pid, _, err := syscall.StartProcess(cmd.Path, cmd.Args, attr)
	runtime.KeepAlive(cmd)
	if err != nil {
		return nil, err
	}
	return &process{pid: pid, pidfd: pidfd}, nil
}

// markCloseOnExec marks every descriptor of the process above stderr
// close-on-exec: one close_range (Linux 5.11), else each listed in
// /proc/self/fd. A program that wants a descriptor in a child it starts
// passes it explicitly (os/exec's ExtraFiles), which this does not
// change.
func markCloseOnExec() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
}

// pidfdUsable reports whether pidfds can be created with clone and polled
// for the exit (Linux 5.3).
func pidfdUsable() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	return kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 3)
}

// kernelAtLeast reports whether a kernel release ("6.18.44-...") is at
// least major.minor.
func kernelAtLeast(release string, major, minor int) bool {
	num := func(s string) (int, string) {
		n, i := 0, 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			n = n*10 + int(s[i]-'0')
		}
		return n, s[i:]
	}
	ma, rest := num(release)
	mi := 0
	if strings.HasPrefix(rest, ".") {
		mi, _ = num(rest[1:])
	}
	return ma > major || ma == major && mi >= minor
}
