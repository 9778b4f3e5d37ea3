package policies

import (
	"context"
	"syscall"
	"testing"
	"time"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestCPU(t *testing.T) {
	ctx := context.Background()
	c0 := cpu()
	e, _ := New(ctx, Options{})
	t.Logf("prepare cpu %v", cpu()-c0)
	ins := inputsFor(genProfiles(1000, 1))
	c0 = cpu()
	for _, in := range ins[:500] {
		if _, err := e.Check(ctx, in); err != nil { t.Fatal(err) }
	}
	t.Logf("check cpu %v/profile", (cpu()-c0)/500)
}

func TestCPUTrivial(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, Options{NoBuiltin: true, Policies: []string{"/tmp/trivpol"}})
	if err != nil { t.Fatal(err) }
	ins := inputsFor(genProfiles(1000, 1))
	c0 := cpu()
	for _, in := range ins[:500] {
		if _, err := e.Check(ctx, in); err != nil { t.Fatal(err) }
	}
	t.Logf("trivial check cpu %v/profile", (cpu()-c0)/500)
	c0 = cpu()
	for _, in := range ins[:500] {
		f, a := in.names()
		inputValue(in, f, a)
	}
	t.Logf("input build cpu %v/profile", (cpu()-c0)/500)
}
