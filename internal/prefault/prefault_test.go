package prefault

import "testing"

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
