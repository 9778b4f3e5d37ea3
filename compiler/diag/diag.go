// Package diag holds the diagnostics that sbc reports: profile errors from
// the HCL front end, policy findings from the linter and fidelity warnings
// from target compilers, all pointing at source ranges of the profile.
//
// The core types depend only on package ir (a Range is an ir.Range), not on
// HCL, so any stage that only has an IR node's Source can report against it.
// Renderers print diagnostics the way Terraform does: as text with the
// offending source line and its span marked, or as JSON in the shape of
// `terraform validate -json`.
package diag

import (
	"fmt"
	"strings"

	"github.com/sbx-dev/sbx/ir"
)

// Severity says whether a diagnostic fails the command.
type Severity int

// Severities. The zero value is Error so that a diagnostic built without
// thinking about severity fails closed.
const (
	Error Severity = iota
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalText encodes the severity as its name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes "error" or "warning".
func (s *Severity) UnmarshalText(b []byte) error {
	switch string(b) {
	case "error":
		*s = Error
	case "warning":
		*s = Warning
	default:
		return fmt.Errorf("unknown severity %q (want error or warning)", b)
	}
	return nil
}

// Codes of diagnostics that callers act on. Codes are stable identifiers for
// scripts and tests; the summary text may change.
const (
	// CodeIO reports a file that could not be read or written. sbc exits 2
	// (usage or I/O error) rather than 1 (invalid profile) when one occurs.
	CodeIO = "io"
	// CodeInternal reports a bug in sbc itself.
	CodeInternal = "internal"
)

// Diagnostic is one error or warning.
type Diagnostic struct {
	Severity Severity
	// Code is a short stable identifier such as "relative-path"; optional.
	Code string
	// Summary is a short sentence without a trailing period.
	Summary string
	// Detail explains the problem and how to fix it; optional.
	Detail string
	// Range is the source the diagnostic is about; nil when it is about no
	// source in particular (a missing file, a command-line mistake).
	Range *ir.Range
}

// Diagnostics is a list of diagnostics in the order they were found.
type Diagnostics []Diagnostic

// Errorf appends an error diagnostic and returns the extended list.
func (ds Diagnostics) Errorf(code string, r *ir.Range, summary, detailFormat string, args ...any) Diagnostics {
	return append(ds, Diagnostic{Severity: Error, Code: code, Summary: summary, Detail: fmt.Sprintf(detailFormat, args...), Range: r})
}

// Warnf appends a warning diagnostic and returns the extended list.
func (ds Diagnostics) Warnf(code string, r *ir.Range, summary, detailFormat string, args ...any) Diagnostics {
	return append(ds, Diagnostic{Severity: Warning, Code: code, Summary: summary, Detail: fmt.Sprintf(detailFormat, args...), Range: r})
}

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool { return ds.Count(Error) > 0 }

// Count returns the number of diagnostics of severity s.
func (ds Diagnostics) Count(s Severity) int {
	n := 0
	for _, d := range ds {
		if d.Severity == s {
			n++
		}
	}
	return n
}

// HasCode reports whether any error diagnostic has the given code.
func (ds Diagnostics) HasCode(code string) bool {
	for _, d := range ds {
		if d.Code == code && d.Severity == Error {
			return true
		}
	}
	return false
}

// Err returns the diagnostics as an error when there is at least one error
// among them, and nil otherwise.
func (ds Diagnostics) Err() error {
	if !ds.HasErrors() {
		return nil
	}
	return ds
}

// Error formats the diagnostics on one line each, without source snippets:
// "file:line:col: error: summary".
func (ds Diagnostics) Error() string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	return b.String()
}

// String formats d on one line: "file:line:col: severity: summary: detail".
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.Range != nil {
		b.WriteString(d.Range.String())
		b.WriteString(": ")
	}
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	b.WriteString(d.Summary)
	if d.Detail != "" {
		b.WriteString(": ")
		b.WriteString(strings.ReplaceAll(d.Detail, "\n", " "))
	}
	return b.String()
}

// Sources caches the contents of the files diagnostics point into, so that
// renderers can show the offending lines. Built-in profile sources are added
// under their "builtin:NAME.hcl" names. The zero value is not usable; use
// NewSources.
type Sources struct {
	files map[string][]byte
	order []string
}

// NewSources returns an empty cache.
func NewSources() *Sources { return &Sources{files: map[string][]byte{}} }

// Add records the contents of file name. Adding a name twice replaces it.
func (s *Sources) Add(name string, data []byte) {
	if _, ok := s.files[name]; !ok {
		s.order = append(s.order, name)
	}
	s.files[name] = data
}

// Get returns the contents of file name.
func (s *Sources) Get(name string) ([]byte, bool) {
	if s == nil {
		return nil, false
	}
	data, ok := s.files[name]
	return data, ok
}

// Names returns the file names in the order they were added.
func (s *Sources) Names() []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s.order...)
}

// CodeUsage reports a mistake in how a command was invoked (an unknown
// profile name for -p, several profiles and no output directory). Like
// CodeIO, it makes sbc exit 2.
const CodeUsage = "usage"

// Merge adds every file of other to s.
func (s *Sources) Merge(other *Sources) {
	if other == nil {
		return
	}
	for _, n := range other.order {
		s.Add(n, other.files[n])
	}
}
