package landlock

import (
	"bytes"
	"strconv"
	"syscall"
)

// passwdLine bounds a line of the password database, as bufio.Scanner's
// default does: a longer line is skipped. The buffer starts at a page and
// grows only for a longer line (a 64 KiB buffer made the read twice as
// slow as the scanner it replaced).
const passwdLine = 64 << 10

// passwdHomeIn returns the home directory of uid in the password database
// at path, or "". It reads with plain system calls into one buffer rather
// than through an os.File and a scanner: it runs on every sandboxed start
// (AccountHome), where their set-up and the first faults of their code
// cost about a tenth of a millisecond.
func passwdHomeIn(path string, uid int) string {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	defer syscall.Close(fd)
	want := strconv.Itoa(uid)
	buf := make([]byte, 4<<10)
	n := 0        // bytes held in buf
	skip := false // discarding the rest of a line longer than passwdLine
	for {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return ""
		}
		eof := m == 0
		n += m
		start := 0
		for {
			i := bytes.IndexByte(buf[start:n], '\n')
			if i < 0 {
				break
			}
			line := buf[start : start+i]
			start += i + 1
			if skip {
				skip = false
				continue
			}
			if h, ok := homeField(bytes.TrimSuffix(line, []byte{'\r'}), want); ok {
				return h
			}
		}
		if eof {
			if !skip && start < n {
				if h, ok := homeField(bytes.TrimSuffix(buf[start:n], []byte{'\r'}), want); ok {
					return h
				}
			}
			return ""
		}
		n = copy(buf, buf[start:n])
		switch {
		case n < len(buf):
		case len(buf) < passwdLine:
			buf = append(buf, make([]byte, len(buf))...)
		default:
			// A line as long as passwdLine: skipped up to its end.
			skip, n = true, 0
		}
	}
}

// readRegular reads at most max bytes of the regular file at path (links
// followed), with plain system calls: it runs on sandboxed starts. Anything
// else (a FIFO an earlier run left where a file is looked for, a device)
// is not opened for reading: the type is checked first, and again on the
// descriptor, which is opened without blocking.
func readRegular(path string, max int) (string, bool) {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return "", false
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return "", false
	}
	defer syscall.Close(fd)
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return "", false
	}
	buf := make([]byte, min(int(st.Size)+1, max))
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return "", false
		}
		if m == 0 {
			break
		}
		n += m
	}
	return string(buf[:n]), true
}
