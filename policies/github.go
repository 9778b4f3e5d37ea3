package policies

import (
	"fmt"
	"io"
	"strings"

	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
)

// WriteGitHub writes the findings as GitHub Actions workflow commands
// (::error and ::warning with file, line and column), so that a workflow
// step annotates the profile's lines, grouped per file, then the summary.
func (r *Report) WriteGitHub(w io.Writer) error {
	var b strings.Builder
	for _, d := range r.Problems {
		cmd := "error"
		if d.Severity != diag.Error {
			cmd = "warning"
		}
		props := ghRange(d.Range)
		props = append(props, "title="+ghProp(d.Summary))
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData(d.Detail))
	}
	for _, g := range r.byFile() {
		fmt.Fprintf(&b, "::group::%s\n", ghData(g.file))
		for _, res := range g.results {
			if res.Err != nil {
				fmt.Fprintf(&b, "::error file=%s,title=%s::%s\n", ghProp(res.File), ghProp("policy evaluation failed"), ghData(res.Err.Error()))
			}
			all := make([]Finding, 0, len(res.Failures)+len(res.Warnings))
			all = append(all, res.Failures...)
			all = append(all, res.Warnings...)
			sortFindings(all)
			for _, f := range all {
				cmd := "error"
				if f.Severity == Warning {
					cmd = "warning"
				}
				b.WriteString("::" + cmd + " ")
				at, _ := res.Located(f)
				file := res.File
				if at != nil && at.Filename != "" {
					file = at.Filename
				}
				rg := ir.Range{Filename: file}
				if at != nil {
					rg.Start, rg.End = at.Start, at.End
				}
				props := ghRange(&rg)
				props = append(props, "title="+ghProp(f.Code+" ("+res.Profile+")"))
				b.WriteString(strings.Join(props, ","))
				b.WriteString("::")
				b.WriteString(ghData(f.Message))
				b.WriteByte('\n')
			}
		}
		b.WriteString("::endgroup::\n")
	}
	b.WriteString(r.Summary().String())
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// ghRange returns the file, line and column properties of a workflow
// command for r (none for a nil range or one without a file).
func ghRange(r *ir.Range) []string {
	if r == nil || r.Filename == "" {
		return nil
	}
	props := []string{"file=" + ghProp(r.Filename)}
	if r.Start.Line > 0 {
		props = append(props, fmt.Sprintf("line=%d", r.Start.Line), fmt.Sprintf("col=%d", max(1, r.Start.Column)))
		if r.End.Line >= r.Start.Line {
			props = append(props, fmt.Sprintf("endLine=%d", r.End.Line))
			if r.End.Column > 0 {
				props = append(props, fmt.Sprintf("endColumn=%d", r.End.Column))
			}
		}
	}
	return props
}

// ghData escapes a workflow command's message as the Actions runner
// expects.
//
// The escapes keep line breaks; every other control character (an ESC
// that starts a terminal sequence, BEL) from a profile or an artifact is
// shown as U+FFFD (ir.Printable), as in the text report.
func ghData(s string) string {
	return ir.Printable(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s))
}

// ghProp escapes a workflow command property value, where ":" and ","
// separate properties.
func ghProp(s string) string {
	return ir.Printable(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s))
}
