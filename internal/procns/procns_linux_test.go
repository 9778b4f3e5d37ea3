package procns

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestSameNamespace: where /proc is this process's namespace's, every id
// is itself.
func TestSameNamespace(t *testing.T) {
	if os.Getenv("PROCNS_NESTED") != "" {
		t.Skip("run in the nested namespace")
	}
	if link, _ := os.Readlink("/proc/self"); link != strconv.Itoa(os.Getpid()) {
		t.Skipf("/proc is not this process's namespace's here (/proc/self -> %s)", link)
	}
	if Differs() {
		t.Error("Differs() in the namespace /proc belongs to")
	}
	pid := os.Getpid()
	if Self() != pid || Own(pid) != pid || Proc(pid) != pid || Own(12345) != 12345 {
		t.Errorf("Self %d, Own %d, Proc %d for pid %d", Self(), Own(pid), Proc(pid), pid)
	}
}

// TestNestedNamespace: in a PID namespace of its own that keeps its
// parent's /proc (unshare --pid --fork, as sbx nested in a
// danger-full-access run), this process is 1 to itself and another id to
// /proc; Self, Own and Proc translate between them, and a pid /proc shows
// for a process outside the namespace has no id in it.
func TestNestedNamespace(t *testing.T) {
	if os.Getenv("PROCNS_NESTED") != "" {
		pid := os.Getpid()
		self := Self()
		fmt.Printf("pid=%d differs=%v self=%d own=%d proc=%d outside=%d\n", pid, Differs(), self, Own(self), Proc(pid), Own(1))
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for a PID namespace")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare")
	}
	cmd := exec.Command(unshare, "--pid", "--fork", os.Args[0], "-test.run=^TestNestedNamespace$", "-test.v")
	cmd.Env = append(os.Environ(), "PROCNS_NESTED=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nested run: %v\n%s", err, out)
	}
	var pid, self, own, proc, outside int
	var differs bool
	line := ""
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "pid=") {
			line = l
		}
	}
	if _, err := fmt.Sscanf(line, "pid=%d differs=%t self=%d own=%d proc=%d outside=%d", &pid, &differs, &self, &own, &proc, &outside); err != nil {
		t.Fatalf("nested output %q: %v\n%s", line, err, out)
	}
	if pid != 1 || !differs || self == 1 || own != 1 || proc != self || outside != 0 {
		t.Errorf("nested: %s (want pid=1 differs=true, self the /proc id, own=1, proc=self, outside=0)", line)
	}
}
