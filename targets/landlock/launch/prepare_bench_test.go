//go:build linux && (amd64 || arm64)

package launch

import (
	"os"
	"testing"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// BenchmarkPrepare measures what sbx computes before it starts a workspace
// sandbox: binding the built-in plan, the seccomp filter and the program.
func BenchmarkPrepare(b *testing.B) {
	plan, err := builtin.Plan("workspace")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		bd, err := landlock.DefaultBindings("/tmp", os.Getenv)
		if err != nil {
			b.Fatal(err)
		}
		sb, err := New(plan, bd, Options{})
		if err != nil {
			b.Fatal(err)
		}
		spec := *sb.spec
		spec.Path, spec.Argv, spec.Env = "/bin/true", []string{"/bin/true"}, []string{"PATH=/bin"}
		f, err := buildFilter(spec.Seccomp)
		if err != nil {
			b.Fatal(err)
		}
		setup := &childSetup{userns: false, setsid: true, pdeathsig: 9, landlock: true, stdio: [3]int{0, 1, 2}, ruleset: 5, listenerTo: 7, filter: f}
		ip, err := compileInit(&spec, setup, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := compileCommand(&spec, setup, ip); err != nil {
			b.Fatal(err)
		}
	}
}
