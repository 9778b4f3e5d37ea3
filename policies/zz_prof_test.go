package policies

import (
	"context"
	"testing"
	"encoding/json"
	"bytes"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

func TestProfRules(t *testing.T) {
	ctx := context.Background()
	e, _ := New(ctx, Options{})
	mods, _ := BuiltinModules(false)
	ps := genProfiles(400, 1)
	var vals []ast.Value
	for _, p := range ps {
		raw, _ := InputDocument(Input{Profile: p})
		dec := json.NewDecoder(bytes.NewReader(raw)); dec.UseNumber()
		var doc any; dec.Decode(&doc)
		v, _ := ast.InterfaceToValue(doc)
		vals = append(vals, v)
	}
	for _, r := range e.rules {
		c := ast.NewCompiler().WithCapabilities(Capabilities())
		c.Compile(mods)
		pq, err := rego.New(rego.ParsedQuery(ast.NewBody(ast.NewExpr(ast.NewTerm(ruleRef(r))))), rego.Compiler(c), accessOption()).PrepareForEval(ctx)
		if err != nil { t.Fatal(err) }
		c0 := cpu()
		for _, v := range vals {
			if _, err := pq.Eval(ctx, rego.EvalParsedInput(v)); err != nil { t.Fatal(err) }
		}
		t.Logf("%8d %-55s", (cpu()-c0).Microseconds()/int64(len(vals)), r.ID)
	}
}
