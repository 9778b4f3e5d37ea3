// Package nofile keeps the open-files limit (RLIMIT_NOFILE) the process
// started with, for the commands it starts.
//
// Package syscall's init raises the soft limit to the hard limit less one
// (go.dev/issue/46279: Go does not use select), and os/exec gives the
// original soft limit back to every child it starts. sbx starts its
// commands with forks of its own (the Landlock launcher's program, the
// executor's PID-namespace fork), which do not: a command would run with
// a soft limit of 524,287 under systemd's defaults instead of the shell's
// 1,024, where programs that use select(2) break on a descriptor past
// FD_SETSIZE and programs that close every descriptor up to the soft
// limit take that many system calls. Those forks set Child's limit before
// the exec.
//
// Importing the package (as the executor and the launcher do) records the
// limit in its init, which runs before package syscall's: the package
// imports nothing, and Go initialises packages in import-path order among
// those whose imports are done (TestImportsNothing). The record is a raw
// system call in a few lines of assembly on linux/amd64 and linux/arm64;
// elsewhere nothing is recorded and Child reports nothing to restore.
package nofile
