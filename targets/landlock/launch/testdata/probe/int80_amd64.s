#include "textflag.h"

// func int80Socket(domain, typ int32) int32
TEXT ·int80Socket(SB), NOSPLIT, $0-12
	MOVL $359, AX
	MOVL domain+0(FP), BX
	MOVL typ+4(FP), CX
	MOVL $0, DX
	BYTE $0xCD; BYTE $0x80
	MOVL AX, ret+8(FP)
	RET
