package ir

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// allFieldNames are the JSON names decodeDocument knows.
var allFieldNames = func() []string {
	var out []string
	for _, l := range [][]string{docFields, profileFields, filesystemFields, pathRuleFields, pathFields, globFields, protectFields,
		networkFields, portFields, socketFields, processFields, envFields, envVarFields, rangeFields, posFields} {
		out = append(out, l...)
	}
	return out
}()

// checkDecodeDocument compares decodeDocument with the reflecting decoder.
func checkDecodeDocument(t *testing.T, data []byte) {
	t.Helper()
	doc, err := decodeDocument(data)
	ref, rerr := decodeReflect(data)
	switch {
	case err == nil && rerr != nil:
		t.Fatalf("decodeDocument accepts %.300q, encoding/json refuses it: %v", data, rerr)
	case err == nil:
		if !reflect.DeepEqual(doc, ref) {
			t.Fatalf("%.300q:\ndecodeDocument %.500v\n encoding/json %.500v", data, doc, ref)
		}
	case rerr == nil:
		if msg := err.Error(); !strings.Contains(msg, "appears twice") && !otherCase(msg, allFieldNames) {
			t.Fatalf("decodeDocument refuses %.300q, which encoding/json accepts, for no documented reason: %v", data, err)
		}
	}
}

// TestDecodeDocument: the IR documents of the tests and the built-in
// artifacts, and documents with every kind of value in every field,
// decode as encoding/json decodes them; what only encoding/json accepts
// is a name twice or in another case.
func TestDecodeDocument(t *testing.T) {
	ir, _, err := Encode(sampleProfile())
	if err != nil {
		t.Fatal(err)
	}
	checkDecodeDocument(t, ir)
	// A document with every field.
	src := Range{Filename: "p.hcl", Start: Pos{Line: 1, Column: 2, Byte: 3}, End: Pos{Line: 4, Column: 5, Byte: 6}}
	full := &Profile{
		Name: "full", Description: "d", Extends: []string{"base"}, Unsandboxed: true,
		Filesystem: Filesystem{
			Rules:     []PathRule{{Path: Path{Anchor: AnchorHome, Rel: "a/b"}, Access: Read, Source: src}},
			DenyGlobs: []GlobRule{{Pattern: "*.pem", MaxDepth: 3, Source: src}},
			Protect:   []ProtectRule{{Name: ".git", Source: src}},
		},
		Network: Network{Mode: NetworkPorts, Reason: "r", ConnectTCP: []PortRange{{From: 1, To: 2, Source: src}},
			BindTCP: []PortRange{{From: 3, To: 4}}, UnixSockets: []SocketRule{{Path: Path{Anchor: AnchorTmpdir, Rel: "s"}, Source: src}}, Source: src},
		Process: Process{TimeoutMS: 5, OutputCap: 6, Env: Env{Inherit: "all", Set: []EnvVar{{"A", "1"}}, Unset: []string{"B*"}}, Source: src},
		Source:  src,
	}
	ir, err = json.Marshal(Document{Format: Format, Profile: full})
	if err != nil {
		t.Fatal(err)
	}
	checkDecodeDocument(t, ir)
	doc := string(ir)
	// Each field's value replaced by each kind of value.
	values := []string{`null`, `""`, `"x\u00e9\n"`, "\"\xff\"", `0`, `-1`, `7`, `1.5`, `1e2`, `65536`, `9223372036854775808`, `true`,
		`false`, `[]`, `[null]`, `["a"]`, `{}`, `{"x":1}`, `"read"`, `"deny"`, `"bogus"`}
	found := map[string]bool{}
	for _, name := range allFieldNames {
		key := `"` + name + `":`
		at := strings.Index(doc, key)
		if at < 0 {
			continue
		}
		found[name] = true
		// The value's end: the scanner finds it.
		s := jsonScanner{data: ir, i: at + len(key)}
		if err := s.skipValue(); err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			checkDecodeDocument(t, []byte(doc[:at+len(key)]+v+doc[s.i:]))
		}
		// Given twice, and in another case.
		checkDecodeDocument(t, []byte(doc[:at]+doc[at:s.i]+","+doc[at:]))
		checkDecodeDocument(t, []byte(doc[:at]+`"`+strings.ToUpper(name)+doc[at+1+len(name):]))
	}
	for _, name := range allFieldNames {
		if !found[name] {
			t.Errorf("the sample IR has no field %q to vary", name)
		}
	}
	for _, c := range []struct{ data, want string }{
		{`{"format":"sbx.ir/v1","profile":{"name":"p","name":"q"}}`, `field "name" appears twice in the profile`},
		{`{"format":"sbx.ir/v1","Profile":{}}`, `unknown field "Profile" in the IR document`},
		{`{"format":"sbx.ir/v1","profile":{"source":{"start":{"line":1.5}}}}`, "the number 1.5 is not an integer"},
		{`{"format":"sbx.ir/v1","profile":{"network":{"connect_tcp":[{"from":70000}]}}}`, "the number 70000 is not an integer of 16 bits"},
		{`{"format":"sbx.ir/v1","profile":{"filesystem":{"rules":[{"access":"all"}]}}}`, `unknown access "all"`},
		{`{"format":"sbx.ir/v1"} x`, "trailing data"},
	} {
		if _, err := decodeDocument([]byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.data, err, c.want)
		}
	}
}

// FuzzDecodeDocument: see TestDecodeDocument.
//
//	go test ./ir -run '^$' -fuzz '^FuzzDecodeDocument$' -fuzztime 100000x
func FuzzDecodeDocument(f *testing.F) {
	irSeeds(f)
	f.Add([]byte(`{"format":"sbx.ir/v1","profile":{"name":"p","extends":null,"filesystem":{"rules":[null,{"path":null,"access":null}]},"network":{"connect_tcp":[]},"process":{"env":{"set":[{"name":"A"}],"unset":[null]}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodeDocument(t, data)
	})
}
