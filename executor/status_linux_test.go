package executor

import "testing"

// TestSignalNamesLinux: the Linux-only signals have the names kill -l gives
// them (bash, glibc).
func TestSignalNamesLinux(t *testing.T) {
	for n, want := range map[int]string{16: "SIGSTKFLT", 30: "SIGPWR", 32: "SIG32", 33: "SIG33", 34: "SIGRTMIN", 35: "SIGRTMIN+1",
		49: "SIGRTMIN+15", 50: "SIGRTMAX-14", 63: "SIGRTMAX-1", 64: "SIGRTMAX", 9: "SIGKILL", 65: "SIG65"} {
		if got := signalName(n); got != want {
			t.Errorf("signalName(%d) = %q, want %q", n, got, want)
		}
	}
}
