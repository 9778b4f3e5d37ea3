package policies

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sbx-dev/sbx/compiler/diag"
)

// testReport checks generated profiles and testProfile with the built-in
// rules and an organisation policy with an exception, plus one profile
// whose evaluation fails, so that every kind of entry appears.
func testReport(t *testing.T) *Report {
	t.Helper()
	dir := writeFiles(t, map[string]string{"p.rego": `package main

deny contains {"code": "ORG001", "msg": "network must be off, said \"ops\"", "node": input.profile.network} if {
	input.profile.network.mode == "full"
}

deny contains msg if {
	input.name == "boom"
	msg := sprintf("%d", [1 / 0])
}

exception contains ["SBX011"] if input.name == "p0001"
`})
	e, err := New(context.Background(), Options{Policies: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	ps := genProfiles(5, 3)
	ins := inputsFor(ps)
	ins = append(ins, Input{Profile: testProfile()})
	boom := testProfile()
	boom.Name = "boom"
	ins = append(ins, Input{Profile: boom})
	srcs := diag.NewSources()
	srcs.Add("dev.hcl", []byte("profile \"dev\" {\n  read = [root]\n  write = [cwd]\n  deny = [\"~/.ssh\"]\n  protect = [\".git\"]\n  network { mode = \"full\" }\n  process {}\n}\n"))
	return &Report{Results: e.CheckAll(context.Background(), ins), Rules: e.Rules(), Sources: srcs, Tool: "sbc 0.1.0"}
}

// TestSARIFValidates validates the SARIF output against the official
// SARIF 2.1.0 JSON schema (OASIS, errata 01), vendored in testdata.
func TestSARIFValidates(t *testing.T) {
	rep := testReport(t)
	var buf bytes.Buffer
	if err := rep.WriteSARIF(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("SARIF output does not validate: %v", err)
	}
	// The schema is not vacuous: a result without a message fails.
	var log map[string]any
	json.Unmarshal(buf.Bytes(), &log)
	res := log["runs"].([]any)[0].(map[string]any)["results"].([]any)
	delete(res[0].(map[string]any), "message")
	var ve *jsonschema.ValidationError
	if err := sch.Validate(log); !errors.As(err, &ve) {
		t.Errorf("a result without a message validated: %v", err)
	}

	// What GitHub code scanning needs.
	var out struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				ExecutionSuccessful bool `json:"executionSuccessful"`
			} `json:"invocations"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine, StartColumn, EndLine, EndColumn int
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Suppressions []any `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	run := out.Runs[0]
	if run.Invocations[0].ExecutionSuccessful {
		t.Error("a failed evaluation should make executionSuccessful false")
	}
	suppressed := 0
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("ruleIndex %d does not point at %s", r.RuleIndex, r.RuleID)
		}
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI == "" || loc.Region.StartLine < 1 || loc.Region.StartColumn < 1 {
			t.Errorf("result %s has no usable location: %+v", r.RuleID, loc)
		}
		if len(r.Suppressions) > 0 {
			suppressed++
		}
	}
	if suppressed == 0 {
		t.Error("excepted findings should appear as suppressed results")
	}
}

func TestJUnit(t *testing.T) {
	rep := testReport(t)
	var buf bytes.Buffer
	if err := rep.WriteJUnit(&buf, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit output is not XML: %v", err)
	}
	s := rep.Summary()
	if doc.Errors != s.Errors || doc.Failures == 0 || doc.Tests == 0 {
		t.Errorf("counts: %+v, summary %+v", doc, s)
	}
	for _, suite := range doc.Suites {
		n := 0
		for _, c := range suite.Cases {
			if c.Failure != nil {
				n++
			}
		}
		if n != suite.Failures {
			t.Errorf("suite %s: failures attribute %d, %d failed cases", suite.Name, suite.Failures, n)
		}
	}
}

func TestGitHubEscaping(t *testing.T) {
	if got := ghData("50% done\r\nnext"); got != "50%25 done%0D%0Anext" {
		t.Errorf("ghData: %q", got)
	}
	if got := ghProp("a:b,c%"); got != "a%3Ab%2Cc%25" {
		t.Errorf("ghProp: %q", got)
	}
	rep := testReport(t)
	var buf bytes.Buffer
	if err := rep.WriteGitHub(&buf); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if strings.HasPrefix(line, "::error file=dev.hcl,line=6,col=3,endLine=6,endColumn=20,title=ORG001 (dev)::network must be off") {
			return
		}
	}
	t.Errorf("no annotation for ORG001 at dev.hcl:6:\n%s", buf.String())
}

func TestTextOutput(t *testing.T) {
	rep := testReport(t)
	var buf bytes.Buffer
	if err := rep.WriteText(&buf, WriteOptions{MaxPerRule: 1, ShowExceptions: true}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"FAIL - dev.hcl:6:3 - dev - ORG001: network must be off",
		"  on dev.hcl:6:3, in profile \"dev\":\n  6:   network { mode = \"full\" }\n",
		"ERROR - dev.hcl - boom - evaluating policy",
		"EXCP - ",
		"not shown (--max-per-rule=0 shows all)",
		"7 profiles checked, ",
		", 1 error\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

func TestJSONOutput(t *testing.T) {
	rep := testReport(t)
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary Summary `json:"summary"`
		Results []struct {
			Profile  string    `json:"profile"`
			Failures []Finding `json:"failures"`
			Error    string    `json:"error"`
		} `json:"results"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Summary != rep.Summary() || len(doc.Results) != 7 || doc.Results[6].Error == "" {
		t.Errorf("JSON report: %+v", doc)
	}
}
