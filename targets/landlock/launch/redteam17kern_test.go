//go:build linux && amd64

package launch_test

// Red team 17 (the kernel interface a sandboxed command reaches), through
// the real sbx binary (built by TestMain), as root and as uid 65534:
//
//   - kernel pseudo file systems mounted by the host inside a writable
//     root (a build chroot in the workspace or in /tmp with its proc,
//     sys, cgroup, binfmt_misc mounted): the view makes /proc and /sys
//     read-only "whatever the writable roots", but only at those two
//     paths; the clone of a writable root keeps every submount writable,
//     so the command writes the host's kernel state through them: raises
//     a host process's OOM score, kills a host cgroup, opens
//     /sys/power/state for writing, creates a message queue in the host's
//     IPC namespace, writes the host's trace buffers and, as root,
//     registers a binfmt_misc interpreter host processes then run
//     (TestRedTeam17KernPseudoFSInWritableRoot);
//   - tracefs and debugfs mounted at another path than /sys/kernel/tracing
//     and /sys/kernel/debug (a build chroot's rbind of /sys, a tracefs
//     mounted by hand): the detach of round 14 goes by path, so a root-run
//     command reads (and consumes) the host's trace buffers there
//     (TestRedTeam17KernTracefsElsewhere);
//   - the host's /dev/shm bound elsewhere (a chroot's rbind of /dev): the
//     mask of /dev goes by path, so the host's POSIX shared memory is read
//     and rewritten there (TestRedTeam17KernDevShmElsewhere);
//   - fs.inotify.max_user_instances is shared with the host's processes of
//     the same uid, across the user namespace: a command that takes all
//     128 leaves none to them until it ends (uid 65534 here; as root,
//     root's services) (TestRedTeam17KernInotifyUserLimit);
//   - held: kernel state at its usual paths (EROFS/EACCES), syslog,
//     vhangup, host and domain names, page migration of the init, the
//     terminal under a pty (TestRedTeam17KernHeld).
//
// Everything mounted for these tests is mounted in a private mount
// namespace (unshare --mount --propagation private) that sbx runs in, so
// nothing stays mounted on the host.
//
//	go test -count=1 -run 'TestRedTeam17Kern' -v ./targets/landlock/launch

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rt17Run runs `sbx run --json args...` as u inside a private mount
// namespace in which setup (a shell script, run as root) mounted what the
// test needs first.
func rt17Run(t *testing.T, u user, home, setup string, args ...string) rtResult {
	r, _ := rt17RunPost(t, u, home, setup, "", args...)
	return r
}

// rt17RunPost is rt17Run, then runs post (a shell script, as root) in the
// same mount namespace after sbx has exited and returns its output.
func rt17RunPost(t *testing.T, u user, home, setup, post string, args ...string) (rtResult, string) {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare is missing")
	}
	sbxArgv := append([]string{filepath.Join(bin, "sbx"), "run", "--json"}, args...)
	if u.uid != 0 {
		sbxArgv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, sbxArgv...)
	}
	argv := append([]string{"unshare", "--mount", "--propagation", "private", "/bin/sh", "-ec", setup + "\nset +e\n\"$@\"\nrc=$?\n{\n" + post + "\n} >&2 2>&1\nexit $rc", "sh"}, sbxArgv...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "HOME=" + home}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("sbx %v hung", args)
	}
	var r rtResult
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("sbx %v: %v\n%.2000s\n%v\n%s", args, jerr, out, err, stderr.String())
	}
	if r.SbxError != "" {
		t.Fatalf("sbx failed: %s", r.SbxError)
	}
	return r, stderr.String()
}

// rt17Victim starts `sleep 60` as u outside any sandbox and returns it; it
// is killed and reaped at cleanup.
func rt17Victim(t *testing.T, u user) *exec.Cmd {
	t.Helper()
	argv := []string{"sleep", "60"}
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// setpriv execs sleep in the same process: wait until it has.
	for i := 0; i < 200; i++ {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/comm"); strings.TrimSpace(string(b)) == "sleep" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cmd
}

// rt17Dies polls (up to limit) until the victim has died, and says
// whether it did: a kill's delivery and the exit are asynchronous, so a
// control waits long; a check that it lives waits less, after the fact.
func rt17Dies(cmd *exec.Cmd, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); ; time.Sleep(5 * time.Millisecond) {
		var ws syscall.WaitStatus
		if pid, _ := syscall.Wait4(cmd.Process.Pid, &ws, syscall.WNOHANG, nil); pid == cmd.Process.Pid {
			cmd.Process.Release()
			return true
		}
		if syscall.Kill(cmd.Process.Pid, 0) != nil {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// rt17Cgroup2 returns the host's cgroup2 mount point ("" when none).
func rt17Cgroup2() string {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if i := strings.Index(l, " - cgroup2 "); i >= 0 {
			if f := strings.Fields(l[:i]); len(f) >= 5 {
				return f[4]
			}
		}
	}
	return ""
}

// rt17KillCgroup makes a cgroup below the host's cgroup2 root holding a
// victim of u's, delegated to u (its directory, cgroup.procs and
// cgroup.kill owned by u, as systemd delegates a user's slice); it is
// emptied and removed at cleanup.
func rt17KillCgroup(t *testing.T, root, name string, u user) (string, *exec.Cmd) {
	t.Helper()
	cg := filepath.Join(root, name)
	if err := os.Mkdir(cg, 0o755); err != nil {
		t.Skipf("cannot make a cgroup: %v", err)
	}
	v := rt17Victim(t, u)
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(cg, "cgroup.kill"), []byte("1"), 0)
		for i := 0; i < 100; i++ {
			if os.Remove(cg) == nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Errorf("cannot remove cgroup %s", cg)
	})
	if _, err := os.Stat(filepath.Join(cg, "cgroup.kill")); err != nil {
		t.Skipf("no cgroup.kill: %v", err)
	}
	if err := os.WriteFile(filepath.Join(cg, "cgroup.procs"), []byte(strconv.Itoa(v.Process.Pid)), 0); err != nil {
		t.Skipf("cannot move the victim into the cgroup: %v", err)
	}
	for _, p := range []string{cg, cg + "/cgroup.procs", cg + "/cgroup.kill"} {
		os.Chown(p, u.uid, u.uid)
	}
	return cg, v
}

// TestRedTeam17KernPseudoFSInWritableRoot: HOLE. The view makes the fresh
// /proc and the host's /sys read-only "whatever the writable roots"
// (README, mechanisms: "kernel state through files ... even when a
// writable root covers them"), but only at /proc and /sys. A writable
// root is attached as a recursive clone (open_tree AT_RECURSIVE) made
// nosuid and nodev, so every pseudo file system the host mounted below
// it stays writable: a build chroot in the workspace (or in /tmp, which
// the workspace profile writes) with `mount -t proc proc chroot/proc`,
// `mount --rbind /sys chroot/sys` or a cgroup2 mount. Through them the
// command reaches the host's processes and kernel state past the PID
// namespace and the read-only /proc and /sys:
//
//   - chroot/proc is the host's procfs (every host process visible):
//     /proc/<host pid>/oom_score_adj of a process of the same user is
//     raised (needs no capability), so the host's OOM killer picks it;
//     as root, every sysctl (sysctl writes check the euid only, no
//     capability) and /proc/sysrq-trigger (mode 0200 root, no capability
//     check: `echo b` reboots the host) are writable too (not exercised);
//   - a cgroup2 mount: cgroup.kill of a host cgroup the user owns (a
//     delegated slice; as root, any) SIGKILLs every host process in it,
//     cgroup.procs moves processes, cgroup.freeze freezes them;
//   - tracefs below the chroot's sys (root only, mode 0700): writes to the
//     host's trace instances (trace_marker here; kprobe_events too);
//   - sysfs (root only, its attributes are 0644/0200 root and most
//     check no capability): opened for writing here, never written:
//     /sys/power/state (suspends the host), transparent hugepages; also
//     PCI devices' remove, block queues;
//   - mqueue (the host's IPC namespace's, where the host mounted one):
//     the command creates a POSIX message queue there (the root directory
//     is 1777: as any user), past the sandbox's own IPC namespace;
//   - binfmt_misc (a cross-build chroot's, for qemu-user; root only,
//     register is 0200 root and bm_register_write checks no capability):
//     the command registers an interpreter in the host's (init user
//     namespace's) table, so every later exec of a matching file on the
//     host, by any user and root's services included, runs a program of
//     the command's choice: an escape to host root. The test registers a
//     magic nothing has, with /bin/false, and removes it.
//
// The test mounts them in a private mount namespace that sbx runs in,
// under the workspace (ws/chroot/{proc,sys,cg,trace,mq,binfmt}), and
// checks from the host (after the run, in the same namespace) that
// nothing changed. Controls: the oom_score_adj and cgroup.kill writes
// work outside the sandbox (on a second victim and cgroup); the binfmt
// entry is shown to take effect on a host process's exec. The same holds
// for a chroot under /tmp (the workspace profile writes /tmp) and, under
// network-off (write /), anywhere outside /proc and /sys.
//
// Fix direction: make every mount of a pseudo file system of the kernel
// (proc, sysfs, cgroup, cgroup2, tracefs, debugfs, securityfs, configfs,
// bpf, pstore, efivarfs, binfmt_misc, ...) in the view read-only, at any
// path, e.g. by walking the writable clones' submounts (statmount's
// fs_type, or mountinfo) and applying MOUNT_ATTR_RDONLY to each after
// attaching them (or detaching them); the base view's read-only pass
// already covers those outside writable roots.
func TestRedTeam17KernPseudoFSInWritableRoot(t *testing.T) {
	cgRoot := rt17Cgroup2()
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		ch := filepath.Join(f.ws, "chroot")
		for _, d := range []string{"proc", "cg", "trace", "binfmt", "sys", "mq"} {
			os.MkdirAll(filepath.Join(ch, d), 0o755)
			os.Chown(filepath.Join(ch, d), u.uid, u.uid)
		}
		setup := "mount -t proc proc " + ch + "/proc\n" +
			"mount -t sysfs sysfs " + ch + "/sys\n" +
			"mount -t mqueue none " + ch + "/mq\n"
		mq := "sbxrt17q-" + strconv.Itoa(os.Getpid()) + "-" + u.name
		// After the run: is the command's message queue in the host's IPC
		// namespace (the mqueue mount is the host's)? Then remove it.
		post := "test -e " + ch + "/mq/" + mq + " && echo HOST-MQUEUE-CREATED\nrm -f " + ch + "/mq/" + mq + "\n"

		// procfs: oom_score_adj of a host process of the same user.
		ctl, victim := rt17Victim(t, u), rt17Victim(t, u)
		oom := func(c *exec.Cmd) string {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(c.Process.Pid) + "/oom_score_adj")
			return strings.TrimSpace(string(b))
		}
		if out := rt16As(u, nil, "/", "echo 1000 > /proc/"+strconv.Itoa(ctl.Process.Pid)+"/oom_score_adj"); oom(ctl) != "1000" {
			t.Fatalf("control: oom_score_adj of the user's own process not raised outside the sandbox: %q %s", oom(ctl), out)
		}

		// cgroup2: cgroup.kill of a host cgroup delegated to the user.
		var cgVictim *exec.Cmd
		var cgName string
		if cgRoot != "" {
			tag := "sbxrt17-" + strconv.Itoa(os.Getpid()) + "-" + u.name
			ctlCg, ctlV := rt17KillCgroup(t, cgRoot, tag+"-ctl", u)
			rt16As(u, nil, "/", "echo 1 > "+ctlCg+"/cgroup.kill")
			if !rt17Dies(ctlV, 10*time.Second) {
				t.Fatalf("control: cgroup.kill outside the sandbox did not kill the victim")
			}
			cgName = tag
			_, cgVictim = rt17KillCgroup(t, cgRoot, cgName, u)
			setup += "mount -t cgroup2 none " + ch + "/cg\n"
		}

		// tracefs (root only: the directory is 0700).
		inst := ""
		tok := "rt17-kern-marker-" + rt6Token()
		if u.uid == 0 {
			if _, err := os.Stat("/sys/kernel/tracing/instances"); err == nil {
				inst = "sbxrt17w-" + strconv.Itoa(os.Getpid())
				if err := os.Mkdir("/sys/kernel/tracing/instances/"+inst, 0o700); err != nil {
					inst = ""
				} else {
					name := inst
					t.Cleanup(func() { os.Remove("/sys/kernel/tracing/instances/" + name) })
					os.WriteFile("/sys/kernel/tracing/instances/"+inst+"/tracing_on", []byte("1\n"), 0)
					setup += "mount -t tracefs nodev " + ch + "/trace\n"
				}
			}
		}

		// binfmt_misc (root only: register is 0200 root; bm_register_write
		// checks no capability): an entry with a magic nothing has and
		// /bin/false as its interpreter, removed at cleanup.
		bmName := ""
		if u.uid == 0 {
			bmName = "sbxrt17-" + strconv.Itoa(os.Getpid())
			setup += "mount -t binfmt_misc none " + ch + "/binfmt\n"
			probe := filepath.Join(f.base, "magic-file")
			os.WriteFile(probe, []byte("SBXRT17MAGICNEVER\n"), 0o755)
			// After the run, in the same mount namespace: is the entry
			// there, and does a host process's exec of a matching file
			// now run the registered interpreter (/bin/false: status 1;
			// without the entry the shell runs the file as a script:
			// 127)? Then remove the entry (it also goes when the last
			// mount of binfmt_misc does).
			post += "test -e " + ch + "/binfmt/" + bmName + " && echo BINFMT-REGISTERED\n" +
				probe + " 2>/dev/null; echo HOST-EXEC-STATUS=$?\n" +
				"test -e " + ch + "/binfmt/" + bmName + " && echo -1 > " + ch + "/binfmt/" + bmName + "\n"
		}

		vp := ch + "/proc/" + strconv.Itoa(victim.Process.Pid)
		// Held there (ptrace access, which Landlock refuses outside the
		// domain): the host process's root, cwd, descriptors' targets,
		// environment (its descriptors' numbers can be listed: the
		// directory's mode, not ptrace, guards the listing).
		script := "ls " + vp + " >/dev/null && echo host-pid-visible\n" +
			"ls " + vp + "/root/ >/dev/null 2>&1 && echo HOST-ROOT-LISTED\n" +
			"ls " + vp + "/cwd/ >/dev/null 2>&1 && echo HOST-CWD-LISTED\n" +
			"readlink " + vp + "/fd/0 >/dev/null 2>&1 && echo HOST-FD-READLINK\n" +
			"cat " + vp + "/environ >/dev/null 2>&1 && echo HOST-ENVIRON-READ\n" +
			"echo 1000 | dd of=" + ch + "/proc/" + strconv.Itoa(victim.Process.Pid) + "/oom_score_adj conv=notrunc,nocreat 2>&1 | tail -1\n"
		// sysfs: opened for writing only (no byte written).
		script += "dd if=/dev/null of=" + ch + "/sys/power/state conv=notrunc,nocreat count=0 2>/dev/null && echo SYSFS-POWER-STATE-WRITABLE\n" +
			"dd if=/dev/null of=" + ch + "/sys/kernel/mm/transparent_hugepage/enabled conv=notrunc,nocreat count=0 2>/dev/null && echo SYSFS-THP-WRITABLE\n" +
			"touch " + ch + "/mq/" + mq + "\n"
		if cgName != "" {
			script += "echo 1 | dd of=" + ch + "/cg/" + cgName + "/cgroup.kill conv=notrunc,nocreat 2>&1 | tail -1\n"
		}
		if inst != "" {
			script += "echo " + tok + " | dd of=" + ch + "/trace/instances/" + inst + "/trace_marker conv=notrunc,nocreat 2>&1 | tail -1\n"
		}
		if bmName != "" {
			script += "printf ':%s:M::SBXRT17MAGICNEVER::/bin/false:' " + bmName + " | dd of=" + ch + "/binfmt/register conv=notrunc,nocreat 2>&1 | tail -1\n"
		}
		for _, prof := range []string{"workspace"} {
			r, after := rt17RunPost(t, u, f.home, setup, post, "--profile", prof, "--cwd", f.ws, "--", "/bin/sh", "-c", script)
			t.Logf("%s: %s%s%s", prof, r.Stdout, r.Stderr, after)
			if got := oom(victim); got != "0" {
				t.Errorf("%s: a host process's oom_score_adj was set to %s from the sandbox, through a procfs mounted in the workspace (PID namespace and read-only /proc bypassed)", prof, got)
			}
			for _, m := range []string{"HOST-ROOT-LISTED", "HOST-CWD-LISTED", "HOST-FD-READLINK", "HOST-ENVIRON-READ"} {
				if strings.Contains(r.Stdout, m) {
					t.Errorf("%s: %s: a host process's ptrace-guarded entry was reached through the host's procfs", prof, m)
				}
			}
			if strings.Contains(r.Stdout, "SYSFS-") {
				t.Errorf("%s: the host's sysfs was writable through a sysfs mounted in the workspace (/sys/power/state: suspends the host; also PCI remove, block and memory settings)", prof)
			}
			if strings.Contains(after, "HOST-MQUEUE-CREATED") {
				t.Errorf("%s: the command created a POSIX message queue in the host's IPC namespace through an mqueue mounted in the workspace (the IPC namespace is bypassed)", prof)
			}
			if cgVictim != nil && rt17Dies(cgVictim, time.Second) {
				t.Errorf("%s: a host process was killed from the sandbox through cgroup.kill of a cgroup2 mounted in the workspace", prof)
			}
			if inst != "" {
				if b, _ := os.ReadFile("/sys/kernel/tracing/instances/" + inst + "/trace"); bytes.Contains(b, []byte(tok)) {
					t.Errorf("%s: the sandbox wrote into the host's trace instance through a tracefs mounted in the workspace", prof)
				}
			}
			if bmName != "" && strings.Contains(after, "HOST-EXEC-STATUS=1\n") {
				t.Errorf("%s: after the run, a host process's exec of a file with the magic ran the interpreter the sandbox registered", prof)
			}
			if bmName != "" && strings.Contains(after, "BINFMT-REGISTERED") {
				t.Errorf("%s: the sandbox registered a binfmt_misc interpreter for the whole host (every exec of a matching file, by any user, root included, would run it) through a binfmt_misc mounted in the workspace", prof)
			}
		}
	})
}

// TestRedTeam17KernDevShmElsewhere: HOLE (of a lesser kind: the mount is
// a tmpfs, and the argument that a writable root's files are the
// command's applies). The view masks /dev in read-/ profiles, /dev/shm
// included ("raw disks, /dev/shm"), so that the host's POSIX shared
// memory stays out of reach as the IPC namespace keeps SysV IPC and
// message queues. The mask goes by path: the same tmpfs bound elsewhere
// (`mount --rbind /dev chroot/dev` in a build chroot, as in round 16's
// device-node case) is the host's shared memory, readable under a read
// rule and writable in a writable root. The test binds /dev/shm into the
// workspace's chroot and checks that a segment of the user's (a host
// process's shared memory: PostgreSQL's dynamic shared memory, browser
// and audio servers' buffers) is neither read nor rewritten from the
// sandbox.
//
// Fix direction: mask (or detach) every mount of the host's /dev/shm
// superblock in the view, not only the path /dev/shm; or document it with
// the hard links and bind mounts under Known limits.
func TestRedTeam17KernDevShmElsewhere(t *testing.T) {
	rt17Holes(t, "a host bind of /dev/shm inside a writable root is an alias the /dev mask does not hide (README, Known limits: bind-mount aliases)")
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		ch := filepath.Join(f.ws, "chroot", "dev", "shm")
		os.MkdirAll(ch, 0o755)
		shm := "sbxrt17s-" + strconv.Itoa(os.Getpid()) + "-" + u.name
		tok := "host-" + rt6Token()
		if err := os.WriteFile("/dev/shm/"+shm, []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chown("/dev/shm/"+shm, u.uid, u.uid)
		t.Cleanup(func() { os.Remove("/dev/shm/" + shm) })
		script := "cat /dev/shm/" + shm + " 2>&1; cat " + ch + "/" + shm + "; echo sandbox | dd of=" + ch + "/" + shm + " conv=notrunc,nocreat 2>/dev/null; echo end"
		r := rt17Run(t, u, f.home, "mount --bind /dev/shm "+ch+"\n", "--profile", "workspace", "--cwd", f.ws, "--", "/bin/sh", "-c", script)
		if !strings.Contains(r.Stdout, "end") {
			t.Fatalf("the script did not run: %q %q", r.Stdout, r.Stderr)
		}
		if strings.Count(r.Stdout, tok) > 0 {
			t.Errorf("uid %d read the host's shared memory segment through a bind of /dev/shm in the workspace: %q", u.uid, r.Stdout)
		}
		if b, _ := os.ReadFile("/dev/shm/" + shm); string(b) != tok+"\n" {
			t.Errorf("uid %d rewrote the host's shared memory segment through a bind of /dev/shm in the workspace: %q", u.uid, b)
		}
		if strings.HasPrefix(r.Stdout, tok) {
			t.Errorf("control failed: /dev/shm itself was readable in the sandbox")
		}
	})
}

// TestRedTeam17KernTracefsElsewhere: HOLE for root-run commands. Round
// 14 detaches /sys/kernel/tracing and /sys/kernel/debug from root runs'
// view (rootOnlyKernelDirs, by path). The same tracefs (a single
// instance: every mount shows the same buffers) and debugfs mounted at
// any other path stay in the read-only view, where uid 0 passes their
// 0700 mode by ownership: a build chroot's `mount --rbind /sys
// chroot/sys` (chroot/sys/kernel/tracing), tracefs mounted by hand
// (`mount -t tracefs nodev /tracing`), debugfs's tracing automount. The
// command reads the host's trace buffers there (other processes'
// system calls and arguments where the host traces them) and consumes
// them through trace_pipe. The test writes a marker into a trace instance
// of its own, mounts the alternatives in a private mount namespace that
// sbx runs in (outside the writable roots: read-only in the view) and
// checks that the sandbox neither reads it nor removes it. Held for uid
// 65534 (EACCES).
//
// Fix direction: detach (or mask) every tracefs and debugfs mount of the
// view by file-system type, not by path (mountinfo or statmount's
// fs_type), in root runs.
func TestRedTeam17KernTracefsElsewhere(t *testing.T) {
	const tracing = "/sys/kernel/tracing"
	if _, err := os.Stat(tracing + "/instances"); err != nil {
		t.Skipf("no tracefs instances here: %v", err)
	}
	inst := "sbxrt17r-" + strconv.Itoa(os.Getpid())
	if err := os.Mkdir(tracing+"/instances/"+inst, 0o700); err != nil {
		t.Skipf("cannot make a trace instance: %v", err)
	}
	t.Cleanup(func() { os.Remove(tracing + "/instances/" + inst) })
	if err := os.WriteFile(tracing+"/instances/"+inst+"/tracing_on", []byte("1\n"), 0); err != nil {
		t.Skipf("tracing_on: %v", err)
	}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		alt := filepath.Join(f.base, "chroot")
		for _, d := range []string{"sys", "tracing", "debug"} {
			os.MkdirAll(filepath.Join(alt, d), 0o755)
		}
		setup := "mount --rbind /sys " + alt + "/sys\n" +
			"mount -t tracefs nodev " + alt + "/tracing\n" +
			"mount -t debugfs nodev " + alt + "/debug || true\n"
		for _, p := range []string{"sys/kernel/tracing", "tracing", "debug/tracing"} {
			t.Run(strings.ReplaceAll(p, "/", "_"), func(t *testing.T) {
				tok := "rt17-trace-marker-" + rt6Token()
				if err := os.WriteFile(tracing+"/instances/"+inst+"/trace_marker", []byte(tok+"\n"), 0); err != nil {
					t.Skipf("trace_marker: %v", err)
				}
				dir := filepath.Join(alt, p, "instances", inst)
				script := "cat " + dir + "/trace; dd if=" + dir + "/trace_pipe bs=65536 count=1 iflag=nonblock 2>/dev/null; echo end"
				r := rt17Run(t, u, f.home, setup, "--profile", "workspace", "--cwd", f.ws, "--", "/bin/sh", "-c", script)
				if !strings.Contains(r.Stdout, "end") {
					t.Fatalf("the script did not run: %q %q", r.Stdout, r.Stderr)
				}
				if strings.Contains(r.Stdout, tok) {
					t.Errorf("uid %d read the host's trace buffer at %s", u.uid, filepath.Join(alt, p))
				}
				if b, _ := os.ReadFile(tracing + "/instances/" + inst + "/trace"); !bytes.Contains(b, []byte(tok)) {
					t.Errorf("uid %d consumed the host's trace buffer at %s (trace_pipe)", u.uid, filepath.Join(alt, p))
				}
				if u.uid != 0 && !strings.Contains(r.Stderr, "Permission denied") {
					t.Errorf("uid %d: want EACCES, got %q", u.uid, r.Stderr)
				}
			})
		}
	})
}

// rt17KernC opens kernel state for writing (never writing a byte) and
// makes system calls that reach outside the caller; it prints name=ok or
// name=ERRNO for each.
const rt17KernC = `
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/klog.h>
#include <termios.h>

static const char *en(int e) {
	switch (e) {
	case EPERM: return "EPERM"; case EACCES: return "EACCES"; case EROFS: return "EROFS";
	case ENOENT: return "ENOENT"; case ENOSYS: return "ENOSYS"; case ENXIO: return "ENXIO";
	case EINVAL: return "EINVAL"; case ENOTTY: return "ENOTTY"; case ESRCH: return "ESRCH";
	case EOPNOTSUPP: return "EOPNOTSUPP"; case EBADF: return "EBADF"; case EBUSY: return "EBUSY";
	}
	static char b[16]; snprintf(b, sizeof b, "E%d", e); return b;
}
static void rep(const char *n, long r) { printf("%s=%s\n", n, r < 0 ? en(errno) : "ok"); }

static void wr(const char *n, const char *path) {
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	rep(n, fd);
	if (fd >= 0) close(fd);
}

int main(int argc, char **argv) {
	if (argc > 1 && !strcmp(argv[1], "files")) {
		wr("sysrq", "/proc/sysrq-trigger");
		wr("core_pattern", "/proc/sys/kernel/core_pattern");
		wr("drop_caches", "/proc/sys/vm/drop_caches");
		wr("hostname_sysctl", "/proc/sys/kernel/hostname");
		wr("init_oom", "/proc/1/oom_score_adj");
		wr("init_clear_refs", "/proc/1/clear_refs");
		wr("init_coredump_filter", "/proc/1/coredump_filter");
		wr("init_attr", "/proc/1/attr/current");
		wr("self_attr_exec", "/proc/self/attr/exec");
		wr("thp", "/sys/kernel/mm/transparent_hugepage/enabled");
		wr("power_state", "/sys/power/state");
		wr("uevent_helper", "/sys/kernel/uevent_helper");
		wr("printk_param", "/sys/module/printk/parameters/time");
		wr("cg2_procs", argv[2]);
		wr("cg2_kill", argv[3]);
		wr("cg2_subtree", argv[4]);
		wr("cg1_procs", argv[5]);
		return 0;
	}
	/* system calls */
	char buf[64];
	rep("syslog_read_all", klogctl(3, buf, sizeof buf));
	rep("syslog_clear", klogctl(5, 0, 0));
	rep("vhangup", syscall(SYS_vhangup));
	rep("sethostname", sethostname("sbxrt17", 7));
	rep("setdomainname", setdomainname("sbxrt17", 7));
	unsigned long mask = 1;
	rep("migrate_pages_init", syscall(SYS_migrate_pages, 1, 64, &mask, &mask));
	void *pg[1] = {(void *)4096}; int st[1];
	rep("move_pages_init", syscall(SYS_move_pages, 1, 1, pg, NULL, st, 0));
	rep("unshare_time", syscall(SYS_unshare, 0x00000080));   /* CLONE_NEWTIME */
	rep("unshare_cgroup", syscall(SYS_unshare, 0x02000000)); /* CLONE_NEWCGROUP */
	rep("sched_idle_init", ({ struct { unsigned size, policy; unsigned long long flags; int nice; unsigned prio; unsigned long long rt, dl, per; unsigned umin, umax; } a = {56, 5 /* SCHED_IDLE */}; syscall(SYS_sched_setattr, 1, &a, 0); }));
	rep("tty_open", open("/dev/tty", O_RDWR | O_NOCTTY));
	rep("tiocsctty_stdout", ioctl(1, TIOCSCTTY, 0));
	rep("tiocgpgrp_stdin", ioctl(0, TIOCGPGRP, buf));
	rep("setsid_again", setsid());
	return 0;
}
`

// TestRedTeam17KernHeld: what held, as both users, under the workspace
// profile (supervised: .git missing in nogit/):
//
//   - opening the host's kernel state for writing (never a byte written):
//     /proc/sysrq-trigger, sysctls (core_pattern, drop_caches, hostname),
//     the init's oom_score_adj, clear_refs, coredump_filter and LSM
//     attributes, /proc/self/attr/exec, transparent hugepages,
//     /sys/power/state, uevent_helper, a module parameter, cgroup2's and
//     cgroup v1's cgroup.procs, cgroup.kill and cgroup.subtree_control of
//     the command's own cgroup: all fail (EROFS or EACCES; the control
//     opens the root-owned ones as root outside the sandbox);
//   - syslog(READ_ALL, CLEAR), vhangup, sethostname, setdomainname: EPERM;
//     migrate_pages, move_pages and sched_setattr(SCHED_IDLE) on the init:
//     EPERM; unshare(CLONE_NEWTIME), unshare(CLONE_NEWCGROUP): EPERM;
//   - under a terminal (script(1) gives sbx a pty for every stream):
//     /dev/tty ENXIO (the command leads its own session, without a
//     controlling terminal), TIOCSCTTY and TIOCGPGRP on its streams
//     ENOTTY (pipes and /dev/null), setsid EPERM (already the leader).
func TestRedTeam17KernHeld(t *testing.T) {
	c := cHelper(t, "rt17kern", rt17KernC)
	cg := rt17Cgroup2()
	own := "/"
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "0::") {
				own = strings.TrimPrefix(l, "0::")
			}
		}
	}
	cgDir := filepath.Join(cg, own)
	cg1 := "/sys/fs/cgroup/pids/cgroup.procs"
	fileArgs := []string{"files", cgDir + "/cgroup.procs", cgDir + "/cgroup.kill", cgDir + "/cgroup.subtree_control", cg1}
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		ctl := rx13Fields(rt16As(u, nil, "/", strings.Join(append([]string{c}, fileArgs...), " ")))
		r := rtRun(t, rtOpts{u: u, args: append([]string{"--cwd", f.nogit, "--", c}, fileArgs...), env: []string{"HOME=" + f.home}})
		if r.SbxError != "" {
			t.Fatalf("sbx: %s", r.SbxError)
		}
		got := rx13Fields(r.Stdout)
		t.Logf("sandbox: %v\ncontrol: %v", got, ctl)
		if len(got) < 17 {
			t.Fatalf("helper output: %q %q", r.Stdout, r.Stderr)
		}
		for k, v := range got {
			if v == "ok" {
				t.Errorf("%s: opened for writing in the sandbox (control outside: %s)", k, ctl[k])
			}
		}
		if u.uid == 0 {
			for _, k := range []string{"core_pattern", "drop_caches", "init_oom"} {
				if ctl[k] != "ok" {
					t.Errorf("control: %s not writable by root outside the sandbox: %s", k, ctl[k])
				}
			}
		}
		want := map[string]string{
			"syslog_read_all": "EPERM", "syslog_clear": "EPERM", "vhangup": "EPERM",
			"sethostname": "EPERM", "setdomainname": "EPERM",
			"migrate_pages_init": "EPERM", "move_pages_init": "EPERM",
			"unshare_time": "EPERM", "unshare_cgroup": "EPERM", "sched_idle_init": "EPERM",
			"tty_open": "ENXIO", "tiocsctty_stdout": "ENOTTY", "tiocgpgrp_stdin": "ENOTTY", "setsid_again": "EPERM",
		}
		// Under a pseudo-terminal: every stream of sbx is the pty.
		if _, err := exec.LookPath("script"); err != nil {
			t.Skip("script is missing")
		}
		sbxArgv := []string{filepath.Join(bin, "sbx"), "run", "--json", "--cwd", f.nogit, "--", c}
		if u.uid != 0 {
			sbxArgv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, sbxArgv...)
		}
		cmd := exec.Command("script", "-qfec", strings.Join(sbxArgv, " "), "/dev/null")
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", "HOME=" + f.home}
		out, _ := cmd.Output()
		i := bytes.IndexByte(out, '{')
		if i < 0 {
			t.Fatalf("no JSON under script: %q", out)
		}
		var rr rtResult
		if err := json.Unmarshal(bytes.TrimSpace(out[i:]), &rr); err != nil {
			t.Fatalf("JSON under script: %v %q", err, out)
		}
		got = rx13Fields(strings.ReplaceAll(rr.Stdout, "\r", ""))
		t.Logf("under a terminal: %v", got)
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: %q, want %s", k, got[k], w)
			}
		}
	})
}

// rt17InotifyC creates inotify instances until the kernel refuses one
// (at most 4096), prints how many, and with a file argument creates that
// file and sleeps 3 s holding them.
const rt17InotifyC = `
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
int main(int argc, char **argv) {
	int n = 0;
	while (n < 4096 && inotify_init1(IN_CLOEXEC) >= 0)
		n++;
	printf("instances=%d errno=%s\n", n, n == 4096 ? "none" : errno == EMFILE ? "EMFILE" : strerror(errno));
	fflush(stdout);
	if (argc > 1) {
		close(open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
		sleep(3);
	}
	return 0;
}
`

// TestRedTeam17KernInotifyUserLimit: HOLE (a denial of service bounded by
// the run's timeout; run as uid 65534 only, since as root it would take
// the host's root services' inotify instances for the test's duration).
// fs.inotify.max_user_instances (128 by default) is counted per user
// across every user namespace (ucounts are charged up the namespace
// chain), and neither the user namespace (uid 65534's runs), the PID
// namespace nor Landlock separate it: a sandboxed command that opens 128
// inotify instances leaves none to the host processes of the same uid
// until it ends. As root that is root's: systemd, udev, journald, file
// managers and editors of root fail inotify_init with EMFILE (systemd's
// path units and daemon reloads break) for as long as the run lasts
// (--timeout 0: indefinitely). The same holds for other per-user kernel
// limits the command shares with the host (pipe buffer pages,
// RLIMIT_MSGQUEUE bytes, inotify watches); the documented limits name CPU,
// memory, processes and advisory locks only.
//
// Fix direction: serve inotify_init/inotify_init1 in the supervisor (or
// count them with a seccomp notification) and cap the instances per run
// well below the per-user limit, or document the shared per-user kernel
// limits under Known limits (as the advisory locks are).
func TestRedTeam17KernInotifyUserLimit(t *testing.T) {
	rt17Holes(t, "per-user kernel limits such as fs.inotify.max_user_instances are shared with the user's host processes (README, Known limits)")
	c := cHelper(t, "rt17inotify", rt17InotifyC)
	u := users[1]
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("setpriv is missing")
	}
	f := newFixture(t, u)
	// Control: outside any run, the user can create an instance.
	if got := rx13Fields(rt16As(u, nil, "/", c))["instances"]; got == "0" || got == "" {
		t.Skipf("uid %d cannot create inotify instances even outside the sandbox: %q", u.uid, got)
	}
	ready := filepath.Join(f.ws, "ready")
	cmd := rtCmd(rtOpts{u: u, args: []string{"--cwd", f.ws, "--", c, ready}, env: []string{"HOME=" + f.home}})
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	for i := 0; i < 500 && !fileExists(ready); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if !fileExists(ready) {
		cmd.Process.Kill()
		t.Fatalf("the sandboxed helper did not start: %s", out.String())
	}
	host := rx13Fields(rt16As(u, nil, "/", c))
	cmd.Wait()
	var r rtResult
	json.Unmarshal(out.Bytes(), &r)
	t.Logf("sandbox: %s; host during the run: %v", strings.TrimSpace(r.Stdout), host)
	if host["instances"] == "0" {
		t.Errorf("during the run, a host process of uid %d could create no inotify instance (%s): the sandbox took the user's whole fs.inotify.max_user_instances", u.uid, host["errno"])
	}
}

// rt17Holes skips a test that reproduces a documented limit unless
// SBX_RT17_HOLES=1.
func rt17Holes(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("SBX_RT17_HOLES") != "1" {
		t.Skip("documented limit: " + what + " (SBX_RT17_HOLES=1 to run)")
	}
}
