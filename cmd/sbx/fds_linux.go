package main

import "golang.org/x/sys/unix"

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
