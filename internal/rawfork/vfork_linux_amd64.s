#include "textflag.h"

// func Vfork(trap, a1, a2, a3 uintptr) (r1, errno uintptr)
//
// A system call that may return twice on one stack: clone3 with CLONE_VM
// and CLONE_VFORK. The child runs first, on the parent's stack, while the
// parent's thread is suspended in the system call; a CALL the child makes
// afterwards overwrites the slot that held this function's return address.
// So the address is kept in a register (R12, restored per task) across the
// system call and pushed back only when it returns, in each task.
TEXT ·Vfork(SB),NOSPLIT|NOFRAME,$0-48
	MOVQ	a1+8(FP), DI
	MOVQ	a2+16(FP), SI
	MOVQ	a3+24(FP), DX
	MOVQ	$0, R10
	MOVQ	$0, R8
	MOVQ	$0, R9
	MOVQ	trap+0(FP), AX
	POPQ	R12
	SYSCALL
	PUSHQ	R12
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	MOVQ	$-1, r1+32(FP)
	NEGQ	AX
	MOVQ	AX, errno+40(FP)
	RET
ok:
	MOVQ	AX, r1+32(FP)
	MOVQ	$0, errno+40(FP)
	RET
