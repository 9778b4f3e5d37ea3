package policies

import (
	"context"
	"testing"
	"time"
	"encoding/json"
	"bytes"
	"github.com/open-policy-agent/opa/v1/ast"
)

func TestOverhead(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx, Options{NoBuiltin: true, Policies: []string{"/tmp/trivpol"}})
	if err != nil { t.Fatal(err) }
	ins := inputsFor(genProfiles(300, 1))
	t0 := time.Now()
	for _, in := range ins { if _, err := e.Check(ctx, in); err != nil { t.Fatal(err) } }
	t.Logf("trivial check %v/profile", time.Since(t0)/300)
	t0 = time.Now()
	for _, in := range ins {
		raw, _ := InputDocument(in)
		dec := json.NewDecoder(bytes.NewReader(raw)); dec.UseNumber()
		var doc any; dec.Decode(&doc)
		ast.InterfaceToValue(doc)
	}
	t.Logf("input conversion %v/profile", time.Since(t0)/300)
	e2, _ := New(ctx, Options{})
	t0 = time.Now()
	for _, in := range ins { if _, err := e2.Check(ctx, in); err != nil { t.Fatal(err) } }
	t.Logf("builtin check %v/profile", time.Since(t0)/300)
}
