//go:build linux && !race && (amd64 || arm64)

package launch

// raceEnabled reports a race-enabled build (see race_linux.go).
const raceEnabled = false
