package executor

import (
	"context"
	"os/exec"
	"testing"
)

// BenchmarkRunTrue measures the executor's fixed cost per command, against
// a plain os/exec run of the same command.
func BenchmarkRunTrue(b *testing.B) {
	b.Run("os-exec", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range containmentModes {
		b.Run(modeName(c), func(b *testing.B) {
			req := Request{Argv: []string{"/bin/true"}, Containment: c, AllowDegraded: true}
			b.ReportAllocs()
			for b.Loop() {
				res, err := Run(context.Background(), req)
				if err != nil {
					b.Skip(err)
				}
				if res.ExitCode != 0 {
					b.Fatalf("exit %d", res.ExitCode)
				}
			}
		})
	}
}

// BenchmarkDrain measures the capture loop draining 64 MiB past the cap.
func BenchmarkDrain(b *testing.B) {
	const size = 64 << 20
	for _, r := range []Retention{RetainHead, RetainHeadTail} {
		b.Run(r.String(), func(b *testing.B) {
			req := Request{Argv: []string{"head", "-c", "67108864", "/dev/zero"}, Env: []string{"PATH=/usr/bin:/bin"}, Retention: r}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				res, err := Run(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				if res.Stdout.Bytes != size {
					b.Fatalf("drained %d bytes", res.Stdout.Bytes)
				}
			}
		})
	}
}
