package landlock

import "golang.org/x/sys/unix"

// lstatKind is what lstat finds at p. Unlike os.Lstat it allocates no
// FileInfo: a binding asks about some forty paths.
func lstatKind(p string) Kind {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return KindMissing
	}
	return modeKind(st.Mode)
}

// statKind is what p resolves to.
func statKind(p string) Kind {
	var st unix.Stat_t
	if unix.Stat(p, &st) != nil {
		return KindMissing
	}
	if k := modeKind(st.Mode); k != KindSymlink {
		return k
	}
	return KindMissing
}

func modeKind(mode uint32) Kind {
	switch mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return KindSymlink
	case unix.S_IFDIR:
		return KindDir
	}
	return KindFile
}

// socketID returns the device and inode of the Unix socket p resolves
// to; false if p names no socket.
func socketID(p string) (dev, ino uint64, ok bool) {
	var st unix.Stat_t
	if unix.Stat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return 0, 0, false
	}
	return uint64(st.Dev), st.Ino, true
}

// searchable reports whether the caller may search dir (look up a name in
// it), as the command, which runs with the caller's credentials, may.
func searchable(dir string) bool {
	return unix.Faccessat(unix.AT_FDCWD, dir, unix.X_OK, unix.AT_EACCESS) == nil
}

// userWritable reports whether the invoking user may write dir (create or
// replace an entry in it), as a command run earlier with the user's
// credentials could have.
func userWritable(dir string) bool {
	return unix.Faccessat(unix.AT_FDCWD, dir, unix.W_OK, unix.AT_EACCESS) == nil
}

// sameFile tells whether a and b (not followed if links) may be one file:
// the same device and inode, or both on one FUSE file system, whose inode
// numbers a server assigns as it likes (libfuse's path API without use_ino
// numbers each spelling of a name apart).
func sameFile(a, b string) bool {
	var sa, sb unix.Stat_t
	if unix.Lstat(a, &sa) != nil || unix.Lstat(b, &sb) != nil || sa.Dev != sb.Dev {
		return false
	}
	if sa.Ino == sb.Ino {
		return true
	}
	var fs unix.Statfs_t
	return unix.Statfs(b, &fs) == nil && fs.Type == unix.FUSE_SUPER_MAGIC
}
