package main

import (
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A signal pipe replaces os/signal for sbx run: its set-up (signal.Notify)
// starts two runtime threads and makes one synchronous round trip to one
// of them per signal, a tenth of a millisecond of sbx's start-up. Instead
// a handler of a few instructions outside the Go runtime writes the
// signal's number, one byte, to a non-blocking pipe; the executor polls the
// pipe's read end with the command's pipes (Request.CancelFD) and sbx reads
// the number once the run ended.

// sigFDs maps a signal number to the write end of the pipe its handler
// writes to: the cancellation pipe (fastSignals) or the job-control one
// (jobSignals). installRawHandler stores an entry atomically before it
// installs that signal's handler, which reads it.
var sigFDs [65]int64

// sigpipeHandler is the handler (in assembly) of every signal sbx catches
// itself. It is never called from Go.
//
//lint:ignore U1000 defined in assembly, which takes its address
func sigpipeHandler()

// sigpipeRestorer returns from the handler (rt_sigreturn).
//
//lint:ignore U1000 defined in assembly, which takes its address
func sigpipeRestorer()

// sigpipePCs returns the entry points of the handler and the restorer.
func sigpipePCs() (handler, restorer uintptr)

// kernelSigaction is struct sigaction as rt_sigaction takes it on x86-64.
type kernelSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

const (
	saSiginfo  = 0x4
	saRestorer = 0x04000000
	saOnstack  = 0x08000000
	saRestart  = 0x10000000
)

// sigpipe is an installed signal pipe.
type sigpipe struct {
	r, w      int
	installed []syscall.Signal // the signals whose handler it is
}

// sigIgn is SIG_IGN as rt_sigaction reports it.
const sigIgn = 1

// fastSignals installs the handler for sigs, except those that are
// ignored (sbx inherited SIG_IGN: nohup, a shell's background job; the Go
// runtime keeps that for SIGHUP and SIGINT), which stay ignored. It is
// process-wide and stays installed: sbx exits right after the run. The
// pipe's read end is above 2, so that it never collides with a standard
// stream sbx was started without.
func fastSignals(sigs []syscall.Signal) (*sigpipe, bool) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, false
	}
	r, err := unix.FcntlInt(uintptr(p[0]), unix.F_DUPFD_CLOEXEC, 3)
	unix.Close(p[0])
	if err != nil {
		unix.Close(p[1])
		return nil, false
	}
	// The handler must never block: a full pipe drops the byte (the first
	// one is what counts).
	if err := unix.SetNonblock(p[1], true); err != nil {
		unix.Close(r)
		unix.Close(p[1])
		return nil, false
	}
	sp := &sigpipe{r: r, w: p[1]}
	if sp.installed, err = installRawHandler(sp.w, sigs); err != nil {
		// The Go runtime's handler stays for the others: fall back.
		return nil, false
	}
	// Signals that would otherwise end sbx mid-run, without a result or
	// the command's tree reaped, where the Go runtime leaves their
	// default action (32, the first real-time signal, which a program
	// without cgo does not use; 34) or crashes with a traceback
	// (SIGSTKFLT, never a real fault on x86-64): the same handler with no
	// pipe (a write to descriptor -1 fails), so that they are ignored
	// like SIGUSR1, and not with SIG_IGN, which the command would inherit
	// (red team 22). SIGILL and SIGFPE stay the runtime's: a real fault
	// would otherwise repeat forever.
	installRawHandler(-1, []syscall.Signal{32, 34, unix.SIGSTKFLT})
	return sp, true
}

// installRawHandler makes sigpipeHandler, writing to the pipe whose
// write end is fd, the handler of each of sigs that is not ignored (an
// inherited SIG_IGN stays), and returns those it installed; it stops at
// the first failure.
func installRawHandler(fd int, sigs []syscall.Signal) ([]syscall.Signal, error) {
	handler, restorer := sigpipePCs()
	sa := kernelSigaction{handler: handler, flags: saSiginfo | saOnstack | saRestart | saRestorer, restorer: restorer, mask: ^uint64(0)}
	var installed []syscall.Signal
	for _, s := range sigs {
		if s < 1 || int(s) >= len(sigFDs) {
			return installed, unix.EINVAL
		}
		atomic.StoreInt64(&sigFDs[s], int64(fd))
		var old kernelSigaction
		if _, _, e := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(s), 0, uintptr(unsafe.Pointer(&old)), 8, 0, 0); e != 0 {
			return installed, e
		}
		if old.handler == sigIgn {
			continue
		}
		if _, _, e := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(s), uintptr(unsafe.Pointer(&sa)), 0, 8, 0, 0); e != 0 {
			return installed, e
		}
		installed = append(installed, s)
	}
	return installed, nil
}

// caught returns the first signal the pipe holds, 0 if none. It does not
// block.
func (sp *sigpipe) caught() syscall.Signal {
	var b [16]byte
	unix.SetNonblock(sp.r, true)
	if n, _ := unix.Read(sp.r, b[:]); n > 0 {
		return syscall.Signal(b[0])
	}
	return 0
}

// restoreDefaults gives the signals fastSignals caught their default
// action again once the run has ended without one: a signal then ends sbx
// at once, also while it writes its result to a reader that has stopped
// reading. A signal that arrived before stays in the pipe (caught). After
// a run that a signal cancelled, the handlers stay (see runCommandTo).
// Ignored signals were never caught and stay ignored.
func (sp *sigpipe) restoreDefaults() {
	sa := kernelSigaction{handler: 0 /* SIG_DFL */, mask: 0}
	for _, s := range sp.installed {
		unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(s), uintptr(unsafe.Pointer(&sa)), 0, 8, 0, 0)
	}
}

// quitByDefault gives SIGQUIT the kernel's default action (end with a
// core dump, status 131) instead of the Go runtime's, unless it is
// ignored.
func quitByDefault() {
	var old kernelSigaction
	if _, _, e := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(syscall.SIGQUIT), 0, uintptr(unsafe.Pointer(&old)), 8, 0, 0); e != 0 || old.handler == sigIgn {
		return
	}
	sa := kernelSigaction{handler: 0 /* SIG_DFL */}
	unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(syscall.SIGQUIT), uintptr(unsafe.Pointer(&sa)), 0, 8, 0, 0)
}
