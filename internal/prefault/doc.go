// Package prefault makes the start of a short-lived Go program cheaper
// where page faults are dear. Importing it (for its side effect, as
// cmd/sbx does) runs, before the other packages' init functions, three
// steps that replace page-by-page faults with one system call each:
//
//   - Where a page fault is dear, it populates the next 1.5 MiB of the Go
//     heap with madvise(MADV_POPULATE_WRITE), on a goroutine of its own
//     that runs on another CPU (where there is one) while the program goes
//     on. The runtime allocates pages from the lowest free address of the
//     heap, so a short run touches a compact range just above its first
//     allocations; each first touch is a fault (about 10 µs on a nested
//     virtual machine measured here, 24 µs on another, where one batched
//     page costs about 1 µs). It first times two faults at the end of that
//     range (accesses that change nothing), and populates only if they
//     cost 5 µs or more: where faults cost 2-3 µs, as on other machines
//     measured here, populating the pages a run never touches costs more
//     than it saves. Where the range would cross the end of the heap's
//     first mapped chunk (Go randomises the heap's base down to a page of
//     that chunk: about a third of the runs), it first grows the
//     goroutine's stack to 2 MiB, which makes the runtime map the next
//     chunk, and populates below and above the new stack.
//   - On the same goroutine, and where faults are dear, it populates
//     128 KiB of the runtime's off-heap metadata (itabs, span records,
//     span-set blocks: persistentalloc's chunk), from the page where a
//     record it makes the runtime allocate lands (metaChunk).
//   - It grows the calling goroutine's stack to 16 KiB at once, while it
//     holds a few frames, instead of three times later (each growth
//     copies the stack and adjusts every frame through the tables of the
//     binary).
//
// Neither step changes what the program computes: populated pages read as
// zero, as they would on first touch. Where the system call does not exist
// (Linux before 5.14) or the architecture has no raw call here (only
// linux/amd64 and linux/arm64 have one), the heap step does nothing.
// bench/ab.py measured the two together at 0.969x the start-up of sbx run
// without them (see README, Start-up cost).
package prefault
