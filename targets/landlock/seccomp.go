package landlock

import (
	"fmt"

	"github.com/sbx-dev/sbx/ir"
)

// SeccompSpec is the variable part of the seccomp filter the helper
// installs (the fixed part is described by SeccompSummary). Denied socket
// operations fail with EACCES, like Landlock's own network denials; other
// denied system calls fail with EPERM; clone3 fails with ENOSYS so that libc
// falls back to clone, whose flags the filter can inspect; system calls of
// another architecture (the 32-bit int 0x80 entry, x32) fail with ENOSYS.
type SeccompSpec struct {
	Network ir.NetworkMode `json:"network"`
	// UnixSocket allows socket(AF_UNIX, SOCK_STREAM or SOCK_SEQPACKET).
	// socketpair(AF_UNIX, SOCK_STREAM or SOCK_SEQPACKET) is always allowed;
	// Unix datagram sockets never are (a datagram sendto() names its
	// destination, which seccomp cannot inspect).
	UnixSocket bool `json:"unix_socket"`
	// DenyConnect denies connect() outright (mode none without listed
	// sockets: nothing may be connected to).
	DenyConnect bool `json:"deny_connect,omitempty"`
	// NotifyConnect sends every connect() to the supervisor, which performs
	// it only towards listed Unix sockets and allowed ports.
	NotifyConnect bool `json:"notify_connect,omitempty"`
	// DenyListen denies listen() (mode none, and ports mode without bind
	// ports). Nothing in the sandbox can connect to a Unix socket it
	// listens on (connect() reaches listed sockets only), so such a socket
	// could only serve the host's processes: bound in a writable directory
	// they share (/tmp), in place of a host service's socket that the
	// command removed (tmux, ssh-agent, gpg-agent), it would take over
	// every host client of that service.
	DenyListen bool `json:"deny_listen,omitempty"`
	// NotifyListen sends listen() to the supervisor, which refuses Unix
	// sockets (see DenyListen) and, in ports mode, internet sockets not
	// bound to a listed port (a listen() on an unbound TCP socket would
	// pick an ephemeral port that Landlock never checks). Set in ports mode
	// with bind ports and in full mode where Unix sockets can be created
	// (listed sockets).
	NotifyListen bool `json:"notify_listen,omitempty"`
	// DenyFastOpen denies sendto, sendmsg and sendmmsg with MSG_FASTOPEN
	// (EACCES): TCP Fast Open connects a socket without connect(), the only
	// call Landlock's TCP rules check (modes none and ports).
	DenyFastOpen bool `json:"deny_fastopen,omitempty"`
	// DenyInet denies every AF_INET/AF_INET6 socket (ports mode without
	// Landlock TCP rules: restrictive fallback).
	DenyInet bool `json:"deny_inet,omitempty"`
	// NotifyCreate sends every system call that creates a directory entry
	// (mkdir, mknod, symlink, link, rename, bind, and open/openat/creat with
	// O_CREAT) to the supervisor, which performs it on a thread with the
	// command's Landlock domain and credentials unless it would create a
	// guarded name (Spec.Guarded). openat2 always fails with ENOSYS (its
	// flags and mode are behind a pointer; libc falls back to openat).
	NotifyCreate bool `json:"notify_create,omitempty"`
	// NotifyBind sends bind() to the supervisor, which refuses abstract
	// and autobound Unix addresses: set wherever the sandbox has no network
	// namespace of its own (ports and full modes always share the host's;
	// mode none has one only without the supervisor or the Landlock
	// scopes), where such a name would be the host's: a socketpair end
	// (always allowed) can be bound to one.
	NotifyBind bool `json:"notify_bind,omitempty"`
	// NotifyWatch sends inotify_add_watch to the supervisor, which adds the
	// watch only on a directory or regular file the command may read (on
	// the inode it checked); others fail with EACCES. Set where part of the
	// tree is unreadable without a mask.
	NotifyWatch bool `json:"notify_watch,omitempty"`
}

// NeedsSupervisor reports whether the spec needs the user-notification
// supervisor (the helper then stays alive as PID 1 instead of exec'ing).
func (s SeccompSpec) NeedsSupervisor() bool {
	return s.NotifyConnect || s.NotifyListen || s.NotifyCreate || s.NotifyWatch || s.NotifyBind
}

// seccompFor derives the spec from the network policy and the ABI in use.
// With the user-notification supervisor (supervise), listed Unix sockets
// are reachable (connect() goes to it) and listen() is checked when bind
// ports are listed; without it, listed sockets are unreachable
// (restrictive) and listen() on an unbound socket is unchecked (partial).
func seccompFor(n ir.Network, abi int, supervise bool) SeccompSpec {
	s := SeccompSpec{Network: n.Mode}
	switch n.Mode {
	case ir.NetworkNone:
		s.UnixSocket = true
		s.DenyFastOpen = true
		s.DenyConnect = true
		s.DenyListen = true
		// Without a network namespace of its own (see Spec.NewNet), an
		// abstract name the command binds would be the host's.
		s.NotifyBind = supervise && abi >= 6
	case ir.NetworkPorts:
		s.DenyFastOpen = true
		s.DenyInet = abi < 4
		switch {
		case len(n.BindTCP) == 0:
			s.DenyListen = true
		case supervise:
			s.NotifyListen = true
		}
		// The host's network namespace: an abstract name bound on a
		// socketpair end (always allowed), or autobound, is the host's,
		// and a host service that binds it later fails (EADDRINUSE).
		s.NotifyBind = supervise
	case ir.NetworkFull:
		s.NotifyBind = supervise // as in ports mode
	}
	if supervise && len(n.UnixSockets) > 0 {
		s.UnixSocket = true
		s.DenyConnect = false
		s.NotifyConnect = true
		// Unix sockets can now be created in full mode: listen() goes to
		// the supervisor, which refuses them (see DenyListen).
		s.NotifyListen = s.NotifyListen || n.Mode == ir.NetworkFull
	}
	return s
}

// fixedDenials is the documented always-denied part of the filter, as
// shown by plans and dry runs. Keep it in step with the filter
// (launch/seccomp_linux.go).
var fixedDenials = []string{
	"architecture other than the native one (int 0x80 / 32-bit entry) and x32 system calls: ENOSYS",
	"io_uring_setup/enter/register (would bypass the socket filter): EPERM",
	"ptrace, process_vm_readv/writev, kcmp, pidfd_getfd, process_madvise, process_mrelease (another process's descriptors and memory): EPERM",
	"mount, umount2, pivot_root, chroot, move_mount, open_tree, fsopen, fsmount, fsconfig, fspick, mount_setattr: EPERM",
	"unshare, setns, clone with namespace flags: EPERM; clone3: ENOSYS (libc falls back to clone)",
	"keyctl, add_key, request_key (kernel keyrings): EPERM",
	"bpf, perf_event_open, userfaultfd, kexec_load, kexec_file_load, init/finit/delete_module, iopl, ioperm, acct, quotactl, swapon, swapoff, reboot, syslog, open_by_handle_at, name_to_handle_at: EPERM",
	"mknod/mknodat of character or block devices: EPERM",
	"setuid/setgid mode bits: chmod, fchmod, fchmodat, fchmodat2, and open/openat/creat (O_CREAT or O_TMPFILE) or mknod creating a file with them: EPERM; openat2: ENOSYS (its mode is behind a pointer; libc falls back to openat)",
	"ioctl TIOCSTI and TIOCLINUX (terminal input injection), TIOCCONS (console redirection), TIOCSETD (line disciplines, which can autoload kernel modules): EPERM",
	"ioctl of btrfs (type 0x94: subvolume and snapshot creation and removal bypass Landlock and the view's masks) and bcachefs (type 0xbc), except FICLONE, FICLONERANGE and FIDEDUPERANGE: EPERM",
	"ioctl FS_IOC_ADD_ENCRYPTION_KEY, FS_IOC_REMOVE_ENCRYPTION_KEY and FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS (fscrypt's per-file-system keyring: removing the user's claim locks the host's encrypted directories; added keys outlive the run, charged to the user's key quota): EPERM",
	"fcntl F_SETLEASE (a lease stalls other processes' opens of the file): EPERM",
	"fanotify_init (its marks are not checked by Landlock): EPERM",
	"renameat2 with RENAME_WHITEOUT (creates a 0:0 character device): EPERM",
	"personality other than PER_LINUX, PER_LINUX32 or a query: EPERM",
	"prlimit64 on PID 1 (the sandbox's init): EPERM",
}

// SeccompSummary describes a filter in words, for plans and dry runs.
func SeccompSummary(s SeccompSpec) []string {
	out := append([]string(nil), fixedDenials...)
	switch s.Network {
	case ir.NetworkNone:
		out = append(out, "socket(): only AF_UNIX stream/seqpacket; every other family and type: EACCES")
	case ir.NetworkPorts:
		if s.DenyInet {
			out = append(out, "socket(): AF_INET/AF_INET6 denied (no Landlock TCP rules at this ABI): EACCES")
		} else {
			out = append(out, "socket(): AF_INET/AF_INET6 only SOCK_STREAM with protocol 0 or IPPROTO_TCP (no UDP, raw, MPTCP, SCTP); netlink, packet and others: EACCES")
		}
	case ir.NetworkFull:
		out = append(out, "socket(): no restriction of internet families")
	}
	if !s.UnixSocket {
		out = append(out, "socket(AF_UNIX): EACCES (no Unix socket is listed; socketpair stream/seqpacket still works)")
	}
	out = append(out, "Unix datagram sockets (socket and socketpair): EACCES")
	if s.DenyConnect {
		out = append(out, "connect(): EACCES (no network and no listed Unix socket)")
	}
	if s.NotifyConnect {
		out = append(out, "connect(): to the supervisor, which decides on the socket's family and connects the checked socket itself: a Unix socket only to a listed pathname socket (same device and inode, symlinks followed; in a directory a command could have written, the socket there when the run started, bound at that name), abstract and other Unix addresses EACCES; a TCP socket on a thread confined like the command (Landlock checks the port)")
	}
	if s.DenyFastOpen {
		out = append(out, "sendto/sendmsg/sendmmsg with MSG_FASTOPEN: EACCES (TCP Fast Open connects without connect(), which Landlock checks)")
	}
	if s.DenyListen {
		if s.Network == ir.NetworkNone {
			out = append(out, "listen(): EACCES (nothing in the sandbox may connect to a Unix socket it listens on: it would serve only host processes, e.g. in place of a host service's socket in /tmp)")
		} else {
			out = append(out, "listen(): EACCES (no bind port is listed; a Unix socket would serve only host processes)")
		}
	}
	if s.NotifyListen {
		if s.Network == ir.NetworkPorts {
			out = append(out, "listen(): to the supervisor: a Unix socket (it would serve only host processes, e.g. in place of a host service's socket in /tmp) or an internet socket that was never bound (listen would pick an ephemeral port Landlock does not check): EACCES; otherwise the supervisor listens on the socket it checked (its port was checked by Landlock at bind)")
		} else {
			out = append(out, "listen(): to the supervisor: a Unix socket (it would serve only host processes, e.g. in place of a host service's socket in /tmp): EACCES; otherwise the supervisor listens on the socket it checked")
		}
	}
	if s.NotifyBind {
		out = append(out, "bind(): to the supervisor, which refuses abstract and autobound Unix addresses (EACCES: without a network namespace of its own they would be the host's); setsockopt SO_PASSCRED and SO_PASSPIDFD (they autobind on send or connect): EACCES")
	}
	if s.NeedsSupervisor() {
		out = append(out, "landlock_create_ruleset, landlock_add_rule, landlock_restrict_self: ENOSYS (the supervisor performs calls with the sandbox's domain and could not honour a domain the command nests in it)")
	}
	if s.NotifyWatch {
		out = append(out, "inotify_add_watch: to the supervisor, which adds the watch (on the inode it checked) only on a directory or regular file the command may open for reading; others: EACCES (Landlock does not check inotify)")
	}
	if s.NotifyCreate {
		out = append(out, "mkdir, mknod, symlink, link, rename, bind and open/creat with O_CREAT: performed by the supervisor on a thread with the command's Landlock domain and credentials; a guarded name directly below a writable root: EACCES")
	}
	return out
}

// String is a one-line form for reports.
func (s SeccompSpec) String() string {
	return fmt.Sprintf("network=%s unix_socket=%v deny_connect=%v notify_connect=%v deny_listen=%v notify_listen=%v deny_inet=%v deny_fastopen=%v notify_create=%v notify_watch=%v notify_bind=%v",
		s.Network, s.UnixSocket, s.DenyConnect, s.NotifyConnect, s.DenyListen, s.NotifyListen, s.DenyInet, s.DenyFastOpen, s.NotifyCreate, s.NotifyWatch, s.NotifyBind)
}
