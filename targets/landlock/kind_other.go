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

// socketID returns the device and inode of the Unix socket p resolves
// to: only Linux enforces listed sockets, so elsewhere there is none.
func socketID(string) (dev, ino uint64, ok bool) { return 0, 0, false }

// searchable reports whether the caller may search dir (look up a name in
// it). Elsewhere nothing is enforced from a binding: it says true, which
// can only mask more.
func searchable(string) bool { return true }

// userWritable says true elsewhere (nothing is enforced from a binding
// there): it can only narrow.
func userWritable(string) bool { return true }

// socketNames has nothing to ask elsewhere (socketID finds no socket).
func socketNames(uint64, uint64) ([]string, error) { return nil, nil }

// sameFile tells whether a and b (not followed if links) are one file.
func sameFile(a, b string) bool {
	fa, err := os.Lstat(a)
	if err != nil {
		return false
	}
	fb, err := os.Lstat(b)
	return err == nil && os.SameFile(fa, fb)
}
