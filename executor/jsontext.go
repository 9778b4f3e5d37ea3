package executor

import (
	"bufio"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// controlEscapes holds the \u00XX escape of each control character (6 bytes
// each), so that an escape is one write.
const controlEscapes = `\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007` +
	`\u0008\u0009\u000a\u000b\u000c\u000d\u000e\u000f` +
	`\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017` +
	`\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f`

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
			case '"':
				w.WriteString(`\"`)
			case '\\':
				w.WriteString(`\\`)
			case '\n':
				w.WriteString(`\n`)
			case '\r':
				w.WriteString(`\r`)
			case '\t':
				w.WriteString(`\t`)
			default:
				w.WriteString(controlEscapes[6*int(b) : 6*int(b)+6])
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
