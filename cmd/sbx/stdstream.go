package main

import "os"

// stdStream is sbx's standard output or error as main passes it to run:
// writes go to the descriptor with write(2) (writeFD), so that a reader
// that went away (EPIPE) is an error sbx reports, with 125, like any
// stream it cannot write. os.File's own Write turns EPIPE on standard
// output and error into the Go runtime's SIGPIPE death: status 141,
// which a caller cannot tell from a command that died of SIGPIPE.
type stdStream struct{ f *os.File }

func (s stdStream) Write(p []byte) (int, error) { return writeFD(s.f, p) }
