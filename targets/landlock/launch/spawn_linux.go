//go:build linux && (amd64 || arm64)

package launch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/internal/starttrace"

	"github.com/sbx-dev/sbx/internal/rawfork"
)

// The sandbox is applied between fork and exec, without a helper process.
//
// Everything the command's confinement needs — user-namespace maps, the
// mount view, Landlock rules, capability drops, the seccomp filter, the
// standard streams — is compiled in sbx into a program: a list of system
// calls with their arguments already in memory. The child of clone3
// (CLONE_VM|CLONE_VFORK, so it shares sbx's memory and sbx's thread waits
// until it execs) runs the list with raw system calls and execs the
// command. It cannot run Go code: it shares the Go runtime's memory but is
// not one of its threads, so it must not allocate, take locks, grow its
// stack or call anything but raw system calls. That is exactly what
// package syscall's own fork does; package rawfork holds the system call
// and the runtime hooks it uses (runtime.syscall_runtime_BeforeFork and
// friends, which the runtime exports for this purpose).
//
// Saving a re-exec of sbx as a helper saves its Go runtime start, a second
// program load and the decoding of the spec: about 2 ms per run here.

const (
	maxSlots = 127 // descriptors a program can hold at once (int8 slots)
	noSlot   = -1
	// nrForkCommand marks the step at which the init (startInit)
	// starts the command's process (see initMain).
	nrForkCommand = ^uintptr(0)
)

// insn is one system call of a program. Descriptors the program creates
// are kept in numbered slots: out stores the result, in substitutes a slot
// into an argument, patch writes a slot as an int32 into memory (a
// descriptor inside a structure, such as Landlock's path_beneath).
type insn struct {
	nr   uintptr
	args [6]uintptr
	// inArg[i] = slot inSlot[i] (when inSlot[i] >= 0).
	inArg  [2]int8
	inSlot [2]int8
	// patchAddr, when not nil, receives slot patchSlot.
	patchAddr unsafe.Pointer
	patchSlot int8
	out       int8
	// okErrno is an error the step tolerates: the program then skips the
	// next skip steps (an optional path that does not exist).
	okErrno uintptr
	skip    int32
	// skipOK is the number of steps skipped when the step succeeds (a
	// fallback the step makes unnecessary).
	skipOK int32
}

// program is a compiled list of system calls with the memory they point to.
type program struct {
	insns []insn
	// what describes each step, for errors: the concatenation of its
	// parts, made only when an error names the step (joining every
	// step's text costs more than the system calls it describes).
	what []desc
	// whatf describes the steps whose description needs formatting.
	whatf map[int]func() string
	keep  []any // memory referenced by uintptr arguments
	// arena holds the NUL-terminated strings the steps point to (str).
	arena []byte
	// recv lists the descriptors of sbx that the init receives into slots
	// before it runs this part (compileCommand).
	recv  []recvFD
	slots int    // slots ever allocated
	free  []int8 // slots released by a close
	// nullStdin is the slot of the null device that the init's part opens
	// for the command's standard input (compileInit), noSlot in others.
	nullStdin int8
	// status is written by the child: the failed step and its errno.
	status *childStatus
	// selfLink receives, in the command's process, the host procfs's
	// /proc/self link before the sandbox's own /proc covers it: the
	// command's process id as sbx sees it (compileInit, commandPid).
	selfLink *[24]byte
	// guardDirs are the directories in which the supervisor refuses
	// guarded names, and their identities as the command's part takes
	// them in the final view before the command runs (compileCommand).
	guardDirs []guardDir
}

// guardDir is a directory the supervisor guards and its stat buffer,
// written by the command's process.
type guardDir struct {
	path string
	st   *unix.Stat_t
}

// errTooManySlots is what slot panics with (see compiled).
var errTooManySlots = errors.New("the sandbox program needs more descriptors at once than it can hold (a profile with over a hundred writable mount points)")

// compiled runs a compile function, turning errTooManySlots into an error.
func compiled(f func() (*program, error)) (p *program, err error) {
	defer func() {
		if r := recover(); r != nil {
			if r != errTooManySlots {
				panic(r)
			}
			p, err = nil, errTooManySlots
		}
	}()
	return f()
}

// recvFD is one of sbx's descriptors and the slot it is received into.
type recvFD struct {
	fd   int
	slot int8
}

type childStatus struct {
	step  int64 // index of the failed step, -1 when none failed
	errno int64
	part  int64 // the init's program: the part of the failed step (0, 1)
}

// desc is a step's description in up to three parts (see program.what).
type desc struct{ a, b, c string }

func newProgram() *program {
	// Sized for a typical profile's part (about 100 steps): growing the
	// step list copies it.
	return &program{status: &childStatus{step: -1}, nullStdin: noSlot, insns: make([]insn, 0, 128), what: make([]desc, 0, 128), keep: make([]any, 0, 64)}
}

// arenaChunk is the size of the blocks str copies strings into.
const arenaChunk = 4 << 10

// str returns a NUL-terminated copy of s kept alive by the program. The
// copies share blocks that are never reallocated (their addresses are in
// the steps), one allocation for most programs.
func (p *program) str(s string) uintptr {
	n := len(s) + 1
	if n > cap(p.arena)-len(p.arena) {
		if n > arenaChunk/4 {
			b := make([]byte, n)
			copy(b, s)
			p.keep = append(p.keep, b)
			return uintptr(unsafe.Pointer(&b[0]))
		}
		p.arena = make([]byte, 0, arenaChunk)
		p.keep = append(p.keep, p.arena)
	}
	at := len(p.arena)
	p.arena = append(p.arena, s...)
	p.arena = append(p.arena, 0)
	return uintptr(unsafe.Pointer(&p.arena[at]))
}

// mem keeps v alive and returns its address.
func (p *program) mem(v any, ptr unsafe.Pointer) uintptr {
	p.keep = append(p.keep, v)
	return uintptr(ptr)
}

// slot allocates a descriptor slot.
func (p *program) slot() int8 {
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		return s
	}
	if p.slots >= maxSlots {
		panic(errTooManySlots)
	}
	p.slots++
	return int8(p.slots - 1)
}

// closeSlot appends close(slot) and releases the slot.
func (p *program) closeSlot(s int8) {
	p.call("close", unix.SYS_CLOSE, 0).from(0, s)
	p.free = append(p.free, s)
}

// describe returns step i's description.
func (p *program) describe(i int) string {
	if f := p.whatf[i]; f != nil {
		return f()
	}
	d := p.what[i]
	return d.a + d.b + d.c
}

// callf is call with a description formatted on demand.
func (p *program) callf(what func() string, nr uintptr, args ...uintptr) *insn {
	if p.whatf == nil {
		p.whatf = map[int]func() string{}
	}
	p.whatf[len(p.insns)] = what
	return p.call("", nr, args...)
}

// call appends a system call and returns it for further settings.
func (p *program) call(what string, nr uintptr, args ...uintptr) *insn {
	return p.call3(what, "", "", nr, args...)
}

// call3 is call with a description in three parts, joined only when an
// error names the step.
func (p *program) call3(a, b, c string, nr uintptr, args ...uintptr) *insn {
	in := insn{nr: nr, inArg: [2]int8{-1, -1}, inSlot: [2]int8{noSlot, noSlot}, patchSlot: noSlot, out: noSlot}
	copy(in.args[:], args)
	p.insns = append(p.insns, in)
	p.what = append(p.what, desc{a, b, c})
	return &p.insns[len(p.insns)-1]
}

// from makes argument arg the descriptor of slot s.
func (in *insn) from(arg int, s int8) *insn {
	i := 0
	if in.inSlot[0] != noSlot {
		i = 1
	}
	in.inArg[i], in.inSlot[i] = int8(arg), s
	return in
}

// into stores the result in slot s.
func (in *insn) into(s int8) *insn { in.out = s; return in }

// tolerate lets the step fail with errno, skipping the next n steps.
// anyErrno, as a step's tolerated errno, tolerates every error (a step
// whose result is only informative).
const anyErrno = ^uintptr(0)

func (in *insn) tolerate(errno syscall.Errno, n int) *insn {
	in.okErrno, in.skip = uintptr(errno), int32(n)
	return in
}

// orElse makes the next n steps a fallback that runs only when this step
// fails with errno (which it then tolerates).
func (in *insn) orElse(errno syscall.Errno, n int) *insn {
	in.okErrno, in.skipOK = uintptr(errno), int32(n)
	return in
}

// run makes the step's system call with the descriptors of slots
// substituted and patched in, and stores its result in slots. It runs in
// the children of spawn and startInit: nosplit, no allocation.
//
//go:nosplit
//go:norace
//go:nocheckptr
func (in *insn) run(slots *slotTable) syscall.Errno {
	// The indexes are masked so that the compiler proves them in range:
	// a bounds check would call the runtime's panic path, which this
	// nosplit code cannot afford (validate has checked them anyway).
	a := in.args
	if in.inSlot[0] >= 0 {
		a[uint8(in.inArg[0])%6] = slots[uint8(in.inSlot[0])&slotMask]
	}
	if in.inSlot[1] >= 0 {
		a[uint8(in.inArg[1])%6] = slots[uint8(in.inSlot[1])&slotMask]
	}
	if in.patchAddr != nil {
		*(*int32)(in.patchAddr) = int32(slots[uint8(in.patchSlot)&slotMask])
	}
	r, _, e := syscall.RawSyscall6(in.nr, a[0], a[1], a[2], a[3], a[4], a[5])
	if e == 0 && in.out >= 0 {
		slots[uint8(in.out)&slotMask] = r
	}
	return e
}

// slotTable holds a program's descriptor slots (maxSlots are used; the
// length is a power of two so that masked indexes need no bounds check).
type slotTable [slotMask + 1]uintptr

// slotMask masks a slot index into a slotTable.
const slotMask = 127

// spawnError is a failed step of the program in the child.
type spawnError struct {
	Step  string
	Errno syscall.Errno
	// Exec is set when the step that failed is the final execve: the
	// command itself could not be executed.
	Exec bool
}

func (e *spawnError) Error() string {
	return fmt.Sprintf("%s: %v", e.Step, e.Errno)
}

func (e *spawnError) Unwrap() error { return e.Errno }

// spawn runs p in a new child created with clone3(flags, cgroup) and
// returns its pid and a pidfd. The program must end with execve; if a step
// fails, the child records it and exits, and spawn returns a *spawnError.
// It must be called on a locked OS thread when the child uses
// PR_SET_PDEATHSIG (the signal follows the thread that forked).
func spawn(p *program, flags uint64, cgroupFD int) (pid int, pidfd int, err error) {
	if len(p.insns) == 0 {
		return 0, -1, fmt.Errorf("empty program")
	}
	if err := validate(p); err != nil {
		return 0, -1, err
	}
	// The kernel writes the pidfd at an address taken here, before calls
	// that may move this goroutine's stack: both objects must be on the
	// heap (keep makes them escape; a uintptr alone does not).
	pidfd32 := new(int32)
	*pidfd32 = -1
	args := &rawfork.CloneArgs{
		Flags:      flags | unix.CLONE_VM | unix.CLONE_VFORK | unix.CLONE_PIDFD,
		Pidfd:      uint64(uintptr(unsafe.Pointer(pidfd32))),
		ExitSignal: uint64(unix.SIGCHLD),
	}
	p.keep = append(p.keep, pidfd32, args)
	if cgroupFD >= 0 {
		args.Flags |= unix.CLONE_INTO_CGROUP
		args.Cgroup = uint64(cgroupFD)
	}
	// Descriptors must not be created without close-on-exec while the
	// child copies the table (package syscall's rule for forks).
	syscall.ForkLock.Lock()
	r, errno := forkRun(args, &p.insns[0], len(p.insns), p.status)
	rawfork.AfterFork()
	syscall.ForkLock.Unlock()
	runtime.KeepAlive(p)
	runtime.KeepAlive(args)
	if errno != 0 {
		return 0, -1, syscall.Errno(errno)
	}
	pid = int(r)
	if p.status.step >= 0 {
		// The child failed and exited: reap it here so no zombie is left.
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				break
			}
		}
		unix.Close(int(*pidfd32))
		step := int(p.status.step)
		return 0, -1, &spawnError{Step: p.describe(step), Errno: syscall.Errno(p.status.errno), Exec: step == len(p.insns)-1}
	}
	return pid, int(*pidfd32), nil
}

// forkRun clones and, in the child, runs the program; it returns only in
// the parent. Between rawfork.BeforeFork and the end of the child nothing
// may allocate, lock, grow the stack or call a function that is not a raw
// system call (see package syscall's forkAndExecInChild1). Every variable
// the child uses is declared before the fork.
//
//go:noinline
//go:norace
//go:nocheckptr
func forkRun(args *rawfork.CloneArgs, first *insn, n int, status *childStatus) (pid uintptr, errno uintptr) {
	var (
		slots slotTable
		i     int
		in    *insn
		e     syscall.Errno
		size  = unsafe.Sizeof(insn{})
	)
	rawfork.BeforeFork()
	pid, errno = rawfork.Vfork(unix.SYS_CLONE3, uintptr(unsafe.Pointer(args)), unsafe.Sizeof(*args), 0)
	if errno != 0 || pid != 0 {
		return // the parent (after the child exec'd or exited)
	}
	// The child.
	rawfork.AfterForkInChild()
	for i = 0; i < n; i++ {
		in = (*insn)(unsafe.Add(unsafe.Pointer(first), uintptr(i)*size))
		if e = in.run(&slots); e == 0 {
			i += int(in.skipOK)
		} else {
			if uintptr(e) == in.okErrno || in.okErrno == anyErrno {
				i += int(in.skip)
				continue
			}
			status.errno = int64(e)
			status.step = int64(i)
			for {
				syscall.RawSyscall(unix.SYS_EXIT_GROUP, 125, 0, 0)
			}
		}
	}
	// The program ends with execve, which only returns on failure.
	status.errno = int64(syscall.ENOEXEC)
	status.step = int64(n - 1)
	for {
		syscall.RawSyscall(unix.SYS_EXIT_GROUP, 125, 0, 0)
	}
}

// startInit creates the sandbox's init: a child of clone3(flags, cgroup)
// that shares sbx's memory on a stack of its own (initMain) and is the
// init (PID 1) of the namespaces flags create. It is started before its
// program exists, so that the kernel creates the namespaces and copies the
// mount table (a few tenths of a millisecond) while sbx binds the profile
// and compiles the program; the init waits on its control socket.
//
// The program comes in three parts. sendPre gives it the first (the
// prebuilt mask of /dev, if any, the init's session and network namespace,
// the capabilities' bounding set), which it runs as soon as its namespaces
// exist, and which ends with the start of the command's process (a
// vfork-style clone of the init, on its stack). That process receives the
// other two: sendInit's, the init's part (compileInit: maps, mounts), which
// it runs at once, and runCommand's, the command's part (compileCommand)
// with the descriptors that part names, sent over the socket, which it
// places in slots, runs, and execs. The init, resumed, stays as init: it
// reaps every process of the namespace and, when the command ends, kills
// and reaps what is left, reports the end and exits with the command's
// status. The command thus has ordinary signal semantics (kill -TERM $$,
// abort), which PID 1 would not. Both tasks end when sbx sends 'x'
// (abort), closes the socket or dies.
//
// The handle's status file carries, once the command runs, the init's end
// report (endReport): the command's wait status, written once the command
// and everything it started are gone, before the init exits with the
// command's code, or 128+N when it died of signal N (an init cannot die of
// the command's signal).
func startInit(flags uint64, cgroupFD int) (*initHandle, error) {
	var pipe [2]int
	if err := unix.Pipe2(pipe[:], unix.O_CLOEXEC); err != nil {
		return nil, fmt.Errorf("pipe: %w", err)
	}
	ctl, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		unix.Close(pipe[0])
		unix.Close(pipe[1])
		return nil, fmt.Errorf("socketpair: %w", err)
	}
	// The init watches sbx through a pidfd (readable once sbx has exited):
	// until its parent-death signal is set, and while it waits for its
	// program, it has no other way to learn that sbx died. (The end of a
	// pipe or socket would not do: every init cloned meanwhile by another
	// run of this process holds a copy of every descriptor.)
	self, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		for _, fd := range []int{pipe[0], pipe[1], ctl[0], ctl[1]} {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("pidfd_open(sbx): %w", err)
	}
	unix.CloseOnExec(self)
	// The init's stack is Go memory (pointer-free, so never scanned), kept
	// alive by the handle until the init has been reaped. Unlike an mmap'd
	// stack it needs no munmap, whose TLB shootdown interrupts every CPU
	// running sbx's threads.
	stack := make([]byte, initStackSize)
	// The kernel writes the pidfd at an address taken here, before calls
	// that may move this goroutine's stack: the slot and clone_args must
	// be on the heap (f holds them; a uintptr alone does not make them
	// escape).
	f := &initFile{stack: stack, pidfd: new(int32)}
	*f.pidfd = -1
	// The mount and IPC namespaces are the init's to create (unshare, its
	// first step): copying the mount table takes a few tenths of a
	// millisecond, which clone3 would spend in sbx's thread and the init
	// spends while sbx goes on.
	unshare := flags & (unix.CLONE_NEWNS | unix.CLONE_NEWIPC)
	f.cargs = &rawfork.CloneArgs{
		Flags:      flags&^unshare | unix.CLONE_PIDFD,
		Pidfd:      uint64(uintptr(unsafe.Pointer(f.pidfd))),
		ExitSignal: uint64(unix.SIGCHLD),
	}
	if cgroupFD >= 0 {
		f.cargs.Flags |= unix.CLONE_INTO_CGROUP
		f.cargs.Cgroup = uint64(cgroupFD)
	}
	// The init shares sbx's memory (no copy of sbx's pages, none to copy
	// back on write) on a stack of its own.
	f.cargs.Flags |= unix.CLONE_VM
	f.cargs.Stack = uint64(uintptr(unsafe.Pointer(&stack[0])))
	f.cargs.StackSize = initStackSize
	a := &initArgs{
		pipeW:   pipe[1],
		pipeR:   pipe[0],
		ctl:     ctl[1],
		ctlPeer: ctl[0],
		sbx:     self,
		dargs:   &rawfork.CloneArgs{Flags: unix.CLONE_VM | unix.CLONE_VFORK, ExitSignal: uint64(unix.SIGCHLD)},
		st:      childStatus{step: -1},
		unshare: uintptr(unshare),
		root:    [2]byte{'/', 0},
		tags:    [2]byte{'p', 'i'},
	}
	a.iov.Base = &a.data[0]
	a.iov.SetLen(1)
	a.msg.Iov, a.msg.Iovlen = &a.iov, 1
	a.msg.Control = &a.oob[0]
	a.msg.SetControllen(len(a.oob))
	a.pfd[0] = unix.PollFd{Fd: int32(ctl[1]), Events: unix.POLLIN}
	a.pfd[1] = unix.PollFd{Fd: int32(self), Events: unix.POLLIN}
	f.args = a
	// Go's signal handlers must never run in the init or the command's
	// process (they share sbx's memory): CLONE_CLEAR_SIGHAND (Linux 5.5)
	// gives the init default dispositions for every handled signal (an
	// ignored one stays ignored, as across os/exec). Older kernels refuse
	// the flag: the init then resets the handlers itself, one system call
	// per signal.
	f.cargs.Flags |= unix.CLONE_CLEAR_SIGHAND
	r, errno := cloneInit(f.cargs, a)
	if errno == uintptr(unix.EINVAL) {
		f.cargs.Flags &^= unix.CLONE_CLEAR_SIGHAND
		a.resetSignals = true
		r, errno = cloneInit(f.cargs, a)
	}
	if errno == 0 {
		steerInit(int(r), a)
	}
	unix.Close(pipe[1])
	unix.Close(ctl[1])
	unix.Close(self)
	if errno != 0 {
		unix.Close(pipe[0])
		unix.Close(ctl[0])
		return nil, syscall.Errno(errno)
	}
	f.File = os.NewFile(uintptr(pipe[0]), "sbx-init-status")
	return &initHandle{pid: int(r), ctl: ctl[0], f: f}, nil
}

// steerInit moves the new init off the CPU of the thread that cloned it,
// where it would wait for that thread. The kernel mostly queues a new task
// on its parent's CPU, and does not preempt the parent for it: sbx, busy
// binding the profile, kept the init from running for 0.25 ms in the
// median of 30 traced runs here (up to 1.9 ms), while the other CPU was
// idle but for the runtime's sysmon, whose wake-ups every few tens of
// microseconds keep that CPU from pulling the waiting task (a CPU that is
// idle only briefly skips that balancing). Restricting the init's
// affinity to the other CPUs moves it there at once; the init restores the
// mask it inherited (a.affinity) as soon as its first part has come, which
// sbx sends after this call, so that the command's process, which the
// init's first part starts, inherits sbx's own mask. With a single CPU
// allowed, or if a call fails, nothing is changed: the init only runs
// later.
func steerInit(pid int, a *initArgs) {
	if unix.SchedGetaffinity(0, &a.affinity) != nil || a.affinity.Count() < 2 {
		return
	}
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 || int(cpu) >= 8*int(unsafe.Sizeof(a.affinity)) || !a.affinity.IsSet(int(cpu)) {
		return
	}
	other := a.affinity
	other.Clear(int(cpu))
	a.steered = unix.SchedSetaffinity(pid, &other) == nil
}

// initHandle is an init started by startInit that has not yet been given
// the command's part of its program.
type initHandle struct {
	pid  int
	ctl  int // sbx's end of the control socket, -1 once closed
	f    *initFile
	pre  *program // the first part, once sent
	init *program // the init's part, once sent
	done bool
}

// validate checks that p's steps only name slots p allocated.
func validate(p *program) error {
	for i := range p.insns {
		in := &p.insns[i]
		if int(in.skip) > len(p.insns)-1-i || int(in.skipOK) > len(p.insns)-1-i || int(in.out) >= p.slots || int(in.inSlot[0]) >= p.slots ||
			int(in.inSlot[1]) >= p.slots || int(in.patchSlot) >= p.slots {
			return fmt.Errorf("invalid program step %d (%s)", i, p.describe(i))
		}
	}
	return nil
}

// sendPre completes p, the first part of the init's program, with what
// only the init itself can do (its session when setsid is set, its
// network namespace when newNet is), the first steps of dropping the
// capabilities (compileBoundingDrop), and the start of the command's
// process, then publishes it and lets the init run it once its
// namespaces exist. It comes right after startInit, so that its
// compilation overlaps with the kernel's creation of the namespaces.
//
// The command's process (a vfork of the init) starts there, before the
// init's part arrives, so that the wake-up of its first scheduling
// overlaps with sbx binding the profile: it runs the init's part and the
// command's part, and execs. The init's part is what the namespaces share
// (their maps, the mounts) and what the memory shares (dumpable), so
// the command's process may run it for the init.
func (h *initHandle) sendPre(p *program, lastCap int, setsid, newNet bool) error {
	if h.pre != nil {
		return fmt.Errorf("the sandbox's init was already given its first part")
	}
	for i := range p.insns {
		if p.insns[i].nr == nrForkCommand {
			return fmt.Errorf("the init's first part starts the command already")
		}
	}
	if setsid {
		p.call("setsid", unix.SYS_SETSID)
	}
	if newNet {
		// It has every capability in its user namespace.
		p.call("unshare(CLONE_NEWNET)", unix.SYS_UNSHARE, unix.CLONE_NEWNET)
	}
	compileBoundingDrop(p, lastCap)
	p.call("starting the command's process", nrForkCommand)
	if err := validate(p); err != nil {
		return err
	}
	h.pre = p
	h.f.preProg = p
	if len(p.insns) > 0 {
		h.f.args.parts[partPre] = progPart{first: &p.insns[0], n: len(p.insns)}
	}
	unix.Sendto(h.ctl, []byte{'p'}, unix.MSG_NOSIGNAL, nil)
	return nil
}

// sendInit publishes the init's part of the program and lets the init run
// it (the socket orders the writes before its reads). The first part must
// have been sent.
func (h *initHandle) sendInit(p *program) error {
	if h.pre == nil {
		return fmt.Errorf("the sandbox's init was not given its first part")
	}
	if err := validate(p); err != nil {
		return err
	}
	for i := range p.insns {
		if p.insns[i].nr == nrForkCommand {
			return fmt.Errorf("the init's part starts the command")
		}
	}
	h.init = p
	h.f.initProg = p
	if len(p.insns) > 0 {
		h.f.args.parts[partInit] = progPart{first: &p.insns[0], n: len(p.insns)}
	}
	// An init that failed to create its namespaces has exited: the send
	// fails, and the report read by runCommand says why.
	unix.Sendto(h.ctl, []byte{'i'}, unix.MSG_NOSIGNAL, nil)
	return nil
}

// abort ends an init that has not started the command: EOF on its socket
// makes it exit (the init's part may have run); it is reaped here, which
// frees its stack.
func (h *initHandle) abort() {
	if h.done {
		return
	}
	h.done = true
	// Not EOF alone: another init cloned meanwhile may hold a copy of
	// this end of the socket.
	unix.Sendto(h.ctl, []byte{'x'}, unix.MSG_NOSIGNAL, nil)
	unix.Close(h.ctl)
	reapInit(h.pid)
	unix.Close(int(*h.f.pidfd))
	h.f.release()
}

// runCommand sends the command's part of the program, with the
// descriptors it receives, and returns once the command has exec'd (or
// with a *spawnError naming the failed step). The handle is spent.
func (h *initHandle) runCommand(p *program) (pid int, pidfd int, status *initFile, err error) {
	fail := func(err error) (int, int, *initFile, error) {
		h.abort()
		return 0, -1, nil, err
	}
	if h.done {
		return 0, -1, nil, fmt.Errorf("the sandbox's init was already used")
	}
	if h.init == nil {
		if err := h.sendInit(newProgram()); err != nil {
			return fail(err)
		}
	}
	if err := validate(p); err != nil {
		return fail(err)
	}
	for i := range p.insns {
		if p.insns[i].nr == nrForkCommand {
			return fail(fmt.Errorf("the command's part starts the command again"))
		}
	}
	a := h.f.args
	fds := make([]int, len(p.recv))
	for i, r := range p.recv {
		fds[i] = r.fd
		a.recvSlot[i] = r.slot
	}
	a.nrecv = len(p.recv)
	// Publish the command's part, then send it with its descriptors.
	h.f.prog = p
	a.parts[partCommand] = progPart{first: &p.insns[0], n: len(p.insns)}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	h.done = true
	// A failed send (the init already failed its part and exited) is
	// reported by the init's status below.
	unix.SendmsgN(h.ctl, []byte{'c'}, oob, nil, unix.MSG_NOSIGNAL)
	unix.Close(h.ctl)
	f := h.f
	var rep childStatus
	n, rerr := io.ReadFull(f, unsafe.Slice((*byte)(unsafe.Pointer(&rep)), unsafe.Sizeof(rep)))
	if rerr != nil || n != int(unsafe.Sizeof(rep)) || rep.step >= 0 {
		ws := reapInit(h.pid)
		unix.Close(int(*f.pidfd))
		f.release() // reaped: its stack is free
		if rerr == nil && rep.part == partUnshare {
			what := "creating the mount and IPC namespaces (unshare)"
			if rep.step == 1 {
				what = "making / private"
			}
			return 0, -1, nil, &spawnError{Step: what, Errno: syscall.Errno(rep.errno)}
		}
		part := p
		switch rep.part {
		case partPre:
			part = h.pre
		case partInit:
			part = h.init
		}
		if rerr != nil || part == nil || rep.step < 0 || int(rep.step) >= len(part.insns) {
			return 0, -1, nil, fmt.Errorf("the sandbox's init exited before the command started (%v)", ws)
		}
		step := int(rep.step)
		return 0, -1, nil, &spawnError{Step: part.describe(step), Errno: syscall.Errno(rep.errno), Exec: part == p && step == len(p.insns)-1}
	}
	return h.pid, int(*f.pidfd), f, nil
}

// reapInit waits for the init, which has exited or is exiting.
func reapInit(pid int) syscall.WaitStatus {
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			return ws
		}
	}
}

// cloneInit runs clone3 for startInit.
func cloneInit(args *rawfork.CloneArgs, ia *initArgs) (r, errno uintptr) {
	syscall.ForkLock.Lock()
	// BeforeFork blocks every signal on this thread: the init inherits the
	// mask, so no Go handler can run in it, and it keeps them all blocked.
	rawfork.BeforeFork()
	r, errno = rawCloneInit(uintptr(unsafe.Pointer(args)), unsafe.Sizeof(*args), uintptr(unsafe.Pointer(ia)))
	rawfork.AfterFork()
	syscall.ForkLock.Unlock()
	return r, errno
}

// initFile is the read end of an init's status pipe, with the init's stack
// and the memory it reads, which must outlive it.
type initFile struct {
	*os.File
	stack    []byte
	args     *initArgs
	preProg  *program
	initProg *program
	prog     *program
	cargs    *rawfork.CloneArgs
	pidfd    *int32
}

// release closes the pipe and lets the init's stack and the memory it
// read go. Only once the init has been reaped: until then it may still run
// on that stack, which must not be freed.
func (f *initFile) release() {
	f.File.Close()
	f.stack, f.args, f.preProg, f.initProg, f.prog, f.cargs = nil, nil, nil, nil, nil, nil
}

// rawCloneInit is clone3 with a stack of its own for the child, which calls
// initMain(arg) there (see vfork_linux_*.s); arg is an *initArgs.
func rawCloneInit(args, size, arg uintptr) (r1, errno uintptr)

// initArgs is what the init reads and writes in sbx's memory, which it
// shares (CLONE_VM). It is kept alive until the init has been reaped.
type initArgs struct {
	parts [3]progPart // the prebuilt part, the init's part, the command's part
	// st is the failed step, reported on the status pipe (pipeW).
	st childStatus
	// end is the final report (see initMain), written on the status pipe
	// once the command and everything it started are gone.
	end endReport
	// ws2, lo and hi are initMain's (its stack frame has no room left
	// under the nosplit limit): the status of what it reaps at the end,
	// the descriptors it keeps.
	ws2    uint32
	lo, hi uintptr
	// linger keeps the init, once it reported the end, until sbx has
	// exited (see initLinger); set by Spawn before the command's part.
	linger bool
	pipeW  int
	pipeR  int // sbx's end: the init closes its copy
	// sbx is a pidfd of sbx, watched while the init waits (see startInit).
	sbx int
	pfd [2]unix.PollFd
	// ctl is where the init receives its parts (ctlPeer, sbx's end, is
	// closed in the init first): one byte for the first part (tags[0]) and
	// one for the init's (tags[1]), one byte and nrecv descriptors for the
	// command's, placed in recvSlot.
	ctl, ctlPeer int
	msg          unix.Msghdr
	iov          unix.Iovec
	data         [1]byte
	oob          [cmsgSpaceRecv]byte
	nrecv        int
	recvSlot     [maxRecvFDs]int8
	dargs        *rawfork.CloneArgs
	// unshare is what the init creates first (unshare(2)); with a mount
	// namespace, it makes "/" private (empty and root are the strings).
	unshare     uintptr
	empty, root [2]byte
	// resetSignals makes the init reset every handler (no
	// CLONE_CLEAR_SIGHAND).
	resetSignals bool
	// affinity is the CPU mask the init inherited, which it restores once
	// its first part has come when sbx steered it off sbx's CPU (steered:
	// see steerInit).
	affinity unix.CPUSet
	steered  bool
	// tags are the bytes that announce the first two parts.
	tags  [2]byte
	slots slotTable
}

// endReport is the init's last word: the command's wait status.
type endReport struct {
	magic  uint32
	status uint32
}

// endMagic marks an endReport.
const endMagic = 0x5b78e9d0

// progPart is one part of the init's program, in sbx's memory.
type progPart struct {
	first *insn
	n     int
}

const (
	// The parts of the init's program, and in a report partUnshare: the
	// init failed to create its namespaces.
	partPre     = 0
	partInit    = 1
	partCommand = 2
	partUnshare = 3
	// maxRecvFDs bounds the descriptors the command's part receives.
	maxRecvFDs = 8
	// cmsgSpaceRecv is CMSG_SPACE(maxRecvFDs * 4).
	cmsgSpaceRecv = 16 + 4*maxRecvFDs
)

// initWait blocks the init until its control socket is readable; it ends
// the init when sbx has exited first. Like initMain, it runs on the
// init's stack and makes raw system calls only.
//
//go:nosplit
//go:norace
//go:nocheckptr
//lint:ignore U1000 entered from assembly (vfork_linux_*.s)
func initWait(a *initArgs) {
	for {
		a.pfd[0].Revents, a.pfd[1].Revents = 0, 0
		_, _, e := syscall.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&a.pfd[0])), 2, 0, 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 || a.pfd[1].Revents != 0 {
			initAbandon(a)
		}
		if a.pfd[0].Revents != 0 {
			return
		}
	}
}

// initAbandon ends the task: the run was abandoned ('x' or EOF on the
// control socket), sbx has exited, or the socket carried something else.
// The command's process (which waits for the init's and the command's
// parts) ends here too: the init, resumed, must see a failure, and then
// exits after its report.
//
//go:nosplit
//go:norace
//go:nocheckptr
//lint:ignore U1000 entered from assembly (vfork_linux_*.s)
func initAbandon(a *initArgs) {
	a.st.errno, a.st.step, a.st.part = int64(syscall.ECANCELED), 0, partInit
	for {
		syscall.RawSyscall(unix.SYS_EXIT_GROUP, 125, 0, 0)
	}
}

// initStackSize is the init's stack: initMain and the raw system calls
// it makes, nothing more.
const initStackSize = 64 << 10

// sigaction is struct sigaction as rt_sigaction takes it (all zero:
// SIG_DFL, no flags, an empty mask).
type sigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

// initMain is the init: a task that shares sbx's memory (CLONE_VM) but not
// its threads, on a stack of its own, running concurrently with the Go
// runtime. It may only make raw system calls: no allocation, no lock, no
// write of a pointer, no stack check (nosplit: the goroutine's stack
// bounds in g are not this stack's), and it must not run a Go signal
// handler, so every signal stays blocked (as sbx's thread had them when
// it cloned) and every handler is reset first. It runs the program's first
// part, starts the command's process (a vfork of itself, on this stack,
// which runs the rest and execs), reports to sbx, then reaps until the
// command ends.
//
//go:nosplit
//go:norace
//go:nocheckptr
//lint:ignore U1000 entered from assembly (vfork_linux_*.s)
func initMain(a *initArgs) {
	var (
		i       int
		in      *insn
		r       uintptr
		e       syscall.Errno
		cmd     uintptr // the command's pid, in the namespace
		derr    uintptr
		command bool // this task is the command's process
		failed  bool // a step failed
		part    int
		ws      uint32
		sig     [1]byte
		mask    uint64    // SIGCHLD, SIGTERM, SIGINT, SIGHUP
		sfd     uintptr   // their signalfd
		info    [128]byte // struct signalfd_siginfo
		wflags  uintptr
		signo   uint32
		pipeW   = uintptr(a.pipeW)
		dfl     sigaction
	)
	// Without CLONE_CLEAR_SIGHAND, Go's handlers are installed in this
	// task's copy of the table: reset them (signals are blocked, none can
	// have run yet).
	for i = 1; a.resetSignals && i <= 64; i++ {
		if i != int(unix.SIGKILL) && i != int(unix.SIGSTOP) {
			syscall.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(i), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
		}
	}
	// The parts of the program come on the control socket: 'p', 'i', then
	// 'c' with the command's descriptors. Anything else ('x': the run was
	// abandoned), or sbx's exit, ends the init.
	syscall.RawSyscall(unix.SYS_CLOSE, uintptr(a.ctlPeer), 0, 0)
	syscall.RawSyscall(unix.SYS_CLOSE, uintptr(a.pipeR), 0, 0)
	// The init relies on these: a caller of sbx's that ignores them
	// (CLONE_CLEAR_SIGHAND keeps SIG_IGN) would have the kernel discard
	// them (SIGCHLD ignored: children reaped unseen, the wait never ends).
	syscall.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(unix.SIGCHLD), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	syscall.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(unix.SIGTERM), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	syscall.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(unix.SIGINT), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	syscall.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(unix.SIGHUP), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	if a.unshare != 0 {
		if _, _, e = syscall.RawSyscall(unix.SYS_UNSHARE, a.unshare, 0, 0); e != 0 {
			a.st.errno, a.st.step, a.st.part = int64(e), 0, partUnshare
			failed = true
		}
		// Nothing mounted here may propagate to the host: "/" becomes
		// private, recursively, before the program exists.
		if !failed && a.unshare&unix.CLONE_NEWNS != 0 {
			if _, _, e = syscall.RawSyscall6(unix.SYS_MOUNT, uintptr(unsafe.Pointer(&a.empty[0])), uintptr(unsafe.Pointer(&a.root[0])), 0, unix.MS_REC|unix.MS_PRIVATE, 0, 0); e != 0 {
				a.st.errno, a.st.step, a.st.part = int64(e), 1, partUnshare
				failed = true
			}
		}
	}
	// The init runs the first part, which ends with the start of the
	// command's process; that process runs the other parts. (A vfork: the
	// init is suspended until it has exec'd or exited.)
	for part = 0; part < 3 && !failed && (command || cmd == 0); part++ {
		if part < partCommand {
			// 'p' then 'i': the first part, then the init's.
			initWait(a)
			r, _, e = syscall.RawSyscall(unix.SYS_READ, uintptr(a.ctl), uintptr(unsafe.Pointer(&sig[0])), 1)
			if e != 0 || r != 1 || sig[0] != a.tags[part&1] {
				initAbandon(a)
			}
			if part == partPre && a.steered {
				// sbx steered the init off its CPU before it sent the
				// first part: the init and the command's process get
				// sbx's mask back (a failure leaves them on the others).
				syscall.RawSyscall(unix.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(a.affinity), uintptr(unsafe.Pointer(&a.affinity)))
			}
		}
		if part == partCommand {
			// The command's part, with its descriptors (close-on-exec),
			// received by the command's process into its own table (the
			// init never holds them).
			initWait(a)
			r, _, e = syscall.RawSyscall(unix.SYS_RECVMSG, uintptr(a.ctl), uintptr(unsafe.Pointer(&a.msg)), unix.MSG_CMSG_CLOEXEC)
			if e != 0 || r != 1 || a.data[0] != 'c' || a.msg.Flags&unix.MSG_CTRUNC != 0 {
				initAbandon(a)
			}
			if a.nrecv > 0 {
				h := (*unix.Cmsghdr)(unsafe.Pointer(&a.oob[0]))
				if a.msg.Controllen < uint64(unix.CmsgLen(4*a.nrecv)) || h.Level != unix.SOL_SOCKET || h.Type != unix.SCM_RIGHTS || h.Len != uint64(unix.CmsgLen(4*a.nrecv)) {
					initAbandon(a)
				}
			}
			// (Indexes masked, or computed with unsafe, so that no bounds
			// check calls the runtime's panic path: see insn.run.)
			for i = 0; i < a.nrecv && i < maxRecvFDs; i++ {
				r = uintptr(*(*int32)(unsafe.Add(unsafe.Pointer(&a.oob[0]), unix.CmsgLen(4*i))))
				if r < 3 {
					// Above the standard streams, which the command's part
					// overwrites (sbx may run without them open).
					r, _, e = syscall.RawSyscall(unix.SYS_FCNTL, r, unix.F_DUPFD_CLOEXEC, 3)
					if e != 0 {
						initAbandon(a)
					}
				}
				a.slots[uint8(a.recvSlot[i&(maxRecvFDs-1)])&slotMask] = r
			}
			syscall.RawSyscall(unix.SYS_CLOSE, uintptr(a.ctl), 0, 0)
		}
		for i = 0; i < a.parts[part].n; i++ {
			in = (*insn)(unsafe.Add(unsafe.Pointer(a.parts[part].first), uintptr(i)*unsafe.Sizeof(insn{})))
			if in.nr == nrForkCommand {
				cmd, derr = rawfork.Vfork(unix.SYS_CLONE3, uintptr(unsafe.Pointer(a.dargs)), unsafe.Sizeof(*a.dargs), 0)
				if derr != 0 {
					a.st.errno, a.st.step, a.st.part = int64(derr), int64(i), int64(part)
					failed = true
					break
				}
				if cmd != 0 {
					// The init, after the command's exec (or exit). The
					// command ran on this stack frame and changed its
					// variables: only cmd and derr (just returned) and what
					// it never writes (a, pipeW, ws, ...) are used from here
					// on.
					command = false
					break
				}
				command = true
				continue
			}
			if e = in.run(&a.slots); e == 0 {
				i += int(in.skipOK)
			} else {
				if uintptr(e) == in.okErrno || in.okErrno == anyErrno {
					i += int(in.skip)
					continue
				}
				a.st.errno, a.st.step, a.st.part = int64(e), int64(i), int64(part)
				if command {
					// The init reads the status it shares with this process.
					for {
						syscall.RawSyscall(unix.SYS_EXIT_GROUP, 125, 0, 0)
					}
				}
				failed = true
				break
			}
		}
	}
	if command {
		// The program ends with execve, which only returns on failure.
		a.st.errno, a.st.step, a.st.part = int64(syscall.ENOEXEC), int64(a.parts[partCommand].n-1), partCommand
		for {
			syscall.RawSyscall(unix.SYS_EXIT_GROUP, 125, 0, 0)
		}
	}
	// Report. A report sbx cannot read means sbx is gone: end the sandbox.
	r, _, e = syscall.RawSyscall(unix.SYS_WRITE, pipeW, uintptr(unsafe.Pointer(&a.st)), unsafe.Sizeof(a.st))
	if e != 0 || r != unsafe.Sizeof(a.st) || a.st.step >= 0 {
		for {
			syscall.RawSyscall(unix.SYS_EXIT_GROUP, 125, 0, 0)
		}
	}
	// Nothing of sbx's but the status pipe and sbx's pidfd stays open in
	// the init.
	a.lo, a.hi = pipeW, uintptr(a.sbx)
	if a.lo > a.hi {
		a.lo, a.hi = a.hi, a.lo
	}
	if a.lo > 0 {
		syscall.RawSyscall(unix.SYS_CLOSE_RANGE, 0, a.lo-1, 0)
	}
	if a.hi > a.lo+1 {
		syscall.RawSyscall(unix.SYS_CLOSE_RANGE, a.lo+1, a.hi-1, 0)
	}
	syscall.RawSyscall(unix.SYS_CLOSE_RANGE, a.hi+1, ^uintptr(0), 0)
	// SIGTERM, SIGINT and SIGHUP (sbx's cancellation, sent to the init
	// alone: executor.SignalForwarder) are passed on to every process of
	// the namespace, once, and so are SIGTSTP (as SIGSTOP) and SIGCONT
	// (sbx's job control); SIGCHLD wakes the reaping. All are read from a
	// signalfd: every signal stays blocked in the init.
	//
	// The sandbox is tied to sbx's process, not to the thread that cloned
	// the init (which a parent-death signal would follow): the init watches
	// sbx's pidfd, readable once sbx has exited, and then ends everything.
	mask = 1<<(unix.SIGCHLD-1) | 1<<(unix.SIGTERM-1) | 1<<(unix.SIGINT-1) | 1<<(unix.SIGHUP-1) | 1<<(unix.SIGTSTP-1) | 1<<(unix.SIGCONT-1)
	sfd, _, e = syscall.RawSyscall6(unix.SYS_SIGNALFD4, ^uintptr(0), uintptr(unsafe.Pointer(&mask)), 8, unix.SFD_CLOEXEC, 0, 0)
	if e != 0 {
		// Without it the init could neither pass signals on nor watch
		// sbx: fail closed (sbx sees the end without a report).
		for {
			syscall.RawSyscall(unix.SYS_KILL, ^uintptr(0), uintptr(unix.SIGKILL), 0)
			_, _, e = syscall.RawSyscall6(unix.SYS_WAIT4, ^uintptr(0), uintptr(unsafe.Pointer(&a.ws2)), unix.WALL, 0, 0, 0)
			if e != 0 && e != syscall.EINTR {
				break
			}
		}
		for {
			syscall.RawSyscall(unix.SYS_EXIT_GROUP, 125, 0, 0)
		}
	}
	a.pfd[0] = unix.PollFd{Fd: int32(sfd), Events: unix.POLLIN}
	a.pfd[1] = unix.PollFd{Fd: int32(a.sbx), Events: unix.POLLIN}
	for {
		// Reap whatever has exited.
		for {
			wflags = unix.WALL | unix.WNOHANG
			r, _, e = syscall.RawSyscall6(unix.SYS_WAIT4, ^uintptr(0), uintptr(unsafe.Pointer(&ws)), wflags, 0, 0, 0)
			if e == syscall.EINTR {
				continue
			}
			if e != 0 {
				syscall.RawSyscall(unix.SYS_EXIT_GROUP, 125, 0, 0)
			}
			if r == 0 {
				break // nothing more has exited
			}
			if r != cmd {
				continue // an orphan of the namespace
			}
			// The command ended, and so does everything else in the
			// namespace: killed (kill(-1) from the init reaches every
			// other process of its namespace, and one that was being
			// forked then is caught by the next round) and reaped (every
			// orphan is the init's child) until none is left. Then the
			// end is reported to sbx, which need not wait for the init's
			// own exit, where the kernel tears the namespaces down.
			for {
				syscall.RawSyscall(unix.SYS_KILL, ^uintptr(0), uintptr(unix.SIGKILL), 0)
				_, _, e = syscall.RawSyscall6(unix.SYS_WAIT4, ^uintptr(0), uintptr(unsafe.Pointer(&a.ws2)), unix.WALL, 0, 0, 0)
				if e != 0 && e != syscall.EINTR {
					break // ECHILD: nothing is left
				}
			}
			a.end = endReport{magic: endMagic, status: ws}
			syscall.RawSyscall(unix.SYS_WRITE, pipeW, uintptr(unsafe.Pointer(&a.end)), unsafe.Sizeof(a.end))
			initLinger(a)
			if ws&0x7f == 0 {
				syscall.RawSyscall(unix.SYS_EXIT_GROUP, uintptr((ws>>8)&0xff), 0, 0)
			}
			syscall.RawSyscall(unix.SYS_EXIT_GROUP, 128+uintptr(ws&0x7f), 0, 0)
		}
		a.pfd[0].Revents, a.pfd[1].Revents = 0, 0
		_, _, e = syscall.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&a.pfd[0])), 2, 0, 0, 0, 0)
		if e != 0 && e != syscall.EINTR {
			continue
		}
		if a.pfd[1].Revents != 0 {
			// sbx has exited: so does the sandbox.
			for {
				syscall.RawSyscall(unix.SYS_KILL, ^uintptr(0), uintptr(unix.SIGKILL), 0)
				_, _, e = syscall.RawSyscall6(unix.SYS_WAIT4, ^uintptr(0), uintptr(unsafe.Pointer(&a.ws2)), unix.WALL, 0, 0, 0)
				if e != 0 && e != syscall.EINTR {
					break
				}
			}
			for {
				syscall.RawSyscall(unix.SYS_EXIT_GROUP, 125, 0, 0)
			}
		}
		if a.pfd[0].Revents == 0 {
			continue
		}
		r, _, e = syscall.RawSyscall(unix.SYS_READ, sfd, uintptr(unsafe.Pointer(&info[0])), uintptr(len(info)))
		if e != 0 || r != uintptr(len(info)) {
			continue
		}
		// ssi_signo is the first field (native byte order).
		signo = *(*uint32)(unsafe.Pointer(&info[0]))
		switch signo {
		case uint32(unix.SIGTERM), uint32(unix.SIGINT), uint32(unix.SIGHUP):
			syscall.RawSyscall(unix.SYS_KILL, ^uintptr(0), uintptr(signo), 0)
		case uint32(unix.SIGTSTP), uint32(unix.SIGCONT):
			// Job control, from sbx only: kill(2) from outside the
			// namespace, the kernel's own SI_USER (ssi_code, at offset 8,
			// 0) with the sender's id in this namespace (ssi_pid, at 12)
			// 0. A sender chooses both fields only in a siginfo it queues,
			// with a negative code (rt_sigqueueinfo). (A process of the
			// sandbox that can signal the init, where Landlock's signal
			// scoping is missing, could otherwise stop everything, itself
			// included, through it.) sbx was stopped (^Z): the whole
			// sandbox stops with it, by SIGSTOP, since the command's group
			// is orphaned (its session's leader's parent, the init, is
			// outside it) and the kernel discards a SIGTSTP there; SIGCONT
			// resumes it.
			if *(*int32)(unsafe.Pointer(&info[8])) == 0 && *(*uint32)(unsafe.Pointer(&info[12])) == 0 {
				if signo == uint32(unix.SIGTSTP) {
					signo = uint32(unix.SIGSTOP)
				}
				syscall.RawSyscall(unix.SYS_KILL, ^uintptr(0), uintptr(signo), 0)
			}
		}
	}
}

// initLinger waits, after the end was reported and when a.linger is set,
// until sbx has exited. Nothing of the command is left by then; what is
// left is the teardown of the namespaces and of the memory the init
// shares with sbx, which the init's exit pays instead of sbx's, after sbx
// has exited (a caller that exits right after the run: sbx run).
//
//go:nosplit
//go:norace
//go:nocheckptr
//lint:ignore U1000 entered from assembly (vfork_linux_*.s)
func initLinger(a *initArgs) {
	if !a.linger {
		return
	}
	a.pfd[0].Fd = -1 // sbx's pidfd only
	for {
		a.pfd[1].Revents = 0
		_, _, e := syscall.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&a.pfd[0])), 2, 0, 0, 0, 0)
		if e == 0 && a.pfd[1].Revents != 0 || e != 0 && e != syscall.EINTR {
			return
		}
	}
}

// traceStep adds a step that writes the time to the checkpoint name
// (bench/timeline; only in builds with -tags sbxtrace).
func traceStep(p *program, name string) {
	if !starttrace.Enabled {
		return
	}
	ts := starttrace.Slot(name)
	p.call("trace", unix.SYS_CLOCK_GETTIME, unix.CLOCK_MONOTONIC, p.mem(ts, unsafe.Pointer(ts)))
}
