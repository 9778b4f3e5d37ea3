package policies

import (
	"fmt"
	"io"
	"strings"
)

// WriteGitHub writes the findings as GitHub Actions workflow commands
// (::error and ::warning with file, line and column), so that a workflow
// step annotates the profile's lines, grouped per file, then the summary.
func (r *Report) WriteGitHub(w io.Writer) error {
	var b strings.Builder
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
				file := res.File
				if f.Range != nil && f.Range.Filename != "" {
					file = f.Range.Filename
				}
				props := []string{"file=" + ghProp(file)}
				if f.Range != nil && f.Range.Start.Line > 0 {
					rg := f.Range
					props = append(props, fmt.Sprintf("line=%d", rg.Start.Line), fmt.Sprintf("col=%d", max(1, rg.Start.Column)))
					if rg.End.Line >= rg.Start.Line {
						props = append(props, fmt.Sprintf("endLine=%d", rg.End.Line))
						if rg.End.Column > 0 {
							props = append(props, fmt.Sprintf("endColumn=%d", rg.End.Column))
						}
					}
				}
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

// ghData escapes a workflow command's message as the Actions runner
// expects.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProp escapes a workflow command property value, where ":" and ","
// separate properties.
func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
