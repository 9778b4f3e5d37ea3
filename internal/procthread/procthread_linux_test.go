package procthread

import (
	"os"
	"os/exec"
	"testing"
)

// TestLive: a running process with threads has a live thread; a process
// with one thread has none besides its main thread; a gone pid has none.
func TestLive(t *testing.T) {
	// The test process runs several threads (the Go runtime's).
	if tid := Live(os.Getpid()); tid == 0 || tid == os.Getpid() {
		t.Errorf("Live(self) = %d, want another thread of the test process", tid)
	}
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	if tid := Live(cmd.Process.Pid); tid != 0 {
		t.Errorf("Live(single-threaded sleep) = %d, want 0", tid)
	}
	if tid := Live(1 << 30); tid != 0 {
		t.Errorf("Live(no such pid) = %d, want 0", tid)
	}
}
