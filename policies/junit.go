package policies

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sbx-dev/sbx/compiler/diag"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes the report as JUnit XML for CI dashboards: one
// testsuite per file, and per profile one testcase per evaluated deny or
// warn rule. A rule's failures fail its testcase; its warnings are listed
// as output (failures with opts.FailOnWarn); a testcase whose findings were
// all excepted is skipped; a profile whose evaluation failed has one
// testcase with an error.
func (r *Report) WriteJUnit(w io.Writer, opts WriteOptions) error {
	doc := junitSuites{Name: "sbc check"}
	var rules []*Rule
	for i := range r.Rules {
		if r.Rules[i].Kind != KindException {
			rules = append(rules, &r.Rules[i])
		}
	}
	sort.SliceStable(rules, func(i, j int) bool { return caseName(rules[i]) < caseName(rules[j]) })
	// Problems that kept input from being checked: one suite with an
	// erroring testcase each.
	if len(r.Problems) > 0 {
		suite := junitSuite{Name: "sbc check: input"}
		for _, d := range r.Problems {
			tc := junitCase{Name: "input: " + d.Summary, Classname: "input"}
			if d.Range != nil {
				tc.File, tc.Line = d.Range.Filename, d.Range.Start.Line
			}
			if d.Severity == diag.Error {
				tc.Error = &junitProblem{Message: d.Summary, Type: "error", Text: problemText(d)}
				suite.Errors++
			} else {
				tc.SystemOut = problemText(d)
			}
			suite.Cases = append(suite.Cases, tc)
		}
		suite.Tests = len(suite.Cases)
		doc.Tests += suite.Tests
		doc.Errors += suite.Errors
		doc.Suites = append(doc.Suites, suite)
	}
	for _, g := range r.byFile() {
		suite := junitSuite{Name: g.file}
		for _, res := range g.results {
			if res.Err != nil {
				suite.Cases = append(suite.Cases, junitCase{
					Name: res.Profile + ": policy evaluation", Classname: res.Profile, File: res.File,
					Error: &junitProblem{Message: "policy evaluation failed", Type: "error", Text: res.Err.Error()},
				})
				suite.Errors++
				continue
			}
			for _, rule := range rules {
				tc := junitCase{Name: res.Profile + ": " + caseName(rule), Classname: res.Profile, File: res.File}
				fails := findingsOf(res.Failures, rule.ID)
				warns := findingsOf(res.Warnings, rule.ID)
				excs := findingsOf(res.Exceptions, rule.ID)
				switch {
				case len(fails) > 0 || (opts.FailOnWarn && len(warns) > 0):
					all := append(fails, warns...)
					typ := "failure"
					if len(fails) == 0 {
						typ = "warning"
					}
					tc.Failure = &junitProblem{Message: all[0].Message, Type: typ, Text: findingLines(res, all)}
					if all[0].Range != nil {
						tc.Line = all[0].Range.Start.Line
					}
					suite.Failures++
				case len(warns) > 0:
					tc.SystemOut = findingLines(res, warns)
				case len(excs) > 0:
					tc.Skipped = &junitSkipped{Message: fmt.Sprintf("%s excepted by %s", excs[0].Code, excs[0].ExceptedBy)}
					suite.Skipped++
				}
				suite.Cases = append(suite.Cases, tc)
			}
		}
		suite.Tests = len(suite.Cases)
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Errors += suite.Errors
		doc.Skipped += suite.Skipped
		doc.Suites = append(doc.Suites, suite)
	}
	data, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding JUnit XML: %w", err)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

func caseName(r *Rule) string {
	switch {
	case r.Code != "" && r.Title != "":
		return r.Code + " " + r.Title
	case r.Code != "":
		return r.Code + " " + r.ID
	}
	return r.ID
}

func findingsOf(fs []Finding, rule string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

func findingLines(res *Result, fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		label := "FAIL"
		if f.Severity == Warning {
			label = "WARN"
		}
		fmt.Fprintf(&b, "%s - %s - %s: %s\n", label, where(res, f), f.Code, f.Message)
	}
	return b.String()
}
