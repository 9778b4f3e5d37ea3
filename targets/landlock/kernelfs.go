package landlock

import (
	"io"
	"os"
	"sort"
	"strings"

	"github.com/sbx-dev/sbx/ir"
)

// Mount is a mount point of the view and the type of the file system
// mounted there.
type Mount struct {
	Path   string
	FSType string
}

// A MountLister is a View that also lists its mounts. The real view reads
// them from /proc/self/mountinfo; Bind uses them to find the kernel's file
// systems wherever the host mounted them (kernelMountOps), and refuses to
// bind when they cannot be listed.
type MountLister interface {
	Mounts() ([]Mount, error)
}

// kernelFSTypes are the file systems whose files are the kernel's own
// settings and state, shared with the whole machine: a write to one of
// them is a write outside the sandbox whatever directory it is mounted on
// (a procfs's sysctls and other processes' oom_score_adj, a cgroup's
// cgroup.kill, binfmt_misc's register, which makes the host run an
// interpreter of the command's choosing, mqueue's queues in the host's IPC
// namespace, trace instances). A build chroot in the workspace with its
// own /proc, /sys and /sys/fs/cgroup mounted is the usual way such mounts
// end up below a writable root. devtmpfs and devpts are in the list too:
// every devtmpfs mount is the one instance the host's /dev is, and a
// devpts bound from the host's /dev/pts holds the host's terminals, so a
// chroot's dev (mount -t devtmpfs, mount --rbind /dev) below a writable
// root let a command create and remove files in the host's /dev and chmod
// the host's ptys (red team 27); its device nodes were already refused by
// the view's nodev.
var kernelFSTypes = map[string]bool{
	"proc": true, "sysfs": true, "cgroup": true, "cgroup2": true,
	"tracefs": true, "debugfs": true, "securityfs": true, "configfs": true,
	"bpf": true, "pstore": true, "efivarfs": true, "binfmt_misc": true,
	"mqueue": true, "fusectl": true, "selinuxfs": true, "smackfs": true,
	"rpc_pipefs": true, "nfsd": true, "resctrl": true,
	"devtmpfs": true, "devpts": true,
}

// deviceFSTypes are the kernel file systems of devices. At /dev and below
// they are left to the view's own handling of /dev: masked, with the
// standard devices carried through, unless the profile has a rule on /dev
// itself, which is then the profile's choice (devInputs).
var deviceFSTypes = map[string]bool{"devtmpfs": true, "devpts": true}

// revealingFSTypes are the kernel file systems that show other
// processes' activity: tracefs and debugfs (every process's system calls;
// reading trace_pipe consumes the host tracer's events), root's alone by
// their modes, and procfs (other processes' entries, which the sandbox's
// own /proc hides), whose command lines, status and mount tables every
// user may read. Root runs have them detached wherever they are mounted
// and readable; a user's run masks procfs (red team 25: a build chroot's
// /proc listed the host's processes and their arguments to uid 65534).
var revealingFSTypes = map[string]bool{"tracefs": true, "debugfs": true, "proc": true}

// consumingFSTypes are the kernel file systems where a reader takes
// something from the host: an mqueue mount holds the queues of the IPC
// namespace that mounted it (the sandbox's own IPC namespace does not
// change that), and a descriptor opened for reading is all that
// mq_timedreceive (which removes the message) and mq_notify (which takes
// the queue's one notification slot) need, so a read-only mount and
// Landlock's read right do not stop them; rpc_pipefs's upcall pipes hand
// their messages to the first reader. Every run, whoever runs it, has
// them detached wherever they are mounted and readable (red team 23).
var consumingFSTypes = map[string]bool{"mqueue": true, "rpc_pipefs": true}

// Mounts lists the mounts of sbx's mount namespace, which the sandbox's
// view copies. The kernel
// takes about 2.5 µs a mount to write the file here, so it is read in one
// call into a buffer large enough for it, and parsed without splitting.
func (osView) Mounts() ([]Mount, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 0, 32<<10)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF || (err == nil && n == 0) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return parseMountinfo(string(buf)), nil
}

// parseMountinfo returns the mount points and file system types of a
// /proc/PID/mountinfo text: "ID PARENT MAJ:MIN ROOT POINT OPTIONS
// [OPTIONAL...] - TYPE SOURCE SUPER", with spaces, tabs, newlines and
// backslashes in paths written as octal escapes.
func parseMountinfo(s string) []Mount {
	out := make([]Mount, 0, strings.Count(s, "\n"))
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		// The mount point is the fifth field; the type follows " - ".
		f := line
		for range 4 {
			if i := strings.IndexByte(f, ' '); i >= 0 {
				f = f[i+1:]
			} else {
				f = ""
			}
		}
		point, _, ok := strings.Cut(f, " ")
		_, rest, found := strings.Cut(f, " - ")
		if !ok || !found || point == "" {
			continue
		}
		fstype, _, _ := strings.Cut(rest, " ")
		if fstype == "" {
			continue
		}
		out = append(out, Mount{Path: unescapeMountinfo(point), FSType: fstype})
	}
	return out
}

// unescapeMountinfo decodes mountinfo's octal escapes (\040 for a space).
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// kernelMountOps returns the operations that keep the kernel's file
// systems in ms out of the command's reach wherever the host mounted
// them: a revealing one the grants make readable is detached in root runs
// (procfs is masked in a user's run), a consuming one in every run; any
// other that the grants make writable is made read-only
// (MountKernelReadOnly), since a writable root attaches the host's mounts
// below it as they are. /proc is the sandbox's own procfs, mounted over
// the host's and what lies below it, and /sys is made read-only
// recursively anyway; what lies below a mask (masked, the paths of the
// view's masks) is not in the view.
func kernelMountOps(ms []Mount, gs []Grant, masked []string, root bool) []MountOp {
	ms = append([]Mount(nil), ms...)
	// Ancestors first: what is detached takes its submounts with it.
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Path < ms[j].Path })
	var ops []MountOp
	var gone []string
	below := func(p string, dirs []string) bool {
		for _, d := range dirs {
			if ir.PathWithin(p, d) {
				return true
			}
		}
		return false
	}
	for _, m := range ms {
		p := m.Path
		if !kernelFSTypes[m.FSType] || !strings.HasPrefix(p, "/") || p == "/" || ir.PathWithin(p, "/proc") || below(p, gone) || below(p, masked) {
			continue
		}
		if deviceFSTypes[m.FSType] && ir.PathWithin(p, "/dev") {
			continue
		}
		why := ""
		switch {
		case revealingFSTypes[m.FSType] && (root || m.FSType == "proc"):
			why = m.FSType + " mounted here: other processes' activity"
		case consumingFSTypes[m.FSType]:
			why = m.FSType + " mounted here: reading takes the host's messages"
		}
		if why != "" && readable(gs, p) {
			// A user run's view is in a user namespace, where the
			// host's mounts are locked (umount2 fails with EINVAL): an
			// empty mask is mounted over it instead.
			op := MountOp{Kind: MountDetach, Path: p, Why: why}
			if !root {
				op.Kind, op.Dir = MountMask, true
			}
			// The mount itself, not whatever the path names when the view
			// is built (red team 28: see Mounted).
			op.Mounted = true
			ops = append(ops, op)
			gone = append(gone, p)
			continue
		}
		if !ir.PathWithin(p, "/sys") && writable(gs, p) {
			why := m.FSType + " mounted below a writable root: kernel settings and state, not the command's to change"
			if deviceFSTypes[m.FSType] {
				why = m.FSType + " mounted below a writable root: the host's devices and terminals, not the command's to change"
			}
			ops = append(ops, MountOp{Kind: MountKernelReadOnly, Path: p, Why: why})
		}
	}
	return ops
}

// writable reports whether a grant lets the command change something at p.
func writable(gs []Grant, p string) bool {
	for _, g := range gs {
		if g.Rights&(WriteRights&^ReadRights) != 0 && ir.PathWithin(p, g.Path) {
			return true
		}
	}
	return false
}

// procMasks moves the masks of paths below /proc after the mount of the
// sandbox's own procfs (ops ends with it), which would cover them
// otherwise, and adds one for every denied path there that no mask covers
// yet (the view's /proc is readable whatever the read rules: the sandbox's
// processes only). A process's own entries (/proc/self, /proc/thread-self,
// /proc/PID) are a different directory for every process: no mount can
// deny them to the command's children, so such a rule is unenforceable
// (refused unless degraded).
func procMasks(ops []MountOp, bd *ir.Bound, t *ruleTable, v View) []MountOp {
	var kept, moved []MountOp
	for _, m := range ops {
		if m.Kind == MountMask && ir.PathWithin(m.Path, "/proc") {
			moved = append(moved, m)
			continue
		}
		kept = append(kept, m)
	}
	for _, r := range bd.Rules {
		if r.Access != ir.Deny || !ir.PathWithin(r.Path, "/proc") {
			continue
		}
		ref := t.refOf(r)
		first, _, _ := strings.Cut(strings.TrimPrefix(r.Path, "/proc/"), "/")
		if r.Path != "/proc" && (first == "self" || first == "thread-self" || strings.Trim(first, "0123456789") == "") {
			t.apply([]note{{ref: ref, level: LevelUnenforceable,
				detail: "a process's own /proc entries are a different directory for each process of the sandbox: no mask can deny them to all"}})
			continue
		}
		covered := false
		for _, m := range moved {
			covered = covered || ir.PathWithin(r.Path, m.Path)
		}
		k := v.Lstat(r.Path)
		if covered || k == KindMissing {
			continue
		}
		moved = append(moved, MountOp{Kind: MountMask, Path: r.Path, Dir: k == KindDir, Why: ir.Deny.String()})
		t.apply([]note{{ref: ref, level: LevelSupplementary, mechanism: "mount-namespace mask",
			detail: "masked on the sandbox's own procfs"}})
	}
	return append(kept, moved...)
}
