package main

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/internal/procns"
	"github.com/sbx-dev/sbx/internal/procthread"
)

// runTree names the processes of a run without a launcher, for job
// control: the descendants of sbx (the command's leader and, under
// process-group containment, where sbx is a child subreaper, the orphans
// reparented to it; under PID-namespace containment every process of the
// namespace descends from the leader, its init) and, under cgroup
// containment, the processes of the leader's cgroup (orphans there go to
// the system's init). A signal to the command's process group misses
// those that left it (setsid, a double fork).
type runTree struct {
	// cgroup is the cgroup v2 line of the leader's /proc/PID/cgroup when
	// the run has a cgroup of its own, else nil.
	cgroup []byte
}

func newRunTree(leader int, cgroup bool) *runTree {
	t := &runTree{}
	if cgroup {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(procns.Proc(leader)) + "/cgroup"); err == nil {
			t.cgroup = unifiedLine(b)
		}
	}
	return t
}

// unifiedLine is the cgroup v2 line ("0::/path") of a /proc/PID/cgroup,
// or nil. Only it names the run's cgroup: on a hybrid system the v1
// hierarchies' lines can differ between processes of the run (a process
// whose main thread ended shows the v1 roots; red team 28: a ^Z left
// such a process running under cgroup containment).
func unifiedLine(b []byte) []byte {
	for _, line := range bytes.Split(b, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("0::")) {
			return line
		}
	}
	return nil
}

// procEntry is what a pass reads of a process.
type procEntry struct {
	ppid  int
	start string // start time (clock ticks since boot): the process's identity with its pid
}

// signal sends sig to every process of the run, pass after pass until a
// pass finds no process it has not signalled (one that forked meanwhile
// has new children; a stopped one forks no more), at most a bounded
// number of passes. A process is signalled through a pidfd opened after
// the pass read it, and only if it is still the process read (same start
// time), so that a pid reused meanwhile is not signalled. The pids are
// /proc's: where /proc belongs to an ancestor PID namespace (sbx run
// nested in a danger-full-access run) they are the ancestor's, and are
// translated for pidfd_open (red team 30: the walk looked for the
// descendants of the host's process with sbx's pid, and a ^Z left the
// command's processes outside its group running).
func (t *runTree) signal(sig syscall.Signal) {
	if t == nil {
		return
	}
	self := procns.Self()
	done := map[int]string{}
	for pass := 0; pass < 64; pass++ {
		procs := readProcs()
		found := false
		for pid, e := range procs {
			if pid == self || done[pid] == e.start || !t.mine(pid, e, procs, self) {
				continue
			}
			found = true
			done[pid] = e.start
			own := procns.Own(pid)
			if own <= 0 {
				continue // gone, or not in sbx's namespace
			}
			fd, err := unix.PidfdOpen(own, 0)
			if err != nil {
				continue
			}
			if st, ok := readProc(pid); ok && st.start == e.start {
				unix.PidfdSendSignal(fd, sig, nil, 0)
			}
			unix.Close(fd)
		}
		if !found {
			return
		}
	}
}

// mine reports whether the process belongs to the run: a descendant of
// sbx, or in the run's cgroup.
func (t *runTree) mine(pid int, e procEntry, procs map[int]procEntry, self int) bool {
	for p, n := e.ppid, 0; p > 1 && n < len(procs); n++ {
		if p == self {
			return true
		}
		up, ok := procs[p]
		if !ok {
			break
		}
		p = up.ppid
	}
	if t.cgroup != nil {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
		return err == nil && bytes.Equal(unifiedLine(b), t.cgroup)
	}
	return false
}

// readProcs reads every live process's parent and start time.
func readProcs() map[int]procEntry {
	procs := map[int]procEntry{}
	d, err := os.Open("/proc")
	if err != nil {
		return procs
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if e, ok := readProc(pid); ok {
			procs[pid] = e
		}
	}
	return procs
}

// readProc reads a live process's parent and start time from
// /proc/PID/stat; ok is false for a process that is gone or a zombie.
func readProc(pid int) (e procEntry, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return e, false
	}
	// "pid (comm) state ppid ...": comm may hold anything, up to the last
	// ')'. After it, field 3 (state) is at index 0, starttime (22) at 19.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return e, false
	}
	f := bytes.Fields(b[i+1:])
	// A Z whose process still has a live thread (its main thread ended,
	// pthread_exit) is alive, and a stop reaches it (red team 28: a ^Z
	// left one running while the job was reported stopped).
	if len(f) < 20 || (f[0][0] == 'Z' || f[0][0] == 'X') && procthread.Live(pid) == 0 {
		return e, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return e, false
	}
	return procEntry{ppid: ppid, start: string(f[19])}, true
}

// pidfdSignalProcessGroup is pidfd_send_signal's PIDFD_SIGNAL_PROCESS_GROUP
// (Linux 6.9): the signal goes to the process group whose ID is the
// pidfd's process's pid, that struct pid and not the number, so a group
// made later by a process that reused the number is not signalled.
const pidfdSignalProcessGroup = 1 << 2

// leaderRef holds the command's leader through a pidfd opened while it
// could not have been reaped (fd -1 where pidfd_open failed: then by
// number, as before Linux 5.3).
type leaderRef struct{ fd, pid int }

func openLeader(pid int) leaderRef {
	if pid <= 0 {
		return leaderRef{-1, pid}
	}
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		fd = -1
	}
	return leaderRef{fd, pid}
}

// signal sends sig to the leader, or to its process group. Once the
// leader is reaped nothing is sent to it; its group is signalled for as
// long as the group has members (which keep its ID from being reused).
// On kernels before 6.9 the group is signalled by number, and only while
// the leader is not reaped (a window between the check and the kill
// remains there).
func (l leaderRef) signal(sig syscall.Signal, group bool) {
	if l.pid <= 0 {
		return
	}
	if l.fd < 0 {
		if group {
			syscall.Kill(-l.pid, sig)
		} else {
			syscall.Kill(l.pid, sig)
		}
		return
	}
	if !group {
		unix.PidfdSendSignal(l.fd, sig, nil, 0)
		return
	}
	if err := unix.PidfdSendSignal(l.fd, sig, nil, pidfdSignalProcessGroup); err != unix.EINVAL {
		return
	}
	if unix.PidfdSendSignal(l.fd, 0, nil, 0) == nil {
		syscall.Kill(-l.pid, sig)
	}
}

func (l *leaderRef) close() {
	if l.fd >= 0 {
		unix.Close(l.fd)
		l.fd = -1
	}
}
