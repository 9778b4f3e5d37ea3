package nofile_test

import (
	"go/build"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	. "github.com/sbx-dev/sbx/internal/nofile"
)

// TestImportsNothing: the package imports nothing but unsafe, nor do its
// own test files (an import there moves the init of the package under
// test), so that its init runs before package syscall's raises the limit
// (see the package doc).
func TestImportsNothing(t *testing.T) {
	for _, goarch := range []string{"amd64", "arm64", "386"} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH = "linux", goarch
		pkg, err := ctx.ImportDir(".", 0)
		imports := append(append([]string(nil), pkg.Imports...), pkg.TestImports...)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range imports {
			if imp != "unsafe" {
				t.Errorf("linux/%s: package nofile imports %q", goarch, imp)
			}
		}
	}
}

func TestChild(t *testing.T) {
	for _, tc := range []struct {
		name    string
		start   Limit
		ok      bool
		cur     Limit
		want    Limit
		restore bool
	}{
		{"raised by Go", Limit{1024, 20000}, true, Limit{19999, 20000}, Limit{1024, 20000}, true},
		{"systemd's defaults", Limit{1024, 524288}, true, Limit{524287, 524288}, Limit{1024, 524288}, true},
		{"not recorded", Limit{}, false, Limit{19999, 20000}, Limit{19999, 20000}, false},
		{"soft was the hard limit: Go left it", Limit{20000, 20000}, true, Limit{20000, 20000}, Limit{20000, 20000}, false},
		{"soft was hard less one: nothing to restore", Limit{19999, 20000}, true, Limit{19999, 20000}, Limit{19999, 20000}, false},
		{"raised by the program itself", Limit{1024, 20000}, true, Limit{20000, 20000}, Limit{20000, 20000}, false},
		{"lowered by the program itself", Limit{1024, 20000}, true, Limit{512, 20000}, Limit{512, 20000}, false},
		{"hard limit lowered since", Limit{1024, 20000}, true, Limit{9999, 10000}, Limit{9999, 10000}, false},
		{"no limit read", Limit{1024, 20000}, true, Limit{}, Limit{}, false},
	} {
		reset := SetStart(tc.start, tc.ok)
		got, restore := Child(tc.cur)
		reset()
		if got != tc.want || restore != tc.restore {
			t.Errorf("%s: Child(%v) = %v, %v; want %v, %v", tc.name, tc.cur, got, restore, tc.want, tc.restore)
		}
	}
}

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
