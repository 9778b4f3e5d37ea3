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
	var l Limit
	if prlimit(rlimitNofile, unsafe.Pointer(&l)) == 0 {
		start.lim, start.ok = l, true
	}
}
