//go:build unix

package executor

import "syscall"

// searchable reports whether the calling user may enter dir (search
// permission, checked with the real ids, as chdir would for the user).
// Run checks it itself: a sandbox whose command starts with capabilities
// in a user namespace of its own would enter a directory the user cannot.
func searchable(dir string) error {
	return syscall.Access(dir, 0x1) // X_OK
}
