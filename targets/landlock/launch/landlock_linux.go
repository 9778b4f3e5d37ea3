package launch

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Landlock UAPI structures (include/uapi/linux/landlock.h).
type rulesetAttr struct {
	handledAccessFS  uint64
	handledAccessNet uint64
	scoped           uint64
}

// pathBeneathAttr is packed in the kernel (12 bytes); the kernel copies
// only that many, so Go's trailing padding is never read.
type pathBeneathAttr struct {
	allowedAccess uint64
	parentFd      int32
}

type netPortAttr struct {
	allowedAccess uint64
	port          uint64
}

const (
	ruleTypePathBeneath = 1
	ruleTypeNetPort     = 2
)

// KernelABI returns the Landlock ABI version of the running kernel, or 0 if
// Landlock is not available (not built in, or not enabled at boot).
func KernelABI() int {
	r, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0
	}
	return int(r)
}

// restrictSelf enforces the ruleset on the calling thread only (no TSYNC
// flag): the supervisor's worker thread takes the command's domain this
// way, and no other thread of the supervisor does.
func restrictSelf(rfd int) error {
	_, _, e := unix.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rfd), 0, 0)
	if e != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", e)
	}
	return nil
}

// filteredHint explains a kernel feature that seems missing when sbx itself
// runs under a seccomp filter (Seccomp: 2 in /proc/self/status: sbx inside
// another sandbox, sbx's own included), which is then the likelier cause;
// "" otherwise.
func filteredHint() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil || !strings.Contains(string(b), "\nSeccomp:\t2\n") {
		return ""
	}
	return " (sbx itself runs under a seccomp filter, Seccomp: 2 in /proc/self/status: a sandbox around sbx, perhaps sbx's own, denies the call; run sbx outside it)"
}
