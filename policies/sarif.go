package policies

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
)

// SARIF 2.1.0 documents, as much of the format as sbc emits.

// SARIFSchema is the schema URI written into SARIF output.
const SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string          `json:"id"`
	Name                 string          `json:"name,omitempty"`
	ShortDescription     *sarifMessage   `json:"shortDescription,omitempty"`
	FullDescription      *sarifMessage   `json:"fullDescription,omitempty"`
	Help                 *sarifMessage   `json:"help,omitempty"`
	DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
	Properties           map[string]any  `json:"properties,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
	// RelatedLocations holds, for a finding on an inherited built-in
	// rule, that rule's place in the built-in profile.
	RelatedLocations []sarifLocation    `json:"relatedLocations,omitempty"`
	Suppressions     []sarifSuppression `json:"suppressions,omitempty"`
	Properties       map[string]any     `json:"properties,omitempty"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	Message          *sarifMessage  `json:"message,omitempty"`
	Properties       map[string]any `json:"properties,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

type sarifLogical struct {
	Name string `json:"name"`
	Kind string `json:"kind,omitempty"`
}

func level(s Severity) string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// sarifURI turns a file name as the user gave it into a URI reference:
// relative paths stay relative (GitHub resolves them against the
// repository root), absolute ones become file: URIs.
func sarifURI(name string) string {
	slash := filepath.ToSlash(name)
	if filepath.IsAbs(name) {
		if !strings.HasPrefix(slash, "/") {
			slash = "/" + slash // C:/x on Windows
		}
		return (&url.URL{Scheme: "file", Path: slash}).String()
	}
	return (&url.URL{Path: strings.TrimPrefix(slash, "./")}).String()
}

// WriteSARIF writes the report as a SARIF 2.1.0 log with one run. Rule IDs
// are finding codes; every result has the region of its finding so that
// GitHub code scanning annotates the line. Excepted findings are included
// as suppressed results; evaluation errors are tool notifications.
func (r *Report) WriteSARIF(w io.Writer) error {
	name, version, _ := strings.Cut(r.Tool, " ")
	if name == "" {
		name = "sbc"
	}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: name, Version: version,
			InformationURI: "https://github.com/sbx-dev/sbx",
			Rules:          []sarifRule{},
		}},
		Results: []sarifResult{},
	}
	index := map[string]int{}
	addRule := func(code string, rule *Rule, sev Severity) int {
		if i, ok := index[code]; ok {
			return i
		}
		sr := sarifRule{ID: code, DefaultConfiguration: sarifRuleConfig{Level: level(sev)}}
		props := map[string]any{"tags": []string{"security", "sandbox"}}
		if rule != nil {
			sr.Name = rule.Title
			if sr.Name == "" {
				sr.Name = rule.Name
			}
			short := rule.Title
			if short == "" {
				short = rule.ID
			}
			sr.ShortDescription = &sarifMessage{Text: short}
			if rule.Description != "" {
				sr.FullDescription = &sarifMessage{Text: oneLine(rule.Description)}
				sr.Help = &sarifMessage{Text: oneLine(rule.Description)}
			}
			props["rule"] = rule.ID
			if rule.Builtin {
				props["tags"] = []string{"security", "sandbox", "builtin"}
			}
		}
		// GitHub code scanning ranks security alerts by this score.
		if sev == Failure {
			props["security-severity"] = "7.5"
		} else {
			props["security-severity"] = "4.0"
		}
		sr.Properties = props
		index[code] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
		return index[code]
	}
	for i := range r.Rules {
		rl := &r.Rules[i]
		if rl.Kind == KindException || rl.Code == "" {
			continue
		}
		sev := Failure
		if rl.Kind == KindWarn {
			sev = Warning
		}
		addRule(rl.Code, rl, sev)
	}
	inv := sarifInvocation{ExecutionSuccessful: !r.Problems.HasErrors()}
	for _, d := range r.Problems {
		n := sarifNotification{Level: "error", Message: sarifMessage{Text: problemText(d)}}
		if d.Severity != diag.Error {
			n.Level = "warning"
		}
		if d.Range != nil && d.Range.Filename != "" {
			n.Locations = []sarifLocation{{PhysicalLocation: sarifPhysicalOf(d.Range.Filename, d.Range)}}
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
	}
	for _, res := range r.Results {
		if res.Err != nil {
			inv.ExecutionSuccessful = false
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
				Level:     "error",
				Message:   sarifMessage{Text: res.Err.Error()},
				Locations: []sarifLocation{{PhysicalLocation: &sarifPhysical{ArtifactLocation: sarifArtifact{URI: sarifURI(res.File)}}}},
			})
		}
		emit := func(f Finding, suppressed bool) {
			ri := addRule(f.Code, r.rule(f.Rule), f.Severity)
			sr := sarifResult{
				RuleID: f.Code, RuleIndex: ri, Level: level(f.Severity),
				Message:    sarifMessage{Text: f.Message},
				Properties: map[string]any{"profile": res.Profile, "rule": f.Rule},
			}
			loc := sarifLocation{LogicalLocations: []sarifLogical{{Name: res.Profile, Kind: "object"}}}
			at, inherited := res.Located(f)
			file := res.File
			if at != nil && at.Filename != "" {
				file = at.Filename
			}
			loc.PhysicalLocation = sarifPhysicalOf(file, at)
			sr.Locations = []sarifLocation{loc}
			if inherited != nil {
				sr.RelatedLocations = []sarifLocation{{
					PhysicalLocation: sarifPhysicalOf(inherited.Filename, inherited),
					Message:          &sarifMessage{Text: "the rule, inherited from a built-in profile"},
				}}
			}
			if suppressed {
				sr.Suppressions = []sarifSuppression{{Kind: "external", Justification: "excepted by " + f.ExceptedBy}}
			}
			run.Results = append(run.Results, sr)
		}
		for _, f := range res.Failures {
			emit(f, false)
		}
		for _, f := range res.Warnings {
			emit(f, false)
		}
		for _, f := range res.Exceptions {
			emit(f, true)
		}
	}
	run.Invocations = []sarifInvocation{inv}
	log := sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}}
	data, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding SARIF: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// oneLine joins a multi-line description into one paragraph.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// sarifPhysicalOf locates file, and within it r's region when r has a
// line (r may be nil).
func sarifPhysicalOf(file string, r *ir.Range) *sarifPhysical {
	ph := &sarifPhysical{ArtifactLocation: sarifArtifact{URI: sarifURI(file)}}
	if r != nil && r.Start.Line > 0 {
		reg := &sarifRegion{StartLine: r.Start.Line, StartColumn: max(1, r.Start.Column)}
		if r.End.Line >= r.Start.Line {
			reg.EndLine = r.End.Line
			if r.End.Column > 0 && (reg.EndLine > reg.StartLine || r.End.Column >= reg.StartColumn) {
				reg.EndColumn = r.End.Column
			}
		}
		ph.Region = reg
	}
	return ph
}

// problemText is a problem's summary and detail as one message.
func problemText(d diag.Diagnostic) string {
	if d.Detail == "" {
		return d.Summary
	}
	return d.Summary + ": " + d.Detail
}
