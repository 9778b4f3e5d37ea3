//go:build !linux

package landlock

import (
	"io/fs"
	"os"
)

// lstatKind is what lstat finds at p.
func lstatKind(p string) Kind {
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return KindMissing
	case fi.Mode()&fs.ModeSymlink != 0:
		return KindSymlink
	case fi.IsDir():
		return KindDir
	}
	return KindFile
}

// statKind is what p resolves to.
func statKind(p string) Kind {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return KindMissing
	case fi.IsDir():
		return KindDir
	}
	return KindFile
}
