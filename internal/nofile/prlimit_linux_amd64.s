#include "textflag.h"

// func prlimit(resource uintptr, old unsafe.Pointer) uintptr
//
// prlimit64(0, resource, NULL, old): the errno, or 0.
TEXT ·prlimit(SB),NOSPLIT,$0-24
	MOVQ	$0, DI
	MOVQ	resource+0(FP), SI
	MOVQ	$0, DX
	MOVQ	old+8(FP), R10
	MOVQ	$302, AX // SYS_prlimit64
	SYSCALL
	NEGQ	AX
	MOVQ	AX, ret+16(FP)
	RET
