package landlock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirListerMatchesReadDir: the deny-glob scan's lister returns what
// os.ReadDir does (names, sorted; directories but not links to them), for
// a directory whose entries fill several getdents64 buffers, with names of
// the maximum length, and reports a directory it may not read as a
// permission error, as the scan expects.
func TestDirListerMatchesReadDir(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("n", 255)
	for i := range 1500 {
		name := fmt.Sprintf("%s%04d", long[:200], i)
		var err error
		switch i % 3 {
		case 0:
			err = os.WriteFile(filepath.Join(dir, name), nil, 0o644)
		case 1:
			err = os.Mkdir(filepath.Join(dir, name), 0o755)
		default:
			err = os.Symlink(".", filepath.Join(dir, name))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, long), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := newDirLister()
	got, err := l.list(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("lister: %d entries, os.ReadDir %d", len(got), len(want))
	}
	for i := range want {
		if got[i].name != want[i].Name() || got[i].dir != want[i].IsDir() {
			t.Fatalf("entry %d: lister %q dir=%v, os.ReadDir %q dir=%v", i, got[i].name, got[i].dir, want[i].Name(), want[i].IsDir())
		}
	}
	// The same lister (its buffer reused) lists another directory.
	small := t.TempDir()
	os.Mkdir(filepath.Join(small, "a"), 0o755)
	if got, err := l.list(small); err != nil || len(got) != 1 || got[0].name != "a" || !got[0].dir {
		t.Fatalf("second directory: %+v, %v", got, err)
	}
	if _, err := l.list(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing directory: %v, want not-exist", err)
	}
	if os.Geteuid() != 0 {
		locked := filepath.Join(small, "a")
		os.Chmod(locked, 0)
		defer os.Chmod(locked, 0o755)
		if _, err := l.list(locked); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("an unreadable directory: %v, want a permission error", err)
		}
	}
}
