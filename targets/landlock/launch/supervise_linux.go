//go:build linux && (amd64 || arm64)

package launch

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/targets/landlock"
)

// The supervisor (Spec.Seccomp.NotifyCreate): protected or denied names that
// do not exist directly below a writable root have no dentry to mount on,
// and Landlock has no name filter. Instead of making the whole root
// non-creatable, the helper stays alive as PID 1 and performs every system
// call that creates a directory entry itself:
//
//   - the main thread (locked since RunHelper started) is confined like the
//     command and installs the filter with a listener, then forks the
//     command: fork copies the thread's credentials (no capabilities, the
//     Landlock domain), its seccomp filter and no_new_privs. The thread then
//     stays locked and parked: it never runs another goroutine, and the Go
//     runtime creates new threads from its template thread, never from a
//     locked one;
//   - a worker thread (locked, own fs_struct through unshare(CLONE_FS)) drops
//     every capability and calls landlock_restrict_self with the same
//     ruleset, without the filter. It runs with the command's uid, gids and
//     Landlock rules, so the kernel checks it makes are the command's;
//   - the other threads (unconfined) receive notifications, read the paths
//     once from the caller's memory, duplicate its descriptors (pidfd_getfd)
//     and hand the operation to the worker, which refuses a guarded name
//     below a guarded directory (matched by device and inode) and otherwise
//     performs the system call and replies with its result. Nothing is ever
//     answered with CONTINUE, which would let the kernel read the path again
//     from memory the command can change meanwhile.

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

// supervisor holds the state of one sandbox; it lives in the helper only.
type supervisor struct {
	listener int
	rfd      int
	// guard maps a guarded directory to the names refused directly in it.
	guard map[dirKey]map[string]bool
	names map[string]bool // every guarded name, for a quick test
	work  chan func()
}

// runSupervised confines the main thread, forks the command from it and
// supervises it until it exits; it never returns.
func runSupervised(spec *landlock.Spec) {
	p, err := prepare(spec)
	if err != nil {
		fail(exitSetup, "sbx: sandbox setup failed: %v", err)
	}
	sv := &supervisor{rfd: p.rfd, guard: map[dirKey]map[string]bool{}, names: map[string]bool{}, work: make(chan func())}
	for _, g := range spec.Guarded {
		var st unix.Stat_t
		if err := unix.Stat(path.Dir(g), &st); err != nil {
			fail(exitSetup, "sbx: sandbox setup failed: guarded directory %s: %v", path.Dir(g), err)
		}
		k := dirKey{st.Dev, st.Ino}
		if sv.guard[k] == nil {
			sv.guard[k] = map[string]bool{}
		}
		sv.guard[k][path.Base(g)] = true
		sv.names[path.Base(g)] = true
	}
	// The worker is confined before the main thread: both need the
	// ruleset, and the worker must exist before the command can call.
	ready := make(chan error)
	go sv.worker(ready)
	if err := <-ready; err != nil {
		fail(exitSetup, "sbx: sandbox setup failed: supervisor worker: %v", err)
	}
	// Signals the executor sends the helper (cancellation) are for the
	// command: registered before the fork so none is lost, forwarded to the
	// command's process group once it exists. As PID 1, the helper only
	// receives signals from outside its namespace for which it has a
	// handler; the Go runtime installs one.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	lfd, err := p.restrict(true)
	if err != nil {
		fail(exitSetup, "sbx: sandbox setup failed: %v", err)
	}
	sv.listener = lfd
	go sv.serve()
	// Forked from this (confined, filtered) thread; the command gets its
	// own process group so that forwarded signals reach its children too.
	pid, err := syscall.ForkExec(spec.Path, spec.Argv, &syscall.ProcAttr{
		Env:   spec.Env,
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		failExec(spec, err)
	}
	go func() {
		for s := range sigs {
			unix.Kill(-pid, s.(syscall.Signal))
		}
	}()
	go reap(pid, spec.StatusFD)
	// Park this thread for good: it holds the command's confinement and
	// must never run another goroutine (no UnlockOSThread).
	select {}
}

// reap waits for every child (orphans of the namespace are reparented to
// PID 1) and exits with the command's status when it ends; the kernel then
// kills whatever is left in the namespace. A signal death is reported as
// 128+N: PID 1 cannot be killed by its own signal (the kernel ignores
// signals with the default action sent to a namespace's init from inside),
// so the signal itself travels on statusFD (Sandbox.ExitSignal).
func reap(pid, statusFD int) {
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			os.Exit(exitSetup)
		}
		if wpid == pid {
			if ws.Signaled() && statusFD > 0 {
				unix.Write(statusFD, []byte{byte(ws.Signal())})
			}
			os.Exit(WaitStatusExit(ws))
		}
	}
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

// serve receives notifications until no filtered task is left.
func (sv *supervisor) serve() {
	for {
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
// reads the caller's memory and descriptors (same uid, and the helper is
// the namespace's init, so every caller is its descendant), then hands the
// system call to the confined worker.
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
	for i := 0; i < 2; i++ {
		if i == 1 && npaths < 2 || c.kind == "symlink" && i == 1 {
			continue // a symlink's target is content, not a path
		}
		if c.kind != "bind" && strings.HasPrefix(paths[i], "/") {
			continue
		}
		if c.dirfd[i] == atFdcwd {
			fds[i], err = unix.Open("/proc/"+strconv.Itoa(tid)+"/cwd", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		} else {
			fds[i], err = unix.PidfdGetfd(pidfd, int(c.dirfd[i]), 0)
		}
		if err != nil {
			sv.reply(n.id, 0, errnoOf(err, unix.EBADF))
			return
		}
	}
	umask := -1
	switch c.kind {
	case "mkdir", "mknod", "open", "bind":
		if umask, err = readUmask(tid); err != nil {
			sv.reply(n.id, 0, unix.EACCES)
			return
		}
	}
	if !sv.idValid(n.id) {
		return
	}
	var val int64
	var errno unix.Errno
	var openFd = -1
	sv.onWorker(func() {
		if umask >= 0 {
			unix.Umask(umask)
		}
		switch c.kind {
		case "mkdir":
			errno = sv.atParent(fds[0], paths[0], func(pfd int, name string) error { return unix.Mkdirat(pfd, name, c.mode) })
		case "mknod":
			errno = sv.atParent(fds[0], paths[0], func(pfd int, name string) error { return unix.Mknodat(pfd, name, c.mode, int(c.dev)) })
		case "symlink":
			errno = sv.atParent(fds[0], paths[0], func(pfd int, name string) error { return unix.Symlinkat(paths[1], pfd, name) })
		case "link":
			errno = sv.atParent(fds[0], paths[0], func(pfd int, name string) error {
				return unix.Linkat(dirOr(fds[1]), paths[1], pfd, name, int(c.flags))
			})
		case "rename":
			errno = sv.rename(fds, paths, uint(c.flags))
		case "open":
			openFd, errno = sv.open(fds[0], paths[0], int(c.flags), c.mode)
		case "bind":
			errno = sv.bind(fds[0], sockfd, addr)
		}
	})
	if c.kind != "open" {
		sv.reply(n.id, val, errno)
		return
	}
	if errno == errBlocking {
		// An existing FIFO or device: reopen it, possibly blocking, on a
		// thread of its own. O_CREAT cannot create anything there any more
		// (the entry exists and is not a regular file).
		id, flags, mode := n.id, int(c.flags), c.mode
		dir, p := -1, paths[0]
		if fds[0] >= 0 {
			dir, _ = unix.FcntlInt(uintptr(fds[0]), unix.F_DUPFD_CLOEXEC, 3)
		}
		sv.onTempWorker(func() {
			unix.Umask(umask)
			fd, err := unix.Openat(dirOr(dir), p, (flags|unix.O_CLOEXEC|unix.O_NOCTTY)&^unix.O_CREAT, mode)
			if dir >= 0 {
				unix.Close(dir)
			}
			if err != nil {
				sv.reply(id, 0, errnoOf(err, unix.EACCES))
				return
			}
			sv.inject(id, fd, flags)
		}, func(err error) {
			if dir >= 0 {
				unix.Close(dir)
			}
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
	defer unix.Close(fd)
	a := seccompNotifAddfd{id: id, flags: unix.SECCOMP_ADDFD_FLAG_SEND, srcfd: uint32(fd)}
	if flags&unix.O_CLOEXEC != 0 {
		a.newfdFlags = unix.O_CLOEXEC
	}
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(sv.listener), ioctlNotifAddfd, uintptr(unsafe.Pointer(&a)))
	if e != 0 && e != unix.ENOENT {
		sv.reply(id, 0, e) // EMFILE and the like; ENOENT: the caller is gone
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

// parent opens the directory in which p's last component lives (following
// symlinks, like the kernel's walk) and refuses a guarded name there.
func (sv *supervisor) parent(dirfd int, p string) (int, string, unix.Errno) {
	if p == "" {
		return -1, "", unix.ENOENT
	}
	dir, last, name := splitLast(p)
	pfd, err := unix.Openat(dirOr(dirfd), dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", errnoOf(err, unix.EACCES)
	}
	if sv.names[name] {
		var st unix.Stat_t
		if err := unix.Fstat(pfd, &st); err != nil || sv.guard[dirKey{st.Dev, st.Ino}][name] {
			unix.Close(pfd)
			return -1, "", unix.EACCES
		}
	}
	return pfd, last, 0
}

// atParent runs op on p's parent directory and last component.
func (sv *supervisor) atParent(dirfd int, p string, op func(pfd int, name string) error) unix.Errno {
	pfd, name, errno := sv.parent(dirfd, p)
	if errno != 0 {
		return errno
	}
	defer unix.Close(pfd)
	return errnoOf(op(pfd, name), 0)
}

// rename checks the new name, and with RENAME_EXCHANGE the old one too (it
// receives the other entry).
func (sv *supervisor) rename(fds [2]int, paths [2]string, flags uint) unix.Errno {
	npfd, nname, errno := sv.parent(fds[0], paths[0])
	if errno != 0 {
		return errno
	}
	defer unix.Close(npfd)
	if flags&unix.RENAME_EXCHANGE != 0 {
		opfd, oname, errno := sv.parent(fds[1], paths[1])
		if errno != 0 {
			return errno
		}
		defer unix.Close(opfd)
		return errnoOf(unix.Renameat2(opfd, oname, npfd, nname, flags), 0)
	}
	return errnoOf(unix.Renameat2(dirOr(fds[1]), paths[1], npfd, nname, flags), 0)
}

// open performs open(O_CREAT). The kernel follows a final symlink when it
// creates (a dangling "x -> .git" would create .git), so the worker opens
// with O_NOFOLLOW and follows symlinks itself, checking each target's name.
// O_NONBLOCK keeps an existing FIFO or device from blocking the worker;
// such an open is redone on a thread of its own (errBlocking).
func (sv *supervisor) open(dirfd int, p string, flags int, mode uint32) (int, unix.Errno) {
	follow := flags&(unix.O_NOFOLLOW|unix.O_EXCL) == 0
	fl := flags | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK | unix.O_NOFOLLOW
	dir := dirfd
	var owned []int
	defer func() {
		for _, fd := range owned {
			unix.Close(fd)
		}
	}()
	for i := 0; i <= maxSymlinks; i++ {
		pfd, name, errno := sv.parent(dir, p)
		if errno != 0 {
			return -1, errno
		}
		owned = append(owned, pfd)
		fd, err := unix.Openat(pfd, name, fl, mode)
		if err == unix.ELOOP && follow {
			buf := make([]byte, unix.PathMax)
			n, rerr := unix.Readlinkat(pfd, name, buf)
			if rerr != nil {
				return -1, unix.ELOOP // not a symlink: a real ELOOP
			}
			p, dir = string(buf[:n]), pfd
			continue
		}
		if err != nil {
			return -1, errnoOf(err, unix.EACCES)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return -1, errnoOf(err, unix.EACCES)
		}
		if t := st.Mode & unix.S_IFMT; t != unix.S_IFREG && t != unix.S_IFDIR && flags&unix.O_NONBLOCK == 0 {
			unix.Close(fd)
			return -1, errBlocking
		}
		if flags&unix.O_NONBLOCK == 0 {
			if cur, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil {
				unix.FcntlInt(uintptr(fd), unix.F_SETFL, cur&^unix.O_NONBLOCK)
			}
		}
		return fd, 0
	}
	return -1, unix.ELOOP
}

// bind binds the caller's socket. A pathname Unix address creates an entry:
// its parent is resolved from the caller's cwd and the worker binds the
// last component from inside that directory (fchdir on its own fs_struct).
// Other addresses are bound as given (Landlock's TCP bind rules apply to
// the worker as to the command).
func (sv *supervisor) bind(cwd, sockfd int, addr []byte) unix.Errno {
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
	pfd, name, errno := sv.parent(cwd, p)
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

// readUmask reads the caller's umask from /proc/TID/status.
func readUmask(tid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			u, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			return int(u), err
		}
	}
	return 0, errors.New("no Umask in status")
}
