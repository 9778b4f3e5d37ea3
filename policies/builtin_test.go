package policies

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
)

// TestBuiltinRego runs the built-in rules' Rego unit tests, so that `go
// test ./...` covers them as `sbc test` does.
func TestBuiltinRego(t *testing.T) {
	run, err := RunTests(context.Background(), TestOptions{Builtin: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Results) < 50 {
		t.Errorf("only %d built-in Rego tests ran", len(run.Results))
	}
	for _, r := range run.Results {
		name := r.Package + "." + r.Name
		switch {
		case r.Error != nil:
			t.Errorf("%s: error: %v", name, r.Error)
		case r.Fail:
			t.Errorf("%s (%s:%d): failed%s", name, r.Location.File, r.Location.Row, output(r.Output))
		}
	}
}

func output(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return "\n" + string(b)
}

// TestBuiltinRegoFormatted checks that the built-in Rego is formatted as
// `opa fmt` formats it.
func TestBuiltinRegoFormatted(t *testing.T) {
	for name, src := range BuiltinSources() {
		want, err := format.SourceWithOpts(name, src, format.Opts{RegoVersion: ast.RegoV1})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if string(want) != string(src) {
			t.Errorf("%s is not formatted as opa fmt would; formatted:\n%s", name, want)
		}
	}
}

// TestBuiltinRulesDocumented checks that every built-in deny and warn rule
// has a METADATA block with a title, a rationale, a code and a unit test,
// and that codes are unique.
func TestBuiltinRulesDocumented(t *testing.T) {
	e, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := ""
	for name, src := range BuiltinSources() {
		if strings.HasSuffix(name, "_test.rego") {
			tests += string(src)
		}
	}
	codes := map[string]string{}
	for _, r := range e.Rules() {
		if !r.Builtin {
			continue
		}
		if r.Title == "" || len(r.Description) < 80 {
			t.Errorf("%s: needs a METADATA title and a description giving the rationale", r.ID)
		}
		if r.Code == "" {
			t.Errorf("%s: needs custom.code in its METADATA", r.ID)
		} else if other, dup := codes[r.Code]; dup {
			t.Errorf("%s and %s share code %s", r.ID, other, r.Code)
		}
		codes[r.Code] = r.ID
		pkg := r.Package[strings.LastIndexByte(r.Package, '.')+1:]
		if !strings.Contains(tests, fmt.Sprintf("%s.%s", pkg, r.Name)) {
			t.Errorf("%s: no Rego unit test mentions %s.%s", r.ID, pkg, r.Name)
		}
	}
}

// TestBuiltinRegoStrict compiles the built-in policy in strict mode (no
// unused variables or imports, no shadowing), as `opa check --strict`.
func TestBuiltinRegoStrict(t *testing.T) {
	mods, err := BuiltinModules(true)
	if err != nil {
		t.Fatal(err)
	}
	c := ast.NewCompiler().WithCapabilities(Capabilities()).WithStrict(true).WithDefaultRegoVersion(ast.RegoV1)
	if c.Compile(mods); c.Failed() {
		t.Fatal(c.Errors)
	}
}
