package executor

import (
	"os"
	"strconv"
)

// exitStatus returns the process's exit code; Windows has no signals.
func exitStatus(ps *os.ProcessState) (code, sig int) {
	return ps.ExitCode(), 0
}

// signalName returns a name for signal n.
func signalName(n int) string { return "SIG" + strconv.Itoa(n) }
