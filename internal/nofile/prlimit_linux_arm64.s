#include "textflag.h"

// func prlimit(resource uintptr, old unsafe.Pointer) uintptr
//
// prlimit64(0, resource, NULL, old): the errno, or 0.
TEXT ·prlimit(SB),NOSPLIT,$0-24
	MOVD	$0, R0
	MOVD	resource+0(FP), R1
	MOVD	$0, R2
	MOVD	old+8(FP), R3
	MOVD	$261, R8 // SYS_prlimit64
	SVC
	NEG	R0, R0
	MOVD	R0, ret+16(FP)
	RET
