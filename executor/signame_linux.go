package executor

import (
	"strconv"
	"syscall"
)

// platformSignalName names the signals only Linux has: SIGSTKFLT, SIGPWR
// and the real-time signals, numbered as the C library and the shell's
// kill -l number them (SIGRTMIN is 34: glibc and musl keep the kernel's
// first two for themselves, which stay SIG32 and SIG33). "" for others.
func platformSignalName(n int) string {
	const rtmin, rtmax = 34, 64
	switch {
	case n == int(syscall.SIGSTKFLT):
		return "SIGSTKFLT"
	case n == int(syscall.SIGPWR):
		return "SIGPWR"
	case n == rtmin:
		return "SIGRTMIN"
	case n == rtmax:
		return "SIGRTMAX"
	case n > rtmin && n <= (rtmin+rtmax)/2:
		return "SIGRTMIN+" + strconv.Itoa(n-rtmin)
	case n > (rtmin+rtmax)/2 && n < rtmax:
		return "SIGRTMAX-" + strconv.Itoa(rtmax-n)
	}
	return ""
}
