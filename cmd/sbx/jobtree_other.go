//go:build unix && !linux

package main

import "syscall"

// runTree: the command's process group is all there is to signal here.
type runTree struct{}

func newRunTree(int, bool) *runTree { return nil }

func (*runTree) signal(syscall.Signal) {}

// leaderRef names the command's leader by its pid: these systems have no
// process descriptors to hold it by.
type leaderRef struct{ pid int }

func openLeader(pid int) leaderRef { return leaderRef{pid} }

// signal sends sig to the leader, or to its process group.
func (l leaderRef) signal(sig syscall.Signal, group bool) {
	if l.pid <= 0 {
		return
	}
	if group {
		syscall.Kill(-l.pid, sig)
		return
	}
	syscall.Kill(l.pid, sig)
}

func (leaderRef) close() {}
