// Package launch enforces a bound Landlock plan (landlock.Spec) on one
// command, on Linux, without cgo and without ever restricting sbx itself.
//
// The sandbox is applied between fork and exec (spawn_linux.go): sbx
// compiles the spec into a program of raw system calls (compile_linux.go);
// a child in a new PID namespace (and a user namespace when unprivileged)
// becomes the sandbox's init, creates its mount and IPC namespaces, takes
// its program in two parts over a control socket (early_linux.go: sbx run
// starts it before it binds the profile), builds the mount view and
// starts the command's process, which fills the Landlock ruleset on the
// final view, drops every capability, sets no_new_privs, restricts itself,
// installs the seccomp filter, marks every descriptor above 2
// close-on-exec and execs the command. The init reaps the namespace and
// exits with the command's status. When the profile needs it (missing
// protected names, listed sockets, network none, unreadable trees), a
// seccomp user-notification supervisor is started on the first notified
// call: sbx re-executed with HelperArg, in the command's user, mount and
// IPC namespaces (supervise_linux.go). See the README (Linux enforcement).
package launch
