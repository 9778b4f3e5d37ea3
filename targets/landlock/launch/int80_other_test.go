//go:build linux && !amd64

package launch_test

import "testing"

// rx14Int80Faults: no int 0x80 outside amd64 (see redteam14_test.go; the
// probe's int80_other.go answers for that entry there).
func rx14Int80Faults(*testing.T) bool { return false }
