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
