#include "textflag.h"

// func rawCloneInit(args, size, arg uintptr) (r1, errno uintptr)
//
// clone3 with CLONE_VM and a stack of its own: the child calls
// initMain(arg) on that stack (through the NOSPLIT ABI0 wrapper) and never
// returns. R9 carries arg across the system call.
TEXT ·rawCloneInit(SB),NOSPLIT|NOFRAME,$0-40
	MOVD	args+0(FP), R0
	MOVD	size+8(FP), R1
	MOVD	arg+16(FP), R9
	MOVD	$435, R8 // SYS_clone3
	SVC
	CMP	$0, R0
	BEQ	child
	CMN	$4095, R0
	BCC	ok
	MOVD	$-1, R4
	MOVD	R4, r1+24(FP)
	NEG	R0, R0
	MOVD	R0, errno+32(FP)
	RET
ok:
	MOVD	R0, r1+24(FP)
	MOVD	ZR, errno+32(FP)
	RET
child:
	MOVD	RSP, R3
	AND	$~15, R3
	SUB	$32, R3
	MOVD	R3, RSP
	MOVD	R9, 8(RSP)
	BL	·initMain(SB)
die:
	MOVD	$125, R0
	MOVD	$94, R8 // SYS_exit_group
	SVC
	B	die
