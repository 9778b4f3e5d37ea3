//go:build !unix

package main

import "io/fs"

// linkCount is 1 where FileInfo does not tell the number of hard links.
func linkCount(fs.FileInfo) uint64 { return 1 }

// keepOwner does nothing where files have no Unix owner.
func keepOwner(string, fs.FileInfo) error { return nil }

func foreignOwner(fs.FileInfo) bool { return false }
