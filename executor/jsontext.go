package executor

import (
	"bufio"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// writeJSONText writes p as the contents of a JSON string (without quotes).
// Invalid UTF-8 is replaced by U+FFFD, one replacement per invalid byte, so
// nothing is dropped; NUL and other control characters are escaped. It
// reports whether a replacement happened. It does not allocate.
func writeJSONText(w *bufio.Writer, p []byte) (replaced bool) {
	start := 0
	for i := 0; i < len(p); {
		b := p[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			w.Write(p[start:i])
			switch b {
			case '"', '\\':
				w.WriteByte('\\')
				w.WriteByte(b)
			case '\n':
				w.WriteString(`\n`)
			case '\r':
				w.WriteString(`\r`)
			case '\t':
				w.WriteString(`\t`)
			default:
				w.WriteString(`\u00`)
				w.WriteByte(hexDigits[b>>4])
				w.WriteByte(hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 {
			w.Write(p[start:i])
			w.WriteString(`\ufffd`)
			replaced = true
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			w.Write(p[start:i])
			w.WriteString(`\u202`)
			w.WriteByte(hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	w.Write(p[start:])
	return replaced
}

// writeJSONString writes p as a quoted JSON string (see writeJSONText).
func writeJSONString(w *bufio.Writer, p []byte) bool {
	w.WriteByte('"')
	replaced := writeJSONText(w, p)
	w.WriteByte('"')
	return replaced
}
