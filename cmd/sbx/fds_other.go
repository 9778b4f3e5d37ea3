//go:build !linux

package main

// closeInheritedOnExec is a no-op where inherited descriptors are handled by
// the platform (Windows handles are not inherited unless asked) or not yet.
func closeInheritedOnExec() {}

// checkOpenFiles has nothing to check here.
func checkOpenFiles() error { return nil }

// checkCapMemory has no address-space limit to compare with here.
func checkCapMemory(int64, bool) error { return nil }

// checkProcs has no process limit to compare with here.
func checkProcs() error { return nil }
