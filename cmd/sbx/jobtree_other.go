//go:build unix && !linux

package main

import "syscall"

// runTree: the command's process group is all there is to signal here.
type runTree struct{}

func newRunTree(int, bool) *runTree { return nil }

func (*runTree) signal(syscall.Signal) {}
