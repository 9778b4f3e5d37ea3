package main

import "golang.org/x/sys/unix"

// ioctlGetTermios reads a terminal's settings.
const ioctlGetTermios = unix.TIOCGETA

// isPtyMaster says whether the terminal fd is a pseudo-terminal's master;
// on macOS sbx never opens a terminal again (no /proc), so it does not
// matter there.
func isPtyMaster(int) bool { return false }
