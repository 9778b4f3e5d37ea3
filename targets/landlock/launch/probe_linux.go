package launch

import (
	"os"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Features is what this machine offers the sandbox (sbx doctor).
type Features struct {
	Kernel      string `json:"kernel"`
	Arch        string `json:"arch"`
	LandlockABI int    `json:"landlock_abi"`
	Root        bool   `json:"root"`
	// UserNS reports whether the calling user can create a user namespace
	// (needed for the mount, PID, IPC and network namespaces when not root).
	UserNS       bool   `json:"user_namespaces"`
	UserNSDetail string `json:"user_namespaces_detail"`
	Seccomp      bool   `json:"seccomp"`
	// SeccompUserNotif reports SECCOMP_RET_USER_NOTIF support.
	SeccompUserNotif bool `json:"seccomp_user_notif"`
	// Supervisor reports whether the seccomp supervisor can run here (user
	// notification, thread pidfds, a filter for this architecture): missing
	// protected names, listed Unix sockets, bind ports and network none
	// rely on it, and fall back to restrictive layouts or a network
	// namespace without it.
	Supervisor bool `json:"supervisor"`
}

// Probe inspects the machine. It forks one short-lived process to test user
// namespaces, so it is for doctor and error messages, not hot paths.
func Probe() Features {
	var f Features
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		f.Kernel = "Linux " + unix.ByteSliceToString(u.Release[:])
		f.Arch = unix.ByteSliceToString(u.Machine[:])
	}
	f.LandlockABI = KernelABI()
	f.Root = os.Geteuid() == 0
	f.UserNS, f.UserNSDetail = probeUserNS()
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err == nil {
		f.Seccomp = true
	}
	action := uint32(retUserNotif)
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, 2 /* SECCOMP_GET_ACTION_AVAIL */, 0, uintptr(unsafe.Pointer(&action))); e == 0 {
		f.SeccompUserNotif = true
	}
	f.Supervisor = supervisorAvailable()
	return f
}

func readSysctl(name string) string {
	b, err := os.ReadFile("/proc/sys/" + strings.ReplaceAll(name, ".", "/"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func probeUserNS() (bool, string) {
	var why []string
	if v := readSysctl("user.max_user_namespaces"); v == "0" {
		why = append(why, "user.max_user_namespaces=0")
	}
	if v := readSysctl("kernel.unprivileged_userns_clone"); v == "0" {
		why = append(why, "kernel.unprivileged_userns_clone=0")
	}
	if v := readSysctl("kernel.apparmor_restrict_unprivileged_userns"); v == "1" {
		why = append(why, "kernel.apparmor_restrict_unprivileged_userns=1 (AppArmor restricts unprivileged user namespaces unless the binary has a profile allowing them)")
	}
	pid, err := syscall.ForkExec("/bin/true", []string{"true"}, &syscall.ProcAttr{
		Sys: &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, Pdeathsig: syscall.SIGKILL},
		Env: []string{},
	})
	if err == nil {
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
		return true, "available"
	}
	why = append([]string{"creating one failed: " + err.Error()}, why...)
	hint := "; enable them (sysctl user.max_user_namespaces>0, kernel.unprivileged_userns_clone=1, or an AppArmor profile with `userns,` for sbx), or run as root"
	return false, strings.Join(why, "; ") + hint
}
