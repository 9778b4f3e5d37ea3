//go:build linux && amd64

package launch_test

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// freePortRun returns the first of n consecutive TCP ports on 127.0.0.1
// that this process could bind, with listeners on them when listen is
// set (closed at the test's end) and nothing held otherwise.
func freePortRun(t *testing.T, n int, listen bool) int {
	t.Helper()
	for base := 21000; base+n < 60000; base += 97 {
		var ls []net.Listener
		for p := base; p < base+n; p++ {
			l, err := net.Listen("tcp4", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				break
			}
			ls = append(ls, l)
		}
		for _, l := range ls {
			if len(ls) == n && listen {
				t.Cleanup(func() { l.Close() })
				go acceptAndClose(l)
			} else {
				l.Close()
			}
		}
		if len(ls) == n {
			return base
		}
	}
	t.Fatalf("no run of %d free ports", n)
	return 0
}

// TestPortRanges: ports given as ranges, overlapping and adjacent, are
// allowed exactly, to the port: the first and last port of each range
// connect or bind, the ports just outside are denied (EACCES), and a port
// that only the other right lists gets only that right. Checked with real
// connections and binds, as root and as an unprivileged user, with a
// control run outside the sandbox.
func TestPortRanges(t *testing.T) {
	c := freePortRun(t, 6, true)  // listeners: c .. c+5
	b := freePortRun(t, 6, false) // free: b .. b+5
	src := fmt.Sprintf(`
profile "rt-ranges" {
  filesystem {
    read  = [root]
    write = [cwd]
  }
  network {
    mode        = "ports"
    reason      = "test"
    connect_tcp = ["%d-%d", "%d-%d", %d]
    bind_tcp    = ["%d-%d", %d]
  }
}
`, c+1, c+2, c+2, c+3, c+4, b+1, b+3, c+5)
	art, _ := rt17pCompile(t, src, "rt-ranges")
	probe := filepath.Join(bin, "probe")
	var script strings.Builder
	for p := c; p <= c+5; p++ {
		fmt.Fprintf(&script, "echo \"connect%d $(%s tcp-connect 127.0.0.1:%d)\"\n", p, probe, p)
	}
	for p := b; p <= b+4; p++ {
		fmt.Fprintf(&script, "echo \"bind%d $(%s tcp-bind 127.0.0.1:%d)\"\n", p, probe, p)
	}
	want := map[string]string{}
	for p := c; p <= c+5; p++ {
		want[fmt.Sprintf("connect%d", p)] = "ok"
	}
	want[fmt.Sprintf("connect%d", c)] = "EACCES"
	// c+5 is a bind port only: connecting to it is denied.
	want[fmt.Sprintf("connect%d", c+5)] = "EACCES"
	for p := b; p <= b+4; p++ {
		want[fmt.Sprintf("bind%d", p)] = "ok"
	}
	want[fmt.Sprintf("bind%d", b)] = "EACCES"
	want[fmt.Sprintf("bind%d", b+4)] = "EACCES"

	check := func(t *testing.T, out string, sandboxed bool) {
		t.Helper()
		got := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if k, v, ok := strings.Cut(l, " "); ok {
				got[k] = v
			}
		}
		for k, w := range want {
			if !sandboxed {
				w = "ok" // the control: everything works outside
			}
			if got[k] != w {
				t.Errorf("%s: %q, want %q (sandboxed %v)", k, got[k], w, sandboxed)
			}
		}
	}
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"ws/f": "f"}, []string{"home"}, nil)
		r := rt17pRun(t, u, art, base+"/home", base+"/ws", script.String(), nil)
		if r.SbxError != "" {
			t.Fatalf("sbx failed: %s", r.SbxError)
		}
		check(t, r.Stdout, true)
		ctl := rtRun(t, rtOpts{u: u, args: []string{"--profile", "danger-full-access", "--cwd", base + "/ws", "--", "/bin/sh", "-c", script.String()}})
		if ctl.SbxError != "" {
			t.Fatalf("control: sbx failed: %s", ctl.SbxError)
		}
		check(t, ctl.Stdout, false)
	})
}
