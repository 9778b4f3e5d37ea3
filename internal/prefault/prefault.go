package prefault

func init() {
	populateHeap()
	growStack(0)
}

// stackBytes is the frame growStack needs: with what init's callers
// already use, the runtime grows the goroutine's stack to 16 KiB (it
// doubles the size until the frame fits).
const stackBytes = 12 << 10

// growStack has a frame of stackBytes, so that calling it grows the stack
// once to fit it. i only keeps the compiler from dropping the array.
//
//go:noinline
func growStack(i int) byte {
	var b [stackBytes]byte
	b[i&1023] = 1
	return b[len(b)-1-i&1023]
}
