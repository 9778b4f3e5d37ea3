//go:build linux && (amd64 || arm64)

package prefault

import "unsafe" // and for go:linkname

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

// dearFaultNanos is the price of one first-touch write fault above which
// the heap is populated. Populating pays where a fault costs many times
// what populating a page does: on a nested PVM guest measured here a fault
// cost 10.5 us and a populated page 0.65-0.9 us, and populating 1.5 MiB
// made sbx run 0.913x as long. Where faults cost 2-3 us (a Firecracker
// guest measured here: 2.8 us a fault, 2.0 us a populated page, most of
// both the host backing the guest's page) the pages of the range that the
// run never touches cost more than the faults saved on the others: the
// same populate made sbx run 1.07x as long, and smaller ranges did not
// win either. The threshold sits between the two.
const dearFaultNanos = 5000

// nanotime is the runtime's monotonic clock (the vDSO's on Linux): the
// package imports nothing, so it cannot reach time.Now.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// touch accesses the byte at addr without changing it (an atomic OR with
// zero on amd64, a load on arm64): a first touch faults the page in. It
// must change nothing: the runtime may already have put an object there.
func touch(addr uintptr)

// populateHeap populates heapBytes of the heap from the goroutine's stack,
// which the runtime allocated among its first heap pages: what the
// package init functions and main allocate next comes from just above.
// It works out the range here and leaves the rest to a goroutine of its
// own (populate), which the runtime runs on another CPU where there is
// one, while this goroutine goes on with the other packages' inits and
// main: populating 1.5 MiB takes about half a millisecond on the VM
// measured, and only the pages the run touches before the goroutine gets
// to them fault as before. (Populating in line here measured 1.05x the
// start-up of sbx run; see README, Start-up cost.)
//
// The runtime maps its heap in chunks of chunkBytes as it grows, and the
// heap starts at a random page of its first chunk (Go randomises the
// heap's base on 64-bit systems), so in about a third of the runs
// (heapBytes/chunkBytes) the range from the anchor crosses the end of the
// chunk, into memory the runtime maps only when it gets there; madvise
// cannot populate it now. populateHeap then moves the frontier into the
// next chunk first (reserveStack): the goroutine's new stack does not fit
// in what is left of the first chunk, so the runtime maps the next one to
// hold it, and the heap then allocates below the stack (what is left of
// the first chunk) and above it. Both parts are populated, heapBytes in
// all (splitRanges).
func populateHeap() {
	var anchor byte
	start, end := populateRange(uintptr(unsafe.Pointer(&anchor)))
	meta := metaChunk()
	if end-start == heapBytes {
		go populate(start, end, 0, 0, meta)
		return
	}
	reserveStack()
	// anchor has moved with the stack, to near its top.
	below, belowEnd, upper, upperEnd := splitRanges(start, uintptr(unsafe.Pointer(&anchor)))
	go populate(upper, upperEnd, below, belowEnd, meta)
}

// metaBytes is how much of the runtime's off-heap metadata is populated,
// from the page of a record the runtime has just allocated there.
const metaBytes = 128 << 10

// metaProbe and metaProber make the runtime build an itab at run time: no
// conversion of *metaProbe to metaProber appears in the program, so the
// linker made none.
type metaProbe struct{ _ byte }

func (*metaProbe) prefaultMetaProbe() {}

type metaProber interface{ prefaultMetaProbe() }

// metaSink holds the value asserted (a variable, so that the compiler
// cannot see its type).
var metaSink any = new(metaProbe)

// metaChunk returns the page of the runtime's off-heap metadata that it
// allocates from next on this goroutine's P, or 0. The runtime keeps
// itabs, span records, the blocks of its span sets and such in chunks of
// 256 KiB (persistentalloc), one being filled per P, from low addresses
// up; each first touch of a page there is a fault like the heap's (about
// fifteen on sbx run's path after main; populated from here on the
// populate goroutine, bench/ab.py measured 0.985x the start-up without).
// The itab the assertion below makes is placed at the chunk's frontier.
// The page is taken as 4 KiB: with larger pages (some arm64 kernels)
// madvise refuses the unaligned start, and nothing changes.
func metaChunk() uintptr {
	p, ok := metaSink.(metaProber)
	if !ok {
		return 0
	}
	tab := (*[2]uintptr)(unsafe.Pointer(&p))[0]
	// An itab in the binary (had the linker made one after all) is not in
	// a metadata chunk: the binary's data lie near metaSink's.
	self := uintptr(unsafe.Pointer(&metaSink))
	if tab == 0 || (tab > self-1<<28 && tab < self+1<<28) {
		return 0
	}
	return tab &^ (4<<10 - 1)
}

// populate populates [below, belowEnd) and [start, end) where first-touch
// faults are dear (faultsDear, probed at the end of [start, end), which
// the run reaches last). Errors are ignored: a kernel without
// MADV_POPULATE_WRITE leaves the faults as they were. Populating pages
// the runtime has meanwhile put objects in changes nothing in them.
//
// The system calls are raw (madvise does not tell the scheduler): the
// goroutine keeps its P for their half millisecond, which nothing waits
// for this early in the start.
func populate(start, end, below, belowEnd, meta uintptr) {
	if !faultsDear(start, end) {
		return
	}
	if meta != 0 {
		madvise(meta, metaBytes, madvPopulateWrite)
	}
	if belowEnd > below {
		madvise(below, belowEnd-below, madvPopulateWrite)
	}
	madvise(start, end-start, madvPopulateWrite)
}

// splitRanges returns the two ranges populateHeap populates once
// reserveStack has moved the stack: from start (the old anchor's range)
// up to the new stack's bottom, and from the new anchor b (near the
// stack's top) up, heapBytes in all beyond the stack's top. The stack is
// reservedStack bytes ending at b's page boundary (stackPage).
func splitRanges(start, b uintptr) (below, belowEnd, upper, upperEnd uintptr) {
	hi := (b + stackPage - 1) &^ (stackPage - 1)
	below, belowEnd = start, start
	if lo := hi - reservedStack; lo > start {
		belowEnd = start + min(lo-start, heapBytes)
	}
	upper, upperEnd = populateRange(b)
	upperEnd = min(upperEnd, hi+heapBytes-(belowEnd-below))
	return below, belowEnd, upper, upperEnd
}

// stackPage is the runtime's page size, to which a stack is aligned.
const stackPage = 8 << 10

// reservedStack is the size of the stack reserveStack leaves: the
// runtime doubles a stack's size until the frame fits with what the stack
// already holds, and reserveStack's frame needs more than half of it.
// The first chunk's remainder is below heapBytes when populateHeap calls
// it, so a stack this size cannot fit there.
const reservedStack = 2 << 20

// reserveStack has a frame of 1.5 MiB, written in assembly so that
// nothing in it is zeroed or touched: calling it grows the goroutine's
// stack to reservedStack bytes, which the goroutine keeps (only a garbage
// collection shrinks a stack), and of which only the top is touched. Stack
// memory does not count towards the heap's size, which sets when the first
// garbage collection runs.
func reserveStack()

// faultsDear reports whether a first-touch write fault in [start, end)
// costs dearFaultNanos or more. It touches the two pages that begin
// alignBytes and 2*alignBytes below end (distinct pages for any page
// size here), and keeps the cheaper: an interrupt can only make one
// dearer. The access changes nothing (see touch).
func faultsDear(start, end uintptr) bool {
	if end-start < 3*alignBytes {
		return false // too little left in the chunk to be worth it
	}
	// The clock's own price is taken off: where it is not read in user
	// space (a VM whose clock source traps), a read can cost microseconds.
	clock := int64(1 << 62)
	for range 2 {
		t0 := nanotime()
		clock = min(clock, nanotime()-t0)
	}
	best := int64(1 << 62)
	for i := uintptr(1); i <= 2; i++ {
		t0 := nanotime()
		touch(end - i*alignBytes)
		best = min(best, nanotime()-t0)
	}
	return best-clock >= dearFaultNanos
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
