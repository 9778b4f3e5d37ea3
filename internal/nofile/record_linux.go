//go:build linux && (amd64 || arm64)

package nofile

import "unsafe"

// rlimitNofile is RLIMIT_NOFILE (7 on every Linux architecture here),
// written out: the package imports nothing (see the package doc).
const rlimitNofile = 7

// prlimit is the raw prlimit64(0, resource, nil, old) system call: it
// returns the errno, or 0.
func prlimit(resource uintptr, old unsafe.Pointer) uintptr

func init() {
	start.lim, start.ok = current()
}

// current reads the open-files limit now.
func current() (Limit, bool) {
	var l Limit
	return l, prlimit(rlimitNofile, unsafe.Pointer(&l)) == 0
}
