//go:build linux && (amd64 || arm64)

package launch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The supervisor (Spec.Seccomp.NotifyCreate and friends): protected or
// denied names that do not exist directly below a writable root have no
// dentry to mount on, and Landlock has no name filter. Instead of making the
// whole root non-creatable, every system call that creates a directory
// entry goes to the supervisor, which performs it itself. It is sbx
// re-executed (RunHelper) in the command's user, mount and IPC namespaces,
// outside its PID namespace, started on the first notification
// (fast_linux.go):
//
//   - a worker thread (locked, own fs_struct through unshare(CLONE_FS)) drops
//     every capability and calls landlock_restrict_self with the command's
//     ruleset, without the filter. It runs with the command's uid, gids and
//     Landlock rules, in the sandbox's mount view, so the kernel checks it
//     makes are the command's;
//   - the other threads (unconfined) receive notifications, read the paths
//     once from the caller's memory, duplicate its descriptors (pidfd_getfd)
//     and hand the operation to the worker, which refuses a guarded name
//     below a guarded directory (matched by device and inode, which the
//     command's process took in the final view before the command ran) and
//     otherwise
//     performs the system call and replies with its result. Nothing is
//     answered with CONTINUE, which would let the kernel look up the
//     descriptors and read the memory again, after the command changed
//     them.
//
// The same process serves connect() to listed Unix sockets, listen() with
// bind ports, bind() refusing abstract names, and inotify_add_watch where
// part of the tree is unreadable.

// Seccomp user-notification UAPI (include/uapi/linux/seccomp.h).
type seccompData struct {
	nr   int32
	arch uint32
	ip   uint64
	args [6]uint64
}

type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	data  seccompData
}

type seccompNotifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

type seccompNotifAddfd struct {
	id         uint64
	flags      uint32
	srcfd      uint32
	newfd      uint32
	newfdFlags uint32
}

const (
	ioctlNotifRecv    = unix.SECCOMP_IOCTL_NOTIF_RECV
	ioctlNotifSend    = unix.SECCOMP_IOCTL_NOTIF_SEND
	ioctlNotifIDValid = 0x40082102  // _IOW('!', 2, __u64)
	ioctlNotifAddfd   = 0x40182103  // _IOW('!', 3, struct seccomp_notif_addfd)
	pidfdThread       = unix.O_EXCL // PIDFD_THREAD (6.9): a pidfd for a thread
	atFdcwd           = -100
	maxSymlinks       = 40 // the kernel's MAXSYMLINKS
)

// supervisorAvailable reports whether this kernel offers what the
// supervisor needs: user notification, and pidfds for threads (6.9; the
// rest — pidfd_getfd 5.6, ADDFD_FLAG_SEND 5.14, WAIT_KILLABLE_RECV 5.19 —
// is older).
func supervisorAvailable() bool {
	action := uint32(retUserNotif)
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, 2 /* SECCOMP_GET_ACTION_AVAIL */, 0, uintptr(unsafe.Pointer(&action))); e != 0 {
		return false
	}
	fd, err := unix.PidfdOpen(unix.Gettid(), pidfdThread)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// dirKey identifies a directory by device and inode.
type dirKey struct {
	dev uint64
	ino uint64
}

// supervisor holds the state of one sandbox; it lives in the supervisor
// process only.
type supervisor struct {
	listener int
	rfd      int
	procfd   int // sbx's /proc: callers' entries (see procDepth)
	// procDepth is how many PID namespaces procfd's lies above the
	// supervisor's (0: its own; more where sbx runs in a PID namespace
	// whose /proc it does not mount, as inside another sbx run); -1 when
	// unknown, and then no caller's entry is looked up (fail closed).
	procDepth int
	// guard maps a guarded directory to the names refused directly in it.
	guard map[dirKey]map[string]bool
	names map[string]bool // every guarded name, for a quick test
	// guardPaths maps a guarded directory's path, folded, to the names
	// refused in it: on FUSE, where a server may number each spelling of
	// a directory apart (fuseAlias).
	guardPaths map[string]map[string]bool
	// sockets are the listed pathname Unix sockets (NotifyConnect).
	sockets []listedSocket
	// denyAbstract refuses abstract and autobound Unix addresses in bind
	// (NotifyBind: no network namespace of the sandbox's own).
	denyAbstract bool
	// portsMode: listen() on an internet socket is checked (ports mode);
	// otherwise (full mode) only Unix sockets are refused.
	portsMode bool
	work      chan func()
	// devLinks maps the standard links of /dev that point into
	// /proc/self (fd, stdin, stdout, stderr) to their target below it.
	devLinks map[string]string
}

// Supervisor descriptors, as the launcher places them (see startSupervisor).
const (
	supListenerFD = 3 // the seccomp user-notification listener
	supRulesetFD  = 4 // the command's Landlock ruleset (-1: none, then closed)
	supProcFD     = 5 // the host's /proc (the supervisor's PID namespace)
)

// runSupervisor is the supervisor process: sbx re-executed in the
// command's user, mount and IPC namespaces (not its PID namespace: the
// command cannot see, signal or trace it). It serves the listener until
// sbx kills it when the command has exited; it never returns.
func runSupervisor(guarded []guardedPath, sockets []listedSocket, hasRuleset, denyAbstract, portsMode bool) {
	runtime.LockOSThread()
	// Nothing but sbx should be able to access this process: not dumpable,
	// so its /proc entries are root's and ptrace access needs
	// CAP_SYS_PTRACE over it.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fail(exitSetup, "sbx: supervisor: prctl(PR_SET_DUMPABLE): %v", err)
	}
	// Started by hand (the helper mode is reachable from any shell, the
	// sandbox's included), with no listener on its descriptor: nothing to
	// supervise, which is a failure, not a clean exit.
	// (A listener answers ENOENT for a notification that does not exist;
	// anything else, ENOTTY, EINVAL or EBADF.)
	var none uint64
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, supListenerFD, ioctlNotifIDValid, uintptr(unsafe.Pointer(&none))); e != unix.ENOENT {
		fail(exitSetup, "sbx: supervisor: descriptor %d is not a seccomp listener (%v): this mode is sbx's own", supListenerFD, e)
	}
	sv := &supervisor{listener: supListenerFD, rfd: -1, procfd: supProcFD, procDepth: procDepthOf(supProcFD), guard: map[dirKey]map[string]bool{}, names: map[string]bool{}, guardPaths: map[string]map[string]bool{}, work: make(chan func())}
	if hasRuleset {
		sv.rfd = supRulesetFD
	}
	sv.sockets = sockets
	sv.denyAbstract = denyAbstract
	sv.portsMode = portsMode
	for _, g := range guarded {
		k := dirKey{g.dev, g.ino}
		if sv.guard[k] == nil {
			sv.guard[k] = map[string]bool{}
		}
		sv.guard[k][guardKey(path.Base(g.path))] = true
		sv.names[guardKey(path.Base(g.path))] = true
		d := guardKey(path.Dir(g.path))
		if sv.guardPaths[d] == nil {
			sv.guardPaths[d] = map[string]bool{}
		}
		sv.guardPaths[d][guardKey(path.Base(g.path))] = true
	}
	sv.devLinks = map[string]string{}
	for name, want := range map[string]string{"fd": "fd", "stdin": "fd/0", "stdout": "fd/1", "stderr": "fd/2"} {
		buf := make([]byte, 64)
		if n, err := unix.Readlink("/dev/"+name, buf); err == nil && string(buf[:n]) == "/proc/self/"+want {
			sv.devLinks[name] = want
		}
	}
	ready := make(chan error)
	go sv.worker(ready)
	if err := <-ready; err != nil {
		fail(exitSetup, "sbx: supervisor worker: %v", err)
	}
	sv.serve()
	os.Exit(0)
}

// worker confines its own thread like the command (without the filter) and
// runs operations for the supervisor. It owns its fs_struct, so fchdir and
// umask affect no other thread.
func (sv *supervisor) worker(ready chan<- error) {
	runtime.LockOSThread() // never unlocked: the thread is confined
	if err := unix.Unshare(unix.CLONE_FS); err != nil {
		ready <- fmt.Errorf("unshare(CLONE_FS): %w", err)
		return
	}
	if err := restrictThread(sv.rfd); err != nil {
		ready <- err
		return
	}
	ready <- nil
	for f := range sv.work {
		f()
	}
}

// onWorker runs f on the worker thread and waits for it.
func (sv *supervisor) onWorker(f func()) {
	done := make(chan struct{})
	sv.work <- func() { f(); close(done) }
	<-done
}

// onTempWorker runs f on a fresh thread confined like the worker, for an
// operation that may block (opening an existing FIFO or device): the
// supervisor goes on meanwhile. The thread ends with f (its goroutine
// exits while locked).
func (sv *supervisor) onTempWorker(f func(), fallback func(error)) {
	go func() {
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_FS); err != nil {
			fallback(err)
			return
		}
		if err := restrictThread(sv.rfd); err != nil {
			fallback(err)
			return
		}
		f()
	}()
}

// serve receives notifications until no filtered task is left (sbx kills
// the supervisor when the command ends; this also ends one whose sbx died
// before the parent-death signal was set).
func (sv *supervisor) serve() {
	for {
		p := []unix.PollFd{{Fd: int32(sv.listener), Events: unix.POLLIN}}
		if _, err := unix.Poll(p, -1); err != nil && err != unix.EINTR {
			return
		}
		if p[0].Revents&unix.POLLIN == 0 && p[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
			return
		}
		var n seccompNotif
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(sv.listener), ioctlNotifRecv, uintptr(unsafe.Pointer(&n)))
		if e == unix.EINTR {
			continue
		}
		if e == unix.ENOENT {
			// The caller was interrupted by a fatal signal before the
			// notification was read.
			continue
		}
		if e != 0 {
			return
		}
		sv.handle(&n)
	}
}

// reply answers a notification with a result or an errno.
func (sv *supervisor) reply(id uint64, val int64, errno unix.Errno) {
	r := seccompNotifResp{id: id, val: val, error: -int32(errno)}
	unix.Syscall(unix.SYS_IOCTL, uintptr(sv.listener), ioctlNotifSend, uintptr(unsafe.Pointer(&r)))
}

// idValid reports whether the notification is still pending: the calling
// thread is alive and still waiting (so its pid was not reused).
func (sv *supervisor) idValid(id uint64) bool {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(sv.listener), ioctlNotifIDValid, uintptr(unsafe.Pointer(&id)))
	return e == 0
}

// call is one intercepted system call, normalised to the *at forms.
type call struct {
	kind  string   // mkdir, mknod, symlink, link, rename, open, bind
	dirfd [2]int32 // caller's directory descriptors (atFdcwd for the cwd)
	path  [2]uint64
	mode  uint32
	dev   uint64
	flags uint64
	fd    int32 // bind: the socket
	alen  uint64
}

// decode maps a system call number to a call.
func decode(d *seccompData) (call, bool) {
	a := d.args
	nr := int(d.nr)
	c := call{dirfd: [2]int32{atFdcwd, atFdcwd}}
	switch nr {
	case unix.SYS_MKDIRAT:
		c.kind, c.dirfd[0], c.path[0], c.mode = "mkdir", int32(a[0]), a[1], uint32(a[2])
	case unix.SYS_MKNODAT:
		c.kind, c.dirfd[0], c.path[0], c.mode, c.dev = "mknod", int32(a[0]), a[1], uint32(a[2]), a[3]
	case unix.SYS_SYMLINKAT: // target, newdirfd, linkpath
		c.kind, c.path[1], c.dirfd[0], c.path[0] = "symlink", a[0], int32(a[1]), a[2]
	case unix.SYS_LINKAT: // olddirfd, old, newdirfd, new, flags
		c.kind, c.dirfd[1], c.path[1], c.dirfd[0], c.path[0], c.flags = "link", int32(a[0]), a[1], int32(a[2]), a[3], a[4]
	case unix.SYS_RENAMEAT, unix.SYS_RENAMEAT2:
		c.kind, c.dirfd[1], c.path[1], c.dirfd[0], c.path[0] = "rename", int32(a[0]), a[1], int32(a[2]), a[3]
		if nr == unix.SYS_RENAMEAT2 {
			c.flags = a[4]
		}
	case unix.SYS_OPENAT:
		c.kind, c.dirfd[0], c.path[0], c.flags, c.mode = "open", int32(a[0]), a[1], a[2], uint32(a[3])
	case unix.SYS_BIND:
		c.kind, c.fd, c.path[0], c.alen = "bind", int32(a[0]), a[1], a[2]
	case unix.SYS_CONNECT:
		c.kind, c.fd, c.path[0], c.alen = "connect", int32(a[0]), a[1], a[2]
	case unix.SYS_LISTEN:
		c.kind, c.fd, c.flags = "listen", int32(a[0]), a[1] // flags: the backlog
	case unix.SYS_INOTIFY_ADD_WATCH:
		c.kind, c.fd, c.path[0], c.flags = "watch", int32(a[0]), a[1], a[2]
	case sysMkdir:
		c.kind, c.path[0], c.mode = "mkdir", a[0], uint32(a[1])
	case sysMknod:
		c.kind, c.path[0], c.mode, c.dev = "mknod", a[0], uint32(a[1]), a[2]
	case sysSymlink:
		c.kind, c.path[1], c.path[0] = "symlink", a[0], a[1]
	case sysLink:
		c.kind, c.path[1], c.path[0] = "link", a[0], a[1]
	case sysRename:
		c.kind, c.path[1], c.path[0] = "rename", a[0], a[1]
	case sysOpen:
		c.kind, c.path[0], c.flags, c.mode = "open", a[0], a[1], uint32(a[2])
	case sysCreat:
		c.kind, c.path[0], c.flags, c.mode = "open", a[0], unix.O_CREAT|unix.O_WRONLY|unix.O_TRUNC, uint32(a[1])
	default:
		return c, false
	}
	return c, true
}

// handle performs one notification. It runs on an unconfined thread: it
// reads the caller's memory and descriptors (the same uid, and
// CAP_SYS_PTRACE in the command's user namespace), then hands the system
// call to the confined worker.
func (sv *supervisor) handle(n *seccompNotif) {
	c, ok := decode(&n.data)
	if !ok {
		sv.reply(n.id, 0, unix.ENOSYS)
		return
	}
	tid := int(n.pid)
	pidfd, err := unix.PidfdOpen(tid, pidfdThread)
	if err != nil {
		sv.reply(n.id, 0, unix.EACCES)
		return
	}
	defer unix.Close(pidfd)
	if !sv.idValid(n.id) { // pidfd is of the caller, not of a reused tid
		return
	}
	if c.kind == "connect" || c.kind == "listen" {
		sv.handleNet(n, c, tid, pidfd)
		return
	}
	if c.kind == "watch" {
		sv.handleWatch(n, c, tid, pidfd)
		return
	}
	// Read every argument once; only these copies are used from now on.
	var paths [2]string
	var addr []byte
	npaths := 1
	switch c.kind {
	case "symlink", "link", "rename":
		npaths = 2
	case "bind":
		npaths = 0
		if c.alen > uint64(unsafe.Sizeof(unix.RawSockaddrUnix{})) {
			sv.reply(n.id, 0, unix.EINVAL)
			return
		}
		addr = make([]byte, c.alen)
		if err := readMem(tid, c.path[0], addr); err != nil {
			sv.reply(n.id, 0, unix.EFAULT)
			return
		}
		// Without a network namespace of its own (ports and full modes), an
		// abstract name or an autobind would be in the host's namespace:
		// reachable from the host, and taken from host services.
		if sv.denyAbstract && len(addr) >= 2 && *(*uint16)(unsafe.Pointer(&addr[0])) == unix.AF_UNIX && (len(addr) == 2 || addr[2] == 0) {
			sv.reply(n.id, 0, unix.EACCES)
			return
		}
	}
	for i := 0; i < npaths; i++ {
		s, errno := readString(tid, c.path[i])
		if errno != 0 {
			sv.reply(n.id, 0, errno)
			return
		}
		paths[i] = s
	}
	// Descriptors: the caller's directories (its cwd for AT_FDCWD and for
	// a relative bind address) and, for bind and AT_EMPTY_PATH links, the
	// object itself. pidfd_getfd duplicates the caller's open file.
	var fds [2]int
	for i := range fds {
		fds[i] = -1
	}
	defer func() {
		for _, fd := range fds {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}()
	var sockfd = -1
	if c.kind == "bind" {
		if sockfd, err = unix.PidfdGetfd(pidfd, int(c.fd), 0); err != nil {
			sv.reply(n.id, 0, errnoOf(err, unix.EBADF))
			return
		}
		defer unix.Close(sockfd)
	}
	ptid, st, err := sv.callerStatus(tid, pidfd)
	if err != nil {
		sv.reply(n.id, 0, unix.EACCES)
		return
	}
	for i := 0; i < 2; i++ {
		if i == 1 && npaths < 2 || c.kind == "symlink" && i == 1 {
			continue // a symlink's target is content, not a path
		}
		if c.kind != "bind" && strings.HasPrefix(paths[i], "/") {
			continue
		}
		if c.dirfd[i] == atFdcwd {
			fds[i], err = unix.Openat(sv.procfd, strconv.Itoa(ptid)+"/cwd", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		} else {
			fds[i], err = unix.PidfdGetfd(pidfd, int(c.dirfd[i]), 0)
		}
		if err != nil {
			sv.reply(n.id, 0, errnoOf(err, unix.EBADF))
			return
		}
	}
	if !sv.idValid(n.id) {
		return
	}
	umask := st.umask
	r := &resolver{sv: sv, tid: tid, tgid: st.tgid, ptid: ptid, ptgid: st.ptgid, itid: st.itid, itgid: st.itgid, tpidfd: pidfd}
	defer r.close()
	var val int64
	var errno unix.Errno
	var openFd, obj = -1, -1
	sv.onWorker(func() {
		unix.Umask(umask)
		switch c.kind {
		case "mkdir":
			errno = r.atParent(fds[0], paths[0], func(pfd int, name string) error { return unix.Mkdirat(pfd, name, c.mode) })
		case "mknod":
			errno = r.atParent(fds[0], paths[0], func(pfd int, name string) error { return unix.Mknodat(pfd, name, c.mode, int(c.dev)) })
		case "symlink":
			errno = r.atParent(fds[0], paths[0], func(pfd int, name string) error { return unix.Symlinkat(paths[1], pfd, name) })
		case "link":
			errno = r.link(fds, paths, int(c.flags))
		case "rename":
			errno = r.rename(fds, paths, uint(c.flags))
		case "open":
			openFd, obj, errno = r.open(fds[0], paths[0], int(c.flags), c.mode)
		case "bind":
			errno = r.bind(fds[0], sockfd, addr)
		}
	})
	if c.kind != "open" {
		sv.reply(n.id, val, errno)
		return
	}
	if errno == errBlocking {
		// An existing FIFO or device (obj, an O_PATH descriptor on it):
		// reopen it, possibly blocking, on a thread of its own, through the
		// thread's own /proc entry. O_CREAT cannot create anything there any
		// more: the object exists and is not a regular file.
		id, flags := n.id, int(c.flags)
		sv.onTempWorker(func() {
			defer unix.Close(obj)
			fd, err := unix.Openat(sv.procfd, "thread-self/fd/"+strconv.Itoa(obj), (flags|unix.O_CLOEXEC|unix.O_NOCTTY)&^(unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW), 0)
			if err != nil {
				sv.reply(id, 0, errnoOf(err, unix.EACCES))
				return
			}
			sv.inject(id, fd, flags)
		}, func(err error) {
			unix.Close(obj)
			sv.reply(id, 0, unix.EACCES)
		})
		return
	}
	if errno != 0 {
		sv.reply(n.id, 0, errno)
		return
	}
	sv.inject(n.id, openFd, int(c.flags))
}

// inject installs fd in the caller and replies with its number in one step
// (SECCOMP_ADDFD_FLAG_SEND), with the caller's O_CLOEXEC; fd is closed.
func (sv *supervisor) inject(id uint64, fd int, flags int) {
	// Added first, replied to after this copy is closed: not in one step
	// (SECCOMP_ADDFD_FLAG_SEND), which returns the caller's call while the
	// supervisor still holds a writable descriptor of the new file, so an
	// execve of it right after (a compiler writing a program that is then
	// run) could fail with ETXTBSY.
	a := seccompNotifAddfd{id: id, srcfd: uint32(fd)}
	if flags&unix.O_CLOEXEC != 0 {
		a.newfdFlags = unix.O_CLOEXEC
	}
	r, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(sv.listener), ioctlNotifAddfd, uintptr(unsafe.Pointer(&a)))
	unix.Close(fd)
	switch {
	case e == unix.ENOENT: // the caller is gone
	case e != 0:
		sv.reply(id, 0, e) // EMFILE and the like
	default:
		sv.reply(id, int64(r), 0) // the call returns the new descriptor
	}
}

// errBlocking tells handle that an open must be redone on a thread that
// may block.
const errBlocking = unix.Errno(^uintptr(0) >> 1)

func dirOr(fd int) int {
	if fd < 0 {
		return atFdcwd
	}
	return fd
}

func errnoOf(err error, def unix.Errno) unix.Errno {
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return def
}

// splitLast splits p into its parent and last component the way the
// kernel's path walk does: trailing slashes belong to the last component
// (mkdir("d/") creates d), an empty parent is the starting directory.
func splitLast(p string) (parent, last, name string) {
	trimmed := strings.TrimRight(p, "/")
	if trimmed == "" { // "/" or "//"
		return "/", ".", "."
	}
	i := strings.LastIndexByte(trimmed, '/')
	switch {
	case i < 0:
		parent = "."
	case i == 0:
		parent = "/"
	default:
		parent = trimmed[:i]
	}
	return parent, p[i+1:], trimmed[i+1:]
}

// resolver resolves one call's paths on the worker. The worker is a thread
// of the supervisor, so /proc/self (and /proc/thread-self, /dev/fd, ...)
// would name the supervisor: paths that start there are rewritten to the
// caller's own entries first. The caller's descriptors (/proc/self/fd/N)
// and working directory (/proc/self/cwd) are taken from the caller itself
// (pidfd_getfd, /proc/TID/cwd) on an unconfined thread, like the call's
// directory descriptors. Everything else is resolved without magic links
// (RESOLVE_NO_MAGICLINKS), and a symlink in /proc is never followed: the
// worker can never reach the supervisor's own descriptors, and a magic link
// of another process fails as it would for the command.
type resolver struct {
	sv        *supervisor
	tid, tgid int // in the supervisor's PID namespace
	// ptid and ptgid are the same in procfd's PID namespace (see
	// supervisor.procDepth), which its entries are named by.
	ptid, ptgid int
	// itid and itgid are the same in the sandbox's PID namespace, whose
	// /proc the command's paths name.
	itid, itgid int
	tpidfd      int   // the caller thread's pidfd (owned by handle)
	owned       []int // descriptors to close with the call
}

func (r *resolver) close() {
	for _, fd := range r.owned {
		unix.Close(fd)
	}
}

// unconfined runs f on a thread that is neither the worker nor the parked
// main thread (both are locked to their goroutines, so a new goroutine
// never runs there) and waits for it.
func unconfined(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

// nextComponent splits the first component off rest (leading slashes
// skipped); rest keeps its own leading slash.
func nextComponent(rest *string) string {
	s := strings.TrimLeft(*rest, "/")
	i := strings.IndexByte(s, '/')
	if i < 0 {
		*rest = ""
		return s
	}
	*rest = s[i:]
	return s[:i]
}

// self rewrites an absolute path below the caller's own /proc entry
// (/proc/self, /proc/thread-self, /proc/TGID, /proc/TGID/task/TID, and the
// /dev links into /proc/self). It returns the directory and path to
// resolve, or file >= 0 when p names one of the caller's open files or its
// working directory itself (the magic link, which the kernel follows).
func (r *resolver) self(dir int, p string) (int, string, int, unix.Errno) {
	if !strings.HasPrefix(p, "/") {
		return dir, p, -1, 0
	}
	rest := p
	pid := 0
	switch nextComponent(&rest) {
	case "proc":
		switch c := nextComponent(&rest); c {
		case "self":
			pid = r.tgid
		case "thread-self":
			pid = r.tid
		case strconv.Itoa(r.itgid):
			pid = r.tgid
			if save := rest; nextComponent(&rest) != "task" || nextComponent(&rest) != strconv.Itoa(r.itid) {
				rest = save
			} else {
				pid = r.tid
			}
		default:
			return dir, p, -1, 0
		}
	case "dev":
		c := nextComponent(&rest)
		link, ok := r.sv.devLinks[c]
		if !ok {
			return dir, p, -1, 0
		}
		pid, rest = r.tgid, "/"+link+rest
	default:
		return dir, p, -1, 0
	}
	// tail is what follows the magic link: "" (the link itself), "." for
	// a trailing slash, or the remaining path.
	tail := func() string {
		if rest == "" {
			return ""
		}
		if t := strings.TrimLeft(rest, "/"); t != "" {
			return t
		}
		return "."
	}
	save := rest
	switch nextComponent(&rest) {
	case "fd":
		n := nextComponent(&rest)
		num, err := strconv.Atoi(n)
		if err != nil || num < 0 || n != strconv.Itoa(num) {
			break
		}
		fd, errno := r.getfd(pid, num)
		if errno != 0 {
			return -1, "", -1, errno
		}
		if t := tail(); t != "" {
			return fd, t, -1, 0
		}
		return -1, "", fd, 0
	case "cwd":
		var fd int
		var err error
		ppid := r.ptgid // pid in procfd's namespace
		if pid == r.tid {
			ppid = r.ptid
		}
		unconfined(func() {
			fd, err = unix.Openat(r.sv.procfd, strconv.Itoa(ppid)+"/cwd", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		})
		if err != nil {
			return -1, "", -1, errnoOf(err, unix.EACCES)
		}
		r.owned = append(r.owned, fd)
		if t := tail(); t != "" {
			return fd, t, -1, 0
		}
		return -1, "", fd, 0
	case "root":
		// Every process of the sandbox has the same root (chroot and
		// pivot_root are denied).
		return atFdcwd, "/" + strings.TrimLeft(rest, "/"), -1, 0
	}
	// Anything else below the caller's entry: resolved as such (the
	// worker's Landlock domain gives it no ptrace access to the caller, so
	// most of it fails as it would in /proc).
	inner := r.itgid
	if pid == r.tid && pid != r.tgid {
		inner = r.itid
	}
	return dir, "/proc/" + strconv.Itoa(inner) + save, -1, 0
}

// getfd duplicates the caller's descriptor num (of its thread group, or of
// the calling thread for /proc/thread-self).
func (r *resolver) getfd(pid, num int) (int, unix.Errno) {
	var fd int
	var err error
	unconfined(func() {
		pidfd := r.tpidfd
		if pid != r.tid {
			if pidfd, err = unix.PidfdOpen(pid, 0); err != nil {
				return
			}
			defer unix.Close(pidfd)
		}
		fd, err = unix.PidfdGetfd(pidfd, num, 0)
	})
	if err != nil {
		if err == unix.EBADF {
			return -1, unix.ENOENT // no such entry in /proc/self/fd
		}
		return -1, errnoOf(err, unix.EACCES)
	}
	r.owned = append(r.owned, fd)
	return fd, 0
}

// onProc reports whether fd is on a proc file system.
func onProc(fd int) bool {
	var st unix.Statfs_t
	return unix.Fstatfs(fd, &st) != nil || st.Type == unix.PROC_SUPER_MAGIC
}

// parentOf opens the directory in which p's last component lives
// (following symlinks, like the kernel's walk, but no magic link); with
// guard it refuses a guarded name there. p is already rewritten (self).
func (r *resolver) parentOf(dirfd int, p string, guard bool) (int, string, unix.Errno) {
	if p == "" {
		return -1, "", unix.ENOENT
	}
	dir, last, name := splitLast(p)
	pfd, err := unix.Openat2(dirOr(dirfd), dir, &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return -1, "", errnoOf(err, unix.EACCES)
	}
	// Nothing in /proc is created, opened or linked by the worker: with its
	// credentials it could pass ptrace checks the command fails (the
	// sandbox's non-dumpable init, /proc/1/mem). The caller's own magic
	// links (/proc/self/fd/N, cwd) never get here. /proc is read-only to
	// the command anyway.
	if onProc(pfd) {
		unix.Close(pfd)
		return -1, "", unix.EACCES
	}
	if folded := guardKey(name); guard && r.sv.names[folded] {
		var st unix.Stat_t
		if err := unix.Fstat(pfd, &st); err != nil || r.sv.guard[dirKey{st.Dev, st.Ino}][folded] || r.sv.fuseAlias(pfd, folded) {
			unix.Close(pfd)
			return -1, "", unix.EACCES
		}
	}
	return pfd, last, 0
}

// guardKey is the key a guarded name is refused under: foldName's, with
// the two letters whose simple case mappings reach an ASCII letter that
// Unicode case folding keeps apart (red team 29) taken as "i": the dotless
// i (U+0131), whose upper case is "I" (NTFS compares names by their upper
// case, so Windows' directories, served to WSL and over SMB, take
// ".g\u0131t" for ".git"), and the dotted capital I (U+0130), whose simple
// lower case is "i" (servers that lowercase names); and without trailing
// dots and spaces, which Windows' Win32 layer drops (".git." is ".git"
// there, as git for Windows knows).
func guardKey(name string) string {
	if strings.ContainsAny(name, "\u0130\u0131") {
		name = strings.NewReplacer("\u0130", "i", "\u0131", "i").Replace(name)
	}
	if t := strings.TrimRight(name, ". "); t != name && t != "" && !strings.HasSuffix(t, "/") {
		name = t
	}
	return foldName(name)
}

// fuseAlias reports whether pfd, a directory on FUSE, is a guarded
// directory reached by another spelling of its path, where name (folded)
// is refused (red team 29). A case-insensitive FUSE server that gives each
// spelling a node of its own (libfuse's path API, as ciopfs) gives the
// directory another inode under it: "mkdir ../WS/.git" from a workspace
// "ws" in /tmp passed the device-and-inode test and created the host's
// .git. The kernel's path of the directory, folded, is compared with the
// guarded directories' instead; a path that cannot be read refuses (fail
// closed). Only guarded names on FUSE get here.
func (sv *supervisor) fuseAlias(pfd int, name string) bool {
	var fs unix.Statfs_t
	if err := unix.Fstatfs(pfd, &fs); err != nil {
		return true
	}
	if fs.Type != unix.FUSE_SUPER_MAGIC {
		return false
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(sv.procfd, "thread-self/fd/"+strconv.Itoa(pfd), buf)
	if err != nil || n >= len(buf) {
		return true
	}
	return sv.guardPaths[guardKey(string(buf[:n]))][name]
}

// parent rewrites p and opens the directory in which its last component
// lives, refusing a guarded name there. A path naming an open file or
// directory itself (/proc/self/fd/N) exists: EEXIST.
func (r *resolver) parent(dirfd int, p string) (int, string, unix.Errno) {
	dirfd, p, file, errno := r.self(dirfd, p)
	if errno != 0 {
		return -1, "", errno
	}
	if file >= 0 {
		return -1, "", unix.EEXIST
	}
	return r.parentOf(dirfd, p, true)
}

// atParent runs op on p's parent directory and last component.
func (r *resolver) atParent(dirfd int, p string, op func(pfd int, name string) error) unix.Errno {
	pfd, name, errno := r.parent(dirfd, p)
	if errno != 0 {
		return errno
	}
	defer unix.Close(pfd)
	return errnoOf(op(pfd, name), 0)
}

// link checks the new name. The old one is resolved like the kernel's walk
// (a final symlink only with AT_SYMLINK_FOLLOW; never one in /proc but the
// caller's own open files, so that an O_TMPFILE can be linked in).
func (r *resolver) link(fds [2]int, paths [2]string, flags int) unix.Errno {
	pfd, name, errno := r.parent(fds[0], paths[0])
	if errno != 0 {
		return errno
	}
	defer unix.Close(pfd)
	if paths[1] == "" { // AT_EMPTY_PATH: the caller's descriptor itself
		if flags&unix.AT_EMPTY_PATH == 0 || fds[1] < 0 {
			return unix.ENOENT
		}
		if onProc(fds[1]) {
			return unix.EXDEV
		}
		// The kernel allows AT_EMPTY_PATH without CAP_DAC_READ_SEARCH only
		// for a file opened with the caller's credentials, which the
		// worker's are not (an O_TMPFILE then failed with ENOENT). The
		// magic link of the duplicate is equivalent and needs no capability
		// (an unlinked file that is not an O_TMPFILE still fails: ENOENT).
		return errnoOf(unix.Linkat(r.sv.procfd, "thread-self/fd/"+strconv.Itoa(fds[1]), pfd, name, unix.AT_SYMLINK_FOLLOW), 0)
	}
	odir, op, file, errno := r.self(fds[1], paths[1])
	if errno != 0 {
		return errno
	}
	if file >= 0 {
		if flags&unix.AT_SYMLINK_FOLLOW == 0 || onProc(file) {
			return unix.EXDEV // the magic link itself, or a file, in /proc
		}
		return errnoOf(unix.Linkat(r.sv.procfd, "thread-self/fd/"+strconv.Itoa(file), pfd, name, unix.AT_SYMLINK_FOLLOW), 0)
	}
	opfd, oname, errno := r.parentOf(odir, op, false)
	if errno != 0 {
		return errno
	}
	defer unix.Close(opfd)
	if flags&unix.AT_SYMLINK_FOLLOW != 0 && onProc(opfd) {
		return unix.EACCES
	}
	return errnoOf(unix.Linkat(opfd, oname, pfd, name, flags), 0)
}

// rename checks the new name, and with RENAME_EXCHANGE the old one too (it
// receives the other entry).
func (r *resolver) rename(fds [2]int, paths [2]string, flags uint) unix.Errno {
	if flags&unix.RENAME_WHITEOUT != 0 {
		return unix.EPERM // a device node (the filter denies it already)
	}
	npfd, nname, errno := r.parent(fds[0], paths[0])
	if errno == unix.EEXIST {
		errno = unix.EXDEV // onto an entry of /proc
	}
	if errno != 0 {
		return errno
	}
	defer unix.Close(npfd)
	odir, op, file, errno := r.self(fds[1], paths[1])
	if errno != 0 {
		return errno
	}
	if file >= 0 {
		return unix.EXDEV // an entry of /proc
	}
	opfd, oname, errno := r.parentOf(odir, op, flags&unix.RENAME_EXCHANGE != 0)
	if errno != 0 {
		return errno
	}
	defer unix.Close(opfd)
	return errnoOf(unix.Renameat2(opfd, oname, npfd, nname, flags), 0)
}

// isBlocking reports whether opening an object of this type may block
// (FIFOs, devices, sockets: anything but a regular file or directory).
func isBlocking(mode uint32) bool {
	t := mode & unix.S_IFMT
	return t != unix.S_IFREG && t != unix.S_IFDIR
}

// open performs open(O_CREAT). The kernel follows a final symlink when it
// creates (a dangling "x -> .git" would create .git), so the worker opens
// with O_NOFOLLOW and follows symlinks itself, checking each target's name
// (and rewriting targets into /proc/self). An existing FIFO or device is
// not opened here (a probe would wake a FIFO's peer, and could block):
// open returns errBlocking with an O_PATH descriptor on it, and handle
// reopens it on a thread of its own. O_NONBLOCK guards the race with an
// entry replaced meanwhile.
func (r *resolver) open(dirfd int, p string, flags int, mode uint32) (int, int, unix.Errno) {
	follow := flags&(unix.O_NOFOLLOW|unix.O_EXCL) == 0
	blocking := flags&unix.O_NONBLOCK == 0
	fl := flags | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK | unix.O_NOFOLLOW
	dir := dirfd
	var owned []int
	defer func() {
		for _, fd := range owned {
			unix.Close(fd)
		}
	}()
	// probe returns an O_PATH descriptor on (pfd, name) for errBlocking.
	probe := func(pfd int, name string) (int, int, unix.Errno) {
		obj, err := unix.Openat(pfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, -1, errnoOf(err, unix.EACCES)
		}
		return -1, obj, errBlocking
	}
	for i := 0; i <= maxSymlinks; i++ {
		d, q, file, errno := r.self(dir, p)
		if errno != 0 {
			return -1, -1, errno
		}
		if file >= 0 {
			// One of the caller's open files (/proc/self/fd/N): the kernel
			// reopens it through the magic link; so does the worker,
			// through its own entry for the duplicate.
			switch {
			case flags&unix.O_EXCL != 0:
				return -1, -1, unix.EEXIST
			case flags&unix.O_NOFOLLOW != 0:
				return -1, -1, unix.ELOOP
			case onProc(file):
				// An O_PATH descriptor on /proc/1/mem (or any /proc file):
				// reopened by the supervisor, the ptrace checks would be
				// its own.
				return -1, -1, unix.EACCES
			}
			var st unix.Stat_t
			if err := unix.Fstat(file, &st); err != nil {
				return -1, -1, errnoOf(err, unix.EACCES)
			}
			if blocking && isBlocking(st.Mode) {
				obj, err := unix.FcntlInt(uintptr(file), unix.F_DUPFD_CLOEXEC, 3)
				if err != nil {
					return -1, -1, errnoOf(err, unix.EMFILE)
				}
				return -1, obj, errBlocking
			}
			fd, err := unix.Openat(r.sv.procfd, "thread-self/fd/"+strconv.Itoa(file), (fl|unix.O_NONBLOCK)&^(unix.O_CREAT|unix.O_NOFOLLOW), 0)
			if err != nil {
				return -1, -1, errnoOf(err, unix.EACCES)
			}
			return clearNonblock(fd, blocking), -1, 0
		}
		pfd, name, errno := r.parentOf(d, q, true)
		if errno != 0 {
			return -1, -1, errno
		}
		owned = append(owned, pfd)
		// Look first: a symlink is followed here, a FIFO or device is
		// opened elsewhere.
		if obj, err := unix.Openat(pfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
			var st unix.Stat_t
			err := unix.Fstat(obj, &st)
			unix.Close(obj)
			if err != nil {
				return -1, -1, errnoOf(err, unix.EACCES)
			}
			if st.Mode&unix.S_IFMT == unix.S_IFLNK && follow {
				if onProc(pfd) {
					return -1, -1, unix.EACCES // a magic link not of the caller's own
				}
				buf := make([]byte, unix.PathMax)
				n, err := unix.Readlinkat(pfd, name, buf)
				if err != nil {
					return -1, -1, errnoOf(err, unix.EACCES)
				}
				p, dir = string(buf[:n]), pfd
				continue
			}
			if blocking && flags&unix.O_EXCL == 0 && st.Mode&unix.S_IFMT != unix.S_IFLNK && isBlocking(st.Mode) {
				return probe(pfd, name)
			}
		}
		fd, err := unix.Openat(pfd, name, fl, mode)
		if err == unix.ELOOP && follow {
			continue // replaced by a symlink meanwhile: look again
		}
		if err == unix.ENXIO && blocking {
			// A FIFO without a reader (or a device) that appeared
			// meanwhile: opened where it may block.
			return probe(pfd, name)
		}
		if err != nil {
			return -1, -1, errnoOf(err, unix.EACCES)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return -1, -1, errnoOf(err, unix.EACCES)
		}
		if blocking && isBlocking(st.Mode) {
			unix.Close(fd)
			return probe(pfd, name)
		}
		return clearNonblock(fd, blocking), -1, 0
	}
	return -1, -1, unix.ELOOP
}

// clearNonblock clears the O_NONBLOCK the worker added when the caller did
// not ask for it.
func clearNonblock(fd int, blocking bool) int {
	if blocking {
		if cur, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil {
			unix.FcntlInt(uintptr(fd), unix.F_SETFL, cur&^unix.O_NONBLOCK)
		}
	}
	return fd
}

// bind binds the caller's socket. A pathname Unix address creates an entry:
// its parent is resolved from the caller's cwd and the worker binds the
// last component from inside that directory (fchdir on its own fs_struct).
// Other addresses are bound as given (Landlock's TCP bind rules apply to
// the worker as to the command).
func (r *resolver) bind(cwd, sockfd int, addr []byte) unix.Errno {
	bind := func(b []byte) unix.Errno {
		_, _, e := unix.Syscall(unix.SYS_BIND, uintptr(sockfd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
		return e
	}
	if len(addr) <= 2 || *(*uint16)(unsafe.Pointer(&addr[0])) != unix.AF_UNIX || addr[2] == 0 {
		if len(addr) == 0 {
			return bind(nil)
		}
		return bind(addr)
	}
	p := string(addr[2:])
	if i := strings.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	pfd, name, errno := r.parent(cwd, p)
	if errno == unix.EEXIST {
		errno = unix.EADDRINUSE
	}
	if errno != 0 {
		return errno
	}
	defer unix.Close(pfd)
	if err := unix.Fchdir(pfd); err != nil {
		return errnoOf(err, unix.EACCES)
	}
	b := make([]byte, 2+len(name)+1)
	copy(b, addr[:2])
	copy(b[2:], name)
	return bind(b)
}

// readMem reads len(buf) bytes at addr in the caller's memory.
func readMem(tid int, addr uint64, buf []byte) error {
	if len(buf) == 0 {
		return nil
	}
	local := []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}}
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(buf)}}
	n, err := unix.ProcessVMReadv(tid, local, remote, 0)
	if err != nil {
		return err
	}
	if n != len(buf) {
		return unix.EFAULT
	}
	return nil
}

// readString reads a NUL-terminated path (at most PATH_MAX bytes with the
// NUL) page by page: process_vm_readv fails on an unmapped page, and a
// string may end right before one.
func readString(tid int, addr uint64) (string, unix.Errno) {
	if addr == 0 {
		return "", unix.EFAULT
	}
	var out []byte
	page := uint64(os.Getpagesize())
	for len(out) < unix.PathMax {
		n := page - addr%page
		n = min(n, uint64(unix.PathMax-len(out)))
		buf := make([]byte, n)
		if err := readMem(tid, addr, buf); err != nil {
			return "", unix.EFAULT
		}
		if i := strings.IndexByte(string(buf), 0); i >= 0 {
			return string(append(out, buf[:i]...)), 0
		}
		out = append(out, buf...)
		addr += n
	}
	return "", unix.ENAMETOOLONG
}

// status is what the supervisor needs from /proc/TID/status.
type status struct {
	umask       int
	tid, tgid   int // in the supervisor's PID namespace (NSpid, NStgid at depth)
	ptgid       int // in procfd's (Tgid)
	itid, itgid int // in the sandbox's (the last NSpid and NStgid fields)
}

// readStatus reads the caller's umask and ids from procfd/PTID/status,
// where procfd's PID namespace lies depth levels above the supervisor's.
func readStatus(procfd, ptid, depth int) (status, error) {
	st := status{umask: -1, tid: -1, tgid: -1, ptgid: -1, itid: -1, itgid: -1}
	fd, err := unix.Openat(procfd, strconv.Itoa(ptid)+"/status", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return st, err
	}
	f := os.NewFile(uintptr(fd), "status")
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return st, err
	}
	last := func(v string) (int, error) {
		f := strings.Fields(v)
		if len(f) == 0 {
			return 0, errors.New("empty field")
		}
		return strconv.Atoi(f[len(f)-1])
	}
	at := func(v string) (int, error) {
		f := strings.Fields(v)
		if depth < 0 || depth >= len(f) {
			return 0, errors.New("no field at the supervisor's depth")
		}
		return strconv.Atoi(f[depth])
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch k {
		case "Umask":
			u, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			if err != nil {
				return st, err
			}
			st.umask = int(u)
		case "Tgid":
			if st.ptgid, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return st, err
			}
		case "NStgid":
			if st.tgid, err = at(v); err != nil {
				return st, err
			}
			if st.itgid, err = last(v); err != nil {
				return st, err
			}
		case "NSpid":
			if st.tid, err = at(v); err != nil {
				return st, err
			}
			if st.itid, err = last(v); err != nil {
				return st, err
			}
		}
	}
	if st.umask < 0 || st.tid <= 0 || st.tgid <= 0 || st.ptgid <= 0 || st.itid <= 0 || st.itgid <= 0 {
		return st, errors.New("no Umask, Tgid, NStgid or NSpid in status")
	}
	return st, nil
}

// callerStatus finds the caller's entry in procfd and reads its status.
// tid is the caller's id in the supervisor's PID namespace (as
// notifications carry it), pidfd its thread's pidfd; ptid is its id in
// procfd's namespace: the same where that namespace is the supervisor's,
// otherwise what the pidfd's fdinfo, read through procfd, numbers it. The
// entry must be tid's (its NSpid at the supervisor's depth), or the call
// fails: procfd would name another process.
func (sv *supervisor) callerStatus(tid, pidfd int) (ptid int, st status, err error) {
	ptid = tid
	if sv.procDepth != 0 {
		if ptid, err = sv.fdinfoPid(pidfd); err != nil {
			return 0, st, err
		}
	}
	if st, err = readStatus(sv.procfd, ptid, sv.procDepth); err != nil {
		return 0, st, err
	}
	if st.tid != tid {
		return 0, st, fmt.Errorf("the /proc entry of %d is not the caller's (%d)", ptid, st.tid)
	}
	return ptid, st, nil
}

// fdinfoPid is the "Pid:" of pidfd's fdinfo read through procfd: the
// process's id in procfd's PID namespace.
func (sv *supervisor) fdinfoPid(pidfd int) (int, error) {
	fd, err := unix.Openat(sv.procfd, "thread-self/fdinfo/"+strconv.Itoa(pidfd), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	var buf [512]byte
	n, err := unix.Read(fd, buf[:])
	unix.Close(fd)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(buf[:max(n, 0)]), "\n") {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			pid, err := strconv.Atoi(strings.TrimSpace(v))
			if err == nil && pid <= 0 {
				err = errors.New("the caller has exited")
			}
			return pid, err
		}
	}
	return 0, errors.New("no Pid in the pidfd's fdinfo")
}

// procDepthOf is how many PID namespaces procfd's lies above the
// caller's: its own status there lists one id per level (NSpid), from
// procfd's namespace down to its own. -1 when that cannot be read (procfd
// is not a /proc this process appears in).
func procDepthOf(procfd int) int {
	fd, err := unix.Openat(procfd, "self/status", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	f := os.NewFile(uintptr(fd), "status")
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
			if n := len(strings.Fields(v)); n > 0 {
				return n - 1
			}
		}
	}
	return -1
}

// listensOnCheckedPort reports whether sock's local port is port.
func listensOnCheckedPort(sock, port int) bool {
	sa, err := unix.Getsockname(sock)
	if err != nil {
		return false
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return a.Port == port
	case *unix.SockaddrInet6:
		return a.Port == port
	}
	return false
}

// handleNet serves connect() (NotifyConnect) and listen() (NotifyListen).
//
// connect: a pathname Unix address is resolved in the sandbox's view like
// the kernel does (the caller's cwd, symlinks followed, no magic links) on
// the confined worker; if the socket it names is one of the listed ones
// (same device and inode, looked up now), a thread confined like the
// command connects the caller's own socket (pidfd_getfd) through a magic
// link to the very inode that was checked, so a rename meanwhile cannot
// redirect it. Abstract, unnamed and malformed Unix addresses fail with
// EACCES (abstract sockets are not listed). An internet socket is
// connected on a thread confined like the command (Landlock checks the TCP
// port). Everything is decided on the socket's family (SO_DOMAIN), never
// the address's, and performed on the duplicate that was checked, with the
// address as read: never CONTINUE.
//
// listen: a Unix socket is refused (EACCES): nothing in the sandbox can
// connect to it, so it could only serve host processes (bound in a shared
// writable directory in place of a host service's socket, it would take
// over that service's clients). In ports mode, an internet socket that is
// not bound would get an ephemeral port that Landlock does not check:
// EACCES. That includes a socket whose
// getsockname() still shows the port of a connect() that failed or was
// dissolved: the supervisor binds the reported address on the confined
// worker first, which fails with EINVAL only on a bound socket. Otherwise
// the supervisor listens on the socket it checked (its port was checked
// at bind), and in ports mode makes sure it listens on that port (a
// binding dissolved by another thread meanwhile: shut down, EACCES).
func (sv *supervisor) handleNet(n *seccompNotif, c call, tid, pidfd int) {
	sock, err := unix.PidfdGetfd(pidfd, int(c.fd), 0)
	if err != nil {
		sv.reply(n.id, 0, errnoOf(err, unix.EBADF))
		return
	}
	defer unix.Close(sock)
	if c.kind == "listen" {
		// The socket's own family decides (a Unix socket that is not bound
		// has no address getsockname could tell by).
		domain, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
		if err != nil {
			sv.reply(n.id, 0, errnoOf(err, unix.ENOTSOCK))
			return
		}
		if domain != unix.AF_INET && domain != unix.AF_INET6 {
			sv.reply(n.id, 0, unix.EACCES)
			return
		}
		checked := 0 // the port checked in ports mode
		if sv.portsMode {
			sa, err := unix.Getsockname(sock)
			if err != nil {
				sv.reply(n.id, 0, errnoOf(err, unix.ENOTSOCK))
				return
			}
			port := 0
			switch a := sa.(type) {
			case *unix.SockaddrInet4:
				port = a.Port
			case *unix.SockaddrInet6:
				port = a.Port
			}
			if port == 0 {
				sv.reply(n.id, 0, unix.EACCES)
				return
			}
			checked = port
			// getsockname reports the source port a connect() left behind
			// even once the kernel has released it (a refused connect, one
			// dissolved with connect(AF_UNSPEC)): the socket is unbound
			// then, and listen() would pick an ephemeral port Landlock
			// never checked. Binding the reported address on the confined
			// worker tells the two apart: EINVAL means the socket is bound
			// (its port was checked when it was), success binds it to that
			// port through Landlock's check, anything else is refused.
			var errno unix.Errno
			sv.onWorker(func() {
				if err := unix.Bind(sock, sa); err != nil {
					errno = errnoOf(err, unix.EACCES)
				}
			})
			if errno != 0 && errno != unix.EINVAL {
				sv.reply(n.id, 0, unix.EACCES)
				return
			}
		}
		// Performed on the very socket that was checked (the caller's
		// descriptor number may name another one by now): never CONTINUE.
		_, _, e := unix.Syscall(unix.SYS_LISTEN, uintptr(sock), uintptr(int32(c.flags)), 0)
		if e == 0 && sv.portsMode && !listensOnCheckedPort(sock, checked) {
			// Another thread dissolved the socket's binding between the
			// check and the listen (connect(AF_UNSPEC) on a socket whose
			// port came from a connect), and listen() picked an ephemeral
			// port Landlock never checked: this kernel refuses such a
			// listen, older ones may not (red team 27). Stopped again at
			// once, and refused.
			unix.Shutdown(sock, unix.SHUT_RDWR)
			e = unix.EACCES
		}
		sv.reply(n.id, 0, e)
		return
	}
	// The socket's own family decides, not the address's, which the
	// command can change in memory after it was read; and the call is made
	// here, on the socket that was checked, with the address as read:
	// CONTINUE would let the kernel look up the descriptor and read the
	// address again (another socket dup2'd onto the number, another
	// family in memory).
	domain, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		sv.reply(n.id, 0, errnoOf(err, unix.ENOTSOCK))
		return
	}
	if c.alen < 2 || c.alen > uint64(unsafe.Sizeof(unix.RawSockaddrAny{})) {
		sv.reply(n.id, 0, unix.EINVAL)
		return
	}
	addr := make([]byte, c.alen)
	if err := readMem(tid, c.path[0], addr); err != nil {
		sv.reply(n.id, 0, unix.EFAULT)
		return
	}
	switch domain {
	case unix.AF_INET, unix.AF_INET6:
		// On a thread confined like the command: Landlock checks the TCP
		// port as it would for the command.
		sv.connectAs(n.id, sock, addr)
		return
	case unix.AF_UNIX:
	default:
		sv.reply(n.id, 0, unix.EACCES)
		return
	}
	if len(addr) > int(unsafe.Sizeof(unix.RawSockaddrUnix{})) || *(*uint16)(unsafe.Pointer(&addr[0])) != unix.AF_UNIX {
		sv.reply(n.id, 0, unix.EINVAL) // as the kernel answers for a Unix socket
		return
	}
	if len(addr) <= 2 || addr[2] == 0 {
		sv.reply(n.id, 0, unix.EACCES) // abstract or unnamed
		return
	}
	p := string(addr[2:])
	if i := strings.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	r, cwd, errno := sv.pathResolver(n.id, tid, pidfd, p)
	if errno != 0 {
		sv.reply(n.id, 0, errno)
		return
	}
	defer r.close()
	obj := -1
	sv.onWorker(func() {
		dir, rp, file, e := r.self(cwd, p)
		if e != 0 || file >= 0 {
			errno = unix.EACCES // one of the caller's own descriptors: not a listed path
			return
		}
		fd, err := unix.Openat2(dirOr(dir), rp, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_MAGICLINKS})
		if err != nil {
			errno = errnoOf(err, unix.ECONNREFUSED)
			return
		}
		var got unix.Stat_t
		if err := unix.Fstat(fd, &got); err != nil || got.Mode&unix.S_IFMT != unix.S_IFSOCK || sv.listed(got.Dev, got.Ino) == nil {
			unix.Close(fd)
			errno = unix.EACCES
			if err == nil && got.Mode&unix.S_IFMT != unix.S_IFSOCK && sv.listed(got.Dev, got.Ino) != nil {
				errno = unix.ECONNREFUSED
			}
			return
		}
		obj = fd
	})
	if errno != 0 {
		sv.reply(n.id, 0, errno)
		return
	}
	// connect may block (a full backlog): on a thread of its own, confined
	// like the worker, which connects through its own /proc entry for obj.
	conn, err := unix.Dup(sock)
	if err != nil {
		unix.Close(obj)
		sv.reply(n.id, 0, unix.EMFILE)
		return
	}
	id := n.id
	sv.onTempWorker(func() {
		defer unix.Close(obj)
		defer unix.Close(conn)
		if err := unix.Fchdir(sv.procfd); err != nil {
			sv.reply(id, 0, errnoOf(err, unix.EACCES))
			return
		}
		err := unix.Connect(conn, &unix.SockaddrUnix{Name: "thread-self/fd/" + strconv.Itoa(obj)})
		sv.reply(id, 0, errnoOf(err, 0))
	}, func(error) {
		unix.Close(obj)
		unix.Close(conn)
		sv.reply(id, 0, unix.EACCES)
	})
}

// listed returns the listed Unix socket (dev, ino) is, or nil: a fixed
// one (in a writable directory, see landlock.Socket) as it was when the
// run started, the others as they are now in the sandbox's view.
func (sv *supervisor) listed(dev, ino uint64) *listedSocket {
	for i := range sv.sockets {
		s := &sv.sockets[i]
		if s.fixed {
			if s.dev == dev && s.ino == ino {
				return s
			}
			continue
		}
		var st unix.Stat_t
		if unix.Stat(s.path, &st) == nil && st.Dev == dev && st.Ino == ino && st.Mode&unix.S_IFMT == unix.S_IFSOCK {
			return s
		}
	}
	return nil
}

// pathResolver prepares the resolution of path p, as the caller (tid,
// whose pidfd is pidfd) names it in notification id: a resolver for the
// caller, and its working directory (O_PATH, -1 for an absolute p), which
// the resolver's close releases. It returns the errno to answer instead
// when the caller is gone or its cwd cannot be opened.
func (sv *supervisor) pathResolver(id uint64, tid, pidfd int, p string) (*resolver, int, unix.Errno) {
	ptid, st, err := sv.callerStatus(tid, pidfd)
	if err != nil {
		return nil, -1, unix.EACCES
	}
	cwd := -1
	if !strings.HasPrefix(p, "/") {
		if cwd, err = unix.Openat(sv.procfd, strconv.Itoa(ptid)+"/cwd", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
			return nil, -1, errnoOf(err, unix.EACCES)
		}
	}
	if !sv.idValid(id) {
		if cwd >= 0 {
			unix.Close(cwd)
		}
		return nil, -1, unix.EACCES
	}
	r := &resolver{sv: sv, tid: tid, tgid: st.tgid, ptid: ptid, ptgid: st.ptgid, itid: st.itid, itgid: st.itgid, tpidfd: pidfd}
	if cwd >= 0 {
		r.owned = append(r.owned, cwd)
	}
	return r, cwd, 0
}

// handleWatch serves inotify_add_watch (NotifyWatch): Landlock does not
// check it, so a watch on a directory the command may not read would
// reveal the names created there. The path is resolved in the sandbox's
// view like the kernel does (IN_DONT_FOLLOW honoured) on the confined
// worker, which then opens the inode for reading through its own /proc
// entry (Landlock and permission checks as the command's): a directory
// with O_DIRECTORY, a regular file non-blocking; anything else, or a
// failed open, is EACCES. The watch is then added to the caller's own
// inotify instance (pidfd_getfd) on the inode that was checked.
func (sv *supervisor) handleWatch(n *seccompNotif, c call, tid, pidfd int) {
	in, err := unix.PidfdGetfd(pidfd, int(c.fd), 0)
	if err != nil {
		sv.reply(n.id, 0, errnoOf(err, unix.EBADF))
		return
	}
	defer unix.Close(in)
	p, errno := readString(tid, c.path[0])
	if errno != 0 {
		sv.reply(n.id, 0, errno)
		return
	}
	r, cwd, errno := sv.pathResolver(n.id, tid, pidfd, p)
	if errno != 0 {
		sv.reply(n.id, 0, errno)
		return
	}
	defer r.close()
	mask := uint32(c.flags)
	var wd int
	sv.onWorker(func() {
		dir, rp, file, e := r.self(cwd, p)
		if e != 0 {
			errno = e
			return
		}
		obj := file
		if obj < 0 {
			how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_MAGICLINKS}
			if mask&unix.IN_DONT_FOLLOW != 0 {
				how.Flags |= unix.O_NOFOLLOW
			}
			fd, err := unix.Openat2(dirOr(dir), rp, how)
			if err != nil {
				errno = errnoOf(err, unix.EACCES)
				return
			}
			defer unix.Close(fd)
			obj = fd
		}
		var fst unix.Stat_t
		if err := unix.Fstat(obj, &fst); err != nil {
			errno = unix.EACCES
			return
		}
		if mask&unix.IN_ONLYDIR != 0 && fst.Mode&unix.S_IFMT != unix.S_IFDIR {
			errno = unix.ENOTDIR
			return
		}
		self := "thread-self/fd/" + strconv.Itoa(obj)
		var flags int
		switch fst.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			flags = unix.O_RDONLY | unix.O_DIRECTORY
		case unix.S_IFREG:
			flags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY
		default:
			errno = unix.EACCES
			return
		}
		probe, err := unix.Openat(sv.procfd, self, flags|unix.O_CLOEXEC, 0)
		if err != nil {
			errno = errnoOf(err, unix.EACCES)
			return
		}
		unix.Close(probe)
		if err := unix.Fchdir(sv.procfd); err != nil {
			errno = errnoOf(err, unix.EACCES)
			return
		}
		wd, err = unix.InotifyAddWatch(in, self, mask&^unix.IN_DONT_FOLLOW)
		errno = errnoOf(err, 0)
	})
	if errno != 0 {
		sv.reply(n.id, 0, errno)
		return
	}
	sv.reply(n.id, int64(wd), 0)
}

// connectAs connects a duplicate of the caller's socket to addr (as read
// from the caller, once) on a short-lived thread confined like the
// command, where it may block, and replies with the result.
func (sv *supervisor) connectAs(id uint64, sock int, addr []byte) {
	conn, err := unix.Dup(sock)
	if err != nil {
		sv.reply(id, 0, unix.EMFILE)
		return
	}
	sv.onTempWorker(func() {
		defer unix.Close(conn)
		_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(conn), uintptr(unsafe.Pointer(&addr[0])), uintptr(len(addr)))
		sv.reply(id, 0, e)
	}, func(error) {
		unix.Close(conn)
		sv.reply(id, 0, unix.EACCES)
	})
}
