#include "textflag.h"

// func rawCloneInit(args, size, arg uintptr) (r1, errno uintptr)
//
// clone3 with CLONE_VM and a stack of its own (clone_args.stack): the child
// shares sbx's memory but runs on that stack, concurrently with sbx, so it
// cannot return into the caller's frames. It calls initMain(arg) there
// (through the NOSPLIT ABI0 wrapper) and never returns. R12 carries arg
// across the system call (the kernel copies the registers to the child).
TEXT ·rawCloneInit(SB),NOSPLIT|NOFRAME,$0-40
	MOVQ	args+0(FP), DI
	MOVQ	size+8(FP), SI
	MOVQ	arg+16(FP), R12
	MOVQ	$435, AX // SYS_clone3
	SYSCALL
	CMPQ	AX, $0
	JEQ	child
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	MOVQ	$-1, r1+24(FP)
	NEGQ	AX
	MOVQ	AX, errno+32(FP)
	RET
ok:
	MOVQ	AX, r1+24(FP)
	MOVQ	$0, errno+32(FP)
	RET
child:
	ANDQ	$~15, SP
	SUBQ	$16, SP
	MOVQ	R12, 0(SP)
	CALL	·initMain(SB)
die:
	MOVQ	$231, AX // SYS_exit_group
	MOVQ	$125, DI
	SYSCALL
	JMP	die
