#include "textflag.h"

// func Vfork(trap, a1, a2, a3 uintptr) (r1, errno uintptr)
//
// clone3 with CLONE_VM and CLONE_VFORK: the child runs first on the
// parent's stack. On arm64 the return address lives in the link register,
// which each task keeps for itself, and this leaf function has no frame, so
// nothing on the shared stack is needed after the system call.
TEXT ·Vfork(SB),NOSPLIT|NOFRAME,$0-48
	MOVD	a1+8(FP), R0
	MOVD	a2+16(FP), R1
	MOVD	a3+24(FP), R2
	MOVD	$0, R3
	MOVD	$0, R4
	MOVD	$0, R5
	MOVD	trap+0(FP), R8
	SVC
	CMN	$4095, R0
	BCC	ok
	MOVD	$-1, R4
	MOVD	R4, r1+32(FP)
	NEG	R0, R0
	MOVD	R0, errno+40(FP)
	RET
ok:
	MOVD	R0, r1+32(FP)
	MOVD	ZR, errno+40(FP)
	RET
