package policies

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/ir"
)

// irFields returns the JSON names of every field reachable from t.
func irFields(t reflect.Type, seen map[reflect.Type]bool, out map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = true
		irFields(f.Type, seen, out)
	}
}

func jsonKeys(v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			out[k] = true
			jsonKeys(e, out)
		}
	case []any:
		for _, e := range x {
			jsonKeys(e, out)
		}
	}
}

// TestInputMatchesIR keeps the Rego input (built directly as OPA values in
// input.go) in step with package ir: every field of the IR must appear in
// the input, under its JSON name. When this fails after a change to
// package ir, add the new field to profileValue.
func TestInputMatchesIR(t *testing.T) {
	p := testProfile()
	r := at("dev.hcl", 9)
	p.Description, p.Extends, p.Unsandboxed = "d", []string{"workspace"}, true
	p.Filesystem.DenyGlobs = []ir.GlobRule{{Pattern: "*.pem", MaxDepth: 8, Source: r}}
	p.Network = ir.Network{Mode: ir.NetworkPorts, Reason: "r", ConnectTCP: []ir.PortRange{{From: 1, To: 2, Source: r}}, BindTCP: []ir.PortRange{{From: 3, To: 3, Source: r}}, UnixSockets: []ir.SocketRule{{Path: ir.Path{Anchor: "root", Rel: "s"}, Source: r}}, Source: r}
	p.Process = ir.Process{TimeoutMS: 1, OutputCap: 2, Env: ir.Env{Inherit: ir.EnvInheritAll, Set: []ir.EnvVar{{Name: "A", Value: "b"}}, Unset: []string{"C"}}, Source: r}
	data, err := InputDocument(Input{Profile: p})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	jsonKeys(doc["profile"], have)
	want := map[string]bool{}
	irFields(reflect.TypeOf(ir.Profile{}), map[reflect.Type]bool{}, want)
	var missing, extra []string
	for k := range want {
		if !have[k] {
			missing = append(missing, k)
		}
	}
	for k := range have {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("input and IR differ: missing from input %v, not in IR %v", missing, extra)
	}
	// The profile part decodes as an IR profile, field for field.
	raw, _ := json.Marshal(doc["profile"])
	var back ir.Profile
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, p) {
		t.Errorf("input profile does not round-trip:\n got %+v\nwant %+v", back, *p)
	}
}
