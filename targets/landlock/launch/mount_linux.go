package launch

import (
	"fmt"
	"path"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sbx-dev/sbx/targets/landlock"
)

// mounter applies a plan's mount operations inside the helper's fresh
// mount namespace (CLONE_NEWNS, owned by the helper's user namespace when
// unprivileged). Nothing propagates back to the host: "/" is made private
// first.
type mounter struct {
	// clones are detached copies of the writable paths, taken before the
	// base view is made read-only, so they keep the host's own flags: a path
	// the host mounted read-only stays read-only, and nothing ever has to be
	// flipped from read-only to read-write.
	clones map[string]int
	// attached records clones already attached (carried through a mask).
	attached map[string]bool
	// maskSrc is a detached, read-only tmpfs holding an empty mode-000
	// directory "d" and file "f", cloned over every plain mask.
	maskSrc int
}

func applyMounts(ops []landlock.MountOp) error {
	m := &mounter{clones: map[string]int{}, attached: map[string]bool{}, maskSrc: -1}
	defer m.close()
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making / private: %w", err)
	}
	for _, op := range ops {
		if op.Kind != landlock.MountReadWrite {
			continue
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, op.Path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("cloning writable %s: %w", op.Path, err)
		}
		m.clones[op.Path] = fd
	}
	for _, op := range ops {
		if err := m.apply(op); err != nil {
			return fmt.Errorf("%s %s (%s): %w", op.Kind, op.Path, op.Why, err)
		}
	}
	return kernelStateReadOnly()
}

// kernelStateReadOnly makes /sys (with everything mounted below it) read-only
// whatever the profile's writable roots: a writable root at or above it
// (write root in network-off, a workspace at /) cloned the host's
// read-write sysfs, whose files change the kernel, not a file system
// (/sys/power/state, cgroups, tracing), and most only check the owner,
// root. The fresh /proc is mounted read-only for the same reason
// (/proc/sys/kernel/core_pattern runs a helper outside every namespace).
func kernelStateReadOnly() error {
	var st unix.Stat_t
	if err := unix.Lstat("/sys", &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil
	}
	err := setattr(unix.AT_FDCWD, "/sys", unix.AT_RECURSIVE, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC, 0)
	if err == unix.EINVAL {
		// Not a mount point (no sysfs): a plain directory, covered by the
		// view like any other.
		return nil
	}
	if err != nil {
		return fmt.Errorf("making /sys read-only: %w", err)
	}
	return nil
}

func (m *mounter) close() {
	for _, fd := range m.clones {
		unix.Close(fd)
	}
	if m.maskSrc >= 0 {
		unix.Close(m.maskSrc)
	}
}

func setattr(dfd int, p string, flags uint, set, clr uint64) error {
	attr := unix.MountAttr{Attr_set: set, Attr_clr: clr}
	return unix.MountSetattr(dfd, p, flags, &attr)
}

func (m *mounter) apply(op landlock.MountOp) error {
	switch op.Kind {
	case landlock.MountBaseReadOnly:
		return setattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID, 0)
	case landlock.MountReadWrite:
		if m.attached[op.Path] {
			return nil
		}
		return unix.MoveMount(m.clones[op.Path], "", unix.AT_FDCWD, op.Path, unix.MOVE_MOUNT_F_EMPTY_PATH)
	case landlock.MountReadOnly:
		if err := unix.Mount(op.Path, op.Path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return err
		}
		return setattr(unix.AT_FDCWD, op.Path, unix.AT_RECURSIVE, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID, 0)
	case landlock.MountMask:
		if len(op.Keep) == 0 {
			return m.plainMask(op)
		}
		return m.keepMask(op)
	case landlock.MountProc:
		// Read-only whatever the writable roots (see kernelStateReadOnly).
		return unix.Mount("proc", "/proc", "proc", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	}
	return fmt.Errorf("unknown mount operation %q", op.Kind)
}

// newTmpfs returns a detached tmpfs mount whose root has mode.
func newTmpfs(mode string) (int, error) {
	fsfd, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen(tmpfs): %w", err)
	}
	defer unix.Close(fsfd)
	for _, kv := range [][2]string{{"mode", mode}, {"size", "64k"}, {"nr_inodes", "256"}} {
		if err := unix.FsconfigSetString(fsfd, kv[0], kv[1]); err != nil {
			return -1, fmt.Errorf("fsconfig(%s=%s): %w", kv[0], kv[1], err)
		}
	}
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return -1, fmt.Errorf("fsconfig(create): %w", err)
	}
	mfd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsmount: %w", err)
	}
	return mfd, nil
}

func (m *mounter) plainMask(op landlock.MountOp) error {
	if m.maskSrc < 0 {
		// The root is never exposed (only "d" and "f" are cloned); it must
		// be writable by its owner to create them without CAP_DAC_OVERRIDE.
		fd, err := newTmpfs("0700")
		if err != nil {
			return err
		}
		if err := unix.Mkdirat(fd, "d", 0); err != nil {
			unix.Close(fd)
			return fmt.Errorf("creating mask directory: %w", err)
		}
		f, err := unix.Openat(fd, "f", unix.O_CREAT|unix.O_EXCL|unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			unix.Close(fd)
			return fmt.Errorf("creating mask file: %w", err)
		}
		unix.Close(f)
		if err := setattr(fd, "", unix.AT_EMPTY_PATH, unix.MOUNT_ATTR_RDONLY, 0); err != nil {
			unix.Close(fd)
			return fmt.Errorf("making the mask read-only: %w", err)
		}
		m.maskSrc = fd
	}
	name := "f"
	if op.Dir {
		name = "d"
	}
	c, err := unix.OpenTree(m.maskSrc, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return fmt.Errorf("cloning the mask: %w", err)
	}
	defer unix.Close(c)
	return unix.MoveMount(c, "", unix.AT_FDCWD, op.Path, unix.MOVE_MOUNT_F_EMPTY_PATH)
}

// keepMask masks a directory whose listed descendants stay reachable: a
// fresh tmpfs with traverse-only (0111) directories leading to one mount
// point per kept path, onto which the original (cloned before masking) is
// attached. Listing any directory of the mask fails with EACCES; only the
// kept paths can be reached.
func (m *mounter) keepMask(op landlock.MountOp) error {
	type kept struct {
		rel string
		fd  int
	}
	var ks []kept
	defer func() {
		for _, k := range ks {
			if _, own := m.clones[path.Join(op.Path, k.rel)]; !own {
				unix.Close(k.fd)
			}
		}
	}()
	devpts := false
	for _, k := range op.Keep {
		full := path.Join(op.Path, k.Rel)
		if full == "/dev/pts" || full == "/dev/ptmx" {
			// A private devpts instance replaces the host's (see below).
			devpts = true
			continue
		}
		if fd, ok := m.clones[full]; ok {
			ks = append(ks, kept{k.Rel, fd})
			m.attached[full] = true
			continue
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, full, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			if err == unix.ENOENT {
				continue
			}
			return fmt.Errorf("cloning %s to keep it below the mask: %w", full, err)
		}
		ks = append(ks, kept{k.Rel, fd})
	}
	// Built writable by its owner (no CAP_DAC_OVERRIDE is needed, also in
	// a user namespace), then every directory becomes traverse-only.
	mfd, err := newTmpfs("0700")
	if err != nil {
		return err
	}
	defer unix.Close(mfd)
	var dirs []string
	for i, k := range op.Keep {
		parts := strings.Split(k.Rel, "/")
		for j := 1; j < len(parts); j++ {
			d := strings.Join(parts[:j], "/")
			if err := unix.Mkdirat(mfd, d, 0o700); err == nil {
				dirs = append(dirs, d)
			} else if err != unix.EEXIST {
				return fmt.Errorf("mask skeleton %s: %w", k.Rel, err)
			}
		}
		if op.Keep[i].Dir {
			if err = unix.Mkdirat(mfd, k.Rel, 0o111); err == nil {
				dirs = append(dirs, k.Rel)
			}
		} else {
			var f int
			f, err = unix.Openat(mfd, k.Rel, unix.O_CREAT|unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err == nil {
				unix.Close(f)
			}
		}
		if err != nil && err != unix.EEXIST {
			return fmt.Errorf("mask mount point %s: %w", k.Rel, err)
		}
	}
	if op.Path == "/dev" {
		// The standard links of /dev ("echo >&2 >/dev/stderr"), resolved by
		// each process in its own /proc/self.
		for _, l := range [][2]string{{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}} {
			if err := unix.Symlinkat(l[1], mfd, l[0]); err != nil && err != unix.EEXIST {
				return fmt.Errorf("mask link /dev/%s: %w", l[0], err)
			}
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := unix.Fchmodat(mfd, dirs[i], 0o111, 0); err != nil {
			return fmt.Errorf("mask skeleton %s: %w", dirs[i], err)
		}
	}
	// The fsmount descriptor is O_PATH-like: fchmod needs a real open.
	root, err := unix.Openat(mfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("mask root: %w", err)
	}
	err = unix.Fchmod(root, 0o111)
	unix.Close(root)
	if err != nil {
		return fmt.Errorf("mask root: %w", err)
	}
	if err := unix.MoveMount(mfd, "", unix.AT_FDCWD, op.Path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("attaching the mask: %w", err)
	}
	for _, k := range ks {
		if err := unix.MoveMount(k.fd, "", unix.AT_FDCWD, path.Join(op.Path, k.rel), unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("carrying %s through the mask: %w", k.rel, err)
		}
	}
	if devpts {
		// Like bubblewrap's --dev: a new devpts instance (the command
		// cannot reach the host's terminals) with /dev/ptmx bound to its
		// own ptmx node, so posix_openpt works without capabilities.
		if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620"); err != nil {
			return fmt.Errorf("mounting a private devpts: %w", err)
		}
		if err := unix.Mount("/dev/pts/ptmx", "/dev/ptmx", "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding /dev/ptmx: %w", err)
		}
	}
	return setattr(mfd, "", unix.AT_EMPTY_PATH, unix.MOUNT_ATTR_RDONLY, 0)
}
