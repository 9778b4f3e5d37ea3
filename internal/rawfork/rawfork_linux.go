//go:build linux && (amd64 || arm64)

package rawfork

import _ "unsafe" // go:linkname

// BeforeFork blocks signals and stops the runtime from preempting the
// thread (runtime.syscall_runtime_BeforeFork). Call it right before Vfork.
//
//go:linkname BeforeFork syscall.runtime_BeforeFork
func BeforeFork()

// AfterFork undoes BeforeFork in the parent, after Vfork returned there.
//
//go:linkname AfterFork syscall.runtime_AfterFork
func AfterFork()

// AfterForkInChild resets the signal handlers and restores the signal mask
// in the child, before it execs.
//
//go:linkname AfterForkInChild syscall.runtime_AfterForkInChild
func AfterForkInChild()

// Vfork makes system call trap (clone or clone3 with CLONE_VM|CLONE_VFORK,
// and no stack of the child's own) that returns twice on one stack: first
// in the child (r1 0), then in the parent once the child has exec'd or
// exited (r1 its pid). See
// vfork_linux_*.s for how the return address survives the child.
func Vfork(trap, a1, a2, a3 uintptr) (r1, errno uintptr)

// CloneArgs is struct clone_args (include/uapi/linux/sched.h).
type CloneArgs struct {
	Flags      uint64
	Pidfd      uint64
	ChildTID   uint64
	ParentTID  uint64
	ExitSignal uint64
	Stack      uint64
	StackSize  uint64
	TLS        uint64
	SetTID     uint64
	SetTIDSize uint64
	Cgroup     uint64
}
