package nofile_test

import (
	"go/build"
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
