//go:build unix

package main

import (
	"io/fs"
	"syscall"
)

// linkCount is the number of hard links to the file st describes.
func linkCount(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}

// keepOwner gives the file at name the owner and group of the file st
// describes (the one it replaces), if they differ from its own: a rewrite
// by root must not take a user's file away from them. It fails where the
// process may not (an ordinary user's files are its own).
func keepOwner(name string, st fs.FileInfo) error {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	var cur syscall.Stat_t
	if err := syscall.Lstat(name, &cur); err != nil {
		return err
	}
	if cur.Uid == s.Uid && cur.Gid == s.Gid {
		return nil
	}
	return syscall.Lchown(name, int(s.Uid), int(s.Gid))
}

// foreignOwner reports whether the file st describes is another user's
// and sbc cannot give a replacement that owner (it is not root): such a
// file is rewritten in place.
func foreignOwner(st fs.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	euid := syscall.Geteuid()
	return euid != 0 && int(s.Uid) != euid
}
