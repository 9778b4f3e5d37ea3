package prefault

import (
	"go/build"
	"testing"
)

// TestImportsNothing: the package imports nothing but unsafe. Go runs
// package inits in import-path order among the packages whose imports are
// done, so an import (of golang.org/x/sys/unix, say) would move this init
// after the packages it should run before, and lose most of its gain
// (README, Start-up cost: 0.913x at the start, 0.961x in main).
func TestImportsNothing(t *testing.T) {
	for _, goarch := range []string{"amd64", "arm64", "386"} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH = "linux", goarch
		pkg, err := ctx.ImportDir(".", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pkg.Imports {
			if imp != "unsafe" {
				t.Errorf("linux/%s: package prefault imports %q", goarch, imp)
			}
		}
	}
}

// TestGrowStack: growStack runs on a small stack and on one already
// grown, from a goroutine that starts with the smallest.
func TestGrowStack(t *testing.T) {
	done := make(chan byte)
	go func() {
		a := growStack(3)
		done <- a + growStack(1020)
	}()
	if got := <-done; got != 0 {
		t.Errorf("growStack read %d from an array it only wrote at another index", got)
	}
}
