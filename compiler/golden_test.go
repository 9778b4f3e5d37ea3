package compiler

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/ir"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./compiler -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run go test ./compiler -update and review the diff):\n--- got\n%s", path, got)
	}
}

// prettyIR returns the canonical IR of p, indented for review.
func prettyIR(t *testing.T, p *ir.Profile) []byte {
	t.Helper()
	data, _, err := ir.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		t.Fatal(err)
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// examples returns the example profiles as sources named by their path
// from the repository root, so that golden files do not depend on where
// the test runs.
func examples(t *testing.T) []Source {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "profiles", "*.hcl"))
	if err != nil || len(files) < 5 {
		t.Fatalf("want at least 5 example profiles, found %d (%v)", len(files), err)
	}
	var srcs []Source
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, Source{Name: filepath.ToSlash(strings.TrimPrefix(f, ".."+string(filepath.Separator))), Data: data})
	}
	return srcs
}

// TestGoldenExamples pins the IR of every profile in testdata/profiles, in
// testdata/golden/FILE/PROFILE.json. Each file compiles on its own.
func TestGoldenExamples(t *testing.T) {
	for _, src := range examples(t) {
		res, ds := CompileSources([]Source{src})
		if ds.HasErrors() {
			t.Fatalf("%s: %v", src.Name, ds)
		}
		for _, d := range ds {
			// The sketch from the issue keeps its port list with mode none.
			if !(d.Code == "ports-ignored" && strings.HasSuffix(src.Name, "dev.hcl")) {
				t.Errorf("unexpected diagnostic: %v", d)
			}
		}
		if len(res.Profiles) == 0 {
			t.Fatalf("%s: no profiles", src.Name)
		}
		stem := strings.TrimSuffix(filepath.Base(src.Name), ".hcl")
		for _, p := range res.Profiles {
			golden(t, filepath.Join("..", "testdata", "golden", stem, p.Name+".json"), prettyIR(t, p))
		}
	}
}

// TestGoldenBuiltins pins the IR of every built-in profile, in
// testdata/golden/builtin/NAME.json.
func TestGoldenBuiltins(t *testing.T) {
	for _, name := range builtin.Names() {
		res, ds := CompileBuiltin(name)
		if ds.HasErrors() || len(res.Profiles) != 1 {
			t.Fatalf("%s: %v", name, ds)
		}
		for _, d := range ds {
			if d.Code != "unsandboxed" || name != "danger-full-access" {
				t.Errorf("unexpected diagnostic: %v", d)
			}
		}
		golden(t, filepath.Join("..", "testdata", "golden", "builtin", name+".json"), prettyIR(t, res.Profiles[0]))
	}
}

// TestDeterministic compiles every example twice, all files together and
// in a fresh compilation each time, and requires byte-identical artifacts.
func TestDeterministic(t *testing.T) {
	build := func() map[string][]byte {
		res, ds := CompileSources(examples(t))
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		out := map[string][]byte{}
		for _, p := range res.Profiles {
			a, ds := Artifact(p, nil)
			if ds.HasErrors() {
				t.Fatal(ds)
			}
			data, err := a.Encode()
			if err != nil {
				t.Fatal(err)
			}
			out[p.Name] = data
		}
		return out
	}
	first, second := build(), build()
	if len(first) < 8 {
		t.Fatalf("only %d profiles", len(first))
	}
	for name, data := range first {
		if !bytes.Equal(data, second[name]) {
			t.Errorf("%s: artifacts differ between runs", name)
		}
		if _, _, err := ir.DecodeArtifact(data); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
