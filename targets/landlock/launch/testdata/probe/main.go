// Command probe performs one operation that a sandbox should allow or deny
// and prints "ok" or the errno name (EACCES, EPERM, EROFS, ...). It uses raw
// system calls so that no library fallback (Go's MPTCP default, glibc's
// clone3 fallback) can make a test pass for the wrong reason.
package main

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Println("usage: probe OP ARGS...")
		os.Exit(2)
	}
	err := run(os.Args[1], os.Args[2:])
	fmt.Println(result(err))
}

func result(err error) string {
	if err == nil {
		return "ok"
	}
	var en syscall.Errno
	if errors.As(err, &en) {
		return unix.ErrnoName(en)
	}
	return "error: " + err.Error()
}

func sockaddr(s string) (unix.Sockaddr, int) {
	ap := netip.MustParseAddrPort(s)
	if ap.Addr().Is4() {
		return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}, unix.AF_INET
	}
	return &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}, unix.AF_INET6
}

func run(op string, a []string) error {
	switch op {
	case "tcp-connect", "mptcp-connect":
		sa, fam := sockaddr(a[0])
		proto := 0
		if op == "mptcp-connect" {
			proto = 262 // IPPROTO_MPTCP
		}
		fd, err := unix.Socket(fam, unix.SOCK_STREAM, proto)
		if err != nil {
			return err
		}
		return unix.Connect(fd, sa)
	case "tcp-bind":
		sa, fam := sockaddr(a[0])
		fd, err := unix.Socket(fam, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		return unix.Bind(fd, sa)
	case "tcp-bind-listen":
		sa, fam := sockaddr(a[0])
		fd, err := unix.Socket(fam, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
		if err := unix.Bind(fd, sa); err != nil {
			return err
		}
		return unix.Listen(fd, 1)
	case "tcp-listen": // listen without bind: auto-bound ephemeral port
		_, fam := sockaddr(a[0])
		fd, err := unix.Socket(fam, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		return unix.Listen(fd, 1)
	case "udp-send":
		sa, fam := sockaddr(a[0])
		fd, err := unix.Socket(fam, unix.SOCK_DGRAM, 0)
		if err != nil {
			return err
		}
		return unix.Sendto(fd, []byte("x"), 0, sa)
	case "udp-int80":
		return int80UDP()
	case "io-uring":
		var params [120]byte
		_, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params[0])), 0)
		return errnoOf(e)
	case "raw":
		_, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)
		return err
	case "icmp-dgram":
		_, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP)
		return err
	case "packet":
		_, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, 0)
		return err
	case "netlink":
		_, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE)
		return err
	case "sctp":
		_, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP)
		return err
	case "unix-connect", "abstract-connect":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		name := a[0]
		if op == "abstract-connect" {
			name = "@" + name
		}
		return unix.Connect(fd, &unix.SockaddrUnix{Name: name})
	case "unix-dgram":
		_, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		return err
	case "socketpair-dgram":
		_, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		return err
	case "socketpair":
		_, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		return err
	case "kill":
		pid, _ := strconv.Atoi(a[0])
		return unix.Kill(pid, 0)
	case "add-key":
		_, err := unix.AddKey("user", "sbxtest", []byte("x"), unix.KEY_SPEC_USER_KEYRING)
		return err
	case "keyctl-read":
		_, err := unix.KeyctlGetKeyringID(unix.KEY_SPEC_USER_KEYRING, false)
		return err
	case "shmget": // a key created outside must not be visible
		key, _ := strconv.Atoi(a[0])
		_, err := unix.SysvShmGet(key, 0, 0)
		return err
	case "mknod-char":
		return unix.Mknod(a[0], unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3)))
	case "mknod-fifo":
		return unix.Mknod(a[0], unix.S_IFIFO|0o666, 0)
	case "chmod":
		return unix.Chmod(a[0], 0o777)
	case "chown":
		return unix.Lchown(a[0], os.Getuid(), os.Getgid())
	case "utime":
		return unix.UtimesNano(a[0], []unix.Timespec{{Sec: 1}, {Sec: 1}})
	case "setxattr":
		return unix.Setxattr(a[0], "user.sbx", []byte("x"), 0)
	case "read":
		b, err := os.ReadFile(a[0])
		if err == nil && len(a) > 1 && string(b) != a[1] {
			return fmt.Errorf("content %q", b)
		}
		return err
	case "list":
		_, err := os.ReadDir(a[0])
		return err
	case "write": // open existing for writing
		fd, err := unix.Open(a[0], unix.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = unix.Write(fd, []byte("w"))
		return err
	case "create":
		fd, err := unix.Open(a[0], unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o644)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "mkdir":
		return unix.Mkdir(a[0], 0o755)
	case "open-creat": // O_CREAT without O_EXCL: a final symlink is followed
		fd, err := unix.Open(a[0], unix.O_WRONLY|unix.O_CREAT, 0o644)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "bind-unix":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		return unix.Bind(fd, &unix.SockaddrUnix{Name: a[0]})
	case "unix-listen": // bind a Unix socket at a path and listen on it
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		if err := unix.Bind(fd, &unix.SockaddrUnix{Name: a[0]}); err != nil {
			return err
		}
		return unix.Listen(fd, 1)
	case "socketpair-bind": // bind a socketpair end ("@name": abstract)
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		return unix.Bind(fds[0], &unix.SockaddrUnix{Name: a[0]})
	case "toctou": // flip a path buffer between a harmless name and .git
		return toctou(a[0])
	case "truncate":
		return unix.Truncate(a[0], 0)
	case "unlink":
		return unix.Unlink(a[0])
	case "rmdir":
		return unix.Rmdir(a[0])
	case "rename":
		return unix.Rename(a[0], a[1])
	case "exchange":
		return unix.Renameat2(unix.AT_FDCWD, a[0], unix.AT_FDCWD, a[1], unix.RENAME_EXCHANGE)
	case "link":
		return unix.Link(a[0], a[1])
	case "symlink":
		return unix.Symlink(a[0], a[1])
	case "fd": // use an inherited descriptor
		n, _ := strconv.Atoi(a[0])
		var st unix.Stat_t
		return unix.Fstat(n, &st)
	case "ptrace":
		pid, _ := strconv.Atoi(a[0])
		return unix.PtraceAttach(pid)
	case "unshare-user":
		return unix.Unshare(unix.CLONE_NEWUSER)
	case "clone-newuser":
		r, _, e := unix.RawSyscall6(unix.SYS_CLONE, unix.CLONE_NEWUSER|uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
		if e == 0 && r == 0 {
			unix.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0) // the child
		}
		return errnoOf(e)
	case "chroot":
		return unix.Chroot("/")
	case "mount":
		return unix.Mount("tmpfs", a[0], "tmpfs", 0, "")
	case "umount":
		return unix.Unmount(a[0], unix.MNT_DETACH)
	case "open-by-handle":
		_, _, err := unix.NameToHandleAt(unix.AT_FDCWD, a[0], 0)
		return err
	case "tiocsti":
		c := byte('x')
		_, _, e := unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&c)))
		return errnoOf(e)
	case "personality":
		_, _, e := unix.Syscall(unix.SYS_PERSONALITY, 0x0040000, 0, 0) // ADDR_NO_RANDOMIZE
		return errnoOf(e)
	case "bpf":
		_, _, e := unix.Syscall(unix.SYS_BPF, 0, 0, 0)
		return errnoOf(e)
	case "userfaultfd":
		_, _, e := unix.Syscall(unix.SYS_USERFAULTFD, 0, 0, 0)
		return errnoOf(e)
	case "setuid-root":
		return unix.Setuid(0)
	case "memfd-exec": // exec a copy of a binary from memory; it stays confined
		data, err := os.ReadFile(a[0])
		if err != nil {
			return err
		}
		fd, err := unix.MemfdCreate("x", 0)
		if err != nil {
			return err
		}
		unix.Write(fd, data)
		argv := append([]string{"x"}, a[1:]...)
		return unix.Exec("/proc/self/fd/"+strconv.Itoa(fd), argv, os.Environ())
	case "proc-environ":
		_, err := os.ReadFile("/proc/" + a[0] + "/environ")
		return err
	case "proc-mem": // write own memory through /proc/self/mem is fine; another's is not
		f, err := os.OpenFile("/proc/"+a[0]+"/mem", os.O_RDWR, 0)
		if err == nil {
			f.Close()
		}
		return err
	case "proc-root":
		_, err := os.ReadDir("/proc/" + a[0] + "/root/")
		return err
	case "core-limit":
		var rl unix.Rlimit
		unix.Getrlimit(unix.RLIMIT_CORE, &rl)
		if rl.Max != 0 {
			return fmt.Errorf("core hard limit %d", rl.Max)
		}
		return unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{Cur: 1 << 20, Max: 1 << 20})
	}
	return fmt.Errorf("unknown op %q", op)
}

func errnoOf(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// toctou calls mkdirat in a loop for about a second on a buffer another
// thread flips between "a" and ".git"; it fails if .git ever appears.
func toctou(dir string) error {
	if err := os.Chdir(dir); err != nil {
		return err
	}
	buf := make([]byte, 8)
	copy(buf, "a\x00")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%2 == 0 {
				copy(buf, ".git\x00")
			} else {
				copy(buf, "a\x00\x00\x00\x00")
			}
		}
	}()
	deadline := time.Now().Add(time.Second)
	n, cwd := 0, unix.AT_FDCWD
	for time.Now().Before(deadline) {
		unix.Syscall(unix.SYS_MKDIRAT, uintptr(cwd), uintptr(unsafe.Pointer(&buf[0])), 0o755)
		unix.Rmdir("a")
		n++
	}
	close(stop)
	<-done
	if _, err := os.Lstat(".git"); err == nil {
		return fmt.Errorf(".git created after %d attempts", n)
	}
	if n < 100 {
		return fmt.Errorf("only %d attempts", n)
	}
	return nil
}
