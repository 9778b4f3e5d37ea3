//go:build !linux || !(amd64 || arm64)

package nofile

// current reads nothing here: no limit is recorded at the start either,
// so ForChild has nothing to restore.
func current() (Limit, bool) { return Limit{}, false }
