// Package killpoint SIGKILLs a program at exact points of the processes it
// starts, for tests: it runs the program under ptrace, stops the n-th
// process the program creates at its birth (or at its k-th system call),
// kills the program while that child is held, then lets the child go and
// reports every process that is still alive once the program is gone.
//
// A program that ties its children to its own life (PR_SET_PDEATHSIG, a
// pidfd watched by an init, a PID namespace) must leave nothing behind at
// any of these points; a race between the child arming its tie and the
// parent dying shows as a survivor, deterministically, instead of once in
// hundreds of randomly timed kills.
//
// ptrace changes a tracee's parent for wait(2) only: its real parent,
// which getppid, /proc/<pid>/stat, PR_SET_PDEATHSIG and reparenting use,
// stays the one that created it.
//
// It is Linux-only; on other systems the package is empty.
package killpoint
