#include "textflag.h"

// func sigpipeHandler()
//
// The signal handler: the kernel calls it with the signal number in DI,
// on the thread's alternate signal stack, outside the Go runtime. It makes
// one raw system call: write(sigpipeFD, &signo, 1).
TEXT ·sigpipeHandler(SB),NOSPLIT|NOFRAME,$0-0
	SUBQ	$16, SP
	MOVB	DI, 0(SP)
	MOVQ	·sigpipeFD(SB), DI
	MOVQ	SP, SI
	MOVQ	$1, DX
	MOVQ	$1, AX // SYS_write
	SYSCALL
	ADDQ	$16, SP
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

// func sigjobHandler()
//
// The job-control handler (SIGTSTP, SIGCONT): as sigpipeHandler, to
// sigjobFD.
TEXT ·sigjobHandler(SB),NOSPLIT|NOFRAME,$0-0
	SUBQ	$16, SP
	MOVB	DI, 0(SP)
	MOVQ	·sigjobFD(SB), DI
	MOVQ	SP, SI
	MOVQ	$1, DX
	MOVQ	$1, AX // SYS_write
	SYSCALL
	ADDQ	$16, SP
	RET

// func sigjobPC() uintptr
TEXT ·sigjobPC(SB),NOSPLIT,$0-8
	LEAQ	·sigjobHandler(SB), AX
	MOVQ	AX, ret+0(FP)
	RET
