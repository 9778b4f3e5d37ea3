package policies

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBundleDeclaredSize: a tarball of a few dozen bytes whose entry
// declares a gigabyte is refused from its headers, before OPA's reader
// would allocate the declared size (red team 17).
func TestBundleDeclaredSize(t *testing.T) {
	var tarData bytes.Buffer
	tw := tar.NewWriter(&tarData)
	if err := tw.WriteHeader(&tar.Header{Name: "data.json", Mode: 0o644, Size: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	// No body, no trailer: only the header counts.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(tarData.Bytes())
	zw.Close()
	p := filepath.Join(t.TempDir(), "big.tar.gz")
	if err := os.WriteFile(p, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load([]string{p}, false)
	if err == nil || !strings.Contains(err.Error(), "declare more than") {
		t.Fatalf("Load of a bundle declaring 1 GiB: %v, want a refusal naming the declared size", err)
	}
}
