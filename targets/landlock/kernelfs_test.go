package landlock

import (
	"reflect"
	"testing"
)

func TestParseMountinfo(t *testing.T) {
	text := `22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime shared:9 master:2 - cgroup cgroup rw,name=systemd
50 27 0:40 / /work/my\040chroot/proc rw - proc proc rw
bad line
`
	want := []Mount{
		{"/proc", "proc"}, {"/", "ext4"}, {"/sys/fs/cgroup/systemd", "cgroup"}, {"/work/my chroot/proc", "proc"},
	}
	if got := parseMountinfo(text); !reflect.DeepEqual(got, want) {
		t.Errorf("parseMountinfo:\n got %v\nwant %v", got, want)
	}
}

func TestKernelMountOps(t *testing.T) {
	grants := []Grant{
		{Path: "/", Rights: ReadRights},
		{Path: "/ws", Rights: WriteRights},
	}
	mounts := []Mount{
		{"/", "ext4"}, {"/proc", "proc"}, {"/sys", "sysfs"}, {"/sys/kernel/tracing", "tracefs"},
		{"/ws/chroot/proc", "proc"}, {"/ws/chroot/proc/sys/fs/binfmt_misc", "binfmt_misc"},
		{"/ws/chroot/cg", "cgroup2"}, {"/ws/data", "tmpfs"}, {"/srv/chroot/proc", "proc"},
		{"/ws/masked/mq", "mqueue"},
		// A chroot's dev below the writable root (red team 27), and the
		// host's own, which the view's /dev handling covers.
		{"/dev", "devtmpfs"}, {"/dev/pts", "devpts"}, {"/ws/chroot/dev", "devtmpfs"}, {"/ws/chroot/dev/pts", "devpts"},
	}
	masked := []string{"/ws/masked"}
	t.Run("user", func(t *testing.T) {
		got := kernelMountOps(mounts, grants, masked, false)
		// procfs masked wherever the command can read it (its command
		// lines and status files are every user's to read; the host's
		// mounts are locked in a user's view, so a mask, not a detach),
		// with what is below it; tracefs is root's by its mode; the rest
		// made read-only.
		want := []string{"mask /srv/chroot/proc", "kernel-read-only /ws/chroot/cg", "kernel-read-only /ws/chroot/dev", "kernel-read-only /ws/chroot/dev/pts", "mask /ws/chroot/proc"}
		if s := opStrings(got); !reflect.DeepEqual(s, want) {
			t.Errorf("got %q, want %q", s, want)
		}
	})
	t.Run("root", func(t *testing.T) {
		got := kernelMountOps(mounts, grants, masked, true)
		// Detached: the revealing ones the command can read, with what is
		// below them; the rest made read-only.
		want := []string{"detach /srv/chroot/proc", "detach /sys/kernel/tracing", "kernel-read-only /ws/chroot/cg", "kernel-read-only /ws/chroot/dev", "kernel-read-only /ws/chroot/dev/pts", "detach /ws/chroot/proc"}
		if s := opStrings(got); !reflect.DeepEqual(s, want) {
			t.Errorf("got %q, want %q", s, want)
		}
	})
}

func opStrings(ops []MountOp) []string {
	var out []string
	for _, op := range ops {
		out = append(out, string(op.Kind)+" "+op.Path)
	}
	return out
}

func TestGlobLiteralDir(t *testing.T) {
	for pattern, want := range map[string]string{
		"/**/*.pem":          "/",
		"/home/u/**/id_*":    "/home/u",
		"/home/u/*.key":      "/home/u",
		"/home/u/a/b":        "/home/u/a",
		"/ws/[ab]/secret":    "/ws",
		"/ws/sub/?.env/x/**": "/ws/sub",
		// An anchor's path is escaped (ir.EscapeGlob): literal, unescaped.
		`/w/p\[1\]/ws/**/*.pem`: "/w/p[1]/ws",
		`/w/a\*b/k.pem`:         "/w/a*b",
		`/w/x\\y/*`:             `/w/x\y`,
	} {
		if got := globLiteralDir(pattern); got != want {
			t.Errorf("globLiteralDir(%q) = %q, want %q", pattern, got, want)
		}
	}
}

func TestDropLinkGrants(t *testing.T) {
	gs := []Grant{{Path: "/a"}, {Path: "/home/u/notes"}, {Path: "/home/u/.ssh"}}
	got := dropLinkGrants(gs, []string{"/home/u/notes"})
	if s := []string{got[0].Path, got[1].Path}; len(got) != 2 || !reflect.DeepEqual(s, []string{"/a", "/home/u/.ssh"}) {
		t.Errorf("dropLinkGrants: %v", got)
	}
}
