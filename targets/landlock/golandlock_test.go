//go:build linux

package landlock_test

import (
	"testing"

	gll "github.com/landlock-lsm/go-landlock/landlock"
	"github.com/sbx-dev/sbx/targets/landlock"
	"golang.org/x/sys/unix"
)

// The planner keeps its own table of rights per ABI, because sbx must not
// link go-landlock (its syscall package pulls in psx, which uses cgo when
// cgo is enabled). This test cross-checks that table against go-landlock's
// V1..V7 presets and the kernel constants in x/sys/unix, so a mistake in
// either direction fails here rather than in a sandbox.
func TestRightsMatchGoLandlock(t *testing.T) {
	presets := []gll.Config{1: gll.V1, 2: gll.V2, 3: gll.V3, 4: gll.V4, 5: gll.V5, 6: gll.V6, 7: gll.V7}
	for abi := 1; abi <= landlock.MaxKnownABI; abi++ {
		c := presets[abi]
		if got, want := uint64(landlock.FSRightsAt(abi)), uint64(c.HandledAccessFS); got != want {
			t.Errorf("ABI %d: filesystem rights %#x, go-landlock handles %#x", abi, got, want)
		}
		if got, want := uint64(landlock.NetRightsAt(abi)), uint64(c.HandledAccessNet); got != want {
			t.Errorf("ABI %d: network rights %#x, go-landlock handles %#x", abi, got, want)
		}
		if got, want := uint64(landlock.ScopesAt(abi)), uint64(c.Scoped); got != want {
			t.Errorf("ABI %d: scopes %#x, go-landlock handles %#x", abi, got, want)
		}
	}
	kernel := map[landlock.AccessFS]uint64{
		landlock.FSExecute:   unix.LANDLOCK_ACCESS_FS_EXECUTE,
		landlock.FSWriteFile: unix.LANDLOCK_ACCESS_FS_WRITE_FILE,
		landlock.FSReadFile:  unix.LANDLOCK_ACCESS_FS_READ_FILE,
		landlock.FSReadDir:   unix.LANDLOCK_ACCESS_FS_READ_DIR,
		landlock.FSRemoveDir: unix.LANDLOCK_ACCESS_FS_REMOVE_DIR,
		landlock.FSMakeChar:  unix.LANDLOCK_ACCESS_FS_MAKE_CHAR,
		landlock.FSMakeBlock: unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK,
		landlock.FSRefer:     unix.LANDLOCK_ACCESS_FS_REFER,
		landlock.FSTruncate:  unix.LANDLOCK_ACCESS_FS_TRUNCATE,
		landlock.FSIoctlDev:  unix.LANDLOCK_ACCESS_FS_IOCTL_DEV,
	}
	for ours, k := range kernel {
		if uint64(ours) != k {
			t.Errorf("right %v = %#x, kernel constant %#x", ours.Names(), uint64(ours), k)
		}
	}
	// No access level may ever grant device-node creation.
	for _, r := range []landlock.AccessFS{landlock.ReadRights, landlock.WriteRights, landlock.NoCreateRights, landlock.DeviceRights} {
		if r&(landlock.FSMakeChar|landlock.FSMakeBlock) != 0 {
			t.Errorf("rights %v grant device-node creation", r.Names())
		}
	}
}
