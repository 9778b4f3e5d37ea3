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
// CR, a NUL, an ESC that starts a terminal sequence, DEL, the C1 controls),
// every bidirectional formatting character (U+202E, which displays what
// follows reversed) and every byte of invalid UTF-8 replaced by U+FFFD,
// one for one. Text
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

func unprintable(r rune) bool { return r != '\t' && unicode.IsControl(r) || isBidiControl(r) }

// isBidiControl reports whether r is one of Unicode's bidirectional
// formatting characters (the marks, embeddings, overrides and isolates).
// Red team 29: printed raw, a path holding U+202E (RIGHT-TO-LEFT
// OVERRIDE) made the rest of its report line display reversed in a
// terminal or a CI log ("Trojan Source"), so a finding could be made to
// read as another.
func isBidiControl(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// PrintableLines is Printable for text of several lines (a message with a
// list, a detail): its newlines stay, every other control character goes.
func PrintableLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Printable(l)
	}
	return strings.Join(lines, "\n")
}
