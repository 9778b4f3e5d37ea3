package landlock_test

import (
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// TestCheckWritableCwd: CheckWritableRoots on the working directory: a
// writable one that is /, is or contains a system directory, lies in a
// directory of programs, libraries or configuration the host runs (red
// team 20: /usr/local/bin, /etc/cron.d), or is or contains the home
// directory is refused with a message saying which; anything else, and a
// cwd the spec does not make writable, is fine.
func TestCheckWritableCwd(t *testing.T) {
	writable := func(p string) *landlock.Spec {
		return &landlock.Spec{Mounts: []landlock.MountOp{{Kind: landlock.MountReadWrite, Path: p, Dir: true}}}
	}
	for _, c := range []struct {
		cwd, home string
		spec      *landlock.Spec
		want      string // substring of the error; "" for none
		account   string // the account's home (/etc/passwd)
	}{
		{"/", "/home/u", nil, "would make / writable", ""},
		{"/etc", "/home/u", nil, "would make /etc writable", ""},
		{"/usr/local/src", "/home/u", nil, "", ""},
		{"/usr/src/app", "/root", nil, "", ""},
		{"/usr/share/nginx/html", "/root", nil, "lies in /usr/share, where the host keeps programs", ""},
		// Red team 21: the module paths of interpreters the host runs,
		// package managers' scripts and databases, shell completions.
		{"/usr/share/perl5", "/root", nil, "lies in /usr/share,", ""},
		{"/usr/share/perl/5.36", "/root", nil, "lies in /usr/share,", ""},
		{"/usr/local/share/perl/5.36", "/root", nil, "lies in /usr/local/share,", ""},
		{"/usr/share/bash-completion/completions", "/root", nil, "lies in /usr/share,", ""},
		{"/usr/include", "/root", nil, "lies in /usr/include,", ""},
		{"/usr/local/games", "/root", nil, "lies in /usr/local/games,", ""},
		{"/usr/local", "/root", nil, "lies in /usr/local,", ""},
		{"/var/lib/dpkg/info", "/root", nil, "lies in /var/lib/dpkg,", ""},
		{"/var/lib/apt/lists", "/root", nil, "lies in /var/lib/apt,", ""},
		{"/var/cache/debconf", "/root", nil, "lies in /var/cache/debconf,", ""},
		{"/var/lib/polkit-1", "/root", nil, "lies in /var/lib/polkit-1,", ""},
		{"/var/spool/anacron", "/root", nil, "lies in /var/spool,", ""},
		{"/var/lib/dpkgx", "/root", nil, "", ""}, // a sibling sharing a prefix
		{"/usr/srcx", "/root", nil, "lies in /usr/srcx,", ""},
		{"/usr/local/src/app", "/root", nil, "", ""},
		{"/var/www/site", "/root", nil, "", ""},
		{"/opt/app", "/root", nil, "", ""},
		{"/usr/local/bin", "/root", nil, "lies in /usr/local/bin, where the host keeps programs", ""},
		{"/usr/lib/python3/dist-packages", "/root", nil, "lies in /usr/lib,", ""},
		{"/etc/cron.d", "/root", nil, "lies in /etc,", ""},
		{"/etc/systemd/system", "/home/u", nil, "lies in /etc,", ""},
		{"/var/spool/cron/crontabs", "/root", nil, "lies in /var/spool,", ""},
		{"/var/lib/jenkins/workspace/job", "/var/lib/jenkins", nil, "", ""},
		{"/usr/local/binx", "/root", nil, "lies in /usr/local/binx,", ""},
		{"/usrx/bin", "/root", nil, "", ""},                // a sibling sharing a prefix
		{"/etc/cron.d", "/root", &landlock.Spec{}, "", ""}, // not writable
		{"/var", "/root", nil, "would make /var writable", ""},
		{"/home", "/root", nil, "would make /home writable", ""}, // every user's home
		{"/var/tmp/ws", "/root", nil, "", ""},
		{"/srv/ws", "/root", nil, "", ""},
		{"/home/u", "/home/u", nil, "is your home directory", ""},
		{"/home", "/home/u", nil, "would make /home writable", ""},
		{"/data", "/data/u", nil, "contains your home directory /data/u", ""},
		{"/home/u/proj", "/home/u", nil, "", ""},
		{"/home/u2", "/home/u", nil, "", ""}, // a sibling sharing a prefix
		{"/home/u", "/home/u2", nil, "", ""}, // the same, the other way round
		{"/srv/ws", "", nil, "", ""},         // {home} unbound
		{"/srv/ws", "/", nil, "", ""},        // HOME=/: every cwd is below it
		// Red team 21: the account's own home directory, whatever $HOME says.
		{"/root", "/", nil, "is the home directory of your account, /root", "/root"},
		{"/root", "/var/tmp/x", nil, "is the home directory of your account, /root", "/root"},
		{"/data", "/var/tmp/x", nil, "contains the home directory of your account, /data/u", "/data/u"},
		{"/root", "", nil, "is the home directory of your account, /root", "/root"},
		{"/root/proj", "/", nil, "", "/root"},
		{"/root", "/root", &landlock.Spec{}, "", "/root"}, // not writable
		{"/srv/ws", "/", nil, "", "/"},                    // an account whose home is /
		{"/root", "/root", &landlock.Spec{}, "", ""},      // not writable
		{"/dev/cpu/0", "/root", nil, "lies in /dev", ""},  // the host's devtmpfs
		{"/dev/shm/ws", "/root", nil, "", ""},             // a tmpfs of its own
		{"/dev/shm", "/root", nil, "", ""},
		{"/dev/shmx", "/root", nil, "lies in /dev", ""},
		{"/boot/grub", "/root", nil, "lies in /boot", ""},
		{"/proc/sys/vm", "/root", nil, "lies in /proc", ""},
		{"/sys/kernel/mm", "/root", nil, "lies in /sys", ""},
		{"/devices", "/root", nil, "", ""},              // a sibling sharing a prefix
		{"/dev/cpu", "/root", &landlock.Spec{}, "", ""}, // not writable
		{"/root", "/root", &landlock.Spec{Mounts: []landlock.MountOp{{Kind: landlock.MountReadOnly, Path: "/root", Dir: true}}}, "", ""},
		// Red team 28: /etc's runtime counterparts below /run, and the
		// users' runtime directories with their service managers' units.
		{"/run/systemd/system", "/root", nil, "lies in /run/systemd,", ""},
		{"/run/systemd", "/root", nil, "lies in /run/systemd,", ""},
		{"/run/udev/rules.d", "/root", nil, "lies in /run/udev,", ""},
		{"/run/modprobe.d", "/root", nil, "lies in /run/modprobe.d,", ""},
		{"/run/tmpfiles.d", "/root", nil, "lies in /run/tmpfiles.d,", ""},
		{"/run/user", "/root", nil, "lies in /run/user,", ""},
		{"/run/user/1000", "/home/u", nil, "lies in /run/user/1000,", ""},
		{"/run/user/1000/systemd/user", "/home/u", nil, "lies in /run/user/1000/systemd,", ""},
		{"/run/user/1000/dbus-1/services", "/home/u", nil, "lies in /run/user/1000/dbus-1,", ""},
		{"/run/user/1000/scratch", "/home/u", nil, "", ""},
		{"/run/user/1000/systemdx", "/home/u", nil, "", ""}, // a sibling sharing a prefix
		{"/run/app/ws", "/root", nil, "", ""},
		// Red team 31: the home directory's start-up locations
		// (write-startup-files, SBX003, and git's global configuration),
		// by $HOME and by the account's home directory.
		{"/home/u/.config", "/home/u", nil, "contains /home/u/.config/fish,", ""},
		{"/home/u/.config/systemd/user", "/home/u", nil, "is a start-up location", ""},
		{"/home/u/.config/git", "/home/u", nil, "is a start-up location", ""},
		{"/home/u/.config/fish/conf.d", "/home/u", nil, "lies in /home/u/.config/fish,", ""},
		{"/home/u/.ssh", "/home/u", nil, "contains /home/u/.ssh/rc,", ""},
		{"/home/u/.local", "/home/u", nil, "contains /home/u/.local/bin,", ""},
		{"/home/u/bin", "/home/u", nil, "is a start-up location", ""},
		{"/root/.ssh", "/", nil, "contains /root/.ssh/rc,", "/root"},
		{"/home/u/.config/nvim", "/home/u", nil, "", ""},
		{"/home/u/.ssh/keys", "/home/u", nil, "", ""},
		{"/home/u/binx", "/home/u", nil, "", ""},    // a sibling sharing a prefix
		{"/home/u/src/bin", "/home/u", nil, "", ""}, // not the home's own bin
		{"/home/u2/.config", "/home/u", nil, "", ""},
	} {
		spec := c.spec
		if spec == nil {
			spec = writable(c.cwd)
		}
		err := landlock.CheckWritableRoots(spec, nil, nil, ir.Bindings{ir.AnchorCwd: {c.cwd}, ir.AnchorHome: {c.home}}, c.account, nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("cwd %s, home %q: %v", c.cwd, c.home, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("cwd %s, home %q: got %v, want an error with %q", c.cwd, c.home, err, c.want)
		}
	}
}

// TestDefaultBindingsTmpdirRunDir: a TMPDIR in a directory the host runs
// from or reads configuration from (red team 20) is refused, like one in
// a system directory; a scratch directory below /var is fine.
func TestDefaultBindingsTmpdirRunDir(t *testing.T) {
	for _, c := range []struct{ tmpdir, want string }{
		{"/var/spool/cron/crontabs", "lies in /var/spool,"},
		{"/var/lib/dpkg/info", "lies in /var/lib/dpkg,"},
		{"/usr/share/perl5", "would make /usr writable"},
		{"/usr/local/etc/x", "would make /usr writable"},
		{"/var/tmp/scratch", ""},
		{"/run/user/1000", "lies in /run/user/1000,"}, // red team 28
		{"/run/systemd/system", "lies in /run/systemd,"},
		{"/run/user/1000/tmp", ""},
	} {
		getenv := func(k string) string {
			switch k {
			case "TMPDIR":
				return c.tmpdir
			case "HOME":
				return "/home/u"
			}
			return ""
		}
		_, err := landlock.DefaultBindings("/srv/ws", getenv)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("TMPDIR=%s: %v", c.tmpdir, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("TMPDIR=%s: got %v, want an error with %q", c.tmpdir, err, c.want)
		}
	}
}

// TestCheckWritableRootsReopened: a writable root inside a carve-out (a
// deny, or a read rule inside a write) is refused, unless a write rule
// between the carve-out and the root reopens it, so that the most specific
// rule covering the root makes it writable already (random battery seed
// 29 p055: deny BASE and write ~ inside it refused TMPDIR=~/t).
func TestCheckWritableRootsReopened(t *testing.T) {
	rule := func(p string, a ir.Access) ir.BoundRule { return ir.BoundRule{Path: p, Access: a} }
	for _, c := range []struct {
		name   string
		tmpdir string
		bound  []ir.BoundRule
		want   string
	}{
		{"reopened below a deny", "/b/home/t", []ir.BoundRule{rule("/b", ir.Deny), rule("/b/home", ir.Write)}, ""},
		{"the reopened rule itself", "/b/home", []ir.BoundRule{rule("/b", ir.Deny), rule("/b/home", ir.Write)}, ""},
		{"inside a deny", "/b/t", []ir.BoundRule{rule("/b", ir.Deny), rule("/b/home", ir.Write)}, "lies inside /b, which the profile makes unreadable"},
		{"a deny inside the reopening", "/b/home/s/t", []ir.BoundRule{rule("/b", ir.Deny), rule("/b/home", ir.Write), rule("/b/home/s", ir.Deny)}, "lies inside /b/home/s, which the profile makes unreadable"},
		{"a read-only carve-out", "/w/r/t", []ir.BoundRule{rule("/w", ir.Write), rule("/w/r", ir.Read)}, "lies inside /w/r, which the profile makes read-only"},
		{"a read-only carve-out reopened", "/w/r/o/t", []ir.BoundRule{rule("/w", ir.Write), rule("/w/r", ir.Read), rule("/w/r/o", ir.Write)}, ""},
		{"a write beside the root", "/b/x/t", []ir.BoundRule{rule("/b", ir.Deny), rule("/b/home", ir.Write)}, "lies inside /b, which the profile makes unreadable"},
		// The root's own write rule (the anchor's binding) reopens nothing
		// (red team 22's TMPDIR inside a protected repository's hooks).
		{"the root's own rule", "/w/r/t", []ir.BoundRule{rule("/w", ir.Write), rule("/w/r", ir.Read), {Path: "/w/r/t", Access: ir.Write, Symbolic: ir.Path{Anchor: ir.AnchorTmpdir}}}, "lies inside /w/r, which the profile makes read-only"},
		{"another judged anchor's rule", "/w/r/t", []ir.BoundRule{rule("/w", ir.Write), rule("/w/r", ir.Read), {Path: "/w/r/t", Access: ir.Write, Symbolic: ir.Path{Anchor: ir.AnchorCwd}}}, "lies inside /w/r, which the profile makes read-only"},
		{"the home's rule", "/w/r/h/t", []ir.BoundRule{rule("/w", ir.Write), rule("/w/r", ir.Read), {Path: "/w/r/h", Access: ir.Write, Symbolic: ir.Path{Anchor: ir.AnchorHome}}}, ""},
	} {
		spec := &landlock.Spec{Mounts: []landlock.MountOp{{Kind: landlock.MountReadWrite, Path: c.tmpdir, Dir: true}}}
		err := landlock.CheckWritableRoots(spec, &landlock.Plan{}, c.bound, ir.Bindings{ir.AnchorTmpdir: {c.tmpdir}, ir.AnchorHome: {"/nonexistent"}}, "/nonexistent", nil)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}
