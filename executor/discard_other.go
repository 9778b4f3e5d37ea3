//go:build !linux

package executor

// discard is not available: the caller reads the rest of the pipe.
func (r *reader) discard() bool { return false }
