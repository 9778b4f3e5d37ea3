//go:build unix

package main

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// jobControl passes a stop of sbx (SIGTSTP: ^Z at a terminal, sent to
// the foreground process group, which holds sbx but not the command, in
// a session of its own) on to the command's tree, and a continue
// (SIGCONT: fg, bg) after it, so that the job stops and goes on as a
// whole, as it would without sbx. Under a sandbox whose launcher forwards
// signals (the Landlock init) the launcher stops every process of the
// sandbox with SIGSTOP: the command leads a session whose parent is
// outside it, so its process group is orphaned and the kernel would
// discard a SIGTSTP. Otherwise the command's process group gets SIGSTOP,
// and then every other process of the run (runTree: those that left the
// group too).
// sbx then stops itself with SIGSTOP (a SIGTSTP would be discarded too
// where sbx's own group is orphaned, leaving the command stopped while
// sbx runs). The run's timeout goes on counting meanwhile, as timeout(1)'s
// does.
type jobControl struct {
	done chan struct{}
	// ready is closed once the command's leader is known (started): a
	// stop that arrives between the command's start and the executor's
	// report of it waits for the report, so that it is passed on rather
	// than stopping sbx alone while the command runs on.
	ready     chan struct{}
	readyOnce sync.Once
	mu        sync.Mutex
	// pid is the command's leader once it started (0 before);
	// viaLauncher tells that it is a launcher that forwards the signals
	// (executor.SignalForwarder).
	pid         int
	viaLauncher bool
	tree        *runTree
	// leader holds the leader for signalling it, or its process group,
	// without naming it by number: once the executor has reaped it (the
	// run may still be draining pipes that something outside holds),
	// its pid, and so the group's number, may be another process's (red
	// team 27: a ^Z to sbx stopped an unrelated process group that had
	// taken the reaped leader's pid). Guarded by mu; closed by end.
	leader leaderRef
}

// newJobControl starts catching SIGTSTP, SIGCONT, SIGTTOU and SIGTTIN
// (jobSignals) before it returns, so that a stop that comes once the
// command may run is never left to the default action, which would stop
// sbx alone (red team 25's CI: TestRedTeam16SigCtrlZAtStart, 1 round in
// about 200 under load, when the handlers were installed by the loop's
// goroutine, which had not run yet). The loop reads them on a goroutine.
func newJobControl() *jobControl {
	j := &jobControl{done: make(chan struct{}), ready: make(chan struct{})}
	ch := jobSignals(j.done)
	go j.loop(ch)
	return j
}

// started records the command's leader; cgroup tells that the run has a
// cgroup of its own.
func (j *jobControl) started(pid int, viaLauncher, cgroup bool) {
	if j == nil {
		return
	}
	var tree *runTree
	if !viaLauncher {
		tree = newRunTree(pid, cgroup)
	}
	// OnStart runs before the executor can reap the leader: the pid is
	// still the leader's here.
	leader := openLeader(pid)
	j.mu.Lock()
	j.pid, j.viaLauncher, j.tree, j.leader = pid, viaLauncher, tree, leader
	j.mu.Unlock()
	j.readyOnce.Do(func() { close(j.ready) })
}

// signalTree passes a stop (SIGTSTP) or continue (SIGCONT) on; it reports
// whether there was a command to pass it to.
func (j *jobControl) signalTree(sig syscall.Signal) bool {
	j.mu.Lock()
	pid, via, tree := j.pid, j.viaLauncher, j.tree
	switch {
	case pid <= 0:
		j.mu.Unlock()
		return false
	case via:
		j.leader.signal(sig, false)
		j.mu.Unlock()
		return true
	case sig == syscall.SIGTSTP:
		sig = syscall.SIGSTOP
	}
	j.leader.signal(sig, true)
	j.mu.Unlock()
	tree.signal(sig)
	return true
}

// loop passes a SIGCONT on only after a stop it passed on: a SIGCONT sent
// to sbx alone reaches no other process, as without sbx.
func (j *jobControl) loop(ch <-chan os.Signal) {
	// stopped: the tree was stopped here. selfStopped: sbx stopped itself
	// and no SIGCONT was taken since: a stop signal read now was raised
	// before that stop (a SIGCONT discards the stop signals pending in
	// the kernel; these waited in the pipe instead), so it is stale (red
	// team 25's review: a background write's SIGTTOU storm queued
	// thousands, and after the SIGCONT sbx took the first as a new stop).
	stopped, selfStopped := false, false
	for {
		select {
		case <-j.done:
			return
		case s := <-ch:
			if s == syscall.SIGCONT {
				selfStopped = false
				if stopped {
					j.signalTree(syscall.SIGCONT)
					stopped = false
				}
				continue
			}
			if selfStopped || !stops(s) {
				continue
			}
			// Before the start is reported the command may already
			// run: wait for the report (or for the run's end, where a
			// start failed) instead of stopping sbx alone.
			select {
			case <-j.ready:
			case <-j.done:
			}
			stopped = j.signalTree(syscall.SIGTSTP)
			// A SIGCONT (fg right after ^Z) that came while the tree was
			// being stopped found sbx running: were sbx to stop itself
			// now, nothing would continue it (red team 25: with a large
			// tree, a TSTP and CONT in quick succession left the job
			// stopped for good). Signals that came meanwhile are taken in
			// order first: every one queued, however many a SIGTTOU storm
			// left (a write to the terminal in the background raises one
			// at every restart until sbx stops), within a bound.
			stop := true
			give := time.Now().Add(200 * time.Millisecond)
			for more := true; more; {
				select {
				case s2 := <-ch:
					switch {
					case s2 == syscall.SIGCONT:
						if stopped {
							j.signalTree(syscall.SIGCONT)
						}
						stopped, stop = false, false
					case !stop && stops(s2):
						stopped, stop = j.signalTree(syscall.SIGTSTP), true
					}
					more = time.Now().Before(give)
				default:
					more = false
				}
			}
			if stop {
				selfStopped = true
				syscall.Kill(os.Getpid(), syscall.SIGSTOP) // SIGCONT comes next, on the channel
			}
		}
	}
}

// stops reports whether s stops the job: SIGTSTP always; SIGTTOU where
// sbx is in the background of a terminal that has tostop set (sbx wrote
// to it), SIGTTIN where it is in the background (it read from it). Either
// can be stale: raised before the job was brought to the foreground, or
// tostop cleared since, when the write goes through.
func stops(s os.Signal) bool {
	switch s {
	case syscall.SIGTSTP:
		return true
	case syscall.SIGTTOU:
		return background() && tostop()
	case syscall.SIGTTIN:
		return background()
	}
	return false
}

// background reports whether sbx's process group is in the background of
// the terminal its standard streams are (SIGTTOU and SIGTTIN: a write to
// it with tostop set, a read from it), or has no terminal to ask (the
// signal was sent to it).
func background() bool {
	pg := syscall.Getpgrp()
	for _, fd := range []int{2, 1, 0} {
		if fg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil {
			return fg != pg
		}
	}
	return true
}

// tostop reports whether the terminal of sbx's standard streams has
// tostop set (a background write raises SIGTTOU), or there is none to ask.
func tostop() bool {
	for _, fd := range []int{2, 1, 0} {
		if t, err := unix.IoctlGetTermios(fd, getTermios); err == nil {
			return t.Lflag&unix.TOSTOP != 0
		}
	}
	return true
}

// end stops passing signals on (the run is over).
func (j *jobControl) end() {
	if j != nil {
		close(j.done)
		j.mu.Lock()
		j.leader.close()
		j.mu.Unlock()
	}
}

// notifyJobSignals is jobSignals through os/signal.
func notifyJobSignals(done <-chan struct{}) <-chan os.Signal {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGTSTP, syscall.SIGCONT, syscall.SIGTTOU, syscall.SIGTTIN)
	go func() {
		<-done
		signal.Stop(ch)
	}()
	return ch
}
