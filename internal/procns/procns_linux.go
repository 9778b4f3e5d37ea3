// Package procns translates between the process ids this process uses
// (those of its PID namespace: getpid, kill, wait, pidfd_open) and the
// ones /proc shows, which are the ids of the namespace /proc was mounted
// for.
//
// The two differ where /proc belongs to an ancestor namespace: sbx run
// in the command of a danger-full-access run, which is PID 1 of a PID
// namespace of its own but keeps the host's /proc (a mount namespace and
// a /proc of its own would cost every run its start-up), or a container
// that shares its host's /proc. There, /proc/PID names the host's
// process PID, and the pids, process groups, sessions and parents that
// /proc/PID/stat shows are host pids (red team 30: process-group
// containment's sweep, cgroup leftovers and ^Z's tree walk compared and
// signalled them as the namespace's).
//
// Nothing is read until a function is called, and then once: the first
// call costs a readlink of /proc/self (and, where the ids differ, a read
// of /proc/self/status).
package procns

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

var view struct {
	once sync.Once
	// self is this process as /proc shows it.
	self int
	// level is the index of this process's own namespace in the NSpid
	// lines of /proc's status files (0 where the ids are the same).
	level int
	// differs is set when /proc's ids are not this process's.
	differs bool
}

func load() {
	view.once.Do(func() {
		own := os.Getpid()
		view.self = own
		link, err := os.Readlink("/proc/self")
		if err != nil {
			return
		}
		p, err := strconv.Atoi(link)
		if err != nil || p == own {
			return
		}
		ids := nspids("self")
		if len(ids) < 2 || ids[len(ids)-1] != own {
			return // not a view this package can translate: as before
		}
		view.self, view.level, view.differs = p, len(ids)-1, true
	})
}

// nspids reads the NSpid line of /proc/NAME/status: the process's id in
// /proc's namespace and in each nested one down to its own.
func nspids(name string) []int {
	b, err := os.ReadFile("/proc/" + name + "/status")
	if err != nil {
		return nil
	}
	i := bytes.Index(b, []byte("\nNSpid:"))
	if i < 0 {
		return nil
	}
	line := b[i+len("\nNSpid:"):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	var ids []int
	for _, f := range strings.Fields(string(line)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil
		}
		ids = append(ids, n)
	}
	return ids
}

// Differs reports whether /proc's process ids are not this process's.
func Differs() bool {
	load()
	return view.differs
}

// Self returns this process's id as /proc shows it.
func Self() int {
	load()
	return view.self
}

// Own returns the id, in this process's namespace, of the process that
// /proc shows as pid: pid itself where the ids are the same; 0 where the
// process is gone or not in this process's namespace (or one below it).
func Own(pid int) int {
	load()
	if !view.differs || pid <= 0 {
		return pid
	}
	ids := nspids(strconv.Itoa(pid))
	if len(ids) <= view.level {
		return 0
	}
	return ids[view.level]
}

// Proc returns the id /proc shows for the process whose id in this
// process's namespace is pid: pid itself where the ids are the same; 0
// where it is gone. It is read from the fdinfo of a pidfd of it, which
// shows the pid in /proc's namespace.
func Proc(pid int) int {
	load()
	if !view.differs || pid <= 0 {
		return pid
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(fd)
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0
	}
	i := bytes.Index(b, []byte("\nPid:"))
	if i < 0 {
		return 0
	}
	line := b[i+len("\nPid:"):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(line)))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
