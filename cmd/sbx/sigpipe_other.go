//go:build !linux || !amd64

package main

import "syscall"

// sigpipe is unavailable here: os/signal cancels the run (see runCommand).
type sigpipe struct{ r int }

func fastSignals() (*sigpipe, bool) { return nil, false }

func (sp *sigpipe) caught() syscall.Signal { return 0 }

func (sp *sigpipe) restoreDefaults() {}
