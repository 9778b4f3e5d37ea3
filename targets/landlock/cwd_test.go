package landlock_test

import (
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// TestCheckWritableCwd: CheckWritableRoots on the working directory: a
// writable one that is /, is or
// contains a system directory, or is or contains the home directory is
// refused with a message saying which; anything else, and a cwd the spec
// does not make writable, is fine.
func TestCheckWritableCwd(t *testing.T) {
	writable := func(p string) *landlock.Spec {
		return &landlock.Spec{Mounts: []landlock.MountOp{{Kind: landlock.MountReadWrite, Path: p, Dir: true}}}
	}
	for _, c := range []struct {
		cwd, home string
		spec      *landlock.Spec
		want      string // substring of the error; "" for none
	}{
		{"/", "/home/u", nil, "would make / writable"},
		{"/etc", "/home/u", nil, "would make /etc writable"},
		{"/usr/local/src", "/home/u", nil, ""},
		{"/var", "/root", nil, "would make /var writable"},
		{"/home", "/root", nil, "would make /home writable"}, // every user's home
		{"/var/tmp/ws", "/root", nil, ""},
		{"/srv/ws", "/root", nil, ""},
		{"/home/u", "/home/u", nil, "is your home directory"},
		{"/home", "/home/u", nil, "would make /home writable"},
		{"/data", "/data/u", nil, "contains your home directory /data/u"},
		{"/home/u/proj", "/home/u", nil, ""},
		{"/home/u2", "/home/u", nil, ""},             // a sibling sharing a prefix
		{"/home/u", "/home/u2", nil, ""},             // the same, the other way round
		{"/srv/ws", "", nil, ""},                     // {home} unbound
		{"/srv/ws", "/", nil, ""},                    // HOME=/: every cwd is below it
		{"/root", "/root", &landlock.Spec{}, ""},     // not writable
		{"/dev/cpu/0", "/root", nil, "lies in /dev"}, // the host's devtmpfs
		{"/dev/shm/ws", "/root", nil, ""},            // a tmpfs of its own
		{"/dev/shm", "/root", nil, ""},
		{"/dev/shmx", "/root", nil, "lies in /dev"},
		{"/boot/grub", "/root", nil, "lies in /boot"},
		{"/proc/sys/vm", "/root", nil, "lies in /proc"},
		{"/sys/kernel/mm", "/root", nil, "lies in /sys"},
		{"/devices", "/root", nil, ""},              // a sibling sharing a prefix
		{"/dev/cpu", "/root", &landlock.Spec{}, ""}, // not writable
		{"/root", "/root", &landlock.Spec{Mounts: []landlock.MountOp{{Kind: landlock.MountReadOnly, Path: "/root", Dir: true}}}, ""},
	} {
		spec := c.spec
		if spec == nil {
			spec = writable(c.cwd)
		}
		err := landlock.CheckWritableRoots(spec, nil, ir.Bindings{ir.AnchorCwd: {c.cwd}, ir.AnchorHome: {c.home}})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("cwd %s, home %q: %v", c.cwd, c.home, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("cwd %s, home %q: got %v, want an error with %q", c.cwd, c.home, err, c.want)
		}
	}
}
