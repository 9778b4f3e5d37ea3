package diag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sbx-dev/sbx/ir"
)

// Limits that keep rendering bounded whatever the input: a profile may be a
// single 4 MiB line, and a diagnostic may span the whole file.
const (
	maxSnippetLines = 5   // source lines shown per diagnostic
	maxLineBytes    = 160 // bytes of one source line shown around the span
	maxContextScan  = 64 << 10
)

// snippetLine is one source line as shown, with the highlighted span as byte
// offsets into Text.
type snippetLine struct {
	Number         int
	Text           string
	HiStart, HiEnd int
}

// snippet is the part of a source file a diagnostic points at.
type snippet struct {
	Context string // header of the enclosing block ("profile \"dev\""), or ""
	Lines   []snippetLine
}

// locate finds the lines of r in src. It returns nil when the range does
// not lie in src (the file was not cached, or the range is bogus).
func locate(src []byte, r ir.Range) *snippet {
	if r.Start.Line < 1 {
		return nil
	}
	startLS, ok := lineStart(src, r.Start.Line)
	if !ok {
		return nil
	}
	start := offsetIn(src, startLS, r.Start)
	end := start
	endLine := r.Start.Line
	if r.End.Line >= r.Start.Line {
		if ls, ok := lineStart(src, r.End.Line); ok {
			if e := offsetIn(src, ls, r.End); e >= start {
				end, endLine = e, r.End.Line
			}
		}
	}
	sn := &snippet{Context: context(src, startLS)}
	ls := startLS
	for n := r.Start.Line; n <= endLine && len(sn.Lines) < maxSnippetLines; n++ {
		le := lineEnd(src, ls)
		hs, he := 0, le-ls
		if n == r.Start.Line {
			hs = start - ls
		}
		if n == endLine {
			he = min(end-ls, le-ls)
		}
		if he < hs {
			he = hs
		}
		text := string(bytes.TrimSuffix(src[ls:le], []byte("\r")))
		hs, he = min(hs, len(text)), min(he, len(text))
		sn.Lines = append(sn.Lines, window(n, text, hs, he))
		if le >= len(src) {
			break
		}
		ls = le + 1
	}
	return sn
}

// lineStart returns the byte offset where 1-based line n begins.
func lineStart(src []byte, n int) (int, bool) {
	off := 0
	for line := 1; line < n; line++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	return off, true
}

// lineEnd returns the offset of the newline ending the line that starts at
// ls, or len(src).
func lineEnd(src []byte, ls int) int {
	if i := bytes.IndexByte(src[ls:], '\n'); i >= 0 {
		return ls + i
	}
	return len(src)
}

// offsetIn returns the byte offset of p in the line starting at ls. The
// byte offset is trusted when it falls on that line; otherwise the column
// (in characters) is used, so ranges from other producers still render.
func offsetIn(src []byte, ls int, p ir.Pos) int {
	le := lineEnd(src, ls)
	if p.Byte >= ls && p.Byte <= le {
		return p.Byte
	}
	off := ls
	for col := 1; col < p.Column && off < le; col++ {
		_, size := utf8.DecodeRune(src[off:le])
		off += size
	}
	return off
}

// context returns the header of the nearest enclosing top-level block of
// the line starting at ls: the closest line at or above it that starts in
// column 1 and opens a brace, such as `profile "dev" {`. It is a heuristic
// that needs no parser, so findings that carry only a range get one too.
func context(src []byte, ls int) string {
	lo := max(0, ls-maxContextScan)
	s, e := ls, lineEnd(src, ls)
	for {
		line := src[s:e]
		if len(line) > 0 {
			switch c := line[0]; c {
			case ' ', '\t', '\r', '#', '/':
			case '}':
				return "" // a block closed above: the line is at top level
			default:
				if i := bytes.IndexByte(line, '{'); i > 0 {
					h := strings.TrimSpace(string(line[:i]))
					if utf8.ValidString(h) && len(h) <= maxLineBytes {
						return h
					}
				}
				return ""
			}
		}
		if s <= lo {
			return ""
		}
		e = s - 1
		s = bytes.LastIndexByte(src[lo:e], '\n') + 1 + lo
	}
}

// window cuts a long line down to maxLineBytes around the highlighted span
// and replaces invalid UTF-8, keeping the highlight offsets right.
func window(n int, text string, hs, he int) snippetLine {
	pre, hi, post := text[:hs], text[hs:he], text[he:]
	if len(text) > maxLineBytes {
		room := maxLineBytes - min(len(hi), maxLineBytes/2)
		if len(hi) > maxLineBytes/2 {
			hi = cutRunes(hi, maxLineBytes/2) + "…"
		}
		if len(pre) > room/2 {
			pre = "…" + tailRunes(pre, room/2)
		}
		if len(post) > room/2 {
			post = cutRunes(post, room/2) + "…"
		}
	}
	pre, hi, post = strings.ToValidUTF8(pre, "\uFFFD"), strings.ToValidUTF8(hi, "\uFFFD"), strings.ToValidUTF8(post, "\uFFFD")
	return snippetLine{Number: n, Text: pre + hi + post, HiStart: len(pre), HiEnd: len(pre) + len(hi)}
}

// cutRunes returns the longest prefix of s of at most n bytes that ends on
// a rune boundary.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tailRunes returns the longest suffix of s of at most n bytes that starts
// on a rune boundary.
func tailRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// WriteText renders diagnostics for people, in the style of Terraform:
//
//	Error: Relative path in a write rule
//
//	  on dev.hcl:4:15, in profile "dev":
//	     4:     write = ["build"]
//	                     ^^^^^^^
//
//	Paths must be absolute, start with ~ or an anchor ...
//
// srcs may be nil; lines are shown only for files it holds.
func WriteText(w io.Writer, ds Diagnostics, srcs *Sources) error {
	var b strings.Builder
	for _, d := range ds {
		writeOne(&b, d, srcs)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// visible replaces the control characters of s but tab (a CR, a NUL, an
// ESC that starts a terminal sequence: source from an untrusted change,
// shown in a terminal or a CI log) with U+FFFD, one for one, so that what
// is printed is what the file holds and the markers stay aligned.
func visible(s string) string { return ir.Printable(s) }

// visibleLines is visible for text of several lines (a detail): its
// newlines stay, every other control character goes.
func visibleLines(s string) string { return ir.PrintableLines(s) }

func writeOne(b *strings.Builder, d Diagnostic, srcs *Sources) {
	if d.Severity == Warning {
		b.WriteString("Warning: ")
	} else {
		b.WriteString("Error: ")
	}
	// Summaries and details quote paths and names from the profile
	// (HCL escapes can put any character there): one line, and lines,
	// of printable text.
	b.WriteString(visible(d.Summary))
	b.WriteString("\n\n")
	if d.Range != nil {
		var sn *snippet
		if src, ok := srcs.Get(d.Range.Filename); ok {
			sn = locate(src, *d.Range)
		}
		fmt.Fprintf(b, "  on %s", visible(d.Range.String()))
		if sn != nil && sn.Context != "" {
			fmt.Fprintf(b, ", in %s", visible(sn.Context))
		}
		b.WriteString(":\n")
		if sn != nil {
			last := sn.Lines[len(sn.Lines)-1].Number
			width := len(fmt.Sprint(last))
			for _, l := range sn.Lines {
				pre, hi, post := visible(l.Text[:l.HiStart]), visible(l.Text[l.HiStart:l.HiEnd]), visible(l.Text[l.HiEnd:])
				fmt.Fprintf(b, "  %*d: %s%s%s\n", width, l.Number, pre, hi, post)
				b.WriteString(strings.Repeat(" ", width+4))
				for _, r := range pre {
					if r == '\t' {
						b.WriteByte('\t')
					} else {
						b.WriteByte(' ')
					}
				}
				b.WriteString(strings.Repeat("^", max(1, utf8.RuneCountInString(hi))))
				b.WriteByte('\n')
			}
		}
		b.WriteByte('\n')
	}
	if d.Detail != "" {
		b.WriteString(visibleLines(d.Detail))
		b.WriteString("\n\n")
	}
}

// JSONFormatVersion is the version of the JSON diagnostics document.
const JSONFormatVersion = "1.0"

// JSONReport is the document WriteJSON emits, shaped like the output of
// `terraform validate -json` so that existing editor and CI integrations
// can consume it.
type JSONReport struct {
	FormatVersion string           `json:"format_version"`
	Valid         bool             `json:"valid"`
	ErrorCount    int              `json:"error_count"`
	WarningCount  int              `json:"warning_count"`
	Diagnostics   []JSONDiagnostic `json:"diagnostics"`
}

// JSONDiagnostic is one diagnostic in a JSONReport.
type JSONDiagnostic struct {
	Severity Severity     `json:"severity"`
	Code     string       `json:"code,omitempty"`
	Summary  string       `json:"summary"`
	Detail   string       `json:"detail"`
	Range    *ir.Range    `json:"range,omitempty"`
	Snippet  *JSONSnippet `json:"snippet,omitempty"`
}

// JSONSnippet is the source a diagnostic points at. Code holds the whole
// lines the range covers (long lines shortened around the span); the
// highlight offsets are byte offsets into Code.
type JSONSnippet struct {
	Context              *string `json:"context"`
	Code                 string  `json:"code"`
	StartLine            int     `json:"start_line"`
	HighlightStartOffset int     `json:"highlight_start_offset"`
	HighlightEndOffset   int     `json:"highlight_end_offset"`
	// Values is always empty; it exists for compatibility with Terraform's
	// format, where it lists the values of variables in the expression.
	Values []any `json:"values"`
}

// Report builds the JSON document for ds.
func Report(ds Diagnostics, srcs *Sources) JSONReport {
	rep := JSONReport{
		FormatVersion: JSONFormatVersion,
		Valid:         !ds.HasErrors(),
		ErrorCount:    ds.Count(Error),
		WarningCount:  ds.Count(Warning),
		Diagnostics:   make([]JSONDiagnostic, 0, len(ds)),
	}
	for _, d := range ds {
		jd := JSONDiagnostic{Severity: d.Severity, Code: d.Code, Summary: d.Summary, Detail: d.Detail, Range: d.Range}
		if d.Range != nil {
			if src, ok := srcs.Get(d.Range.Filename); ok {
				if sn := locate(src, *d.Range); sn != nil {
					jd.Snippet = jsonSnippet(sn)
				}
			}
		}
		rep.Diagnostics = append(rep.Diagnostics, jd)
	}
	return rep
}

func jsonSnippet(sn *snippet) *JSONSnippet {
	js := &JSONSnippet{StartLine: sn.Lines[0].Number, Values: []any{}}
	if sn.Context != "" {
		c := sn.Context
		js.Context = &c
	}
	var code strings.Builder
	for i, l := range sn.Lines {
		if i > 0 {
			code.WriteByte('\n')
		}
		if i == 0 {
			js.HighlightStartOffset = code.Len() + l.HiStart
		}
		if i == len(sn.Lines)-1 {
			js.HighlightEndOffset = code.Len() + l.HiEnd
		}
		code.WriteString(l.Text)
	}
	js.Code = code.String()
	return js
}

// WriteJSON renders diagnostics as one indented JSON document (a
// JSONReport) followed by a newline.
func WriteJSON(w io.Writer, ds Diagnostics, srcs *Sources) error {
	data, err := json.MarshalIndent(Report(ds, srcs), "", "  ")
	if err != nil {
		return fmt.Errorf("encoding diagnostics: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
