//go:build !unix

package main

// jobControl does nothing where there is no job control.
type jobControl struct{}

func newJobControl() *jobControl { return nil }

func (*jobControl) started(int, bool, bool) {}

func (*jobControl) end() {}
