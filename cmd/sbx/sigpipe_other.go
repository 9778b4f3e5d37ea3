//go:build !linux || !amd64

package main

import "syscall"

// sigpipe is unavailable here: os/signal cancels the run (see runCommand).
type sigpipe struct{ r int }

func fastSignals([]syscall.Signal) (*sigpipe, bool) { return nil, false }

func (sp *sigpipe) caught() syscall.Signal { return 0 }

func (sp *sigpipe) restoreDefaults() {}

// quitByDefault leaves SIGQUIT to the Go runtime here.
func quitByDefault() {}
