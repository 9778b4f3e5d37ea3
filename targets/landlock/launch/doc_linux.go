// Package launch enforces a bound Landlock plan (landlock.Spec) on one
// command, on Linux, without cgo and without ever restricting sbx itself.
//
// sbx re-executes itself (/proc/self/exe) with HelperArg as PID 1 of a new
// PID namespace, in fresh mount and IPC namespaces (and a fresh network
// namespace for network none). The helper locks its goroutine to one OS
// thread, builds the mount view, drops every capability of that thread, sets
// no_new_privs, calls landlock_restrict_self and installs its seccomp filter
// on that thread only, marks every descriptor above 2 close-on-exec, and
// execs the command from the same thread. When the profile has missing
// protected names directly below a writable root, the helper instead forks
// the command from that thread and stays as PID 1 to supervise creation
// system calls (supervise_linux.go). See the README (Linux enforcement).
package launch
