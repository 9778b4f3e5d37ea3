//go:build linux && (amd64 || arm64)

package prefault

import "unsafe"

const (
	// heapBytes is how much of the heap is populated: a run of
	// sbx run under the workspace profile touches 1 to 1.6 MiB of it
	// (bench/ab.py: 768 KiB 1.008x, 1.5 MiB 0.992x and 2 MiB 1.034x the
	// start-up with 1 MiB).
	heapBytes = 3 << 19 // 1.5 MiB
	// chunkBytes is the unit in which the Go runtime maps its heap
	// read-write (pallocChunkBytes), aligned to it: the populated range
	// ends where the mapping that holds the anchor may end. Beyond it the
	// heap is still reserved PROT_NONE, which madvise would refuse.
	chunkBytes = 4 << 20
	// alignBytes aligns the start down for any page size of the
	// architectures here (4, 16 or 64 KiB).
	alignBytes = 64 << 10
	// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14), written out
	// rather than taken from golang.org/x/sys/unix: the package imports
	// nothing, so that its init runs before the other packages' (see
	// TestImportsNothing).
	madvPopulateWrite = 23
)

// madvise is the raw system call (no runtime hand-off: it runs while no
// other goroutine waits for the thread). It returns the errno, or 0.
func madvise(addr, n, advice uintptr) uintptr

// populateHeap populates heapBytes of the heap from the goroutine's stack,
// which the runtime allocated among its first heap pages: what the
// package init functions and main allocate next comes from just above.
// Errors are ignored: a kernel without MADV_POPULATE_WRITE leaves the
// faults as they were.
func populateHeap() {
	var anchor byte
	populateFrom(uintptr(unsafe.Pointer(&anchor)))
}

// populateFrom populates the range populateRange gives for a and returns
// it with madvise's errno.
func populateFrom(a uintptr) (start, end, errno uintptr) {
	start, end = populateRange(a)
	return start, end, madvise(start, end-start, madvPopulateWrite)
}

// populateRange is [start, end): from a, aligned down, for heapBytes, cut
// at the end of the chunk that holds a.
func populateRange(a uintptr) (start, end uintptr) {
	start = a &^ (alignBytes - 1)
	return start, min(start+heapBytes, (a+chunkBytes)&^(chunkBytes-1))
}
