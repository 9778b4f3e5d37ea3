//go:build linux && (amd64 || arm64)

package launch

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/internal/nofile"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// childSetup is what the child program needs besides the spec.
type childSetup struct {
	userns   bool // write the child's own uid and gid maps
	uid, gid int
	setsid   bool
	// pdeathsig is the signal the executor's containment asks for when
	// sbx dies; the init provides it for sbx's process (see compileInit).
	pdeathsig unix.Signal
	landlock  bool // a ruleset will be enforced (spec.ABI > 0)
	// nullStdin gives the command its own null device as standard input
	// (compileNullStdin) instead of the descriptor in stdio[0].
	nullStdin bool
	// The descriptors the command's part receives from sbx (see
	// compileCommand): the standard streams, the ruleset, the socket the
	// seccomp listener goes to. -1: none.
	stdio      [3]int
	ruleset    int
	listenerTo int
	// nsFDs sends the command's namespaces with the listener (see
	// compileCommand).
	nsFDs  bool
	filter []unix.SockFilter
}

// compileInit turns the spec into the init's part of the program:
// user-namespace maps, the dumpable flag, the checks of missing names,
// mounts. It needs nothing but the bound spec, so it can run while sbx
// still prepares the command. The command's process runs it (see
// sendPre): it is all shared by the namespaces or the memory; the session
// and the network namespace, the init's own, come in the first part.
func compileInit(s *landlock.Spec, c *childSetup, pre *prebuilt) (*program, error) {
	p := newProgram()
	traceStep(p, "c-initpart")
	if pre != nil {
		// The prebuilt part ran first: its slots stay its own.
		p.slots = pre.prog.slots
	}
	// The command's process id as sbx sees it (commandPid), read while
	// /proc is still the host's procfs, whose /proc/self names the reader
	// in the host's PID namespace (getpid would give the sandbox's).
	// Informative: a host without a procfs there leaves it empty.
	p.selfLink = new([24]byte)
	p.call("reading /proc/self", unix.SYS_READLINKAT, atFdcwdU, p.str("/proc/self"), p.mem(p.selfLink, unsafe.Pointer(&p.selfLink[0])), uintptr(len(p.selfLink)-1)).okErrno = anyErrno
	if c.userns && (pre == nil || !pre.maps) {
		writeIDMaps(p, c.uid, c.gid)
	}
	nullSrc := int8(noSlot)
	if c.nullStdin {
		nullSrc = nullSource(p)
	}
	// No parent-death signal: it would follow the thread of sbx that
	// cloned the init. The init watches sbx's process instead (a pidfd,
	// see initMain), whichever of its threads ends.
	// The init (PID 1 of the namespace) shares sbx's memory.
	// The command cannot reach it through ptrace, process_vm_* or its
	// /proc entries (environ, mem, fd): Landlock lets a confined process
	// access only processes in its own domain or nested ones, and the
	// filter denies the system calls. Without Landlock (degraded mode) the
	// memory is made not dumpable instead, which needs CAP_SYS_PTRACE the
	// command never has; the flag belongs to the memory, so sbx is then
	// not dumpable either.
	if !c.landlock {
		p.call("prctl(PR_SET_DUMPABLE)", unix.SYS_PRCTL, unix.PR_SET_DUMPABLE, 0)
	}
	// Protected names that were missing when the profile was bound must
	// still be missing: the layout counts on it (a directory created
	// since, say by git init, would be writable). A Sandbox can be reused
	// long after it was bound. Each check is an open that must fail with
	// ENOENT; when it succeeds, the next step fails on purpose and names
	// the path.
	for _, a := range s.Absent {
		fd := p.slot()
		p.call3("checking that ", a, " is still missing", unix.SYS_OPENAT, atFdcwdU, p.str(a), unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC).into(fd).tolerate(unix.ENOENT, 1)
		p.call3(a, " was created after the profile was bound (bind it again: a new sandbox)", "", unix.SYS_CLOSE, ^uintptr(0))
		p.free = append(p.free, fd) // never open past this point
	}
	if len(s.Mounts) > 0 {
		if err := compileMounts(p, s, pre, procMountData(c.userns)); err != nil {
			return nil, err
		}
	} else {
		pre.discard(p)
	}
	if c.nullStdin {
		p.nullStdin = compileNullStdin(p, nullSrc)
	}
	traceStep(p, "c-mounted")
	return p, nil
}

// nullSource opens the host's /dev/null (O_PATH, before the view is
// mounted) for compileNullStdin's fallback and returns its slot.
func nullSource(p *program) int8 {
	how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	at := p.slot()
	p.call("resolving /dev/null for the command's standard input", unix.SYS_OPENAT2, atFdcwdU, p.str("/dev/null"), p.mem(how, unsafe.Pointer(how)), unsafe.Sizeof(*how)).into(at)
	return at
}

// compileNullStdin opens the null device for the command's standard input
// in the view and returns its slot; src is nullSource's.
//
// The executor's /dev/null, opened in sbx's namespace, is the host's: a
// file on a writable devtmpfs outside the view. Through a descriptor on it
// (fd 0, or /proc/self/fd/0) a command run by root could chmod the host's
// /dev/null, and any command could set its times: neither Landlock nor the
// read-only view governs a file reached that way. The view's /dev/null
// grants only what the view grants (it is read-only unless the profile
// makes /dev writable). A view without one (a profile that masks /dev)
// gets the host's through a private read-only clone instead, reopened for
// reading through /proc/self/fd (a mount's descriptor is a path, not an
// open file; readlink then shows "/"); every metadata change through it
// fails with EROFS.
func compileNullStdin(p *program, src int8) int8 {
	null := p.slot()
	view := len(p.insns)
	p.call("opening /dev/null in the view for the command's standard input", unix.SYS_OPENAT, atFdcwdU, p.str("/dev/null"),
		unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOCTTY|unix.O_NOFOLLOW).into(null)
	clone := p.slot()
	// Not nodev, which its mount has by now (compileNodev): it must stay a
	// device.
	attr := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NOEXEC, Attr_clr: unix.MOUNT_ATTR_NODEV}
	p.call("cloning /dev/null read-only for the command's standard input (the view has none)", unix.SYS_OPEN_TREE_ATTR, 0, p.str(""),
		unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH, p.mem(attr, unsafe.Pointer(attr)), unsafe.Sizeof(*attr)).from(0, src).into(clone)
	// Descriptor 0 is free to borrow: the command's part sets it last.
	p.call("dup3(/dev/null clone, 0)", unix.SYS_DUP3, 0, 0, 0).from(0, clone)
	p.call("opening the read-only clone of /dev/null for the command's standard input", unix.SYS_OPENAT, atFdcwdU, p.str("/proc/self/fd/0"),
		unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOCTTY).into(null)
	p.closeSlot(clone)
	// By index: the fallback's steps may have moved p.insns.
	p.insns[view].orElse(unix.ENOENT, len(p.insns)-view-1)
	p.closeSlot(src)
	return null
}

// prebuilt is a mask built by the early init while sbx binds the profile
// (see Prestart): the mask of /dev that a profile reading / gets. The
// init's part attaches it if the bound spec has the same mask, and
// discards it otherwise.
type prebuilt struct {
	prog *program // the init's first part, which builds it
	op   landlock.MountOp
	mask *keepMask
	used bool
	// maps is set when the part also wrote the user namespace's maps
	// (files the mask creates must belong to a mapped owner).
	maps bool
}

// compilePrebuild compiles the part that builds op's mask detached, its
// clones read-only as the base view will be. With userns it first writes
// the user namespace's maps for uid and gid.
func compilePrebuild(op landlock.MountOp, lstat func(string) landlock.Kind, userns bool, uid, gid int) *prebuilt {
	p := newProgram()
	traceStep(p, "c-pre0")
	if userns {
		writeIDMaps(p, uid, gid)
	}
	m := buildKeepMask(p, op, lstat, map[string]int8{}, map[string]bool{}, true)
	traceStep(p, "c-pre1")
	return &prebuilt{prog: p, op: op, mask: m, maps: userns}
}

// matches reports whether the prebuilt mask is the one op asks for, none
// of whose kept paths is a writable root (those come from their own
// clones).
func (b *prebuilt) matches(op landlock.MountOp, clones map[string]int8) bool {
	if b == nil || b.used || op.Kind != b.op.Kind || op.Path != b.op.Path || op.Dir != b.op.Dir || len(op.Keep) != len(b.op.Keep) {
		return false
	}
	for i, k := range op.Keep {
		if k != b.op.Keep[i] {
			return false
		}
		if _, ok := clones[path.Join(op.Path, k.Rel)]; ok {
			return false
		}
	}
	return true
}

// discard closes a prebuilt mask the spec does not use.
func (b *prebuilt) discard(p *program) {
	if b == nil || b.used {
		return
	}
	b.used = true
	for _, k := range b.mask.kept {
		p.closeSlot(k.slot)
	}
	p.closeSlot(b.mask.mfd)
}

// compileCommand turns the spec into the command's part of the program,
// which follows init (the init's part) in the command's process: it
// receives the descriptors of c from sbx into slots, enters the working
// directory, adds the Landlock rules, drops the capabilities left (see
// compileBoundingDrop), sets no_new_privs, enforces the Landlock domain and the
// seccomp filter, places the standard streams and execs. The order
// matters: rules are opened on the final view; capabilities go before
// no_new_privs and restrict_self; the filter comes last since it denies
// mount and friends.
func compileCommand(s *landlock.Spec, c *childSetup, init *program) (*program, error) {
	p := newProgram()
	p.slots, p.free = init.slots, nil // slots of the init's part stay theirs
	recv := func(fd int) int8 {
		if fd < 0 {
			return noSlot
		}
		sl := p.slot()
		p.recv = append(p.recv, recvFD{fd: fd, slot: sl})
		return sl
	}
	var stdio [3]int8
	for i, fd := range c.stdio {
		stdio[i] = recv(fd)
	}
	if c.nullStdin {
		if init.nullStdin == noSlot {
			return nil, fmt.Errorf("the init's part has no null device for the command's standard input")
		}
		stdio[0] = init.nullStdin
	}
	ruleset, listenerTo := recv(c.ruleset), recv(c.listenerTo)
	if len(p.recv) > maxRecvFDs {
		return nil, fmt.Errorf("too many descriptors for the sandbox's init")
	}
	// Everything below runs in the command's process (see sendPre).
	// The supervisor joins the sandbox's namespaces through the init's
	// pidfd (setns), which needs ptrace access to the init. Without
	// Landlock the init is not dumpable (its memory is sbx's), and an
	// unprivileged sbx then has no such access: the command's process sends
	// its namespaces with the listener instead (a process may always open
	// its own).
	var nsSlots []int8
	if listenerTo != noSlot && c.nsFDs {
		names := []string{"mnt", "ipc"}
		if c.userns {
			names = append(names, "user")
		}
		for _, name := range names {
			ns := p.slot()
			p.call3("opening /proc/self/ns/", name, "", unix.SYS_OPENAT, atFdcwdU, p.str("/proc/self/ns/"+name), unix.O_RDONLY|unix.O_CLOEXEC).into(ns)
			nsSlots = append(nsSlots, ns)
		}
	}
	traceStep(p, "c-cmdpart")
	if listenerTo != noSlot {
		// The supervisor, started on the command's first creation call,
		// refuses guarded names in these directories, which it matches by
		// device and inode. Taken here, in the final view and before the
		// command runs: by then the command could have made the path
		// unreachable to the supervisor (a parent it owns set to mode 000),
		// which stats with the command's user's rights. A failure fails the
		// setup: the command never runs with a guard missing.
		for _, g := range s.Guarded {
			dir := path.Dir(g)
			if slices.ContainsFunc(p.guardDirs, func(d guardDir) bool { return d.path == dir }) {
				continue
			}
			st := new(unix.Stat_t)
			p.call3("identifying the guarded directory ", dir, "", sysFstatat, atFdcwdU, p.str(dir), p.mem(st, unsafe.Pointer(st)), 0)
			p.guardDirs = append(p.guardDirs, guardDir{path: dir, st: st})
		}
	}
	if s.Cwd != "" {
		p.call3("entering the working directory ", s.Cwd, "", unix.SYS_CHDIR, p.str(s.Cwd))
	}
	if c.setsid {
		// The session the executor asked for is the command's own, as
		// without a sandbox: the init made one for itself (sendPre), and
		// the command's process, its child, would otherwise share it and
		// its process group (kill(0) from the command would then be
		// kill(-1) in the namespace, and setsid would succeed).
		p.call("setsid (the command's own session and process group)", unix.SYS_SETSID)
	}
	if ruleset != noSlot {
		compileRules(p, s, ruleset)
	}
	traceStep(p, "c-rules")
	compileCapClear(p)
	p.call("prctl(PR_SET_NO_NEW_PRIVS)", unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	if ruleset != noSlot {
		p.call("landlock_restrict_self", unix.SYS_LANDLOCK_RESTRICT_SELF, 0, 0).from(0, ruleset)
		p.closeSlot(ruleset)
	}
	traceStep(p, "c-restricted")
	// No core files in the writable roots (a core_pattern that pipes to a
	// program is the host's affair, as for any crashing process).
	zero := new(unix.Rlimit)
	p.call("setrlimit(RLIMIT_CORE)", unix.SYS_PRLIMIT64, 0, unix.RLIMIT_CORE, p.mem(zero, unsafe.Pointer(zero)), 0)
	// The open-files limit sbx started with, as os/exec gives it back
	// (package nofile): Go raised sbx's soft limit to the hard one.
	if l, ok := nofile.ForChild(); ok {
		rl := &unix.Rlimit{Cur: l.Cur, Max: l.Max}
		p.call("setrlimit(RLIMIT_NOFILE)", unix.SYS_PRLIMIT64, 0, unix.RLIMIT_NOFILE, p.mem(rl, unsafe.Pointer(rl)), 0)
	}
	if len(c.filter) > 0 {
		prog := &unix.SockFprog{Len: uint16(len(c.filter)), Filter: &c.filter[0]}
		p.keep = append(p.keep, c.filter)
		var flags uintptr
		if listenerTo != noSlot {
			// WAIT_KILLABLE_RECV (5.19): once the supervisor has received a
			// notification, only a fatal signal interrupts the waiting
			// system call (a signal would otherwise restart a mkdir the
			// supervisor already performed, which then fails EEXIST).
			flags = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
		}
		in := p.call("seccomp(SET_MODE_FILTER)", unix.SYS_SECCOMP, seccompSetModeFilter, flags, p.mem(prog, unsafe.Pointer(prog)))
		if listenerTo != noSlot {
			l := p.slot()
			in.into(l)
			sendFDs(p, listenerTo, append([]int8{l}, nsSlots...))
			p.closeSlot(l)
			for _, ns := range nsSlots {
				p.closeSlot(ns)
			}
		}
	}
	traceStep(p, "c-seccomp")
	for i, sl := range stdio {
		if sl != noSlot {
			p.call("dup3(stdio)", unix.SYS_DUP3, 0, uintptr(i), 0).from(0, sl)
		}
	}
	// The init blocks every signal (see initMain); the command starts with
	// none blocked.
	empty := new(uint64)
	p.call("rt_sigprocmask", unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, p.mem(empty, unsafe.Pointer(empty)), 0, 8)
	// The init resets SIGHUP, SIGINT and SIGTERM, which it relies on, even
	// where sbx's caller ignores them; the command gets the caller's
	// SIG_IGN back, as across os/exec (nohup sbx run -- CMD).
	ign := &sigaction{handler: sigIgn}
	for _, sig := range callerIgnored() {
		p.call("rt_sigaction(SIG_IGN) for a signal the caller ignores", unix.SYS_RT_SIGACTION, uintptr(sig), p.mem(ign, unsafe.Pointer(ign)), 0, 8)
	}
	// Every descriptor but the standard streams closes on exec, whatever
	// sbx's caller leaked into sbx.
	p.call("close_range", unix.SYS_CLOSE_RANGE, 3, ^uintptr(0), closeRangeCloex)
	argv, err := cStrings(p, s.Argv)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	envv, err := cStrings(p, s.Env)
	if err != nil {
		return nil, fmt.Errorf("environment: %w", err)
	}
	if strings.IndexByte(s.Path, 0) >= 0 {
		return nil, fmt.Errorf("the command path contains a NUL byte")
	}
	traceStep(p, "c-exec")
	p.call3("execve ", s.Path, "", unix.SYS_EXECVE, p.str(s.Path), argv, envv)
	return p, nil
}

// writeIDMaps maps uid and gid onto themselves in the init's new user
// namespace (setgroups denied, as an unprivileged writer must).
func writeIDMaps(p *program, uid, gid int) {
	writeFile(p, "/proc/self/setgroups", "deny")
	writeFile(p, "/proc/self/uid_map", strconv.Itoa(uid)+" "+strconv.Itoa(uid)+" 1\n")
	writeFile(p, "/proc/self/gid_map", strconv.Itoa(gid)+" "+strconv.Itoa(gid)+" 1\n")
}

// writeFile writes content to an existing file in one write.
func writeFile(p *program, name, content string) {
	fd := p.slot()
	p.call3("open ", name, "", unix.SYS_OPENAT, atFdcwdU, p.str(name), unix.O_WRONLY|unix.O_CLOEXEC).into(fd)
	b := []byte(content)
	p.keep = append(p.keep, b)
	p.call3("write ", name, "", unix.SYS_WRITE, 0, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b))).from(0, fd)
	p.closeSlot(fd)
}

// atFdcwdU is AT_FDCWD as a system call argument.
const atFdcwdU = ^uintptr(99) // -100

// cStrings returns a NULL-terminated array of NUL-terminated strings.
func cStrings(p *program, ss []string) (uintptr, error) {
	arr := make([]uintptr, len(ss)+1)
	for i, s := range ss {
		if strings.IndexByte(s, 0) >= 0 {
			return 0, fmt.Errorf("%q contains a NUL byte", s)
		}
		arr[i] = p.str(s)
	}
	p.keep = append(p.keep, arr)
	return uintptr(unsafe.Pointer(&arr[0])), nil
}

// sendFDs sends the descriptors in slots ss over the socket sock in one
// SCM_RIGHTS message. The first is written into the message by the
// sendmsg step itself; the others by getpid steps that only carry a patch.
func sendFDs(p *program, sock int8, ss []int8) {
	data := []byte{'L'}
	iov := &unix.Iovec{Base: &data[0]}
	iov.SetLen(1)
	oob := make([]byte, unix.CmsgSpace(4*len(ss)))
	h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
	h.Level, h.Type = unix.SOL_SOCKET, unix.SCM_RIGHTS
	h.SetLen(unix.CmsgLen(4 * len(ss)))
	msg := &unix.Msghdr{Iov: iov, Iovlen: 1, Control: &oob[0]}
	msg.SetControllen(len(oob))
	p.keep = append(p.keep, data, iov, oob, msg)
	for i := 1; i < len(ss); i++ {
		in := p.call("placing a descriptor in the message", unix.SYS_GETPID)
		in.patchAddr, in.patchSlot = unsafe.Pointer(&oob[unix.CmsgLen(4*i)]), ss[i]
	}
	in := p.call("sendmsg(listener)", unix.SYS_SENDMSG, 0, uintptr(unsafe.Pointer(msg)), 0).from(0, sock)
	in.patchAddr, in.patchSlot = unsafe.Pointer(&oob[unix.CmsgLen(0)]), ss[0]
}

// compileBoundingDrop sets the securebits and empties the bounding and
// ambient sets (see dropCapabilities): what the init may drop for the
// command early, in its first part, while sbx still binds the profile.
// The init never execs, so neither set is of use to it, and its effective
// capabilities (mounts, the namespace's maps, kill) stay; the command's
// process inherits all three from it. compileCapClear, in the command's
// part, empties the rest.
func compileBoundingDrop(p *program, lastCap int) {
	p.call("prctl(PR_SET_SECUREBITS)", unix.SYS_PRCTL, unix.PR_SET_SECUREBITS, secureBits)
	for c := 0; c <= lastCap; c++ {
		p.call3("prctl(PR_CAPBSET_DROP, ", strconv.Itoa(c), ")", unix.SYS_PRCTL, unix.PR_CAPBSET_DROP, uintptr(c))
	}
	p.call("prctl(PR_CAP_AMBIENT_CLEAR_ALL)", unix.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL).tolerate(unix.EINVAL, 0)
}

// compileCapClear empties the effective, permitted and inheritable sets,
// after compileBoundingDrop ran in the init.
func compileCapClear(p *program) {
	hdr := &unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	data := new([2]unix.CapUserData)
	p.keep = append(p.keep, hdr, data)
	p.call("capset", unix.SYS_CAPSET, uintptr(unsafe.Pointer(hdr)), uintptr(unsafe.Pointer(&data[0])))
}

// lastCapability is the kernel's highest capability number, probed with
// PR_CAPBSET_READ (EINVAL past the last one): a few system calls, cheaper
// than reading /proc/sys/kernel/cap_last_cap.
func lastCapability() int {
	valid := func(c int) bool {
		_, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0)
		return err == nil
	}
	c := 40 // CAP_CHECKPOINT_RESTORE, the last one since Linux 5.9
	for c > 0 && !valid(c) {
		c--
	}
	for c < 63 && valid(c+1) {
		c++
	}
	return c
}

// compileRules adds the spec's rules to the ruleset in the child, on the
// final view, so each rule is attached to the inode the command sees (a
// fresh /proc, a private devpts). Each path's type is taken from sbx's
// view, which is the same file: a grant whose path is missing is skipped
// (it can only narrow access), and one whose path vanished or changed type
// since makes the kernel refuse the rule (the run fails closed).
func compileRules(p *program, s *landlock.Spec, rfd int8) {
	for _, g := range s.Grants {
		if g.Rights == 0 {
			continue
		}
		var k landlock.Kind
		if g.NoFollow {
			k = s.Lstat(g.Path)
		} else {
			k = s.Stat(g.Path)
		}
		if k == landlock.KindMissing {
			continue
		}
		rights := g.Rights
		if k != landlock.KindDir {
			if g.NoFollow {
				continue // re-grants are for real directories only
			}
			rights &= landlock.FileRights
		}
		rights &= s.Handled.FS
		if rights == 0 {
			continue
		}
		flags := uint64(unix.O_PATH | unix.O_CLOEXEC)
		if g.NoFollow {
			flags |= unix.O_NOFOLLOW
		}
		fd := p.slot()
		var open *insn
		if s.Lstat(g.Path) == landlock.KindSymlink {
			// A link the binding kept (one nobody could have planted, or
			// pinned in a writable directory): the rule is its target's.
			open = p.call3("opening ", g.Path, " for a Landlock rule", unix.SYS_OPENAT, atFdcwdU, p.str(g.Path), uintptr(flags))
		} else {
			// Bound paths are canonical: a symlink on the way now (ELOOP:
			// the run refuses) means another process swapped a directory
			// for a link since the binding, which judged what a link there
			// may grant ("a link in a writable directory grants nothing").
			// Red team 28: following it, a concurrent workspace run that
			// flips /tmp/share/docs between a directory and a link to
			// ~/.ssh (renameat2 RENAME_EXCHANGE) gave a run whose profile
			// reads /tmp/share/docs a read grant on ~/.ssh in about one
			// start in five.
			how := &unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_NO_SYMLINKS}
			open = p.call3("opening ", g.Path, " for a Landlock rule without symlinks (a symlink on the way: the path changed since the profile was bound)",
				unix.SYS_OPENAT2, atFdcwdU, p.str(g.Path), p.mem(how, unsafe.Pointer(how)), unsafe.Sizeof(*how))
		}
		open.into(fd).tolerate(unix.ENOENT, 2)
		pb := &pathBeneathAttr{allowedAccess: uint64(rights)}
		in := p.callf(func() string { return fmt.Sprintf("landlock_add_rule(%s, %s)", g.Path, rights) }, unix.SYS_LANDLOCK_ADD_RULE, 0, ruleTypePathBeneath, p.mem(pb, unsafe.Pointer(pb)), 0).from(0, rfd)
		in.patchAddr, in.patchSlot = unsafe.Pointer(&pb.parentFd), fd
		p.closeSlot(fd)
	}
	// A port range is one rule per port (up to 65,535): the attributes
	// share one pointer-free block, and the step lists grow once.
	if len(s.Ports) > 0 {
		nps := make([]netPortAttr, len(s.Ports))
		p.keep = append(p.keep, nps)
		p.insns = slices.Grow(p.insns, len(s.Ports))
		p.what = slices.Grow(p.what, len(s.Ports))
		for i, port := range s.Ports {
			nps[i] = netPortAttr{allowedAccess: uint64(port.Rights), port: uint64(port.Port)}
			p.call3("landlock_add_rule(port ", strconv.Itoa(int(port.Port)), ")", unix.SYS_LANDLOCK_ADD_RULE, 0, ruleTypeNetPort, uintptr(unsafe.Pointer(&nps[i])), 0).from(0, rfd)
		}
	}
}

// newRuleset creates an empty ruleset handling the spec's rights.
func newRuleset(s *landlock.Spec) (int, error) {
	attr := rulesetAttr{uint64(s.Handled.FS), uint64(s.Handled.Net), uint64(s.Handled.Scoped)}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset(fs=%s): %w", s.Handled.FS, e)
	}
	return int(fd), nil
}

// mountAttr returns a struct mount_attr kept alive by p.
func mountAttr(p *program, set uint64) (uintptr, uintptr) {
	a := &unix.MountAttr{Attr_set: set}
	return p.mem(a, unsafe.Pointer(a)), unsafe.Sizeof(*a)
}

// procMountData is the option string of the sandbox's procfs. The init,
// PID 1 there, shares its caller's memory (a CLONE_VM clone), and
// /proc/1/cmdline, which the kernel serves without a ptrace check, would
// show the caller's arguments (sbx's, or an embedding program's, secrets
// included). hidepid=invisible hides every process the reader may not
// ptrace: the command may not ptrace the init (Landlock confines it to its
// own domain; without Landlock, the init's capabilities and its memory not
// being dumpable stop it), so the init disappears, with only processes the
// command could not inspect anyway (a non-dumpable one of its own also
// hides from its siblings, as on a host mounted with hidepid=2).
//
// Members of the option's gid are exempt. Its default is the host's root
// group, of which a root run's command is a member: those runs (no user
// namespace, so any gid can be named) name a gid the command is not in; it
// cannot join one, its capabilities gone. A user namespace maps only the
// user's own group, so a user's run keeps the default: a user who is a
// member of the root group still sees the init (README, Known limits).
func procMountData(userns bool) string {
	if userns {
		return "hidepid=invisible"
	}
	return "hidepid=invisible,gid=" + strconv.Itoa(outsiderGID())
}

// outsiderGID is a group id that is neither this process's real or
// effective group nor one of its supplementary groups.
func outsiderGID() int {
	member := map[int]bool{unix.Getgid(): true, unix.Getegid(): true}
	if gs, err := unix.Getgroups(); err == nil {
		for _, g := range gs {
			member[g] = true
		}
	}
	g := 0x7ffffffe
	for member[g] {
		g--
	}
	return g
}

// compileMounts is applyMounts as a program: the mount view in the child's
// fresh mount namespace. Nothing propagates back to the host: the init made
// "/" private when it created the namespace (initMain).
func compileMounts(p *program, s *landlock.Spec, pre *prebuilt, procData string) error {
	ops := s.Mounts
	// Detached copies of the writable paths, taken before the base view is
	// made read-only, so they keep the host's own flags, plus nosuid and
	// (but on /) nodev: a device node already in a writable root (an
	// extracted image, a chroot tree) must not be a device inside (as
	// root, a block node of the disk would read it raw, which the mask of
	// /dev exists to prevent); set-id bits are void under no_new_privs
	// already.
	clones := map[string]int8{}
	attached := map[string]bool{}
	for _, op := range ops {
		if op.Kind != landlock.MountReadWrite {
			continue
		}
		if _, ok := clones[op.Path]; ok {
			continue
		}
		at := resolveBound(p, s, op.Path)
		c := p.slot()
		p.call3("cloning writable ", op.Path, "", unix.SYS_OPEN_TREE, 0, p.str(""), unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH).from(0, at).into(c)
		p.closeSlot(at)
		// Not nodev for / (write on everything: network-off), whose
		// submounts hold the host's /dev; its devices are the mask's.
		attrs, what := uint64(unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV), " nosuid and nodev"
		if op.Path == "/" {
			attrs, what = unix.MOUNT_ATTR_NOSUID, " nosuid"
		}
		a, n := mountAttr(p, attrs)
		p.call3("making writable ", op.Path, what, unix.SYS_MOUNT_SETATTR, 0, p.str(""), unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, a, n).from(0, c)
		clones[op.Path] = c
	}
	devs := compileNodev(p, s)
	maskSrc := int8(noSlot)
	for _, op := range ops {
		what := string(op.Kind) + " " + op.Path + " (" + op.Why + ")"
		switch op.Kind {
		case landlock.MountBaseReadOnly:
			a, n := mountAttr(p, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID)
			p.call(what, unix.SYS_MOUNT_SETATTR, atFdcwdU, p.str("/"), unix.AT_RECURSIVE, a, n)
		case landlock.MountReadWrite:
			if attached[op.Path] {
				continue
			}
			attached[op.Path] = true
			// The target is resolved now, in the view built so far (a
			// writable folder reopened below a read-only carve-out goes on
			// the carve-out's bind).
			at := resolveBound(p, s, op.Path)
			p.call(what, unix.SYS_MOVE_MOUNT, 0, p.str(""), 0, p.str(""), unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH).from(0, clones[op.Path]).from(2, at)
			p.closeSlot(at)
		case landlock.MountReadOnly:
			p.call(what, unix.SYS_MOUNT, p.str(op.Path), p.str(op.Path), p.str(""), unix.MS_BIND|unix.MS_REC, 0)
			// Not nodev: the standard devices kept through a mask of /dev
			// are read-only carve-outs too.
			a, n := mountAttr(p, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID)
			p.call(what, unix.SYS_MOUNT_SETATTR, atFdcwdU, p.str(op.Path), unix.AT_RECURSIVE, a, n)
		case landlock.MountMask:
			if len(op.Keep) == 0 {
				if maskSrc == noSlot {
					// The root is never exposed (only "d" and "f" are
					// cloned); it must be writable by its owner to create
					// them without CAP_DAC_OVERRIDE.
					maskSrc = newTmpfsProg(p, "mask source")
					p.call("creating mask directory", unix.SYS_MKDIRAT, 0, p.str("d"), 0).from(0, maskSrc)
					f := p.slot()
					p.call("creating mask file", unix.SYS_OPENAT, 0, p.str("f"), unix.O_CREAT|unix.O_EXCL|unix.O_RDONLY|unix.O_CLOEXEC, 0).from(0, maskSrc).into(f)
					p.closeSlot(f)
					a, n := mountAttr(p, unix.MOUNT_ATTR_RDONLY)
					p.call("making the mask read-only", unix.SYS_MOUNT_SETATTR, 0, p.str(""), unix.AT_EMPTY_PATH, a, n).from(0, maskSrc)
				}
				name := "f"
				if op.Dir {
					name = "d"
				}
				c := p.slot()
				p.call3(what, ": cloning the mask", "", unix.SYS_OPEN_TREE, 0, p.str(name), unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC).from(0, maskSrc).into(c)
				if op.Mounted {
					// On the host's mount itself (red team 28): made
					// read-only through the descriptor, which fails where
					// the path is no mount point any more, and the mask
					// attached on that descriptor, not by path again.
					at := compileMountPoint(p, op, what)
					p.call(what, unix.SYS_MOVE_MOUNT, 0, p.str(""), 0, p.str(""), unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH).from(0, c).from(2, at)
					p.closeSlot(at)
					p.closeSlot(c)
					continue
				}
				in := p.call(what, unix.SYS_MOVE_MOUNT, 0, p.str(""), atFdcwdU, p.str(op.Path), unix.MOVE_MOUNT_F_EMPTY_PATH).from(0, c)
				if op.Vanishing {
					// A deny_glob's match removed since the binding (a
					// build's temporary key file): nothing left to deny.
					in.tolerate(unix.ENOENT, 0)
				}
				p.closeSlot(c)
				continue
			}
			if pre.matches(op, clones) {
				pre.used = true
				attachKeepMask(p, op, pre.mask)
				continue
			}
			if err := compileKeepMask(p, s, op, clones, attached); err != nil {
				return err
			}
		case landlock.MountDevpts:
			compileDevpts(p)
		case landlock.MountDetach:
			// EINVAL (no longer a mount point) refuses the run: the
			// mount is still there when another process renamed a
			// directory above it since the binding (a concurrent run in
			// a shared /tmp exchanging a build chroot with a look-alike,
			// renameat2 RENAME_EXCHANGE), and tolerated, the host's
			// procfs stayed attached read-write at its new name (red
			// team 28: a root run opened the host's /proc/1/comm for
			// writing in half of its starts). Before red team 28 it was
			// taken for a mount the host had unmounted since.
			if op.Mounted {
				// Read-only first through a descriptor (see
				// compileMountPoint): umount2 takes a path only, and
				// should the path name another directory by then, the
				// host's mount is at least read-only and the detach
				// fails (EINVAL), refusing the run.
				p.closeSlot(compileMountPoint(p, op, what))
			}
			p.call(what, unix.SYS_UMOUNT2, p.str(op.Path), unix.MNT_DETACH|unix.UMOUNT_NOFOLLOW, 0)
		case landlock.MountPinLink:
			// The link bound onto itself, not followed (open_tree with
			// AT_SYMLINK_NOFOLLOW, move_mount without
			// MOVE_MOUNT_T_SYMLINKS), in its directory resolved without
			// symlinks: a mount point cannot be removed, renamed or
			// replaced (EBUSY), and lookups through it still follow it.
			dir := resolveNoSymlinks(p, path.Dir(op.Path))
			name := p.str(path.Base(op.Path))
			c := p.slot()
			p.call3(what, ": cloning the link", "", unix.SYS_OPEN_TREE, 0, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_SYMLINK_NOFOLLOW).from(0, dir).into(c)
			p.call(what, unix.SYS_MOVE_MOUNT, 0, p.str(""), 0, name, unix.MOVE_MOUNT_F_EMPTY_PATH).from(0, c).from(2, dir)
			p.closeSlot(c)
			p.closeSlot(dir)
		case landlock.MountKernelReadOnly:
			// Where it is, with what lies below it (no bind: the mount
			// the host made). EINVAL (no longer a mount point) refuses
			// the run, as for MountDetach: the mount may have moved with
			// a directory renamed above it since the binding (red team
			// 28), not only have been unmounted.
			a, n := mountAttr(p, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
			p.call(what, unix.SYS_MOUNT_SETATTR, atFdcwdU, p.str(op.Path), unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW, a, n)
		case landlock.MountProc:
			// Read-only whatever the writable roots (see kernelStateReadOnly),
			// and hiding the init (procMountData).
			p.call(what, unix.SYS_MOUNT, p.str("proc"), p.str("/proc"), p.str("proc"), unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, p.str(procData))
		default:
			return fmt.Errorf("unknown mount operation %q", op.Kind)
		}
	}
	// /sys (with everything below it) read-only whatever the writable
	// roots: see kernelStateReadOnly. Not a mount point (no sysfs): EINVAL,
	// a plain directory covered by the view.
	if s.Lstat("/sys") == landlock.KindDir {
		a, n := mountAttr(p, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
		p.call("making /sys read-only", unix.SYS_MOUNT_SETATTR, atFdcwdU, p.str("/sys"), unix.AT_RECURSIVE, a, n).tolerate(unix.EINVAL, 0)
	}
	pre.discard(p)
	for _, c := range clones {
		p.closeSlot(c)
	}
	for _, c := range devs {
		p.closeSlot(c)
	}
	if maskSrc != noSlot {
		p.closeSlot(maskSrc)
	}
	return nil
}

// sigIgn is SIG_IGN as a handler address.
const sigIgn = 1

// callerIgnored returns those of the signals the init resets (SIGHUP,
// SIGINT, SIGTERM) that this process ignores now. (The Go runtime keeps an
// inherited SIG_IGN for SIGHUP and SIGINT only: an ignored SIGTERM is
// replaced by its handler before any code here runs.)
func callerIgnored() []unix.Signal {
	var out []unix.Signal
	for _, sig := range []unix.Signal{unix.SIGHUP, unix.SIGINT, unix.SIGTERM} {
		var old sigaction
		if _, _, e := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), 0, uintptr(unsafe.Pointer(&old)), 8, 0, 0); e == 0 && old.handler == sigIgn {
			out = append(out, sig)
		}
	}
	return out
}

// compileMountPoint opens op.Path (a mount the host made, op.Mounted) and
// makes that mount read-only, nosuid, nodev and noexec through the
// descriptor, recursively; it returns the descriptor's slot. EINVAL (the
// descriptor is no mount's root: the path names another directory than at
// binding) refuses the run.
func compileMountPoint(p *program, op landlock.MountOp, what string) int8 {
	at := p.slot()
	p.call3(what, ": opening the mount point", "", unix.SYS_OPENAT, atFdcwdU, p.str(op.Path), unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC).into(at)
	a, n := mountAttr(p, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	p.call3(what, ": making the mount read-only (no mount point there: the path changed since the profile was bound)", "",
		unix.SYS_MOUNT_SETATTR, 0, p.str(""), unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, a, n).from(0, at)
	return at
}

// compileNodev makes every mount of the view nodev, so that only the
// devices the view keeps on purpose can be opened as devices. A read-only
// mount does not stop that: a device node elsewhere than /dev (a bind of
// the host's /dev, a loop device's node left in a readable directory) gave
// the command the raw device, through which a root caller without
// capabilities reads every file of that file system, the denied ones
// included. The devices kept on purpose are attached after this step with
// flags of their own: the mask of /dev (its clones, made from the host's
// view before, or re-enabled for devices in buildKeepMask) and a private
// devpts. Where /dev is not masked (a rule names /dev itself, or no rule
// covers it), each device path a rule grants is cloned before the step,
// with the host's flags, and attached back after it; it returns those
// clones' slots, for the caller to close.
func compileNodev(p *program, s *landlock.Spec) []int8 {
	devMasked := false
	for _, op := range s.Mounts {
		if op.Kind == landlock.MountMask && op.Path == "/dev" {
			devMasked = true
		}
	}
	var keep []string
	if !devMasked {
		for _, g := range s.Grants {
			if g.Rights == 0 || (g.Path != "/dev" && !strings.HasPrefix(g.Path, "/dev/")) {
				continue
			}
			if k := s.Lstat(g.Path); k == landlock.KindMissing || k == landlock.KindSymlink {
				continue
			}
			keep = append(keep, g.Path)
		}
	}
	// A path below another kept one comes with that one's clone.
	var tops []string
	for _, k := range keep {
		covered := slices.ContainsFunc(keep, func(o string) bool { return strings.HasPrefix(k, o+"/") })
		if !covered && !slices.Contains(tops, k) {
			tops = append(tops, k)
		}
	}
	slots := make([]int8, len(tops))
	for i, d := range tops {
		at := openNoSymlinks(p, d, 0)
		slots[i] = p.slot()
		p.call3("cloning ", d, " before the view becomes nodev", unix.SYS_OPEN_TREE, 0, p.str(""), unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH).from(0, at).into(slots[i])
		p.closeSlot(at)
	}
	a, n := mountAttr(p, unix.MOUNT_ATTR_NODEV)
	p.call("making every mount of the view nodev", unix.SYS_MOUNT_SETATTR, atFdcwdU, p.str("/"), unix.AT_RECURSIVE, a, n)
	for i, d := range tops {
		p.call3("attaching ", d, " back with its devices", unix.SYS_MOVE_MOUNT, 0, p.str(""), atFdcwdU, p.str(d), unix.MOVE_MOUNT_F_EMPTY_PATH).from(0, slots[i])
	}
	return slots
}

// resolveNoSymlinks opens path (a directory) as O_PATH without following
// any symlink (openat2 RESOLVE_NO_SYMLINKS) and returns its slot. A
// writable root is resolved so: bound paths are canonical, so a symlink
// on the way means the path changed since the profile was bound (another
// process swapped a directory for a link elsewhere), and following it
// would make the link's target writable. The run then fails closed.
func resolveNoSymlinks(p *program, path string) int8 {
	return openNoSymlinks(p, path, unix.O_DIRECTORY)
}

// resolveBound is resolveNoSymlinks for a writable path as bound: a file
// (a write rule may name one) is opened as such; anything else must still
// be the directory it was.
func resolveBound(p *program, s *landlock.Spec, path string) int8 {
	if s.Lstat(path) == landlock.KindFile {
		return openNoSymlinks(p, path, 0)
	}
	return resolveNoSymlinks(p, path)
}

// openNoSymlinks is resolveNoSymlinks for any file type (flags: extra
// open flags).
func openNoSymlinks(p *program, path string, flags uint64) int8 {
	how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC | flags, Resolve: unix.RESOLVE_NO_SYMLINKS}
	at := p.slot()
	p.call3("resolving ", path, " without symlinks (a symlink on the way: the path changed since the profile was bound, or is not canonical)",
		unix.SYS_OPENAT2, atFdcwdU, p.str(path), p.mem(how, unsafe.Pointer(how)), unsafe.Sizeof(*how)).into(at)
	return at
}

// newTmpfsProg creates a detached tmpfs (mode 0700, 64 KiB, 256 inodes,
// nosuid, nodev, noexec) and returns its slot.
func newTmpfsProg(p *program, what string) int8 {
	fs := p.slot()
	p.call3("fsopen(tmpfs) for the ", what, "", unix.SYS_FSOPEN, p.str("tmpfs"), unix.FSOPEN_CLOEXEC).into(fs)
	for _, kv := range [...][3]string{{"mode", "0700", "fsconfig(mode=0700)"}, {"size", "64k", "fsconfig(size=64k)"}, {"nr_inodes", "256", "fsconfig(nr_inodes=256)"}} {
		p.call(kv[2], unix.SYS_FSCONFIG, 0, unix.FSCONFIG_SET_STRING, p.str(kv[0]), p.str(kv[1]), 0).from(0, fs)
	}
	p.call("fsconfig(create)", unix.SYS_FSCONFIG, 0, unix.FSCONFIG_CMD_CREATE, 0, 0, 0).from(0, fs)
	m := p.slot()
	p.call("fsmount", unix.SYS_FSMOUNT, 0, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC).from(0, fs).into(m)
	p.closeSlot(fs)
	return m
}

// compileKeepMask is keepMask as a program: a fresh tmpfs with
// traverse-only (0111) directories leading to one mount point per kept
// path, onto which the original (cloned before masking) is attached.
func compileKeepMask(p *program, spec *landlock.Spec, op landlock.MountOp, clones map[string]int8, attached map[string]bool) error {
	m := buildKeepMask(p, op, spec.Lstat, clones, attached, false)
	attachKeepMask(p, op, m)
	return nil
}

// keepMask is a mask built detached (buildKeepMask), to be attached.
type keepMask struct {
	mfd    int8 // the mask: a detached tmpfs
	kept   []keptPath
	devpts bool // /dev/pts and /dev/ptmx get a private devpts
}

// keptPath is a path carried through a mask, cloned into slot.
type keptPath struct {
	rel   string
	slot  int8
	owned bool // cloned for the mask (not a writable root's clone)
}

// buildKeepMask creates the mask of op detached: the clones of the kept
// paths and the tmpfs with its mount points. ro makes each clone
// read-only and nosuid itself, as the base view would have made it: a
// mask built before the base view was made read-only (prebuilt, see
// Prestart) clones paths of the host's view.
func buildKeepMask(p *program, op landlock.MountOp, lstat func(string) landlock.Kind, clones map[string]int8, attached map[string]bool, ro bool) *keepMask {
	m := &keepMask{}
	for _, k := range op.Keep {
		full := path.Join(op.Path, k.Rel)
		if full == "/dev/pts" || full == "/dev/ptmx" {
			// A private devpts instance replaces the host's (see
			// attachKeepMask).
			m.devpts = true
			continue
		}
		if s, ok := clones[full]; ok {
			m.kept = append(m.kept, keptPath{k.Rel, s, false})
			attached[full] = true
			continue
		}
		if lstat(full) == landlock.KindMissing {
			continue // missing: nothing to keep
		}
		// Resolved without symlinks: a kept path that is (or leads
		// through) a symlink would carry the link's target, perhaps a
		// denied one, through the mask.
		at := openNoSymlinks(p, full, 0)
		s := p.slot()
		const cloneFlags = unix.OPEN_TREE_CLONE | unix.OPEN_TREE_CLOEXEC | unix.AT_RECURSIVE | unix.AT_EMPTY_PATH
		if ro {
			// The clone read-only in the same call (open_tree_attr, Linux
			// 6.15, as the detached masks need anyway).
			a, n := mountAttr(p, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID)
			p.call3("cloning ", full, " read-only to keep it below the mask", unix.SYS_OPEN_TREE_ATTR, 0, p.str(""), cloneFlags, a, n).from(0, at).into(s)
		} else {
			p.call3("cloning ", full, " to keep it below the mask", unix.SYS_OPEN_TREE, 0, p.str(""), cloneFlags).from(0, at).into(s)
			if op.Path == "/dev" {
				// Cloned from the view, which is nodev by now
				// (compileNodev): the standard devices must work.
				a := &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_NODEV}
				p.call3("letting ", full, " below the mask be a device", unix.SYS_MOUNT_SETATTR, 0, p.str(""), unix.AT_EMPTY_PATH|unix.AT_RECURSIVE,
					p.mem(a, unsafe.Pointer(a)), unsafe.Sizeof(*a)).from(0, s)
			}
		}
		p.closeSlot(at)
		m.kept = append(m.kept, keptPath{k.Rel, s, true})
	}
	// Built writable by its owner (no CAP_DAC_OVERRIDE is needed, also in
	// a user namespace), then every directory becomes traverse-only.
	m.mfd = newTmpfsProg(p, "mask of "+op.Path)
	mfd := m.mfd
	made := map[string]bool{}
	var dirs []string
	for _, k := range op.Keep {
		parts := strings.Split(k.Rel, "/")
		for j := 1; j < len(parts); j++ {
			d := strings.Join(parts[:j], "/")
			if made[d] {
				continue
			}
			made[d] = true
			p.call3("mask skeleton ", d, "", unix.SYS_MKDIRAT, 0, p.str(d), 0o700).from(0, mfd)
			dirs = append(dirs, d)
		}
		if made[k.Rel] {
			continue
		}
		made[k.Rel] = true
		if k.Dir {
			p.call3("mask mount point ", k.Rel, "", unix.SYS_MKDIRAT, 0, p.str(k.Rel), 0o111).from(0, mfd)
			dirs = append(dirs, k.Rel)
		} else {
			p.call3("mask mount point ", k.Rel, "", unix.SYS_MKNODAT, 0, p.str(k.Rel), unix.S_IFREG, 0).from(0, mfd)
		}
	}
	if op.Path == "/dev" {
		// The standard links of /dev ("echo >&2 >/dev/stderr"), resolved by
		// each process in its own /proc/self.
		for _, l := range [][2]string{{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}} {
			if made[l[0]] {
				continue
			}
			p.call3("mask link /dev/", l[0], "", unix.SYS_SYMLINKAT, p.str(l[1]), 0, p.str(l[0])).from(1, mfd)
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		p.call3("mask skeleton ", dirs[i], "", unix.SYS_FCHMODAT, 0, p.str(dirs[i]), 0o111, 0).from(0, mfd)
	}
	// The fsmount descriptor is O_PATH-like: fchmod needs a real open.
	root := p.slot()
	p.call("mask root", unix.SYS_OPENAT, 0, p.str("."), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0).from(0, mfd).into(root)
	p.call("mask root", unix.SYS_FCHMOD, 0, 0o111).from(0, root)
	p.closeSlot(root)
	return m
}

// compileDevpts mounts a private devpts: like bubblewrap's --dev, a new
// devpts instance (the command cannot reach the host's terminals) with
// /dev/ptmx bound to its own ptmx node, so posix_openpt works without
// capabilities.
func compileDevpts(p *program) {
	p.call("mounting a private devpts", unix.SYS_MOUNT, p.str("devpts"), p.str("/dev/pts"), p.str("devpts"), unix.MS_NOSUID|unix.MS_NOEXEC, p.str("newinstance,ptmxmode=0666,mode=620"))
	p.call("binding /dev/ptmx", unix.SYS_MOUNT, p.str("/dev/pts/ptmx"), p.str("/dev/ptmx"), p.str(""), unix.MS_BIND, 0).tolerate(unix.ENOENT, 0)
}

// attachKeepMask attaches a mask built by buildKeepMask at op.Path, carries
// the kept paths through it and makes it read-only.
func attachKeepMask(p *program, op landlock.MountOp, m *keepMask) {
	what := string(op.Kind) + " " + op.Path + " (" + op.Why + ")"
	p.call3(what, ": attaching the mask", "", unix.SYS_MOVE_MOUNT, 0, p.str(""), atFdcwdU, p.str(op.Path), unix.MOVE_MOUNT_F_EMPTY_PATH).from(0, m.mfd)
	for _, k := range m.kept {
		p.call3(what, ": carrying through the mask: ", k.rel, unix.SYS_MOVE_MOUNT, 0, p.str(""), atFdcwdU, p.str(path.Join(op.Path, k.rel)), unix.MOVE_MOUNT_F_EMPTY_PATH).from(0, k.slot)
		if k.owned {
			p.closeSlot(k.slot)
		}
	}
	if m.devpts {
		compileDevpts(p)
	}
	a, n := mountAttr(p, unix.MOUNT_ATTR_RDONLY)
	p.call3(what, ": making the mask read-only", "", unix.SYS_MOUNT_SETATTR, 0, p.str(""), unix.AT_EMPTY_PATH, a, n).from(0, m.mfd)
	p.closeSlot(m.mfd)
}
