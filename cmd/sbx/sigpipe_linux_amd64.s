#include "textflag.h"

// func sigpipeHandler()
//
// The signal handler: the kernel calls it with the signal number in DI,
// on the thread's alternate signal stack, outside the Go runtime. It makes
// one raw system call: write(sigFDs[signo], &signo, 1). A number past the
// table (never delivered: only installed signals come here) writes
// nothing.
TEXT ·sigpipeHandler(SB),NOSPLIT|NOFRAME,$0-0
	CMPQ	DI, $64
	JHI	done
	SUBQ	$16, SP
	MOVB	DI, 0(SP)
	LEAQ	·sigFDs(SB), AX
	MOVQ	(AX)(DI*8), DI
	MOVQ	SP, SI
	MOVQ	$1, DX
	MOVQ	$1, AX // SYS_write
	SYSCALL
	ADDQ	$16, SP
done:
	RET

// func sigpipeRestorer()
TEXT ·sigpipeRestorer(SB),NOSPLIT|NOFRAME,$0-0
	MOVQ	$15, AX // SYS_rt_sigreturn
	SYSCALL
	INT	$3

// func sigpipePCs() (handler, restorer uintptr)
TEXT ·sigpipePCs(SB),NOSPLIT,$0-16
	LEAQ	·sigpipeHandler(SB), AX
	MOVQ	AX, handler+0(FP)
	LEAQ	·sigpipeRestorer(SB), AX
	MOVQ	AX, restorer+8(FP)
	RET
