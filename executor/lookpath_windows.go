package executor

import (
	"os/exec"
	"path/filepath"
)

// resolve finds the executable argv0 names. On Windows the caller's PATH and
// PATHEXT are used.
func resolve(argv0 string, env []string, dir string) (path string, code int, reason string) {
	p := argv0
	if dir != "" && filepath.Base(p) != p && !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	lp, err := exec.LookPath(p)
	if err != nil {
		return "", 127, argv0 + ": command not found"
	}
	return lp, 0, ""
}

// reasonOf turns an exec error into a short text.
func reasonOf(err error) string { return err.Error() }
