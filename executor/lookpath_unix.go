//go:build unix

package executor

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// defaultSearchPath is the search path execvp uses when PATH is unset.
const defaultSearchPath = "/bin:/usr/bin"

// resolve finds the executable argv0 names, as execvp would in the child:
// with the PATH of the child's environment (the last PATH entry wins, as
// for os/exec), relative PATH entries and relative paths taken from the
// child's working directory. On failure it returns the shell's exit code
// (127 not found, 126 not executable) and a reason.
func resolve(argv0 string, env []string, dir string) (path string, code int, reason string) {
	if strings.Contains(argv0, "/") {
		p := argv0
		if dir != "" && !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		switch err := checkExecutable(p); {
		case err == nil:
			return absolute(p), 0, ""
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			return "", 127, argv0 + ": no such file or directory"
		default:
			return "", 126, argv0 + ": " + reasonOf(err)
		}
	}
	search := defaultSearchPath
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "PATH="); ok {
			search = v
			break
		}
	}
	var denied error
	// strings.Split, not filepath.SplitList: an empty PATH ("PATH=") is
	// one empty entry, the current directory, as execvp and the shells
	// read it (SplitList returns none).
	for _, d := range strings.Split(search, ":") {
		if d == "" {
			d = "."
		}
		if dir != "" && !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		p := filepath.Join(d, argv0)
		err := checkExecutable(p)
		if err == nil {
			return absolute(p), 0, ""
		}
		// Like the shell, report "permission denied" only for a file that
		// exists; an unreadable directory in PATH counts as not found.
		var statErr *fs.PathError
		if denied == nil && !errors.As(err, &statErr) {
			denied = err
		}
	}
	if denied != nil {
		return "", 126, argv0 + ": " + reasonOf(denied)
	}
	return "", 127, argv0 + ": command not found"
}

// absolute makes p absolute against the current directory, so that it does
// not depend on the child's working directory.
func absolute(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// checkExecutable reports why p cannot be executed, or nil. A file that
// cannot be found (or whose directory cannot be searched) yields a
// *fs.PathError from stat; an existing file that cannot be executed yields a
// plain errno.
func checkExecutable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return syscall.EISDIR
	}
	if err := syscall.Access(p, 1 /* X_OK */); err != nil {
		return err
	}
	return nil
}

// reasonOf turns an exec error into the short text a shell would print.
func reasonOf(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.EACCES, syscall.EPERM:
			return "permission denied"
		case syscall.EISDIR:
			return "is a directory"
		case syscall.ENOEXEC:
			return "exec format error"
		case syscall.E2BIG:
			return "argument list too long"
		case syscall.ENOENT:
			return "no such file or directory (or missing interpreter)"
		}
		return errno.Error()
	}
	return err.Error()
}
