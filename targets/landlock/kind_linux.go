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
