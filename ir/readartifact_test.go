package ir

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadArtifactSizes: an artifact file is read whole whatever the size
// hint says (a file that changed size since its stat, a reader without
// one, one that returns a byte at a time), and data over MaxArtifactSize
// is refused as corrupt, from a file and from a reader.
func TestReadArtifactSizes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "builtin", "artifacts", "workspace.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(data))
	for _, tc := range []struct {
		name string
		size int64
	}{
		{"exact", n},
		{"no hint", 0},
		{"hint too small", n / 3},
		{"hint too large", n * 4},
		{"negative hint", -1},
	} {
		for _, slow := range []bool{false, true} {
			r := bytes.NewReader(data)
			var rd io.Reader = r
			if slow {
				rd = iotest.OneByteReader(r)
			}
			a, p, err := readArtifact(rd, "x", tc.size)
			if err != nil || a == nil || p == nil || p.Name != "workspace" {
				t.Errorf("%s (one byte at a time %v): %v", tc.name, slow, err)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, p, err := ReadArtifact(path); err != nil || p.Name != "workspace" {
		t.Errorf("ReadArtifact: %v", err)
	}
	// Over the limit: a file (its size known) and a reader.
	big := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxArtifactSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, _, err = ReadArtifact(big)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("ReadArtifact of %d bytes: %v", MaxArtifactSize+1, err)
	}
	_, _, err = ReadArtifactFrom(bytes.NewReader(make([]byte, MaxArtifactSize+1)), "big")
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("ReadArtifactFrom of %d bytes: %v", MaxArtifactSize+1, err)
	}
}
