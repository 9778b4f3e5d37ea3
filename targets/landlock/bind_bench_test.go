//go:build unix

package landlock_test

import (
	"os"
	"testing"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// BenchmarkBindWorkspace binds the built-in workspace plan in an empty
// working directory of its own, as sbx run does at every start (in a
// warm process: sbx's first binding costs more).
func BenchmarkBindWorkspace(b *testing.B) {
	plan, err := builtin.Plan("workspace")
	if err != nil {
		b.Fatal(err)
	}
	// Directly in the temporary directory, as a workspace usually is
	// below its writable parent (b.TempDir is two levels down, which adds
	// the protected names of the directory between).
	dir, err := os.MkdirTemp("", "sbx-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	env := func(k string) string {
		if k == "HOME" {
			return dir + "/home"
		}
		return os.Getenv(k)
	}
	b.ReportAllocs()
	for b.Loop() {
		bd, err := landlock.DefaultBindings(dir, env)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := plan.Bind(bd, landlock.BindOptions{KernelABI: 7, Supervise: true, Getenv: env}); err != nil {
			b.Fatal(err)
		}
	}
}
