package compiler

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
)

// FuzzCompile feeds arbitrary bytes to the front end. The seed corpus is
// every example profile, every bad fixture and every built-in source, plus
// the files under testdata/fuzz/FuzzCompile. It checks that nothing panics
// (or overflows the stack), that every error points into the input, that
// every compiled profile is valid and round-trips through its artifact, and
// that the renderers and the formatter cope with whatever came out.
//
// CI runs a short session: go test ./compiler -run '^$' -fuzz FuzzCompile -fuzztime 60000x
func FuzzCompile(f *testing.F) {
	addProfileSeeds(f, "../testdata/profiles/*.hcl", "../testdata/bad/*.hcl")
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.hcl"
		res, ds := CompileSources([]Source{{Name: name, Data: data}})
		for _, d := range ds {
			checkRange(t, d, name, len(data))
		}
		for _, p := range res.Profiles {
			if err := p.Validate(); err != nil {
				t.Fatalf("invalid IR: %v", err)
			}
			for _, r := range nodeRanges(p) {
				if r.Filename == name && (r.Start.Byte < 0 || r.End.Byte > len(data) || r.Start.Byte > r.End.Byte) {
					t.Fatalf("IR node range %v outside the input (%d bytes)", r, len(data))
				}
			}
			a, ads := Artifact(p, nil)
			if ads.HasErrors() {
				t.Fatalf("artifact: %v", ads)
			}
			enc, err := a.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := ir.DecodeArtifact(enc); err != nil {
				t.Fatalf("artifact does not decode: %v", err)
			}
		}
		var out bytes.Buffer
		if err := diag.WriteText(&out, ds, res.Sources); err != nil {
			t.Fatal(err)
		}
		if err := diag.WriteJSON(&out, ds, res.Sources); err != nil {
			t.Fatal(err)
		}
		if formatted, fds := Format(name, data); !fds.HasErrors() {
			// Formatting is idempotent and keeps the file's meaning.
			again, _ := Format(name, formatted)
			if !bytes.Equal(again, formatted) {
				t.Fatalf("fmt is not idempotent:\n%s\n---\n%s", formatted, again)
			}
		}
	})
}

// checkRange requires an error diagnostic to carry a range inside the
// input (or in a built-in source), except the summary of dropped errors.
func checkRange(t *testing.T, d diag.Diagnostic, name string, size int) {
	t.Helper()
	if d.Range == nil {
		if d.Severity == diag.Error && d.Code != "too-many-errors" {
			t.Fatalf("error without a range: %v", d)
		}
		return
	}
	r := d.Range
	if strings.HasPrefix(r.Filename, builtin.SourcePrefix) {
		return
	}
	if r.Filename != name {
		t.Fatalf("diagnostic in unknown file: %v", d)
	}
	if r.Start.Line < 1 || r.Start.Column < 1 || r.Start.Byte < 0 || r.End.Byte > size || r.Start.Byte > r.End.Byte {
		t.Fatalf("range %+v outside the input (%d bytes): %v", *r, size, d)
	}
}

// nodeRanges returns the source range of every IR node of p.
func nodeRanges(p *ir.Profile) []ir.Range {
	rs := []ir.Range{p.Source, p.Network.Source, p.Process.Source}
	for _, r := range p.Filesystem.Rules {
		rs = append(rs, r.Source)
	}
	for _, g := range p.Filesystem.DenyGlobs {
		rs = append(rs, g.Source)
	}
	for _, x := range p.Filesystem.Protect {
		rs = append(rs, x.Source)
	}
	for _, x := range p.Network.ConnectTCP {
		rs = append(rs, x.Source)
	}
	for _, x := range p.Network.BindTCP {
		rs = append(rs, x.Source)
	}
	for _, x := range p.Network.UnixSockets {
		rs = append(rs, x.Source)
	}
	return rs
}

// addProfileSeeds seeds f with the files the globs match and every
// built-in profile's source.
func addProfileSeeds(f *testing.F, globs ...string) {
	for _, glob := range globs {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	fs.WalkDir(builtin.Sources(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := fs.ReadFile(builtin.Sources(), p)
			f.Add(data)
		}
		return err
	})
}
