// Package rawfork holds what a child of clone or clone3 with
// CLONE_VM|CLONE_VFORK needs to run code of its own between fork and exec,
// on Linux amd64 and arm64: the system call that returns twice on one
// stack (Vfork) and the Go runtime's fork hooks, the ones package
// syscall's own fork uses.
//
// Such a child shares the parent's memory and runs on the parent's stack
// while the parent's thread is suspended in the system call, until the
// child execs or exits. It is not one of the runtime's threads: the code it
// runs must be nosplit, must not allocate, take locks or call anything but
// raw system calls and other such functions, and every variable it uses
// must exist before the fork. See package syscall's forkAndExecInChild1.
//
// On other systems and architectures the package is empty.
package rawfork
