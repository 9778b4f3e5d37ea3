//go:build linux && (amd64 || arm64)

package launch

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"unsafe"

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

// asm is a tiny classic-BPF assembler with forward labels.
type asm struct {
	ins    []unix.SockFilter
	labels map[string]int
	fix    []fixup
	routes []route
	nlabel int
}

// route sends one system call number to a label.
type route struct {
	nr    uint32
	label string
}

type fixup struct {
	at     int
	jt, jf string
}

func (a *asm) emit(code uint16, k uint32) { a.ins = append(a.ins, unix.SockFilter{Code: code, K: k}) }
func (a *asm) ld(off uint32)              { a.emit(bpfLD|bpfW|bpfABS, off) }
func (a *asm) ldArg(i int)                { a.ld(uint32(offArgs + 8*i)) }
func (a *asm) and(k uint32)               { a.emit(bpfALU|bpfAND|bpfK, k) }
func (a *asm) ret(v uint32)               { a.emit(bpfRET|bpfK, v) }
func (a *asm) label(name string)          { a.labels[name] = len(a.ins) }

// route sends system call nr to label; the first route of a number wins.
func (a *asm) route(nr uint32, label string) {
	for _, r := range a.routes {
		if r.nr == nr {
			return
		}
	}
	a.routes = append(a.routes, route{nr, label})
}

// dispatch emits the routes (the system call number is in A) as a
// balanced binary search; numbers without a route go to def.
func (a *asm) dispatch(def string) {
	rs := slices.Clone(a.routes)
	slices.SortFunc(rs, func(x, y route) int { return cmp.Compare(x.nr, y.nr) })
	var tree func(rs []route)
	tree = func(rs []route) {
		if len(rs) <= 4 {
			for _, r := range rs {
				a.jump(bpfJEQ, r.nr, r.label, "")
			}
			a.jump(bpfJEQ, 0, def, def) // always taken
			return
		}
		mid := len(rs) / 2
		a.nlabel++
		right := "dispatch." + strconv.Itoa(a.nlabel)
		a.jump(bpfJGE, rs[mid].nr, right, "")
		tree(rs[:mid])
		a.label(right)
		tree(rs[mid:])
	}
	tree(rs)
}

// jump emits a conditional jump; "" as a target means the next instruction.
func (a *asm) jump(op uint16, k uint32, jt, jf string) {
	a.fix = append(a.fix, fixup{at: len(a.ins), jt: jt, jf: jf})
	a.emit(bpfJMP|op|bpfK, k)
}

func (a *asm) assemble() ([]unix.SockFilter, error) {
	for _, f := range a.fix {
		off := func(l string) (uint8, error) {
			if l == "" {
				return 0, nil
			}
			t, ok := a.labels[l]
			if !ok {
				return 0, fmt.Errorf("bpf: undefined label %q", l)
			}
			d := t - f.at - 1
			if d < 0 || d > 255 {
				return 0, fmt.Errorf("bpf: jump to %q out of range (%d)", l, d)
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
	// Sized for the filter (about 300 instructions, 100 labels).
	a := &asm{labels: make(map[string]int, 128), ins: make([]unix.SockFilter, 0, 512), fix: make([]fixup, 0, 256), routes: make([]route, 0, 128)}
	a.ld(offArch)
	a.jump(bpfJEQ, auditArch, "", "enosys")
	a.ld(offNr)
	if checkX32 {
		a.jump(bpfJGE, 0x40000000, "enosys", "")
	}
	for _, nr := range deniedSyscalls {
		a.route(nr, "eperm")
	}
	a.route(unix.SYS_CLONE3, "enosys")
	a.route(unix.SYS_CLONE, "clone")
	a.route(unix.SYS_SOCKET, "socket")
	a.route(unix.SYS_SOCKETPAIR, "socketpair")
	if sysMknod >= 0 {
		a.route(uint32(sysMknod), "mknod")
	}
	a.route(unix.SYS_MKNODAT, "mknodat")
	a.route(unix.SYS_IOCTL, "ioctl")
	a.route(unix.SYS_PERSONALITY, "personality")
	a.route(unix.SYS_PRLIMIT64, "prlimit")
	switch {
	case s.NotifyConnect:
		a.route(unix.SYS_CONNECT, "notif")
	case s.DenyConnect:
		a.route(unix.SYS_CONNECT, "eacces")
	}
	if s.DenyFastOpen {
		a.route(unix.SYS_SENDTO, "sendto")
		a.route(unix.SYS_SENDMSG, "sendmsg")
		a.route(unix.SYS_SENDMMSG, "sendmmsg")
	}
	switch {
	case s.NotifyListen:
		a.route(unix.SYS_LISTEN, "notif")
	case s.DenyListen:
		a.route(unix.SYS_LISTEN, "eacces")
	}
	// Setuid and setgid bits: chmod and friends, and the mode of a file
	// being created (open/openat/creat with O_CREAT or O_TMPFILE, mknod;
	// mkdir ignores them). openat2's mode and flags are behind a pointer
	// the filter cannot read: ENOSYS makes libc fall back to openat.
	a.route(unix.SYS_OPENAT2, "enosys")
	a.route(unix.SYS_FCHMOD, "mode1")
	a.route(unix.SYS_FCHMODAT, "mode2")
	a.route(unix.SYS_FCHMODAT2, "mode2")
	if sysChmod >= 0 {
		a.route(uint32(sysChmod), "mode1")
	}
	a.route(unix.SYS_OPENAT, "openat")
	if sysOpen >= 0 {
		a.route(uint32(sysOpen), "open")
	}
	if sysCreat >= 0 {
		a.route(uint32(sysCreat), "creat")
	}
	// renameat2 with RENAME_WHITEOUT leaves a character device (0:0) at
	// the old name: unprivileged since Linux 5.8, and Landlock does not ask
	// for make_char. A whiteout in a writable root hides the file below it
	// if the directory is ever used as an overlayfs upper layer.
	a.route(unix.SYS_RENAMEAT2, "renameat2")
	if s.NotifyWatch {
		a.route(unix.SYS_INOTIFY_ADD_WATCH, "notif")
	}
	if s.NotifyBind {
		a.route(unix.SYS_BIND, "notif")
		a.route(unix.SYS_SETSOCKOPT, "setsockopt")
	}
	if s.NeedsSupervisor() {
		// The supervisor performs calls with the sandbox's own Landlock
		// domain: a domain the command nests in it would not apply to
		// them, so nesting is unavailable (as on a kernel without
		// Landlock).
		for _, nr := range []uint32{unix.SYS_LANDLOCK_CREATE_RULESET, unix.SYS_LANDLOCK_ADD_RULE, unix.SYS_LANDLOCK_RESTRICT_SELF} {
			a.route(nr, "enosys")
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
				a.route(uint32(nr), "notif")
			}
		}
	}
	// The routes as a binary search over the system call number: a
	// linear chain costs every call (and the kernel's action cache, which
	// emulates the filter once per system call number when it is loaded)
	// one comparison per route.
	a.dispatch("allow")

	// A creating open: no set-id mode; with the supervisor, O_CREAT goes
	// to it (an O_TMPFILE has no name until linkat, which is supervised).
	creatok := "allow"
	if s.NotifyCreate {
		creatok = "notif"
	}
	openAt := func(label string, flagsArg, modeArg int) {
		a.label(label)
		a.ldArg(flagsArg)
		a.jump(bpfJSET, unix.O_CREAT|oTmpfileBit, "", "allow")
		a.ldArg(modeArg)
		a.jump(bpfJSET, setIDBits, "eperm", "")
		if !s.NotifyCreate {
			a.ret(retAllow)
			return
		}
		a.ldArg(flagsArg)
		a.jump(bpfJSET, unix.O_CREAT, "notif", "allow")
	}
	openAt("openat", 2, 3)
	if sysOpen >= 0 {
		openAt("open", 1, 2)
	}
	if sysCreat >= 0 {
		a.label("creat")
		a.ldArg(1)
		a.jump(bpfJSET, setIDBits, "eperm", creatok)
	}
	a.label("mode1")
	a.ldArg(1)
	a.jump(bpfJSET, setIDBits, "eperm", "allow")
	a.label("mode2")
	a.ldArg(2)
	a.jump(bpfJSET, setIDBits, "eperm", "allow")

	// mknod of anything but a device creates an entry: supervised or
	// allowed.
	mkok := creatok

	a.label("renameat2")
	a.ldArg(4)
	a.jump(bpfJSET, unix.RENAME_WHITEOUT, "eperm", creatok)

	if s.DenyFastOpen {
		// The flags: sendto(fd, buf, len, flags, addr, alen),
		// sendmsg(fd, msg, flags), sendmmsg(fd, vec, vlen, flags).
		a.label("sendto")
		a.ldArg(3)
		a.jump(bpfJSET, unix.MSG_FASTOPEN, "eacces", "allow")
		a.label("sendmsg")
		a.ldArg(2)
		a.jump(bpfJSET, unix.MSG_FASTOPEN, "eacces", "allow")
		a.label("sendmmsg")
		a.ldArg(3)
		a.jump(bpfJSET, unix.MSG_FASTOPEN, "eacces", "allow")
	}

	a.label("clone")
	a.ldArg(0)
	a.jump(bpfJSET, cloneNamespaces, "eperm", "allow")

	// mknod(path, mode, dev) and mknodat(dirfd, path, mode, dev): the same
	// check on the mode argument, which sits one place further in mknodat.
	mknodMode := func(label string, arg int) {
		a.label(label)
		a.ldArg(arg)
		a.jump(bpfJSET, setIDBits, "eperm", "")
		a.ldArg(arg)
		a.and(unix.S_IFMT)
		a.jump(bpfJEQ, unix.S_IFCHR, "eperm", "")
		a.jump(bpfJEQ, unix.S_IFBLK, "eperm", mkok)
	}
	if sysMknod >= 0 {
		mknodMode("mknod", 1)
	}
	mknodMode("mknodat", 2)

	a.label("ioctl")
	a.ldArg(1)
	a.jump(bpfJEQ, unix.TIOCSTI, "eperm", "")
	a.jump(bpfJEQ, unix.TIOCCONS, "eperm", "")
	// TIOCSETD on a pty of the private devpts would load any line
	// discipline module (dev.tty.ldisc_autoload): kernel attack surface.
	a.jump(bpfJEQ, unix.TIOCSETD, "eperm", "")
	a.jump(bpfJEQ, unix.TIOCLINUX, "eperm", "allow")

	if s.NotifyBind {
		// SO_PASSCRED and SO_PASSPIDFD make the kernel autobind a Unix
		// socket (an abstract name, in the host's namespace here) on a
		// datagram or seqpacket send, or on connect, without bind().
		a.label("setsockopt")
		a.ldArg(1)
		a.jump(bpfJEQ, unix.SOL_SOCKET, "", "allow")
		a.ldArg(2)
		a.jump(bpfJEQ, unix.SO_PASSCRED, "eacces", "")
		a.jump(bpfJEQ, soPassPidfd, "eacces", "allow")
	}

	// prlimit64 on PID 1, the sandbox's init (same uid, outside the
	// command's Landlock domain, which does not mediate resource limits):
	// RLIMIT_CPU of 0 would have the kernel kill it, and the run's status
	// with it. pid_t is 32 bits: the low word is what the kernel reads.
	a.label("prlimit")
	a.ldArg(0)
	a.jump(bpfJEQ, 1, "eperm", "allow")

	a.label("personality")
	a.ldArg(0)
	a.jump(bpfJEQ, 0, "allow", "")               // PER_LINUX
	a.jump(bpfJEQ, 0x0008, "allow", "")          // PER_LINUX32
	a.jump(bpfJEQ, 0xffffffff, "allow", "eperm") // query

	a.label("socket")
	a.ldArg(0)
	a.jump(bpfJEQ, unix.AF_UNIX, "sunix", "")
	a.jump(bpfJEQ, unix.AF_INET, "sinet", "")
	a.jump(bpfJEQ, unix.AF_INET6, "sinet", "")
	if s.Network == ir.NetworkFull {
		a.ret(retAllow)
	} else {
		a.ret(retErrno | uint32(unix.EACCES))
	}
	a.label("sunix")
	if s.UnixSocket {
		a.ldArg(1)
		a.and(0xf) // SOCK_TYPE_MASK: drop SOCK_NONBLOCK and SOCK_CLOEXEC
		a.jump(bpfJEQ, unix.SOCK_STREAM, "allow", "")
		a.jump(bpfJEQ, unix.SOCK_SEQPACKET, "allow", "eacces")
	} else {
		a.ret(retErrno | uint32(unix.EACCES))
	}
	a.label("sinet")
	switch {
	case s.Network == ir.NetworkFull:
		a.ret(retAllow)
	case s.Network == ir.NetworkPorts && !s.DenyInet:
		a.ldArg(1)
		a.and(0xf)
		a.jump(bpfJEQ, unix.SOCK_STREAM, "", "eacces")
		a.ldArg(2)
		a.jump(bpfJEQ, 0, "allow", "")
		a.jump(bpfJEQ, unix.IPPROTO_TCP, "allow", "eacces")
	default:
		a.ret(retErrno | uint32(unix.EACCES))
	}

	a.label("socketpair")
	a.ldArg(0)
	a.jump(bpfJEQ, unix.AF_UNIX, "", "eacces")
	a.ldArg(1)
	a.and(0xf)
	a.jump(bpfJEQ, unix.SOCK_STREAM, "allow", "")
	a.jump(bpfJEQ, unix.SOCK_SEQPACKET, "allow", "eacces")

	a.label("allow")
	a.ret(retAllow)
	a.label("eperm")
	a.ret(retErrno | uint32(unix.EPERM))
	a.label("eacces")
	a.ret(retErrno | uint32(unix.EACCES))
	a.label("enosys")
	a.ret(retErrno | uint32(unix.ENOSYS))
	a.label("notif")
	a.ret(retUserNotif)
	return a.assemble()
}

// installFilter loads prog on the calling thread only (no TSYNC).
// no_new_privs must already be set. With listener it returns the
// user-notification file descriptor.
func installFilter(prog []unix.SockFilter, listener bool) (int, error) {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	var flags uintptr
	if listener {
		// WAIT_KILLABLE_RECV (5.19): once the supervisor has received a
		// notification, only a fatal signal interrupts the waiting system
		// call. Otherwise a signal (SIGCHLD in a shell) would restart a
		// mkdir the supervisor already performed, which then fails EEXIST.
		flags = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
	}
	r, _, e := unix.RawSyscall(unix.SYS_SECCOMP, seccompSetModeFilter, flags, uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		return -1, fmt.Errorf("seccomp(SET_MODE_FILTER): %w", e)
	}
	return int(r), nil
}
