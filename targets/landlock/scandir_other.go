//go:build !linux

package landlock

import "os"

// scanEntry is one entry of a directory the deny-glob scan lists.
type scanEntry struct {
	name string
	dir  bool // a directory itself, not a link to one
}

// dirLister lists directories for the deny-glob scan.
type dirLister struct{}

func newDirLister() *dirLister { return &dirLister{} }

// list returns dir's entries sorted by name.
func (l *dirLister) list(dir string) ([]scanEntry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]scanEntry, len(des))
	for i, d := range des {
		out[i] = scanEntry{name: d.Name(), dir: d.IsDir()}
	}
	return out, nil
}
