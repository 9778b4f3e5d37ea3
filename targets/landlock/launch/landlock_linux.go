package launch

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/targets/landlock"
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

// buildRuleset creates the ruleset of s and adds its rules. Paths are opened
// with O_PATH after the mount namespace is final, so each rule is attached
// to the inode the command will see. A grant whose path vanished since the
// plan was bound is skipped (it can only narrow access).
func buildRuleset(s *landlock.Spec) (int, error) {
	attr := rulesetAttr{uint64(s.Handled.FS), uint64(s.Handled.Net), uint64(s.Handled.Scoped)}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset(fs=%s): %w", s.Handled.FS, e)
	}
	rfd := int(fd)
	for _, g := range s.Grants {
		if g.Rights == 0 {
			continue
		}
		flags := unix.O_PATH | unix.O_CLOEXEC
		if g.NoFollow {
			flags |= unix.O_NOFOLLOW
		}
		pfd, err := unix.Open(g.Path, flags, 0)
		if err != nil {
			if err == unix.ENOENT {
				continue
			}
			unix.Close(rfd)
			return -1, fmt.Errorf("opening %s for a Landlock rule: %w", g.Path, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(pfd, &st); err != nil {
			unix.Close(pfd)
			unix.Close(rfd)
			return -1, fmt.Errorf("stat %s: %w", g.Path, err)
		}
		rights := g.Rights
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			if g.NoFollow {
				unix.Close(pfd) // re-grants are for real directories only
				continue
			}
			rights &= landlock.FileRights
		}
		rights &= s.Handled.FS
		if rights != 0 {
			pb := pathBeneathAttr{allowedAccess: uint64(rights), parentFd: int32(pfd)}
			_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rfd), ruleTypePathBeneath, uintptr(unsafe.Pointer(&pb)), 0, 0, 0)
			if e != 0 {
				unix.Close(pfd)
				unix.Close(rfd)
				return -1, fmt.Errorf("landlock_add_rule(%s, %s): %w", g.Path, rights, e)
			}
		}
		unix.Close(pfd)
	}
	for _, p := range s.Ports {
		np := netPortAttr{allowedAccess: uint64(p.Rights), port: uint64(p.Port)}
		_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rfd), ruleTypeNetPort, uintptr(unsafe.Pointer(&np)), 0, 0, 0)
		if e != 0 {
			unix.Close(rfd)
			return -1, fmt.Errorf("landlock_add_rule(port %d): %w", p.Port, e)
		}
	}
	return rfd, nil
}

// restrictSelf enforces the ruleset on the calling thread only (no TSYNC
// flag): the helper calls it on its locked thread right before execve, so
// the domain becomes the command's and never sbx's.
func restrictSelf(rfd int) error {
	_, _, e := unix.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rfd), 0, 0)
	if e != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", e)
	}
	return nil
}
