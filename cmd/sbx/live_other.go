//go:build !linux && !darwin

package main

import "io"

// blockingFD: no poll here; writes go straight to the stream.
func blockingFD(io.Writer) (int, int) { return -1, 0 }

func (l *liveOutput) waitWritable() bool { return true }

// interruptPipe: none here (see live_unix.go).
func interruptPipe() (r int, notify func(), closeBoth func()) { return -1, func() {}, func() {} }
