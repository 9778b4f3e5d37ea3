package compiler

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sbx-dev/sbx/ir"
)

// FuzzFormat checks that `sbc fmt` keeps a profile's meaning: a file that
// compiles without errors compiles, once formatted, without errors to the
// same profiles, whose IR is identical but for source ranges (which move
// with the layout). FuzzCompile checks that formatting is idempotent.
//
//	go test ./compiler -run '^$' -fuzz '^FuzzFormat$' -fuzztime 20000x
func FuzzFormat(f *testing.F) {
	addProfileSeeds(f, "../testdata/profiles/*.hcl")
	f.Add([]byte("profile \"x\" {\nfilesystem {\nread=[root]\n  write = [ \"${cwd}/a\" , path(home,\"b\") ]\n}\nprocess {\n  output_cap=\"1 MiB\"\n}\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.hcl"
		res, ds := CompileSources([]Source{{Name: name, Data: data}})
		if ds.HasErrors() {
			return
		}
		formatted, fds := Format(name, data)
		if fds.HasErrors() {
			t.Fatalf("a file that compiles does not format: %v", fds)
		}
		res2, ds2 := CompileSources([]Source{{Name: name, Data: formatted}})
		if ds2.HasErrors() {
			t.Fatalf("the formatted file does not compile: %v\n--- input\n%s\n--- formatted\n%s", ds2, data, formatted)
		}
		if len(res.Profiles) != len(res2.Profiles) {
			t.Fatalf("%d profiles, %d once formatted", len(res.Profiles), len(res2.Profiles))
		}
		for i, p := range res.Profiles {
			a, b := withoutRanges(t, p), withoutRanges(t, res2.Profiles[i])
			if !bytes.Equal(a, b) {
				t.Fatalf("formatting changed profile %s:\n%s\n%s\n--- input\n%s\n--- formatted\n%s", p.Name, a, b, data, formatted)
			}
		}
	})
}

// withoutRanges is p's canonical JSON without its "source" members.
func withoutRanges(t *testing.T, p *ir.Profile) []byte {
	t.Helper()
	data, _, err := ir.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "source")
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(v)
	out, _ := json.Marshal(v)
	return out
}
