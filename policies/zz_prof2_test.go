package policies

import (
	"context"
	"testing"
	"encoding/json"
	"bytes"
	"fmt"
	"os"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/profiler"
)

func TestProfExpr(t *testing.T) {
	ctx := context.Background()
	mods, _ := BuiltinModules(false)
	ps := genProfiles(30, 1)
	rule := os.Getenv("RULE")
	c := ast.NewCompiler().WithCapabilities(Capabilities())
	c.Compile(mods)
	prof := profiler.New()
	pq, err := rego.New(rego.ParsedQuery(ast.MustParseBody(rule)), rego.Compiler(c), rego.QueryTracer(prof), accessOption()).PrepareForEval(ctx)
	if err != nil { t.Fatal(err) }
	for _, p := range ps {
		raw, _ := InputDocument(Input{Profile: p})
		dec := json.NewDecoder(bytes.NewReader(raw)); dec.UseNumber()
		var doc any; dec.Decode(&doc)
		v, _ := ast.InterfaceToValue(doc)
		if _, err := pq.Eval(ctx, rego.EvalParsedInput(v), rego.EvalQueryTracer(prof)); err != nil { t.Fatal(err) }
	}
	for _, s := range prof.ReportTopNResults(25, []string{"total_time_ns"}) {
		fmt.Printf("%10.2fms num_eval=%d redo=%d %s:%d\n", float64(s.ExprTimeNs)/1e6, s.NumEval, s.NumRedo, s.Location.File, s.Location.Row)
	}
}
