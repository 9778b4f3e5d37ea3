package nofile

// SetStart sets the recorded start limit for a test and returns what
// restores it. (This file imports nothing: an import in a test file of
// the package itself would move its init after package syscall's.)
func SetStart(l Limit, ok bool) (restore func()) {
	saved := start
	start.lim, start.ok = l, ok
	return func() { start = saved }
}
