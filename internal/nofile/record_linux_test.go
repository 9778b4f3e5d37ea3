//go:build linux

package nofile_test

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	. "github.com/sbx-dev/sbx/internal/nofile"
)

// TestRecordedBeforeSyscall starts this test binary with a soft limit of
// 1,024 under a hard limit of 4,096: the init recorded 1,024, although
// package syscall had raised the soft limit to 4,095 by the time the test
// runs.
func TestRecordedBeforeSyscall(t *testing.T) {
	if os.Getenv("NOFILE_CHILD") == "1" {
		s, ok := Start()
		var cur syscall.Rlimit
		syscall.Getrlimit(syscall.RLIMIT_NOFILE, &cur)
		os.Stdout.WriteString(strconv.FormatBool(ok) + " " + strconv.FormatUint(s.Cur, 10) + " " + strconv.FormatUint(s.Max, 10) + " " + strconv.FormatUint(cur.Cur, 10) + "\n")
		return
	}
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("recorded on linux/amd64 and linux/arm64 only")
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Max < 4096 {
		t.Skipf("hard limit %d below 4096", lim.Max)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `ulimit -Sn 1024 && ulimit -Hn 4096 && exec "$0" -test.run='^TestRecordedBeforeSyscall$'`, self)
	cmd.Env = append(os.Environ(), "NOFILE_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got, want := strings.Fields(string(out)), []string{"true", "1024", "4096", "4095"}; strings.Join(got[:min(4, len(got))], " ") != strings.Join(want, " ") {
		t.Errorf("recorded, soft, hard, current soft = %q, want %q", got, want)
	}
}
