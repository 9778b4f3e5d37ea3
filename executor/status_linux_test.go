package executor

import (
	"os"
	"path/filepath"
	"testing"
)

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

// TestExecDenied: what execve refuses with EACCES is recognised, so that
// an ambiguous EACCES from package syscall's fork is the command's (126).
func TestExecDenied(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("plain", "data", 0o644)
	okScript := write("ok.sh", "#!/bin/sh\necho hi\n", 0o755)
	badInterp := write("bad.sh", "#!"+plain+"\n", 0o755)
	loop := filepath.Join(dir, "loop.sh")
	write("loop.sh", "#!"+loop+"\n", 0o755)
	for _, c := range []struct {
		path string
		want bool
	}{{plain, true}, {dir, true}, {okScript, false}, {badInterp, true}, {"/bin/sh", false}, {filepath.Join(dir, "missing"), false}, {loop, false}} {
		if got := execDenied(c.path); got != c.want {
			t.Errorf("execDenied(%s) = %v, want %v", c.path, got, c.want)
		}
	}
}
