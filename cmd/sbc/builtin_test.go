package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/compiler"
)

// TestBuiltinArtifacts checks that the precompiled artifacts embedded in
// package builtin are exactly what `sbc compile -p NAME` produces now, with
// the current compiler and target list. It lives here rather than in
// package builtin because the target list is this command's. With -update
// it regenerates them (go generate ./builtin runs it so).
func TestBuiltinArtifacts(t *testing.T) {
	dir := filepath.Join("..", "..", "builtin", "artifacts")
	names := builtin.Names()
	if len(names) == 0 {
		t.Fatal("no built-in profiles")
	}
	for _, name := range names {
		want := builtinArtifact(t, name)
		path := filepath.Join(dir, name+".json")
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := builtin.Artifact(name)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("builtin/artifacts/%s.json is stale: regenerate it with go generate ./builtin", name)
		}
	}
	// No artifact without a source: a removed built-in must not linger.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		n, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && slices.Contains(names, n) {
			continue
		}
		if *update {
			os.Remove(filepath.Join(dir, e.Name()))
			continue
		}
		t.Errorf("builtin/artifacts/%s has no source in builtin/hcl: remove it (go generate ./builtin does)", e.Name())
	}
}

// builtinArtifact compiles a built-in profile as `sbc compile -p NAME -o -`
// does and returns the artifact's bytes.
func builtinArtifact(t *testing.T, name string) []byte {
	t.Helper()
	res, ds := compiler.CompileBuiltin(name)
	if ds.HasErrors() || len(res.Profiles) != 1 {
		t.Fatalf("compiling built-in %s: %v", name, ds)
	}
	a, ds := compiler.Artifact(res.Profiles[0], targets())
	if ds.HasErrors() {
		t.Fatalf("building the artifact of %s: %v", name, ds)
	}
	data, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCompileBuiltinMatchesArtifact checks the embedded artifact against
// the CLI path end to end: `sbc compile -p NAME -o -` writes those bytes.
func TestCompileBuiltinMatchesArtifact(t *testing.T) {
	for _, name := range builtin.Names() {
		var out, errb bytes.Buffer
		if code := run([]string{"compile", "-p", name, "-o", "-"}, strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("sbc compile -p %s: exit %d\n%s", name, code, errb.String())
		}
		want, err := builtin.Artifact(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("sbc compile -p %s differs from builtin/artifacts/%s.json: go generate ./builtin", name, name)
		}
	}
}
