package policies

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
)

// Report is the outcome of a check run, ready to be written in one of the
// output formats.
type Report struct {
	// Results holds one entry per profile checked, in order.
	Results []*Result
	// Rules are the rules that were evaluated (Engine.Rules).
	Rules []Rule
	// Sources holds the profile files, for source snippets; may be nil.
	Sources *diag.Sources
	// Tool names the program and its version in SARIF ("sbc 0.1.0").
	Tool string
	// Problems are what kept input from being checked at all: a file that
	// could not be read, a profile that does not compile. Each format
	// reports them (so CI still gets a document it can parse and upload),
	// and they count as errors: the check fails.
	Problems diag.Diagnostics
}

// Summary counts a report's outcome.
type Summary struct {
	Profiles   int `json:"profiles"`
	Failures   int `json:"failures"`
	Warnings   int `json:"warnings"`
	Exceptions int `json:"exceptions"`
	// Errors counts profiles whose policy evaluation failed, and the
	// problems (Report.Problems) that kept input from being checked.
	Errors int `json:"errors"`
}

// Summary counts the report's findings.
func (r *Report) Summary() Summary {
	s := Summary{Profiles: len(r.Results)}
	for _, res := range r.Results {
		s.Failures += len(res.Failures)
		s.Warnings += len(res.Warnings)
		s.Exceptions += len(res.Exceptions)
		if res.Err != nil {
			s.Errors++
		}
	}
	s.Errors += r.Problems.Count(diag.Error)
	return s
}

// String formats the summary line of the text output.
func (s Summary) String() string {
	out := fmt.Sprintf("%s checked, %s, %s, %s", plural(s.Profiles, "profile"), plural(s.Failures, "failure"), plural(s.Warnings, "warning"), plural(s.Exceptions, "exception"))
	if s.Errors > 0 {
		out += fmt.Sprintf(", %s", plural(s.Errors, "error"))
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// rule returns the rule with the given ID, or nil.
func (r *Report) rule(id string) *Rule {
	for i := range r.Rules {
		if r.Rules[i].ID == id {
			return &r.Rules[i]
		}
	}
	return nil
}

// Format names an output format.
type Format string

// Output formats.
const (
	FormatText   Format = "text"
	FormatJSON   Format = "json"
	FormatSARIF  Format = "sarif"
	FormatJUnit  Format = "junit"
	FormatGitHub Format = "github"
)

// Formats lists the output formats.
var Formats = []Format{FormatText, FormatJSON, FormatSARIF, FormatJUnit, FormatGitHub}

// WriteOptions tune the output.
type WriteOptions struct {
	// MaxPerRule caps the findings of one code shown per file in the text
	// output (the rest are counted); 0 shows all. Other formats always
	// include every finding.
	MaxPerRule int
	// FailOnWarn makes warnings fail (JUnit failures).
	FailOnWarn bool
	// ShowExceptions lists suppressed findings in the text output.
	ShowExceptions bool
}

// Write writes the report in format f.
func (r *Report) Write(w io.Writer, f Format, opts WriteOptions) error {
	switch f {
	case FormatText:
		return r.WriteText(w, opts)
	case FormatJSON:
		return r.WriteJSON(w)
	case FormatSARIF:
		return r.WriteSARIF(w)
	case FormatJUnit:
		return r.WriteJUnit(w, opts)
	case FormatGitHub:
		return r.WriteGitHub(w)
	}
	return fmt.Errorf("unknown format %q", f)
}

// jsonResult is a Result with its error as text.
type jsonResult struct {
	*Result
	Error string `json:"error,omitempty"`
}

// WriteJSON writes the report as one JSON document:
// {"summary": {...}, "results": [{"profile", "file", "failures",
// "warnings", "exceptions", "error"}]}, and when input could not be
// checked "problems": the diagnostics, as sbc compile --format json
// writes them.
func (r *Report) WriteJSON(w io.Writer) error {
	doc := struct {
		Summary  Summary               `json:"summary"`
		Results  []jsonResult          `json:"results"`
		Problems []diag.JSONDiagnostic `json:"problems,omitempty"`
	}{Summary: r.Summary(), Results: make([]jsonResult, 0, len(r.Results))}
	if len(r.Problems) > 0 {
		doc.Problems = diag.Report(r.Problems, r.Sources).Diagnostics
	}
	for _, res := range r.Results {
		jr := jsonResult{Result: res}
		if res.Err != nil {
			jr.Error = res.Err.Error()
		}
		doc.Results = append(doc.Results, jr)
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the report: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// fileGroup is the results of one file, in order.
type fileGroup struct {
	file    string
	results []*Result
}

func (r *Report) byFile() []fileGroup {
	var out []fileGroup
	idx := map[string]int{}
	for _, res := range r.Results {
		i, ok := idx[res.File]
		if !ok {
			i = len(out)
			idx[res.File] = i
			out = append(out, fileGroup{file: res.File})
		}
		out[i].results = append(out[i].results, res)
	}
	return out
}

// WriteText writes the findings for people: a conftest-style line per
// finding (FAIL, WARN) with its location, the offending source lines
// marked as Terraform marks them, and a summary line. Findings are grouped
// by file; past opts.MaxPerRule findings of one code in one file, the rest
// are only counted.
func (r *Report) WriteText(w io.Writer, opts WriteOptions) error {
	var b strings.Builder
	for _, g := range r.byFile() {
		shown := map[string]int{}
		hidden := map[string]int{}
		var order []string
		for _, res := range g.results {
			if res.Err != nil {
				fmt.Fprintf(&b, "ERROR - %s - %s - %s\n\n", ir.Printable(res.File), ir.Printable(res.Profile), ir.Printable(res.Err.Error()))
			}
			all := make([]Finding, 0, len(res.Failures)+len(res.Warnings))
			all = append(all, res.Failures...)
			all = append(all, res.Warnings...)
			sortFindings(all)
			for _, f := range all {
				if opts.MaxPerRule > 0 && shown[f.Code] >= opts.MaxPerRule {
					if hidden[f.Code] == 0 {
						order = append(order, f.Code)
					}
					hidden[f.Code]++
					continue
				}
				shown[f.Code]++
				r.writeTextFinding(&b, res, f)
			}
			if opts.ShowExceptions {
				for _, f := range res.Exceptions {
					fmt.Fprintf(&b, "EXCP - %s - %s - %s: %s (excepted by %s)\n\n", where(res, f), ir.Printable(res.Profile), ir.Printable(f.Code), ir.Printable(f.Message), ir.Printable(f.ExceptedBy))
				}
			}
		}
		for _, code := range order {
			fmt.Fprintf(&b, "... and %d more %s findings in %s not shown (--max-per-rule=0 shows all)\n\n", hidden[code], ir.Printable(code), ir.Printable(g.file))
		}
	}
	b.WriteString(r.Summary().String())
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// where is the finding's location as printed (made printable: a file
// name comes from the command line or, for an artifact, from the
// artifact's source ranges, anyone's to write).
func where(res *Result, f Finding) string {
	if f.Range != nil {
		return ir.Printable(fmt.Sprintf("%s:%d:%d", f.Range.Filename, f.Range.Start.Line, f.Range.Start.Column))
	}
	return ir.Printable(res.File)
}

func (r *Report) writeTextFinding(b *strings.Builder, res *Result, f Finding) {
	label := "FAIL"
	if f.Severity == Warning {
		label = "WARN"
	}
	// Messages quote paths of the profile (any character, through HCL's
	// escapes): one printable line each.
	fmt.Fprintf(b, "%s - %s - %s - %s: %s\n", label, where(res, f), ir.Printable(res.Profile), ir.Printable(f.Code), ir.Printable(f.Message))
	if f.Range != nil {
		writeSnippet(b, *f.Range, r.Sources)
	}
	b.WriteByte('\n')
}

// writeSnippet shows the source lines of rng with the span marked, using
// the compiler's diagnostics renderer to find them.
func writeSnippet(b *strings.Builder, rng ir.Range, srcs *diag.Sources) {
	rep := diag.Report(diag.Diagnostics{{Severity: diag.Error, Summary: "x", Range: &rng}}, srcs)
	if len(rep.Diagnostics) == 0 || rep.Diagnostics[0].Snippet == nil {
		return
	}
	sn := rep.Diagnostics[0].Snippet
	b.WriteString("\n  on ")
	b.WriteString(ir.Printable(rng.String()))
	if sn.Context != nil && *sn.Context != "" {
		b.WriteString(", in ")
		b.WriteString(ir.Printable(*sn.Context))
	}
	b.WriteString(":\n")
	lines := strings.Split(sn.Code, "\n")
	width := len(fmt.Sprint(sn.StartLine + len(lines) - 1))
	off := 0
	for i, l := range lines {
		// One for one (the marks stay aligned): the source's own
		// control characters are not printed either.
		fmt.Fprintf(b, "  %*d: %s\n", width, sn.StartLine+i, ir.Printable(l))
		hs, he := sn.HighlightStartOffset-off, sn.HighlightEndOffset-off
		hs = max(0, min(hs, len(l)))
		he = max(hs, min(he, len(l)))
		pad := strings.Map(func(r rune) rune {
			if r == '\t' {
				return '\t'
			}
			return ' '
		}, l[:hs])
		marks := max(1, len([]rune(l[hs:he])))
		fmt.Fprintf(b, "  %s  %s%s\n", strings.Repeat(" ", width), pad, strings.Repeat("^", marks))
		off += len(l) + 1
	}
}
