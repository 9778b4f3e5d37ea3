package launch

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_X86_64
	// checkX32 denies x32 system calls (nr with bit 30 set), which share
	// AUDIT_ARCH_X86_64.
	checkX32 = true
)

// deniedSyscalls always fail with EPERM (see landlock.SeccompSummary).
var deniedSyscalls = []uint32{
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_KCMP,
	unix.SYS_PIDFD_GETFD, unix.SYS_PROCESS_MADVISE, unix.SYS_PROCESS_MRELEASE,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT,
	unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK,
	unix.SYS_MOUNT_SETATTR, 467, // open_tree_attr
	unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS_ACCT, unix.SYS_QUOTACTL, unix.SYS_QUOTACTL_FD,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT, unix.SYS_SYSLOG,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT, unix.SYS_FANOTIFY_INIT, unix.SYS_USELIB, unix.SYS_VHANGUP,
}

// sysMknod is mknod's number (a variable: arm64 has none, -1).
var sysMknod = unix.SYS_MKNOD

// The legacy path system calls that create directory entries (arm64 has
// only the *at forms). The supervisor intercepts them with the *at forms.
var (
	sysOpen    = unix.SYS_OPEN
	sysCreat   = unix.SYS_CREAT
	sysMkdir   = unix.SYS_MKDIR
	sysSymlink = unix.SYS_SYMLINK
	sysLink    = unix.SYS_LINK
	sysRename  = unix.SYS_RENAME
	sysChmod   = unix.SYS_CHMOD
)

// sysFstatat is fstatat's number (newfstatat on amd64), whose struct stat
// is unix.Stat_t.
const sysFstatat = unix.SYS_NEWFSTATAT
