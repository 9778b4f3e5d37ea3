#include "textflag.h"

// func madvise(addr, n, advice uintptr) uintptr
//
// madvise returns 0 or -errno: negated, the errno or 0.
TEXT ·madvise(SB),NOSPLIT,$0-32
	MOVQ	addr+0(FP), DI
	MOVQ	n+8(FP), SI
	MOVQ	advice+16(FP), DX
	MOVQ	$28, AX // SYS_madvise
	SYSCALL
	NEGQ	AX
	MOVQ	AX, ret+24(FP)
	RET

// func touch(addr uintptr)
//
// An atomic OR with zero: a write access (a first touch faults the page
// in for writing) that changes nothing, also where the byte is already in
// use, by this thread or another.
TEXT ·touch(SB),NOSPLIT,$0-8
	MOVQ	addr+0(FP), DI
	LOCK
	ORB	$0, (DI)
	RET

// func reserveStack()
//
// A frame of 1.5 MiB (0x180000) and nothing else: the prologue's stack check
// makes the runtime grow the stack to fit it (see reservedStack). Nothing
// in the frame is written but the frame pointer the prologue saves (at its
// top on amd64, at its bottom on arm64).
TEXT ·reserveStack(SB),0,$0x180000-0
	RET
