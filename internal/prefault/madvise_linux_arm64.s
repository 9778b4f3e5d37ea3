#include "textflag.h"

// func madvise(addr, n, advice uintptr) uintptr
//
// madvise returns 0 or -errno: negated, the errno or 0.
TEXT ·madvise(SB),NOSPLIT,$0-32
	MOVD	addr+0(FP), R0
	MOVD	n+8(FP), R1
	MOVD	advice+16(FP), R2
	MOVD	$233, R8 // SYS_madvise
	SVC
	NEG	R0, R0
	MOVD	R0, ret+24(FP)
	RET

// func touch(addr uintptr)
//
// A load (a read fault on a first touch): it changes nothing, also where
// the byte is already in use. (A write access that changes nothing needs
// an atomic of ARMv8.1 or a retry loop; the read fault's trap is what the
// probe weighs.)
TEXT ·touch(SB),NOSPLIT,$0-8
	MOVD	addr+0(FP), R0
	MOVBU	(R0), R1
	RET

// func reserveStack()
//
// A frame of 1.5 MiB (0x180000) and nothing else: the prologue's stack check
// makes the runtime grow the stack to fit it (see reservedStack). Nothing
// in the frame is written but the frame pointer the prologue saves (at its
// top on amd64, at its bottom on arm64).
TEXT ·reserveStack(SB),0,$0x180000-0
	RET
