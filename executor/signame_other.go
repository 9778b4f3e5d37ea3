//go:build unix && !linux

package executor

// platformSignalName names no further signals outside Linux.
func platformSignalName(int) string { return "" }
