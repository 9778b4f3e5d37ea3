package main

import (
	"encoding/binary"
	"fmt"
	"math"

	"golang.org/x/sys/unix"
)

// closeInheritedOnExec marks every descriptor above stderr close-on-exec.
// Go's os/exec passes a child only stdin, stdout, stderr and ExtraFiles, but
// a descriptor sbx itself inherited without close-on-exec (a shell's
// `exec 7<secret`, a leaky parent) would survive into the command; commands
// must start with exactly the three streams the executor gives them. Done
// once in main, before any descriptor of sbx's own exists to matter.
func closeInheritedOnExec() {
	// Errors mean a kernel before 5.11 (ENOSYS): the sandboxed path marks
	// and closes descriptors again in its helper.
	_ = unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
}

// minOpenFiles is the RLIMIT_NOFILE sbx needs: its own descriptors (the
// sandbox's init and control socket, the pipes, the poll loop's, the
// runtime's poller) with room to spare. Below it, sbx refuses at once with
// 125: running out part-way would fail later, or, where the Go runtime's
// poller cannot start (it takes two descriptors the first time any file
// is opened), abort the whole process with a runtime error.
const minOpenFiles = 32

// minFreeFiles is how many descriptors must be free at sbx's start, below
// the limit: descriptors sbx inherited (a shell's `exec 7<file`, a parent
// that leaks them) count against RLIMIT_NOFILE too, and with a limit of 32
// and 26 of them open the runtime's poller could not start (a runtime
// abort, status 2, red team 22). It is what the sandboxed run takes at its
// peak with room to spare.
const minFreeFiles = 24

// checkOpenFiles reports an error when RLIMIT_NOFILE is below minOpenFiles
// (the Go runtime has already raised the soft limit to the hard one), or
// when fewer than minFreeFiles descriptors are free below it. It opens no
// os.File: the first one starts the runtime's poller, which is what must
// not fail.
func checkOpenFiles() error {
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) != nil {
		return nil
	}
	if rl.Cur < minOpenFiles {
		return fmt.Errorf("the open-files limit (RLIMIT_NOFILE) is %d; sbx needs at least %d: raise it (ulimit -n)", rl.Cur, minOpenFiles)
	}
	if rl.Cur >= 1<<16 {
		return nil // as many open as that would be a leak of its own
	}
	open, err := countOpenFiles()
	if err == unix.EMFILE || err == unix.ENFILE {
		return fmt.Errorf("no descriptor is free (RLIMIT_NOFILE is %d, all in use by descriptors sbx inherited); sbx needs %d free: close them or raise the limit (ulimit -n)", rl.Cur, minFreeFiles)
	}
	if err != nil {
		return nil // no /proc: the limit alone was checked
	}
	if free := int64(rl.Cur) - int64(open); free < minFreeFiles {
		return fmt.Errorf("only %d descriptors are free (RLIMIT_NOFILE is %d, %d open, inherited by sbx); sbx needs %d: close them or raise the limit (ulimit -n)", free, rl.Cur, open, minFreeFiles)
	}
	return nil
}

// minProcs is the RLIMIT_NPROC below which sbx refuses to start. The limit
// counts every process and thread of the user's: sbx's own threads (the Go
// runtime makes them as it needs them, and aborts the whole process, with
// no result, when the kernel refuses one), the sandbox's init and
// supervisor, and the command's processes. Under a handful the runtime
// aborted part-way through the run, after the command had started (red
// team 23); a limit this low is a deliberate cap, and the refusal says so
// instead.
const minProcs = 32

// checkProcs reports an error when RLIMIT_NPROC is below minProcs. The
// kernel does not apply the limit to root's processes (real uid 0) or to
// a holder of CAP_SYS_RESOURCE or CAP_SYS_ADMIN, so neither is checked
// for root. How many processes the user already runs is not counted
// (that would take a walk of /proc at every start): a limit reached
// part-way through a run, by the command's own processes or the user's
// others, can still end sbx with the runtime's abort (README, Known
// limits).
func checkProcs() error {
	if unix.Getuid() == 0 || unix.Geteuid() == 0 {
		return nil
	}
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NPROC, &rl) != nil || rl.Cur == unix.RLIM_INFINITY || rl.Cur >= minProcs {
		return nil
	}
	return fmt.Errorf("the process limit (RLIMIT_NPROC) is %d; sbx needs at least %d for its own threads, the sandbox's helpers and the command: raise it (ulimit -u)", rl.Cur, minProcs)
}

// countOpenFiles counts the process's open descriptors from /proc/self/fd
// (the directory's own descriptor left out).
func countOpenFiles() (int, error) {
	fd, err := unix.Open("/proc/self/fd", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	var buf [4096]byte
	n := 0
	for {
		m, err := unix.Getdents(fd, buf[:])
		if err != nil {
			return 0, err
		}
		if m <= 0 {
			break
		}
		for off := 0; off < m; {
			// struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name.
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 20 || off+reclen > m {
				return 0, unix.EINVAL
			}
			name := buf[off+19 : off+reclen]
			if name[0] != '.' {
				n++
			}
			off += reclen
		}
	}
	return n - 1, nil
}

// checkCapMemory refuses an output cap that sbx's address-space limit
// (RLIMIT_AS) cannot hold: each of the two streams retains up to the cap,
// and growing a retention buffer holds the old and the new one at once, so
// a run may need about three times the cap per stream, besides the Go
// runtime's own reservations (capSlack). The Go runtime cannot survive an
// allocation that fails: without this check such a run ended part-way in
// a runtime abort (status 2, no result; red team 22). Memory that runs
// out for other reasons (a cgroup's limit, the whole machine's) is not
// foreseen here. given tells whether the cap is one asked for (--output-cap,
// the profile's) or the default, for the message.
func checkCapMemory(outputCap int64, given bool) error {
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &rl) != nil || rl.Cur == unix.RLIM_INFINITY {
		return nil
	}
	// The runtime reserves about 700 MiB of address space before main
	// (Go 1.26, linux/amd64), and its heap's arenas, mapped 64 MiB at a
	// time, are never returned: with 1 GiB here a 64 MiB cap that the
	// check accepted still ended in the runtime's abort (red team 27:
	// runs needed about 256 MiB more). 1.25 GiB held for caps of 1 to
	// 128 MiB, both streams written past the cap, both retentions, with
	// and without a sandbox.
	const capSlack = 1280 << 20
	// A profile's cap is any int64: six times it may not fit in 64 bits
	// (red team 25: ⌈2^64/6⌉ wrapped to 2 and passed the check).
	need := uint64(math.MaxUint64)
	if c := uint64(outputCap); outputCap >= 0 && c <= (math.MaxUint64-capSlack)/6 {
		need = 6*c + capSlack
	}
	if need <= rl.Cur {
		return nil
	}
	if !given {
		return fmt.Errorf("the address-space limit (RLIMIT_AS) is %d MiB, and sbx may need %d MiB with the default output cap (%d bytes per stream) and the Go runtime's reservations; raise the limit (ulimit -v) to at least that", rl.Cur>>20, need>>20, outputCap)
	}
	return fmt.Errorf("output cap %d bytes (--output-cap or the profile's): retaining that much of both streams may take %d MiB with the Go runtime's reservations, and the address-space limit (RLIMIT_AS) is %d MiB; lower --output-cap or raise the limit (ulimit -v)", outputCap, need>>20, rl.Cur>>20)
}
