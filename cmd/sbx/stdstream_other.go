//go:build !linux && !darwin

package main

import "os"

// writeFD writes through the file (no SIGPIPE on these platforms' paths
// that sbx supports).
func writeFD(f *os.File, p []byte) (int, error) { return f.Write(p) }
