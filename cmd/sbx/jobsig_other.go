//go:build unix && !(linux && amd64)

package main

import "os"

// jobSignals delivers SIGTSTP and SIGCONT until done is closed (os/signal
// here; see the linux/amd64 version).
func jobSignals(done <-chan struct{}) <-chan os.Signal { return notifyJobSignals(done) }
