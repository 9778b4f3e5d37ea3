//go:build !linux

package landlock

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
)

// passwdHomeIn returns the home directory of uid in the password database
// at path, or "".
func passwdHomeIn(path string, uid int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	want := strconv.Itoa(uid)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if h, ok := homeField(bytes.TrimSuffix(sc.Bytes(), []byte{'\r'}), want); ok {
			return h
		}
	}
	return ""
}

// readRegular reads at most max bytes of the regular file at path (links
// followed); anything else is not opened for reading.
func readRegular(path string, max int) (string, bool) {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(max)))
	if err != nil {
		return "", false
	}
	return string(b), true
}
