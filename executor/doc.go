// Package executor runs one command with bounded, structured capture: the
// pipeline behind "sbx run".
//
// The command gets stdin from /dev/null, stdout and stderr as pipes, its own
// session and process group, exactly the environment of the Request, and,
// on Linux, a parent-death signal. Both pipes are read concurrently to EOF;
// each stream retains at most the output cap and keeps draining after it.
// A containment mechanism (see Containment) guarantees that no process the
// command started survives it. Run is safe for concurrent use and keeps no
// global state.
//
// A Sandbox, supplied by a platform launcher, confines the command; the
// executor only calls its Wrap hook before starting the command and reports
// what it enforces.
package executor
