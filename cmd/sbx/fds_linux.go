package main

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// closeInheritedOnExec marks every descriptor above stderr close-on-exec.
// Go's os/exec passes a child only stdin, stdout, stderr and ExtraFiles, but
// a descriptor sbx itself inherited without close-on-exec (a shell's
// `exec 7<secret`, a leaky parent) would survive into the command; commands
// must start with exactly the three streams the executor gives them. Done
// once in main, before any descriptor of sbx's own exists to matter.
func closeInheritedOnExec() {
	// Errors mean a kernel before 5.11 (ENOSYS): the sandboxed path marks
	// and closes descriptors again in its helper.
	_ = unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
}

// minOpenFiles is the RLIMIT_NOFILE sbx needs: its own descriptors (the
// sandbox's init and control socket, the pipes, the poll loop's, the
// runtime's poller) with room to spare. Below it, sbx refuses at once with
// 125: running out part-way would fail later, or, where the Go runtime's
// poller cannot start (it takes two descriptors the first time any file
// is opened), abort the whole process with a runtime error.
const minOpenFiles = 32

// checkOpenFiles reports an error when RLIMIT_NOFILE is below minOpenFiles
// (the Go runtime has already raised the soft limit to the hard one).
func checkOpenFiles() error {
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) != nil || rl.Cur >= minOpenFiles {
		return nil
	}
	return fmt.Errorf("the open-files limit (RLIMIT_NOFILE) is %d; sbx needs at least %d: raise it (ulimit -n)", rl.Cur, minOpenFiles)
}
