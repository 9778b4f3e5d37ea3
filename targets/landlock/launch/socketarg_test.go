//go:build linux && (amd64 || arm64)

package launch

import (
	"testing"

	"github.com/sbx-dev/sbx/targets/landlock"
)

// TestSocketArg: the listed sockets reach the supervisor as arguments; a
// fixed one keeps its device and inode, and nothing malformed is taken.
func TestSocketArg(t *testing.T) {
	for _, s := range []landlock.Socket{
		{Path: "/run/a.sock"},
		{Path: "/w/app.sock", Fixed: true, Dev: 2049, Ino: 1 << 40},
		{Path: "/w/odd:name@.sock", Fixed: true, Dev: 0, Ino: 7},
	} {
		got, ok := parseSocketArg(socketArg(s))
		if !ok || got != (listedSocket{path: s.Path, fixed: s.Fixed, dev: s.Dev, ino: s.Ino}) {
			t.Errorf("%+v: round trip %+v %v", s, got, ok)
		}
	}
	for _, bad := range []string{"", "rel.sock", "@", "@1:2", "@1:2:rel", "@x:2:/a", "@1:-2:/a"} {
		if got, ok := parseSocketArg(bad); ok {
			t.Errorf("%q accepted: %+v", bad, got)
		}
	}
}

// TestGuardArg: a guarded path reaches the supervisor with its directory's
// device and inode (taken before the command ran); nothing malformed is
// taken.
func TestGuardArg(t *testing.T) {
	for _, g := range []guardedPath{
		{dev: 2049, ino: 1 << 40, path: "/w/.git"},
		{dev: 0, ino: 7, path: "/w/odd:name.git"},
		{dev: ^uint64(0), ino: ^uint64(0), path: "/x"},
	} {
		if got, ok := parseGuardArg(guardArg(g.dev, g.ino, g.path)); !ok || got != g {
			t.Errorf("%+v: round trip %+v %v", g, got, ok)
		}
	}
	for _, bad := range []string{"", "/w/.git", "1:2", "1:2:rel", "x:2:/a", "1:-2:/a", ":2:/a", "1::/a"} {
		if got, ok := parseGuardArg(bad); ok {
			t.Errorf("%q accepted: %+v", bad, got)
		}
	}
}
