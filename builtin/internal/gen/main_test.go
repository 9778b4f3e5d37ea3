package main

import (
	"bytes"
	"os"
	"testing"
)

// TestDecodedUpToDate checks that builtin/decoded.go is exactly what the
// generator writes from the artifacts now (no hand edits, not stale). The
// semantic check, against ir.DecodeArtifact, is in package builtin.
func TestDecodedUpToDate(t *testing.T) {
	if err := os.Chdir("../.."); err != nil {
		t.Fatal(err)
	}
	want, err := generate(false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(output)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("builtin/%s is stale or was edited by hand: run go generate ./builtin", output)
	}
}

func TestIdent(t *testing.T) {
	for in, want := range map[string]string{"danger-full-access": "DangerFullAccess", "workspace": "Workspace", "a_b-2c": "AB2c"} {
		if got := ident(in); got != want {
			t.Errorf("ident(%q) = %q, want %q", in, got, want)
		}
	}
}
