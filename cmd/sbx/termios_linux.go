package main

import "golang.org/x/sys/unix"

// ioctlGetTermios reads a terminal's settings.
const ioctlGetTermios = unix.TCGETS

// isPtyMaster says whether the terminal fd is a pseudo-terminal's master
// (TIOCGPTN answers on masters only). /proc/self/fd of a master links to
// /dev/ptmx, and opening it again makes a new, unrelated pseudo-terminal.
func isPtyMaster(fd int) bool {
	_, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	return err == nil
}
