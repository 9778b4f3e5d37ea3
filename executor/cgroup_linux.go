package executor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/internal/procns"
	"github.com/sbx-dev/sbx/internal/procthread"
)

// cgroupPrefix starts the name of every cgroup the executor creates:
// sbx-<owner pid>-<owner start time>-<random>.
const cgroupPrefix = "sbx-"

// cgroupV2Mount returns the mount point of the cgroup v2 hierarchy and the
// path of the hierarchy that is mounted there, from /proc/self/mountinfo.
// It finds the hierarchy wherever it is mounted (/sys/fs/cgroup on unified
// systems, /sys/fs/cgroup/unified on hybrid ones).
func cgroupV2Mount() (mountPoint, root string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", fmt.Errorf("reading mounts: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		pre, post, ok := strings.Cut(line, " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		fields := strings.Fields(pre)
		if len(fields) < 5 {
			continue
		}
		return unescapeMount(fields[4]), unescapeMount(fields[3]), nil
	}
	if err := sc.Err(); err != nil {
		return "", "", fmt.Errorf("reading mounts: %w", err)
	}
	return "", "", errors.New("no cgroup v2 hierarchy is mounted")
}

// unescapeMount decodes the octal escapes (\040 for a space) of mountinfo.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ownCgroupDir returns the directory of the calling process's cgroup in the
// v2 hierarchy.
func ownCgroupDir() (string, error) {
	mnt, root, err := cgroupV2Mount()
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("reading own cgroup: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		p, ok := strings.CutPrefix(line, "0::")
		if !ok {
			continue
		}
		if root != "/" {
			rel, ok := strings.CutPrefix(p, root)
			if !ok {
				return "", fmt.Errorf("own cgroup %s is outside the mounted hierarchy %s", p, root)
			}
			p = rel
		}
		return filepath.Join(mnt, p), nil
	}
	return "", errors.New("the process is in no cgroup v2")
}

// procStartTime returns the start time of process pid in clock ticks after
// boot (field 22 of /proc/PID/stat), which tells a process from a later one
// that reused its pid.
func procStartTime(pid int) (uint64, error) {
	st, err := readProcStat(pid)
	if err != nil {
		return 0, err
	}
	return st.startTime, nil
}

// procStat holds the fields of /proc/PID/stat the executor uses.
type procStat struct {
	state     byte
	ppid      int
	pgrp      int
	session   int
	startTime uint64
}

func readProcStat(pid int) (procStat, error) {
	var buf [512]byte
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	n, err := f.Read(buf[:])
	f.Close()
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(buf[:n])
}

func parseProcStat(b []byte) (procStat, error) {
	// The command name is in parentheses and may contain anything.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, errors.New("malformed stat")
	}
	fields := strings.Fields(string(b[i+2:]))
	// fields[0] is field 3 (state); field N is fields[N-3].
	if len(fields) < 20 {
		return procStat{}, errors.New("malformed stat")
	}
	var st procStat
	var err error
	st.state = fields[0][0]
	if st.ppid, err = strconv.Atoi(fields[1]); err != nil {
		return procStat{}, err
	}
	if st.pgrp, err = strconv.Atoi(fields[2]); err != nil {
		return procStat{}, err
	}
	if st.session, err = strconv.Atoi(fields[3]); err != nil {
		return procStat{}, err
	}
	if st.startTime, err = strconv.ParseUint(fields[19], 10, 64); err != nil {
		return procStat{}, err
	}
	return st, nil
}

// cgroup is a cgroup v2 directory created for one command.
type cgroup struct {
	dir string
	// fd is the directory's descriptor: the command starts in it
	// (CLONE_INTO_CGROUP), and it holds an exclusive flock for as long
	// as the run goes on, released when this process ends however it
	// ends, which tells a later run's cleanupLeftovers that the owner
	// lives where its /proc cannot show it.
	fd int
}

// newCgroup creates a fresh cgroup below the caller's own.
func newCgroup() (*cgroup, error) {
	parent, err := ownCgroupDir()
	if err != nil {
		return nil, err
	}
	// The owner is named as /proc shows it, which is how a later run
	// (cleanupLeftovers) looks it up: where /proc belongs to an ancestor
	// PID namespace (sbx run nested in a danger-full-access run),
	// getpid's id is another process's there (red team 30: a nested run
	// named its live cgroup after an unrelated host process, and the
	// next cgroup run on the host, that process gone, killed the run's
	// command; one with pid 1 was named after the host's init, and its
	// leftovers were never removed).
	self := procns.Self()
	start, err := procStartTime(self)
	if err != nil {
		return nil, fmt.Errorf("reading own start time: %w", err)
	}
	name := fmt.Sprintf("%s%d-%d-%08x", cgroupPrefix, self, start, rand.Uint32())
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating cgroup in %s: %w", parent, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("cgroup.kill unavailable (Linux 5.14 or later is needed): %w", err)
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("opening cgroup %s: %w", dir, err)
	}
	// The owner's mark (see cgroup.fd; best effort: the name still tells
	// where the lock cannot be taken). A cleaner that looks between the
	// mkdir and here, and cannot see this process in its /proc, can
	// still take the new cgroup for a leftover.
	unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	return &cgroup{dir: dir, fd: fd}, nil
}

// ownerHoldsLock reports whether the owner of the cgroup dir, a run of
// this or another process, holds its lock (cgroup.fd): it is alive,
// whatever /proc says of it. A holder that is itself in the cgroup is
// the command, not its owner: a command that waits for the lock gets it
// once its sbx is SIGKILLed, and its leftovers would look owned for ever
// (red team 30's review of the lock).
func ownerHoldsLock(dir string) bool {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != unix.EWOULDBLOCK {
		return false
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return true
	}
	holder := flockHolder(st)
	if holder <= 0 {
		return true // not shown: the lock alone tells
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(holder) + "/cgroup")
	if err != nil {
		return true
	}
	name := "/" + filepath.Base(dir)
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return !strings.HasSuffix(p, name) && !strings.Contains(p, name+"/")
		}
	}
	return true
}

// flockHolder returns the pid (as /proc shows it) of the process holding
// the flock on the file st describes, from /proc/locks, or 0.
func flockHolder(st unix.Stat_t) int {
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	// "1: FLOCK  ADVISORY  WRITE 1234 00:1e:5678 0 EOF"; waiters have
	// "->" after the number.
	file := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" || f[5] != file {
			continue
		}
		pid, _ := strconv.Atoi(f[4])
		return pid
	}
	return 0
}

// closeFD closes the directory's descriptor (and releases the lock).
func (c *cgroup) closeFD() {
	if c.fd >= 0 {
		syscall.Close(c.fd)
		c.fd = -1
	}
}

// kill kills every process in the cgroup and its descendants.
func (c *cgroup) kill() error {
	return killCgroup(c.dir)
}

func killCgroup(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0); err != nil {
		return fmt.Errorf("killing cgroup %s: %w", dir, err)
	}
	killListed(dir)
	return nil
}

// killListed sends SIGKILL to the processes listed in the cgroup.procs of
// dir and of the cgroups below it whose main thread has ended
// (pthread_exit) while other threads run on: /proc/PID/stat shows the
// main thread's state, Z. cgroup.kill does not reach such a process (seen
// on Linux 6.18; red team 28: it survived the run, reparented to init,
// and sbx waited 10 s and exited 125); kill(2) does. The others are
// cgroup.kill's: each listed pid costs one read of its stat here. Each
// pid is signalled through a pidfd taken while the pid is still listed,
// so that a pid reused meanwhile is not hit.
func killListed(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			killListed(filepath.Join(dir, e.Name()))
		}
	}
	procs := filepath.Join(dir, "cgroup.procs")
	data, err := os.ReadFile(procs)
	if err != nil || len(data) == 0 {
		return
	}
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 0 {
			continue
		}
		// cgroup.procs lists this process's ids; /proc may show others
		// (procns).
		if st, err := readProcStat(procns.Proc(pid)); err != nil || st.state != 'Z' {
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone
		}
		// Still listed once the pidfd is held: the pidfd is that process.
		if again, err := os.ReadFile(procs); err == nil && slices.Contains(strings.Fields(string(again)), f) {
			unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		}
		unix.Close(fd)
	}
}

// waitEmpty polls cgroup.events until the cgroup has no process left.
func waitEmpty(dir string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	pause := 50 * time.Microsecond
	for {
		data, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
		if err != nil {
			return fmt.Errorf("reading cgroup events of %s: %w", dir, err)
		}
		if bytes.Contains(data, []byte("populated 0")) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup %s still has processes after %v", dir, timeout)
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
}

// removeCgroup removes dir and any cgroup below it, deepest first.
func removeCgroup(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("listing cgroup %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := removeCgroup(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	var rmErr error
	for i := 0; i < 50; i++ {
		// rmdir can briefly fail with EBUSY while the last exiting process
		// is being released.
		if rmErr = syscall.Rmdir(dir); rmErr == nil || errors.Is(rmErr, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(rmErr, syscall.EBUSY) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("removing cgroup %s: %w", dir, rmErr)
}

// destroy kills what is left in the cgroup, waits until it is empty and
// removes it.
func (c *cgroup) destroy() error { return c.destroyWithin(cleanupTimeout) }

// destroyWithin is destroy waiting at most wait for the cgroup to empty.
func (c *cgroup) destroyWithin(wait time.Duration) error {
	c.closeFD()
	if err := c.kill(); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := waitEmpty(c.dir, wait); err != nil {
		return err
	}
	return removeCgroup(c.dir)
}

// cleanupLeftovers kills the cgroups of earlier runs whose executor
// process is gone (it was killed before it could clean up) and removes
// those already empty; it returns the others, killed but not yet empty,
// for removeLeftovers once the run has ended. It does not wait for them:
// a process that cannot die (uninterruptible sleep: a FUSE server that
// does not answer) kept its leftover populated, and every later cgroup
// run waited 2 s for it before starting its command (red team 30). It
// is best effort: cgroups that cannot be listed or written are left
// alone.
func cleanupLeftovers() (pending []string) {
	parent, err := ownCgroupDir()
	if err != nil {
		return nil
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, cgroupPrefix) {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(name, cgroupPrefix), "-")
		if len(parts) != 3 {
			continue
		}
		pid, err1 := strconv.Atoi(parts[0])
		start, err2 := strconv.ParseUint(parts[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		// The owner is alive and cleans up itself; not a zombie, which a
		// SIGKILLed sbx stays until its parent reaps it (red team 30: its
		// leftover was taken for a live run's, and the command's
		// background processes ran on through every later run). (A
		// process whose main thread ended shows Z too, but runs.)
		if st, err := readProcStat(pid); err == nil && st.startTime == start &&
			(st.state != 'Z' && st.state != 'X' || procthread.Live(pid) > 0) {
			continue
		}
		// An owner that /proc cannot show (a PID namespace with a /proc
		// of its own, unshare --pid --mount-proc, sharing this cgroup)
		// holds its lock (red team 30: its name, that namespace's pid,
		// named another process or none here, and its live run's command
		// was killed). Runs of sbx before red team 30 took no lock:
		// their names alone tell.
		if ownerHoldsLock(filepath.Join(parent, name)) {
			continue
		}
		dir := filepath.Join(parent, name)
		if killCgroup(dir) != nil {
			continue
		}
		if !removeIfEmpty(dir) {
			pending = append(pending, dir)
		}
	}
	return pending
}

// leftoverSettle bounds, for all of a run's leftovers together, how long
// its end waits for them to empty before removing them.
const leftoverSettle = 200 * time.Millisecond

// removeLeftovers removes the leftovers cleanupLeftovers killed, waiting
// for them to empty at most leftoverSettle in all: SIGKILLed processes
// leave their cgroup within milliseconds, but a run shorter than that
// ended before they had, and left the cgroup for some later run (CI saw
// red team 11's kill loop find it after the next run); one stuck in
// uninterruptible sleep costs a run's end that much, never its start (red
// team 30). Those still populated then stay for a later run.
func removeLeftovers(dirs []string) {
	deadline := time.Now().Add(leftoverSettle)
	for _, dir := range dirs {
		if left := time.Until(deadline); left > 0 {
			waitEmpty(dir, left)
		}
		removeIfEmpty(dir)
	}
}

// removeIfEmpty removes dir, a killed cgroup, if no process is left in it
// (or below it), and reports whether it is gone.
func removeIfEmpty(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	if !bytes.Contains(data, []byte("populated 0")) {
		return false
	}
	return removeCgroup(dir) == nil
}
