//go:build windows

package executor

// searchable reports nil: Windows has no search permission of its own.
func searchable(string) error { return nil }
