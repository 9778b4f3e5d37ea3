//go:build linux && (amd64 || arm64)

package launch

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// Classic BPF opcodes (include/uapi/linux/filter.h).
const (
	bpfLD   = 0x00
	bpfW    = 0x00
	bpfABS  = 0x20
	bpfALU  = 0x04
	bpfAND  = 0x50
	bpfJMP  = 0x05
	bpfJEQ  = 0x10
	bpfJGE  = 0x30
	bpfJSET = 0x40
	bpfK    = 0x00
	bpfRET  = 0x06
)

// Seccomp return values and data offsets.
const (
	retAllow     = 0x7fff0000
	retErrno     = 0x00050000
	retUserNotif = 0x7fc00000

	offNr   = 0
	offArch = 4
	offArgs = 16 // args[i] at 16+8*i; the low 32 bits first (little endian)

	seccompSetModeFilter = 1
)

// setIDBits are the mode bits no file may get inside the sandbox: a
// setuid or setgid file left in a writable root would keep them after the
// run (a root-run command could leave a setuid-root binary behind).
const setIDBits = unix.S_ISUID | unix.S_ISGID

// soPassPidfd is SO_PASSPIDFD (Linux 6.5; asm-generic, amd64 and arm64).
const soPassPidfd = 76

// oTmpfileBit is __O_TMPFILE (O_TMPFILE without O_DIRECTORY): an open with
// it or O_CREAT creates a file with its mode argument.
const oTmpfileBit = unix.O_TMPFILE &^ unix.O_DIRECTORY

// Namespace flags clone() must not carry (CLONE_NEWTIME shares the exit
// signal byte in clone() and is only accepted by clone3, which is denied).
const cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// asm is a tiny classic-BPF assembler with forward labels. Labels are
// small integers and every buffer is sized for the filter, so that
// assembling it in a fresh process costs a few pages of memory and no map
// (sbx assembles one at every sandboxed start).
type asm struct {
	ins []unix.SockFilter
	// at is each label's instruction index (-1 until placed).
	at     []int32
	fix    []fixup
	routes []route
}

// label names an instruction; next (the zero label) is the next one.
type label uint16

// The filter's fixed labels; dispatch nodes get labels after lFixed.
const (
	next label = iota
	lAllow
	lEperm
	lEacces
	lEnosys
	lNotif
	lClone
	lSocket
	lSocketpair
	lMknod
	lMknodat
	lIoctl
	lFcntl
	lPersonality
	lPrlimit
	lSendto
	lSendmsg
	lSendmmsg
	lOpenat
	lOpen
	lCreat
	lMode1
	lMode2
	lRenameat2
	lSetsockopt
	lSunix
	lSinet
	lFixed
)

// route sends one system call number to a label.
type route struct {
	nr uint32
	to label
}

type fixup struct {
	at     int32
	jt, jf label
}

func newAsm() *asm {
	// Sized for the largest filter (about 300 instructions, 30 dispatch
	// nodes, 110 jumps, 90 routes).
	a := &asm{ins: make([]unix.SockFilter, 0, 320), at: make([]int32, lFixed, lFixed+40), fix: make([]fixup, 0, 160), routes: make([]route, 0, 96)}
	for i := range a.at {
		a.at[i] = -1
	}
	return a
}

func (a *asm) emit(code uint16, k uint32) { a.ins = append(a.ins, unix.SockFilter{Code: code, K: k}) }
func (a *asm) ld(off uint32)              { a.emit(bpfLD|bpfW|bpfABS, off) }
func (a *asm) ldArg(i int)                { a.ld(uint32(offArgs + 8*i)) }
func (a *asm) and(k uint32)               { a.emit(bpfALU|bpfAND|bpfK, k) }
func (a *asm) ret(v uint32)               { a.emit(bpfRET|bpfK, v) }
func (a *asm) label(l label)              { a.at[l] = int32(len(a.ins)) }

// newLabel allocates a label.
func (a *asm) newLabel() label {
	a.at = append(a.at, -1)
	return label(len(a.at) - 1)
}

// route sends system call nr to label to; the first route of a number
// wins.
func (a *asm) route(nr uint32, to label) {
	for _, r := range a.routes {
		if r.nr == nr {
			return
		}
	}
	a.routes = append(a.routes, route{nr, to})
}

// dispatch emits the routes (the system call number is in A) as a
// balanced binary search; numbers without a route go to def.
func (a *asm) dispatch(def label) {
	rs := a.routes
	// Insertion sort: under a hundred routes, and no generic sort code to
	// fault in at start-up.
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].nr < rs[j-1].nr; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	a.tree(rs, def)
}

func (a *asm) tree(rs []route, def label) {
	if len(rs) <= 4 {
		for _, r := range rs {
			a.jump(bpfJEQ, r.nr, r.to, next)
		}
		a.jump(bpfJEQ, 0, def, def) // always taken
		return
	}
	mid := len(rs) / 2
	right := a.newLabel()
	a.jump(bpfJGE, rs[mid].nr, right, next)
	a.tree(rs[:mid], def)
	a.label(right)
	a.tree(rs[mid:], def)
}

// jump emits a conditional jump; next as a target means the next
// instruction.
func (a *asm) jump(op uint16, k uint32, jt, jf label) {
	a.fix = append(a.fix, fixup{at: int32(len(a.ins)), jt: jt, jf: jf})
	a.emit(bpfJMP|op|bpfK, k)
}

func (a *asm) assemble() ([]unix.SockFilter, error) {
	for _, f := range a.fix {
		off := func(l label) (uint8, error) {
			if l == next {
				return 0, nil
			}
			t := a.at[l]
			if t < 0 {
				return 0, fmt.Errorf("bpf: undefined label %d", l)
			}
			d := t - f.at - 1
			if d < 0 || d > 255 {
				return 0, fmt.Errorf("bpf: jump to label %d out of range (%d)", l, d)
			}
			return uint8(d), nil
		}
		var err error
		if a.ins[f.at].Jt, err = off(f.jt); err != nil {
			return nil, err
		}
		if a.ins[f.at].Jf, err = off(f.jf); err != nil {
			return nil, err
		}
	}
	return a.ins, nil
}

// buildFilter assembles the command's filter for spec (see
// landlock.SeccompSpec and landlock.SeccompSummary for the policy).
func buildFilter(s landlock.SeccompSpec) ([]unix.SockFilter, error) {
	a := newAsm()
	a.ld(offArch)
	a.jump(bpfJEQ, auditArch, next, lEnosys)
	a.ld(offNr)
	if checkX32 {
		a.jump(bpfJGE, 0x40000000, lEnosys, next)
	}
	for _, nr := range deniedSyscalls {
		a.route(nr, lEperm)
	}
	a.route(unix.SYS_CLONE3, lEnosys)
	a.route(unix.SYS_CLONE, lClone)
	a.route(unix.SYS_SOCKET, lSocket)
	a.route(unix.SYS_SOCKETPAIR, lSocketpair)
	if sysMknod >= 0 {
		a.route(uint32(sysMknod), lMknod)
	}
	a.route(unix.SYS_MKNODAT, lMknodat)
	a.route(unix.SYS_IOCTL, lIoctl)
	a.route(unix.SYS_FCNTL, lFcntl)
	a.route(unix.SYS_PERSONALITY, lPersonality)
	a.route(unix.SYS_PRLIMIT64, lPrlimit)
	switch {
	case s.NotifyConnect:
		a.route(unix.SYS_CONNECT, lNotif)
	case s.DenyConnect:
		a.route(unix.SYS_CONNECT, lEacces)
	}
	if s.DenyFastOpen {
		a.route(unix.SYS_SENDTO, lSendto)
		a.route(unix.SYS_SENDMSG, lSendmsg)
		a.route(unix.SYS_SENDMMSG, lSendmmsg)
	}
	switch {
	case s.NotifyListen:
		a.route(unix.SYS_LISTEN, lNotif)
	case s.DenyListen:
		a.route(unix.SYS_LISTEN, lEacces)
	}
	// Setuid and setgid bits: chmod and friends, and the mode of a file
	// being created (open/openat/creat with O_CREAT or O_TMPFILE, mknod;
	// mkdir ignores them). openat2's mode and flags are behind a pointer
	// the filter cannot read: ENOSYS makes libc fall back to openat.
	a.route(unix.SYS_OPENAT2, lEnosys)
	a.route(unix.SYS_FCHMOD, lMode1)
	a.route(unix.SYS_FCHMODAT, lMode2)
	a.route(unix.SYS_FCHMODAT2, lMode2)
	if sysChmod >= 0 {
		a.route(uint32(sysChmod), lMode1)
	}
	a.route(unix.SYS_OPENAT, lOpenat)
	if sysOpen >= 0 {
		a.route(uint32(sysOpen), lOpen)
	}
	if sysCreat >= 0 {
		a.route(uint32(sysCreat), lCreat)
	}
	// renameat2 with RENAME_WHITEOUT leaves a character device (0:0) at
	// the old name: unprivileged since Linux 5.8, and Landlock does not ask
	// for make_char. A whiteout in a writable root hides the file below it
	// if the directory is ever used as an overlayfs upper layer.
	a.route(unix.SYS_RENAMEAT2, lRenameat2)
	if s.NotifyWatch {
		a.route(unix.SYS_INOTIFY_ADD_WATCH, lNotif)
	}
	if s.NotifyBind {
		a.route(unix.SYS_BIND, lNotif)
		a.route(unix.SYS_SETSOCKOPT, lSetsockopt)
	}
	if s.NeedsSupervisor() {
		// The supervisor performs calls with the sandbox's own Landlock
		// domain: a domain the command nests in it would not apply to
		// them, so nesting is unavailable (as on a kernel without
		// Landlock).
		for _, nr := range []uint32{unix.SYS_LANDLOCK_CREATE_RULESET, unix.SYS_LANDLOCK_ADD_RULE, unix.SYS_LANDLOCK_RESTRICT_SELF} {
			a.route(nr, lEnosys)
		}
	}
	if s.NotifyCreate {
		// Every other system call that creates a directory entry goes to
		// the supervisor, which performs it itself (never CONTINUE: the
		// kernel would read the path again from memory the command
		// controls).
		for _, nr := range []int{unix.SYS_MKDIRAT, unix.SYS_SYMLINKAT, unix.SYS_LINKAT, unix.SYS_RENAMEAT, unix.SYS_RENAMEAT2,
			unix.SYS_BIND, sysMkdir, sysSymlink, sysLink, sysRename} {
			if nr >= 0 {
				a.route(uint32(nr), lNotif)
			}
		}
	}
	// The routes as a binary search over the system call number: a
	// linear chain costs every call (and the kernel's action cache, which
	// emulates the filter once per system call number when it is loaded)
	// one comparison per route.
	a.dispatch(lAllow)

	// A creating open: no set-id mode; with the supervisor, O_CREAT goes
	// to it (an O_TMPFILE has no name until linkat, which is supervised).
	creatok := lAllow
	if s.NotifyCreate {
		creatok = lNotif
	}
	openAt := func(at label, flagsArg, modeArg int) {
		a.label(at)
		a.ldArg(flagsArg)
		a.jump(bpfJSET, unix.O_CREAT|oTmpfileBit, next, lAllow)
		a.ldArg(modeArg)
		a.jump(bpfJSET, setIDBits, lEperm, next)
		if !s.NotifyCreate {
			a.ret(retAllow)
			return
		}
		a.ldArg(flagsArg)
		a.jump(bpfJSET, unix.O_CREAT, lNotif, lAllow)
	}
	openAt(lOpenat, 2, 3)
	if sysOpen >= 0 {
		openAt(lOpen, 1, 2)
	}
	if sysCreat >= 0 {
		a.label(lCreat)
		a.ldArg(1)
		a.jump(bpfJSET, setIDBits, lEperm, creatok)
	}
	a.label(lMode1)
	a.ldArg(1)
	a.jump(bpfJSET, setIDBits, lEperm, lAllow)
	a.label(lMode2)
	a.ldArg(2)
	a.jump(bpfJSET, setIDBits, lEperm, lAllow)

	// mknod of anything but a device creates an entry: supervised or
	// allowed.
	mkok := creatok

	a.label(lRenameat2)
	a.ldArg(4)
	a.jump(bpfJSET, unix.RENAME_WHITEOUT, lEperm, creatok)

	if s.DenyFastOpen {
		// The flags: sendto(fd, buf, len, flags, addr, alen),
		// sendmsg(fd, msg, flags), sendmmsg(fd, vec, vlen, flags).
		a.label(lSendto)
		a.ldArg(3)
		a.jump(bpfJSET, unix.MSG_FASTOPEN, lEacces, lAllow)
		a.label(lSendmsg)
		a.ldArg(2)
		a.jump(bpfJSET, unix.MSG_FASTOPEN, lEacces, lAllow)
		a.label(lSendmmsg)
		a.ldArg(3)
		a.jump(bpfJSET, unix.MSG_FASTOPEN, lEacces, lAllow)
	}

	a.label(lClone)
	a.ldArg(0)
	a.jump(bpfJSET, cloneNamespaces, lEperm, lAllow)

	// mknod(path, mode, dev) and mknodat(dirfd, path, mode, dev): the same
	// check on the mode argument, which sits one place further in mknodat.
	mknodMode := func(at label, arg int) {
		a.label(at)
		a.ldArg(arg)
		a.jump(bpfJSET, setIDBits, lEperm, next)
		a.ldArg(arg)
		a.and(unix.S_IFMT)
		a.jump(bpfJEQ, unix.S_IFCHR, lEperm, next)
		a.jump(bpfJEQ, unix.S_IFBLK, lEperm, mkok)
	}
	if sysMknod >= 0 {
		mknodMode(lMknod, 1)
	}
	mknodMode(lMknodat, 2)

	a.label(lIoctl)
	a.ldArg(1)
	a.jump(bpfJEQ, unix.TIOCSTI, lEperm, next)
	a.jump(bpfJEQ, unix.TIOCCONS, lEperm, next)
	// TIOCSETD on a pty of the private devpts would load any line
	// discipline module (dev.tty.ldisc_autoload): kernel attack surface.
	a.jump(bpfJEQ, unix.TIOCSETD, lEperm, next)
	a.jump(bpfJEQ, unix.TIOCLINUX, lEperm, next)
	// fscrypt's keyring, one per file system (ext4, f2fs, ubifs, ceph),
	// reached from any file or directory on it, readable ones included:
	// removing the user's claim on a key the host added locks the host's
	// encrypted directories, and keys added outlive the run, charged to
	// the user's kernel key quota (the keyring that keyctl and add_key
	// are denied for).
	a.jump(bpfJEQ, unix.FS_IOC_ADD_ENCRYPTION_KEY, lEperm, next)
	a.jump(bpfJEQ, unix.FS_IOC_REMOVE_ENCRYPTION_KEY, lEperm, next)
	a.jump(bpfJEQ, unix.FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS, lEperm, next)
	// btrfs's ioctls (type 0x94) create and destroy directory entries
	// (subvolumes, snapshots) without the VFS calls Landlock and the
	// supervisor check, and a snapshot copies a whole tree past the view's
	// masks; bcachefs's (0xbc) do the same. The generic ones that share
	// btrfs's number space take descriptors Landlock checked when they were
	// opened: FICLONE (9), FICLONERANGE (13) and FIDEDUPERANGE (54).
	a.and(0xff00)
	a.jump(bpfJEQ, 0xbc00, lEperm, next)
	a.jump(bpfJEQ, 0x9400, next, lAllow)
	a.ldArg(1)
	a.and(0xff)
	a.jump(bpfJEQ, 9, lAllow, next)
	a.jump(bpfJEQ, 13, lAllow, next)
	a.jump(bpfJEQ, 54, lAllow, lEperm)

	// A lease (F_SETLEASE) on any file the command may open, read-only
	// ones included, makes every other process's conflicting open wait for
	// up to lease-break-time (45 s by default): the host's writers of
	// /etc/passwd, say, when the command runs as root.
	a.label(lFcntl)
	a.ldArg(1)
	a.jump(bpfJEQ, unix.F_SETLEASE, lEperm, lAllow)

	if s.NotifyBind {
		// SO_PASSCRED and SO_PASSPIDFD make the kernel autobind a Unix
		// socket (an abstract name, in the host's namespace here) on a
		// datagram or seqpacket send, or on connect, without bind().
		a.label(lSetsockopt)
		a.ldArg(1)
		a.jump(bpfJEQ, unix.SOL_SOCKET, next, lAllow)
		a.ldArg(2)
		a.jump(bpfJEQ, unix.SO_PASSCRED, lEacces, next)
		a.jump(bpfJEQ, soPassPidfd, lEacces, lAllow)
	}

	// prlimit64 on PID 1, the sandbox's init (same uid, outside the
	// command's Landlock domain, which does not mediate resource limits):
	// RLIMIT_CPU of 0 would have the kernel kill it, and the run's status
	// with it. pid_t is 32 bits: the low word is what the kernel reads.
	a.label(lPrlimit)
	a.ldArg(0)
	a.jump(bpfJEQ, 1, lEperm, lAllow)

	a.label(lPersonality)
	a.ldArg(0)
	a.jump(bpfJEQ, 0, lAllow, next)            // PER_LINUX
	a.jump(bpfJEQ, 0x0008, lAllow, next)       // PER_LINUX32
	a.jump(bpfJEQ, 0xffffffff, lAllow, lEperm) // query

	a.label(lSocket)
	a.ldArg(0)
	a.jump(bpfJEQ, unix.AF_UNIX, lSunix, next)
	a.jump(bpfJEQ, unix.AF_INET, lSinet, next)
	a.jump(bpfJEQ, unix.AF_INET6, lSinet, next)
	if s.Network == ir.NetworkFull {
		a.ret(retAllow)
	} else {
		a.ret(retErrno | uint32(unix.EACCES))
	}
	a.label(lSunix)
	if s.UnixSocket {
		a.ldArg(1)
		a.and(0xf) // SOCK_TYPE_MASK: drop SOCK_NONBLOCK and SOCK_CLOEXEC
		a.jump(bpfJEQ, unix.SOCK_STREAM, lAllow, next)
		a.jump(bpfJEQ, unix.SOCK_SEQPACKET, lAllow, lEacces)
	} else {
		a.ret(retErrno | uint32(unix.EACCES))
	}
	a.label(lSinet)
	switch {
	case s.Network == ir.NetworkFull:
		a.ret(retAllow)
	case s.Network == ir.NetworkPorts && !s.DenyInet:
		a.ldArg(1)
		a.and(0xf)
		a.jump(bpfJEQ, unix.SOCK_STREAM, next, lEacces)
		a.ldArg(2)
		a.jump(bpfJEQ, 0, lAllow, next)
		a.jump(bpfJEQ, unix.IPPROTO_TCP, lAllow, lEacces)
	default:
		a.ret(retErrno | uint32(unix.EACCES))
	}

	a.label(lSocketpair)
	a.ldArg(0)
	a.jump(bpfJEQ, unix.AF_UNIX, next, lEacces)
	a.ldArg(1)
	a.and(0xf)
	a.jump(bpfJEQ, unix.SOCK_STREAM, lAllow, next)
	a.jump(bpfJEQ, unix.SOCK_SEQPACKET, lAllow, lEacces)

	a.label(lAllow)
	a.ret(retAllow)
	a.label(lEperm)
	a.ret(retErrno | uint32(unix.EPERM))
	a.label(lEacces)
	a.ret(retErrno | uint32(unix.EACCES))
	a.label(lEnosys)
	a.ret(retErrno | uint32(unix.ENOSYS))
	a.label(lNotif)
	a.ret(retUserNotif)
	return a.assemble()
}
