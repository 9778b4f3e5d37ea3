package launch

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// HelperArg is the hidden argv[1] with which sbx re-executes itself as the
// sandbox's supervisor. This package's init dispatches it (RunHelper).
const HelperArg = "__sbx-landlock-helper"

// init runs the helper when the program was started as one: the
// supervisor re-executes /proc/self/exe, which in a program that embeds
// the sandbox is that program, and package init runs before any
// importer's code. Left to the program's main (as cmd/sbx once did), a
// program that did not dispatch it ran its own main again in the
// sandbox's namespaces, outside the command's filter, at every first
// supervised call of a command, and the call then failed with no word
// why (red team 27).
func init() {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		RunHelper(os.Args[2:])
	}
}

// Exit codes of the helper.
const (
	exitSetup       = 125    // the supervisor could not be set up
	closeRangeCloex = 1 << 2 // CLOSE_RANGE_CLOEXEC
)

// RunHelper is the helper's entry point: args are the arguments after
// HelperArg: "supervise"; flags ("-", or letters: r = descriptor 4 holds
// the command's Landlock ruleset, a = refuse abstract Unix binds, p =
// ports mode: listen() on an internet socket is checked); the
// number of guarded paths; the guarded paths (guardArg); then the listed
// Unix sockets (socketArg). It only returns through os.Exit.
//
// The command itself never runs through the helper: sbx applies the
// sandbox between fork and exec (see spawn). The helper is the seccomp
// supervisor, started on the command's first notified system call (see
// lazySupervisor) in the command's user, mount and IPC namespaces.
func RunHelper(args []string) {
	if len(args) < 3 || args[0] != "supervise" || strings.Trim(args[1], "-rap") != "" {
		fail(exitSetup, "sbx: %s is internal to sbx", HelperArg)
	}
	n, err := strconv.Atoi(args[2])
	if err != nil || n < 0 || n > len(args)-3 {
		fail(exitSetup, "sbx: %s is internal to sbx", HelperArg)
	}
	guarded := make([]guardedPath, n)
	for i, a := range args[3 : 3+n] {
		g, ok := parseGuardArg(a)
		if !ok {
			fail(exitSetup, "sbx: %s is internal to sbx", HelperArg)
		}
		guarded[i] = g
	}
	var sockets []listedSocket
	for _, a := range args[3+n:] {
		s, ok := parseSocketArg(a)
		if !ok {
			fail(exitSetup, "sbx: %s is internal to sbx", HelperArg)
		}
		sockets = append(sockets, s)
	}
	runSupervisor(guarded, sockets, strings.Contains(args[1], "r"), strings.Contains(args[1], "a"), strings.Contains(args[1], "p"))
}

// guardedPath is a missing path whose creation the supervisor refuses,
// with the device and inode of its directory.
type guardedPath struct {
	dev, ino uint64
	path     string
}

// guardArg is a guarded path as the supervisor's argument:
// "DEV:INO:/path", the directory's identity first. The identity is taken
// before the command runs (compileCommand), not by the supervisor, which
// starts once the command has run and could find the path made
// unreachable to it.
func guardArg(dev, ino uint64, p string) string {
	return strconv.FormatUint(dev, 10) + ":" + strconv.FormatUint(ino, 10) + ":" + p
}

// parseGuardArg reverses guardArg.
func parseGuardArg(a string) (guardedPath, bool) {
	d, rest, ok1 := strings.Cut(a, ":")
	i, p, ok2 := strings.Cut(rest, ":")
	dev, err1 := strconv.ParseUint(d, 10, 64)
	ino, err2 := strconv.ParseUint(i, 10, 64)
	if !ok1 || !ok2 || err1 != nil || err2 != nil || !strings.HasPrefix(p, "/") {
		return guardedPath{}, false
	}
	return guardedPath{dev: dev, ino: ino, path: p}, true
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(code)
}

// restrictThread gives the calling thread the command's confinement except
// the seccomp filter: no capabilities, no_new_privs, the Landlock domain of
// the ruleset rfd (a new domain on each call, with the same rules).
func restrictThread(rfd int) error {
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if rfd >= 0 {
		return restrictSelf(rfd)
	}
	return nil
}
