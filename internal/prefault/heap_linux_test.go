//go:build linux && (amd64 || arm64)

package prefault

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestPopulateRange(t *testing.T) {
	const base = 0x7000_0000_0000 // a chunk boundary
	for _, tc := range []struct {
		name       string
		a          uintptr
		start, end uintptr
	}{
		{"chunk start", base, base, base + heapBytes},
		{"inside a page", base + 0x1234, base, base + heapBytes},
		{"aligned down", base + alignBytes + 8, base + alignBytes, base + alignBytes + heapBytes},
		{"cut at the chunk's end", base + chunkBytes - alignBytes + 8, base + chunkBytes - alignBytes, base + chunkBytes},
		{"last byte of the chunk", base + chunkBytes - 1, base + chunkBytes - alignBytes, base + chunkBytes},
	} {
		start, end := populateRange(tc.a)
		if start != tc.start || end != tc.end {
			t.Errorf("%s: populateRange(%#x) = [%#x, %#x), want [%#x, %#x)", tc.name, tc.a, start, end, tc.start, tc.end)
		}
	}
}

// resident counts the pages of b that mincore reports resident.
func resident(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (len(b)+unix.Getpagesize()-1)/unix.Getpagesize())
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestPopulateFrom runs the real system call on a mapping laid out as the
// Go heap is (read-write chunks, PROT_NONE beyond): the range from the
// anchor to the chunk's end becomes resident, and nothing past it.
func TestPopulateFrom(t *testing.T) {
	// Two chunks' room to find an aligned one, then one chunk's worth of
	// PROT_NONE after it, as the runtime reserves its arena.
	m, err := unix.Mmap(-1, 0, 3*chunkBytes, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	base := (uintptr(unsafe.Pointer(&m[0])) + chunkBytes - 1) &^ (chunkBytes - 1)
	off := base - uintptr(unsafe.Pointer(&m[0]))
	chunk := m[off : off+chunkBytes]
	if err := unix.Mprotect(chunk, unix.PROT_READ|unix.PROT_WRITE); err != nil {
		t.Fatal(err)
	}
	if n := resident(t, chunk); n != 0 {
		t.Fatalf("%d pages resident before", n)
	}
	page := uintptr(unix.Getpagesize())

	// Near the start: heapBytes from the aligned anchor.
	start, end, errno := populateFrom(base + alignBytes + 100)
	if errno != 0 {
		if errno == uintptr(unix.EINVAL) {
			t.Skip("no MADV_POPULATE_WRITE (Linux 5.14)")
		}
		t.Fatalf("madvise: errno %d", errno)
	}
	if start != base+alignBytes || end != start+heapBytes {
		t.Fatalf("range [%#x, %#x)", start, end)
	}
	if got, want := resident(t, chunk), int(heapBytes/page); got != want {
		t.Errorf("%d pages resident, want %d", got, want)
	}
	if n := resident(t, chunk[:alignBytes]); n != 0 {
		t.Errorf("%d pages resident below the anchor's aligned start", n)
	}

	// Near the end: cut at the chunk's end, where PROT_NONE starts (the
	// call would fail with ENOMEM past it).
	_, end, errno = populateFrom(base + chunkBytes - 3*alignBytes)
	if errno != 0 || end != base+chunkBytes {
		t.Fatalf("near the end: end %#x, errno %d", end, errno)
	}
	if n := resident(t, chunk[chunkBytes-3*alignBytes:]); n != int(3*alignBytes/page) {
		t.Errorf("near the end: %d pages resident, want %d", n, 3*alignBytes/page)
	}
}

// TestMadviseErrno: the raw call returns the errno, not a negative value.
func TestMadviseErrno(t *testing.T) {
	if e := madvise(1, uintptr(unix.Getpagesize()), madvPopulateWrite); e != uintptr(unix.EINVAL) {
		t.Errorf("unaligned address: errno %d, want EINVAL (%d)", e, unix.EINVAL)
	}
	var b [1]byte
	if e := madvise(uintptr(unsafe.Pointer(&b[0]))&^4095, 4096, 0xffff); e != uintptr(unix.EINVAL) {
		t.Errorf("unknown advice: errno %d, want EINVAL (%d)", e, unix.EINVAL)
	}
}

// TestFaultsDear: the probe touches exactly the two pages alignBytes and
// 2*alignBytes below the end of the range, and nothing else, and does not
// probe a range too short to hold them apart from its start. Its verdict
// depends on the machine (see dearFaultNanos) and is only logged.
func TestFaultsDear(t *testing.T) {
	m, err := unix.Mmap(-1, 0, chunkBytes, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	base := uintptr(unsafe.Pointer(&m[0]))
	page := unix.Getpagesize()

	if faultsDear(base, base+2*alignBytes) {
		t.Error("a range of 2*alignBytes was probed as dear")
	}
	if n := resident(t, m); n != 0 {
		t.Fatalf("a range too short to probe: %d pages resident", n)
	}

	end := base + heapBytes
	dear := faultsDear(base, end)
	t.Logf("first-touch faults dear here: %v", dear)
	if n := resident(t, m); n != 2 {
		t.Errorf("%d pages resident after the probe, want 2", n)
	}
	for _, off := range []uintptr{heapBytes - alignBytes, heapBytes - 2*alignBytes} {
		if resident(t, m[off:off+uintptr(page)]) != 1 {
			t.Errorf("the page at %#x below the end was not touched", heapBytes-off)
		}
		if m[off] != 0 {
			t.Errorf("the probe changed the byte at %#x", off)
		}
	}

	// Where the runtime already put an object, the probe changes nothing.
	for i := range m[:3*alignBytes] {
		m[i] = byte(i%251 + 1)
	}
	faultsDear(base, base+3*alignBytes)
	for _, off := range []uintptr{alignBytes, 2 * alignBytes} {
		if want := byte(off%251 + 1); m[off] != want {
			t.Errorf("the probe changed the byte in use at %#x: %#x, want %#x", off, m[off], want)
		}
	}
}

func TestSplitRanges(t *testing.T) {
	const base = 0x7000_0000_0000 // a chunk boundary
	// b, the anchor after reserveStack, is a little below the stack's top.
	const top = base + chunkBytes + reservedStack // inside the second chunk, heapBytes below its end
	for _, tc := range []struct {
		name                             string
		start, b                         uintptr
		below, belowEnd, upper, upperEnd uintptr
	}{
		{
			// The old range's start is well below the new stack: the
			// part between is populated, and heapBytes less that part
			// above the stack's top.
			name: "gap below the stack", start: top - reservedStack - 512<<10, b: top - 0x219,
			below: top - reservedStack - 512<<10, belowEnd: top - reservedStack,
			upper: top - alignBytes, upperEnd: top + heapBytes - 512<<10,
		},
		{
			// The stack starts at the old range's start: nothing below,
			// heapBytes from the anchor's aligned start, as populateRange
			// gives.
			name: "no gap", start: top - reservedStack, b: top - 0x219,
			below: top - reservedStack, belowEnd: top - reservedStack,
			upper: top - alignBytes, upperEnd: top - alignBytes + heapBytes,
		},
		{
			// A gap wider than heapBytes is cut at heapBytes, and nothing
			// beyond the stack's used top is populated.
			name: "wide gap", start: top - reservedStack - 3*heapBytes, b: top - 0x219,
			below: top - reservedStack - 3*heapBytes, belowEnd: top - reservedStack - 2*heapBytes,
			upper: top - alignBytes, upperEnd: top,
		},
		{
			// The anchor is not page-aligned to the stack's top: the top
			// is the next runtime page boundary.
			name: "top rounded up", start: top - reservedStack - 64<<10, b: top - stackPage + 8,
			below: top - reservedStack - 64<<10, belowEnd: top - reservedStack,
			upper: top - alignBytes, upperEnd: top + heapBytes - 64<<10,
		},
		{
			// Above the stack, the range stops at the end of its chunk.
			name: "upper cut at the chunk's end", start: base + 2*chunkBytes - reservedStack - 8<<10, b: base + 2*chunkBytes - 0x219,
			below: base + 2*chunkBytes - reservedStack - 8<<10, belowEnd: base + 2*chunkBytes - reservedStack,
			upper: base + 2*chunkBytes - alignBytes, upperEnd: base + 2*chunkBytes,
		},
	} {
		below, belowEnd, upper, upperEnd := splitRanges(tc.start, tc.b)
		if below != tc.below || belowEnd != tc.belowEnd || upper != tc.upper || upperEnd != tc.upperEnd {
			t.Errorf("%s: splitRanges(%#x, %#x) = [%#x, %#x) [%#x, %#x), want [%#x, %#x) [%#x, %#x)",
				tc.name, tc.start, tc.b, below, belowEnd, upper, upperEnd, tc.below, tc.belowEnd, tc.upper, tc.upperEnd)
		}
		if got := (belowEnd - below) + max(upperEnd, (tc.b+stackPage-1)&^(stackPage-1)) - (tc.b+stackPage-1)&^(stackPage-1); got > heapBytes {
			t.Errorf("%s: %d bytes of heap populated, more than heapBytes", tc.name, got)
		}
	}
}

// TestReserveStack: the call moves a goroutine's stack once, to one that
// already fits a second call, of which reservedStack bytes below the top
// are mapped.
func TestReserveStack(t *testing.T) {
	type moves struct{ first, second bool }
	done := make(chan moves)
	var top uintptr
	go func() {
		var x byte
		a0 := uintptr(unsafe.Pointer(&x))
		reserveStack()
		a1 := uintptr(unsafe.Pointer(&x))
		reserveStack()
		a2 := uintptr(unsafe.Pointer(&x))
		top = (a2 + stackPage - 1) &^ (stackPage - 1)
		// mincore fails with ENOMEM on a range that is not mapped.
		vec := make([]byte, reservedStack/uintptr(unix.Getpagesize()))
		if _, _, e := unix.Syscall(unix.SYS_MINCORE, top-reservedStack, reservedStack, uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
			t.Errorf("mincore of the stack's %d bytes below %#x: %v", reservedStack, top, e)
		}
		done <- moves{a0 != a1, a1 != a2}
	}()
	m := <-done
	if !m.first {
		t.Error("the first call did not move the goroutine's stack")
	}
	if m.second {
		t.Error("the second call moved the stack again: the first did not grow it to fit the frame")
	}
}

// TestMetaChunk: the itab the probe makes is not the binary's (the linker
// made none for the pair), so its page is in the runtime's metadata, away
// from the binary's data, and populating from it works or stops at the
// chunk's end (never a fault or a refused address).
func TestMetaChunk(t *testing.T) {
	m := metaChunk()
	if m == 0 {
		t.Fatal("metaChunk found no run-time itab")
	}
	if m%4096 != 0 {
		t.Errorf("metaChunk = %#x, not page-aligned", m)
	}
	self := uintptr(unsafe.Pointer(&metaSink))
	if m > self-1<<28 && m < self+1<<28 {
		t.Errorf("metaChunk = %#x lies near the binary's data (%#x): a static itab", m, self)
	}
	if again := metaChunk(); again != m {
		t.Errorf("metaChunk moved: %#x then %#x (the itab is made once)", m, again)
	}
	if e := madvise(m, metaBytes, madvPopulateWrite); e != 0 && e != 12 /* ENOMEM: past the chunk */ && e != 22 /* EINVAL: before 5.14 */ {
		t.Errorf("madvise(MADV_POPULATE_WRITE) of the metadata: errno %d", e)
	}
}
