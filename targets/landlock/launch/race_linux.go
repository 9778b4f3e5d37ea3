//go:build linux && race && (amd64 || arm64)

package launch

// raceEnabled: the sandbox's init runs Go code (initMain) on sbx's memory
// outside the Go runtime, which the race detector's instrumentation of the
// call into it cannot survive; Spawn and Prestart refuse in such builds.
const raceEnabled = true
