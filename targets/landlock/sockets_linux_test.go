package landlock

import (
	"errors"
	"net"
	"os"
	"strings"
	"testing"
)

// TestBoundAs: the name a socket was bound with against the listed path.
func TestBoundAs(t *testing.T) {
	eval := func(p string) (string, error) {
		switch p {
		case "/var/run":
			return "/run", nil
		case "/gone":
			return "", errors.New("gone")
		}
		return p, nil
	}
	for _, c := range []struct {
		name, listed string
		want         bool
	}{
		{"/run/app.sock", "/run/app.sock", true},
		{"/var/run/app.sock", "/run/app.sock", true}, // through a link
		{"/run/./app.sock", "/run/app.sock", true},
		{"app.sock", "/run/app.sock", true}, // relative: by its last element
		{"./sub/app.sock", "/run/app.sock", true},
		{"/tmp/agent.sock", "/tmp/buildd.sock", false}, // renamed or linked
		{"/other/app.sock", "/run/app.sock", false},
		{"/gone/app.sock", "/gone/app.sock", true},
		{"/gone/x/../app.sock", "/gone/app.sock", false},
		{"agent.sock", "/run/app.sock", false},
		{"", "/run/app.sock", false},
		{"\x00abstract", "/run/app.sock", false},
	} {
		if got := boundAs(c.name, c.listed, eval); got != c.want {
			t.Errorf("boundAs(%q, %q) = %v, want %v", c.name, c.listed, got, c.want)
		}
	}
}

// TestVerifySocketName: sock_diag reports the name a listening socket was
// bound with, which renaming or hard-linking its file does not change.
func TestVerifySocketName(t *testing.T) {
	d := t.TempDir()
	l, err := net.Listen("unix", d+"/agent.sock")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	check := func(p, want string) {
		t.Helper()
		dev, ino, ok := socketID(p)
		if !ok {
			t.Fatalf("no socket at %s", p)
		}
		got := verifySocketName(p, dev, ino)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("verifySocketName(%s) = %q, want %q", p, got, want)
		}
	}
	check(d+"/agent.sock", "")
	if err := os.Link(d+"/agent.sock", d+"/buildd.sock"); err != nil {
		t.Fatal(err)
	}
	check(d+"/buildd.sock", `was bound as "`+d+`/agent.sock"`)
	if err := os.Rename(d+"/agent.sock", d+"/app.sock"); err != nil {
		t.Fatal(err)
	}
	check(d+"/app.sock", "another service's socket")
	// A socket file nobody listens on any more.
	l.Close()
	check(d+"/app.sock", "no socket of this network namespace listens")
}
