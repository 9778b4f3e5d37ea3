//go:build !linux && !darwin

package main

import "io"

// blockingFD: no poll here; writes go straight to the stream.
func blockingFD(io.Writer) (fd, piece int, own, tty bool) { return -1, 0, false, false }

func (l *liveOutput) waitWritable() bool { return true }

func (l *liveOutput) writeOwn(p []byte) (int, bool, error) { return 0, false, nil }

func (l *liveOutput) release() {}

// ttyWriter: none here (see live_unix.go).
type ttyWriter struct{}

func newTTYWriter(int) *ttyWriter                   { return nil }
func (t *ttyWriter) flush()                         {}
func (t *ttyWriter) error() error                   { return nil }
func (l *liveOutput) writeTTY([]byte) (bool, error) { return true, nil }

// interruptPipe: none here (see live_unix.go).
func interruptPipe() (r int, notify func(), closeBoth func()) { return -1, func() {}, func() {} }

// writePiece writes b whole: no poll here, so every write may block (the
// case blocking records on Linux and macOS).
func (l *liveOutput) writePiece(b []byte) (int, error) {
	l.blocking = true
	return l.w.Write(b)
}

// sameStream: not told here (no poll-bounded writes to bound).
func sameStream(a, b io.Writer) bool { return false }
