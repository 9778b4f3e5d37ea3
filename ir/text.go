package ir

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ValidName reports whether s is a valid profile name: 1 to 64 ASCII
// letters, digits, '-', '_' or '.', starting with a letter or digit. The
// name becomes a file name (NAME.sbx.json) and is printed in reports, so
// an artifact (anyone's to write) whose name is anything else is refused
// by Validate.
func ValidName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case (r == '-' || r == '_' || r == '.') && i > 0:
		default:
			return false
		}
	}
	return true
}

// Printable returns s with every control character but tab (a newline, a
// CR, a NUL, an ESC that starts a terminal sequence, DEL, the C1 controls)
// and every byte of invalid UTF-8 replaced by U+FFFD, one for one. Text
// from a profile or an artifact (paths, file names, messages) goes
// through it before it is printed on a line of a report, so that it can
// neither rewrite the terminal nor start a line of its own in a CI log.
func Printable(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, unprintable) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || unprintable(r) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
		i += max(n, 1)
	}
	return b.String()
}

func unprintable(r rune) bool { return r != '\t' && unicode.IsControl(r) }

// PrintableLines is Printable for text of several lines (a message with a
// list, a detail): its newlines stay, every other control character goes.
func PrintableLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Printable(l)
	}
	return strings.Join(lines, "\n")
}
