package main

import (
	"time"

	"github.com/sbx-dev/sbx/executor"
)

// liveOutput writes the command's output as it runs (terminal mode,
// --events) without letting a reader that stops reading hold up the run.
// The executor calls OnOutput from the loop that also enforces the
// deadline and the cancellation: a plain blocking write to a pipe nobody
// reads would stop that loop, and the command would outlive its timeout
// while SIGTERM did nothing. So, where sbx's stream can block (a pipe, a
// socket, a terminal), each write waits for room first (poll), in pieces
// small enough never to block, and gives up once the run's deadline has
// passed or sbx got a signal: the output is then cut (not written live any
// more; the result still counts and retains it), and the loop acts on the
// deadline or the signal. Once the run has ended, writes block as usual:
// SIGTERM and SIGINT then have their default action (see runCommand).
type liveOutput struct {
	w *checkedWriter
	// fd is the stream's descriptor when writes can block, -1 otherwise
	// (a regular file, or a writer that is not a file).
	fd    int
	piece int
	// blocking is set once a write that cannot block (writePiece) turned
	// out to be unsupported for the stream: pieces are then written
	// with plain write(2), which poll's room makes safe where sbx is the
	// stream's only writer.
	blocking bool
	// own is set when fd is sbx's own non-blocking descriptor of the
	// stream (a terminal); tw writes to a terminal sbx could not open
	// again (see blockingFD).
	own bool
	tw  *ttyWriter
	// intr becomes readable once sbx got a signal (-1: none).
	intr     int
	deadline time.Time // zero: none
	bounded  bool
	cut      bool
	// wasCut records that the output was cut at some point (cut is
	// lifted again for the result: boundFor); partial, that a write was
	// cut after part of it went out, so the stream ends mid-line.
	wasCut, partial bool
}

// newLiveOutput returns the live writer of w; intr is readable once sbx
// got a signal, or -1. Release it when done.
func newLiveOutput(w *checkedWriter, intr int) *liveOutput {
	fd, piece, own, tty := blockingFD(w.w)
	l := &liveOutput{w: w, fd: fd, piece: piece, own: own, intr: intr}
	if tty {
		if l.tw = newTTYWriter(fd); l.tw == nil {
			l.piece = 1 // no pipe for it: the smallest writes
		}
	}
	return l
}

// start bounds the writes from now on by the run's deadline, when it has
// one (req's capture policy and timeout, as the executor reads them).
func (l *liveOutput) start(req executor.Request) {
	l.bounded = true
	if req.Capture == executor.CaptureFullBuffer || req.Timeout < 0 {
		return
	}
	t := req.Timeout
	if t == 0 {
		t = executor.DefaultTimeout
	}
	l.deadline = time.Now().Add(t)
}

// interruptedWriteBound is how long sbx, interrupted by a signal, waits
// for a reader to take its result.
const interruptedWriteBound = time.Second

// boundFor bounds the writes from now on by d (and no signal: one came).
// Output cut before gets the chance again: what is written from here on
// is the result (the exit event, the status line), which the reader may
// still take.
func (l *liveOutput) boundFor(d time.Duration) {
	l.bounded, l.intr, l.deadline = true, -1, time.Now().Add(d)
	l.cut = false
}

// setCut cuts the output; wrote tells whether part of the write being cut
// went out.
func (l *liveOutput) setCut(wrote bool) {
	l.cut, l.wasCut = true, true
	l.partial = l.partial || wrote
}

// takePartial reports whether the stream was left mid-line by a cut write,
// and forgets it (the caller ends that line).
func (l *liveOutput) takePartial() bool {
	p := l.partial
	l.partial = false
	return p
}

// end lifts the bound: what is written after the run blocks as usual.
func (l *liveOutput) end() { l.bounded = false }

// Write writes p, or drops it once the output was cut. It reports success
// for dropped bytes: the caller (the executor's loop) has nothing better
// to do with them.
func (l *liveOutput) Write(p []byte) (int, error) {
	if !l.bounded || l.fd < 0 {
		if l.tw != nil {
			// After the write in progress, and failing if that failed.
			l.tw.flush()
			if err := l.tw.error(); err != nil {
				l.w.fail(err)
			}
		}
		return l.w.Write(p)
	}
	if l.cut {
		return len(p), nil
	}
	if l.tw != nil {
		ok, err := l.writeTTY(p)
		if err != nil {
			l.w.fail(err)
			return 0, err
		}
		if !ok {
			l.setCut(true) // (how much went out is the writer's)
		}
		return len(p), nil
	}
	if l.own {
		n, ok, err := l.writeOwn(p)
		if err != nil {
			l.w.fail(err)
			return n, err
		}
		if !ok {
			l.setCut(n > 0)
		}
		return len(p), nil
	}
	for off := 0; off < len(p); {
		if !l.waitWritable() {
			l.setCut(off > 0)
			return len(p), nil
		}
		n := min(l.piece, len(p)-off)
		m, err := l.writePiece(p[off : off+n])
		if err != nil {
			return off + m, err
		}
		off += m
	}
	return len(p), nil
}
