//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestWriteAtomicLinks: a symbolic link is written through (its target
// changes, the link stays a link; a dangling link's target is created), a
// file with another hard link is rewritten in place (both names see the
// new contents, the mode is kept, no backup is left), and a plain file is
// replaced by rename.
func TestWriteAtomicLinks(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	read := func(name string) string {
		b, err := os.ReadFile(p(name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	isLink := func(name string) bool {
		st, err := os.Lstat(p(name))
		return err == nil && st.Mode()&os.ModeSymlink != 0
	}

	os.WriteFile(p("real"), []byte("old"), 0o600)
	os.Symlink("real", p("link"))
	os.Symlink("link", p("link2")) // a chain
	if err := writeAtomic(p("link2"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	if !isLink("link") || !isLink("link2") || read("real") != "new" {
		t.Errorf("through links: link %v, link2 %v, real %q", isLink("link"), isLink("link2"), read("real"))
	}
	if st, _ := os.Stat(p("real")); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}

	os.Symlink("sub/../created", p("dangling"))
	os.Mkdir(p("sub"), 0o755)
	if err := writeAtomic(p("dangling"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if !isLink("dangling") || read("created") != "x" {
		t.Errorf("dangling link: link %v", isLink("dangling"))
	}

	os.Symlink("loop2", p("loop1"))
	os.Symlink("loop1", p("loop2"))
	if err := writeAtomic(p("loop1"), []byte("x")); err == nil {
		t.Error("a symlink loop was written")
	}

	os.WriteFile(p("a"), []byte("old"), 0o640)
	os.Link(p("a"), p("b"))
	if err := writeAtomic(p("a"), []byte("new contents")); err != nil {
		t.Fatal(err)
	}
	sa, _ := os.Stat(p("a"))
	sb, _ := os.Stat(p("b"))
	if !os.SameFile(sa, sb) || read("b") != "new contents" || sa.Mode().Perm() != 0o640 {
		t.Errorf("hard link: same file %v, b %q, mode %v", os.SameFile(sa, sb), read("b"), sa.Mode().Perm())
	}
	if m, _ := filepath.Glob(p(".a.*")); len(m) != 0 {
		t.Errorf("left behind: %v", m)
	}

	os.WriteFile(p("plain"), []byte("old"), 0o644)
	before, _ := os.Stat(p("plain"))
	if err := writeAtomic(p("plain"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(p("plain"))
	if os.SameFile(before, after) || read("plain") != "new" {
		t.Errorf("plain file: renamed over %v", !os.SameFile(before, after))
	}
}

// TestCheckOverwriteFIFO: a FIFO at the output path is refused at once,
// without an open that would wait for a writer.
func TestCheckOverwriteFIFO(t *testing.T) {
	f := filepath.Join(t.TempDir(), "out.json")
	if err := syscall.Mkfifo(f, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { done <- checkOverwrite(f) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO was accepted as an output")
		}
	case <-time.After(10 * time.Second):
		// Unblock the open so the goroutine ends.
		if w, err := os.OpenFile(f, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("checkOverwrite blocked on a FIFO")
	}
}
