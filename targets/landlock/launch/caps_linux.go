package launch

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Secure bits (include/uapi/linux/securebits.h): root gets no capabilities
// on execve and setuid transitions do not adjust them; all locked so the
// command cannot undo them.
const (
	secbitNoroot            = 1 << 0
	secbitNorootLocked      = 1 << 1
	secbitNoSetuidFixup     = 1 << 2
	secbitNoSetuidFixupLock = 1 << 3
	secbitKeepCapsLocked    = 1 << 5
	secbitNoAmbientRaise    = 1 << 6
	secbitNoAmbientRaiseLck = 1 << 7

	// secureBits is what every confined thread gets: all of the above.
	secureBits = secbitNoroot | secbitNorootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLock |
		secbitKeepCapsLocked | secbitNoAmbientRaise | secbitNoAmbientRaiseLck
)

// dropCapabilities empties every capability set of the calling thread:
// securebits first (they need CAP_SETPCAP), then the bounding set (also
// CAP_SETPCAP), the ambient set, and finally effective, permitted and
// inheritable with capset. Without capabilities the command cannot override
// file modes (so mode-000 masks deny), read other users' /proc entries,
// chown others' files, mount, or use raw devices needing CAP_SYS_RAWIO.
// Everything is per thread: only the calling thread (the supervisor's
// worker; the command's process drops its capabilities with the same
// steps in its program, compileCapDrop) is affected.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, secureBits, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_SECUREBITS): %w", err)
	}
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if err == unix.EINVAL {
				break // past the kernel's last capability
			}
			return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}
