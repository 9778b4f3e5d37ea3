//go:build linux && amd64

package launch_test

// Red team 18: a differential, model-based enforcement battery.
//
// For each profile (the built-ins, the example profiles in
// testdata/profiles that compile, and profiles written here), the test
// builds a file tree, computes with a reference model of its own what
// every operation on every path should do, runs all the operations in ONE
// sandboxed command (a small static helper built into bin, one result line
// per operation), and compares each outcome with the model. An identical
// second tree is used for an unsandboxed control run of the same helper as
// the same user: an operation the model allows must give the control's
// result, and one it denies must fail with a denial errno where the
// control succeeded (an operation that fails in the control for another
// reason is not informative and is not judged).
//
// The model is written from the README ("The profile language",
// "Built-in profiles", "Linux enforcement", "Known limits"), not from the
// package's layout code: the most specific rule (the longest path) wins,
// at equal specificity deny beats write beats read, a path no rule covers
// is denied; protected names directly below every writable root are
// read-only and not creatable; deny_glob denies the existing matches
// within max_depth; read and deny rules on symbolic links apply to the
// link and to its target (a read rule on a link in a writable directory
// reaches its target only where the target is writable: red team 19);
// rules follow paths (a hard link has its own
// path's rights). Changing a directory entry (create, remove, rename,
// link) needs write on the entry and on its directory; a hard link must
// not give its file more than write-to-write.
//
// Documented limits (README "Known limits") are flagged per operation:
// such disagreements are reported in a ".../holes" subtest that skips
// unless SBX_RT18_HOLES=1. Documented over-restrictions (EXDEV between
// writable roots, EBUSY on mount points) are accepted where the README
// says so.
//
// Found (minimal reproductions TestRedTeam18DiffRepro*; fixed): a deny_glob
// that matches anywhere counted max_depth from / instead of below the
// readable roots (rt18-glob: {cwd}/k0.key and {home}/k.key were readable
// and writable with "*.key", max_depth 3); a read rule on a symbolic link
// directly in a writable root took creation, removal and renames away
// from the whole root (rt18-symlink: EACCES for create, mkdir, mknod,
// symlink, link, unlink, rmdir, rename in {cwd}), which sbc reported as
// supplementary (links are pinned as mount points now). The battery also
// read the README's max_depth wording as one level deeper than sbx scans;
// the wording was made exact (find's -maxdepth). Held: every other
// profile, both users.
//
//	go test -count=1 -run 'TestRedTeam18Diff' -v ./targets/landlock/launch

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock/launch"
)

// ---------------------------------------------------------------------------
// The helper: reads "ID\tOP\tA\tB" lines from the file named by its
// argument and prints "ID RESULT" (ok or the errno's name) per line.

const rt18HelperSrc = `package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"
)

var names = map[syscall.Errno]string{
	syscall.EACCES: "EACCES", syscall.EPERM: "EPERM", syscall.EROFS: "EROFS", syscall.ENOENT: "ENOENT",
	syscall.EXDEV: "EXDEV", syscall.EBUSY: "EBUSY", syscall.ENOTEMPTY: "ENOTEMPTY", syscall.EEXIST: "EEXIST",
	syscall.EISDIR: "EISDIR", syscall.ENOTDIR: "ENOTDIR", syscall.EINVAL: "EINVAL", syscall.ENOSYS: "ENOSYS",
	syscall.ELOOP: "ELOOP", syscall.ETXTBSY: "ETXTBSY", syscall.EOPNOTSUPP: "EOPNOTSUPP", syscall.ENOEXEC: "ENOEXEC",
	syscall.ENXIO: "ENXIO", syscall.EMLINK: "EMLINK", syscall.ENODATA: "ENODATA",
}

func res(err error) string {
	if err == nil {
		return "ok"
	}
	if e, ok := err.(syscall.Errno); ok {
		if n, ok := names[e]; ok {
			return n
		}
		return fmt.Sprintf("E%d", int(e))
	}
	return "ERR:" + strings.ReplaceAll(err.Error(), " ", "_")
}

func do(op, a, b string) error {
	switch op {
	case "stat":
		var st syscall.Stat_t
		return syscall.Stat(a, &st)
	case "read":
		fd, err := syscall.Open(a, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer syscall.Close(fd)
		var buf [1]byte
		_, err = syscall.Read(fd, buf[:])
		return err
	case "readdir":
		fd, err := syscall.Open(a, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer syscall.Close(fd)
		var buf [4096]byte
		_, err = syscall.ReadDirent(fd, buf[:])
		return err
	case "write":
		fd, err := syscall.Open(a, syscall.O_WRONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err == nil {
			syscall.Close(fd)
		}
		return err
	case "trunc":
		var st syscall.Stat_t
		size := int64(132)
		if syscall.Stat(a, &st) == nil {
			size = st.Size
		}
		return syscall.Truncate(a, size)
	case "create":
		fd, err := syscall.Open(a, syscall.O_CREAT|syscall.O_EXCL|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o644)
		if err == nil {
			syscall.Close(fd)
		}
		return err
	case "mkdir":
		return syscall.Mkdir(a, 0o755)
	case "unlink":
		return syscall.Unlink(a)
	case "rmdir":
		return syscall.Rmdir(a)
	case "rename":
		return syscall.Rename(a, b)
	case "renameback":
		err := syscall.Rename(a, b)
		if err == nil {
			if e2 := syscall.Rename(b, a); e2 != nil {
				fmt.Fprintf(os.Stderr, "cannot rename %s back: %v\n", b, e2)
			}
		}
		return err
	case "link":
		return syscall.Link(a, b)
	case "symlink":
		return syscall.Symlink("z.f", a)
	case "chmod":
		var st syscall.Stat_t
		mode := uint32(0o755)
		if syscall.Stat(a, &st) == nil {
			mode = st.Mode & 0o7777
		}
		return syscall.Chmod(a, mode)
	case "chown":
		return syscall.Chown(a, syscall.Getuid(), syscall.Getgid())
	case "utime":
		p, err := syscall.BytePtrFromString(a)
		if err != nil {
			return err
		}
		_, _, e := syscall.Syscall6(syscall.SYS_UTIMENSAT, uintptr(0xffffffffffffff9c), uintptr(unsafe.Pointer(p)), 0, 0, 0, 0)
		if e != 0 {
			return e
		}
		return nil
	case "xattr":
		return syscall.Setxattr(a, "user.x", []byte("1"), 0)
	case "exec":
		pid, err := syscall.ForkExec(a, []string{a}, &syscall.ProcAttr{Env: []string{}})
		if err != nil {
			return err
		}
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
		return nil
	case "fifo":
		return syscall.Mknod(a, syscall.S_IFIFO|0o644, 0)
	case "tmpfile":
		fd, err := syscall.Open(a, 0x410000|syscall.O_RDWR|syscall.O_CLOEXEC, 0o600)
		if err == nil {
			syscall.Close(fd)
		}
		return err
	}
	return fmt.Errorf("unknown op %s", op)
}

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Println("OPEN", err)
		os.Exit(3)
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		for len(fs) < 4 {
			fs = append(fs, "")
		}
		fmt.Fprintf(out, "%s %s\n", fs[0], res(do(fs[1], fs[2], fs[3])))
	}
	fmt.Fprintln(out, "END")
	out.Flush()
}
`

var (
	rt18HelperOnce sync.Once
	rt18HelperErr  error
)

// rt18Helper builds the helper (static, CGO_ENABLED=0) into bin once.
func rt18Helper(t *testing.T) string {
	t.Helper()
	p := filepath.Join(bin, "rt18helper")
	rt18HelperOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rt18src")
		if err != nil {
			rt18HelperErr = err
			return
		}
		defer os.RemoveAll(dir)
		src := filepath.Join(dir, "main.go")
		if err := os.WriteFile(src, []byte(rt18HelperSrc), 0o644); err != nil {
			rt18HelperErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", p, src)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off", "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			rt18HelperErr = fmt.Errorf("go build helper: %v\n%s", err, out)
		}
		os.Chmod(p, 0o755)
	})
	if rt18HelperErr != nil {
		t.Fatal(rt18HelperErr)
	}
	return p
}

// rt18ELF is a 132-byte static x86-64 program that exits 42: every file of
// the tree is a copy of it, so that any file can be executed.
func rt18ELF() []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	w := func(v any) { binary.Write(&b, le, v) }
	b.Write([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	w(uint16(2))        // ET_EXEC
	w(uint16(0x3e))     // x86-64
	w(uint32(1))        // version
	w(uint64(0x400078)) // entry
	w(uint64(64))       // phoff
	w(uint64(0))        // shoff
	w(uint32(0))        // flags
	w(uint16(64))       // ehsize
	w(uint16(56))       // phentsize
	w(uint16(1))        // phnum
	w(uint16(64))       // shentsize
	w(uint16(0))        // shnum
	w(uint16(0))        // shstrndx
	w(uint32(1))        // PT_LOAD
	w(uint32(5))        // R+X
	w(uint64(0))        // offset
	w(uint64(0x400000)) // vaddr
	w(uint64(0x400000)) // paddr
	w(uint64(132))      // filesz
	w(uint64(132))      // memsz
	w(uint64(0x1000))   // align
	// mov edi,42; mov eax,60; syscall
	b.Write([]byte{0xbf, 42, 0, 0, 0, 0xb8, 60, 0, 0, 0, 0x0f, 0x05})
	return b.Bytes()
}

// ---------------------------------------------------------------------------
// Profiles and the reference model.

const (
	rt18D = iota // deny
	rt18R        // read
	rt18W        // write
)

var rt18AccName = []string{"deny", "read", "write"}

// rt18Rule is a model rule: access on a path, given with the anchors
// {cwd} {home} {tmpdir} {base} {bin} (or absolute), and "/" for root.
type rt18Rule struct {
	acc  int
	path string
	file bool // the rule names a regular file
	prot bool // a protected name's rule (bound profiles: read-only, beats write at its path)
}

type rt18Glob struct {
	pat   string // anchored ({cwd}/..., {home}/...) or "**/..."
	depth int
}

type rt18Prof struct {
	name    string
	builtin bool   // sbx run --profile name
	hclFile string // testdata profile file (compiled by sbc)
	hcl     string // a profile written here (BIN and BASE substituted)
	rules   []rt18Rule
	protect []string
	globs   []rt18Glob
	files   []string          // extra files of the tree (anchored)
	dirs    []string          // extra directories
	links   map[string]string // symbolic links: path -> target
	missing []string          // rule paths left missing
	flags   []string
	// Red team 20 (random profiles): where {home} and {tmpdir} lie below
	// the base ("home" and "tmp" when empty); bound says rules are bound
	// already (canonical paths, links resolved and protected names added
	// by the caller, following the README), pins are the links the
	// binding pins (anchored); onRefusal, when set, is called instead of
	// failing when sbx refuses to run the profile (exit 125).
	homeRel, tmpRel string
	bound           bool
	pins            []string
	onRefusal       func(t *testing.T, r rtResult)
}

func rt18R_(p string) rt18Rule { return rt18Rule{acc: rt18R, path: p} }
func rt18W_(p string) rt18Rule { return rt18Rule{acc: rt18W, path: p} }
func rt18D_(p string) rt18Rule { return rt18Rule{acc: rt18D, path: p} }
func rt18RF(p string) rt18Rule { return rt18Rule{acc: rt18R, path: p, file: true} }
func rt18WF(p string) rt18Rule { return rt18Rule{acc: rt18W, path: p, file: true} }
func rt18DF(p string) rt18Rule { return rt18Rule{acc: rt18D, path: p, file: true} }
func rt18Cat(a ...[]rt18Rule) []rt18Rule {
	var r []rt18Rule
	for _, x := range a {
		r = append(r, x...)
	}
	return r
}

// The built-in profiles, transcribed from README "Built-in profiles" and
// builtin/hcl (read = [root]; write = [cwd, tmpdir, slash_tmp]; protect).
var (
	rt18Workspace        = []rt18Rule{rt18R_("/"), rt18W_("{cwd}"), rt18W_("{tmpdir}"), rt18W_("/tmp")}
	rt18WorkspaceProtect = []string{".git", ".hg", ".sl", ".svn", ".jj", "HEAD", ".agents", ".claude", ".codex", ".gemini", ".cursor", ".vscode", ".mcp.json"}
	// platform_defaults binds to these, those that exist (README "Base
	// allowances").
	rt18Platform = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"}
)

func rt18PlatformRules() []rt18Rule {
	var r []rt18Rule
	for _, p := range rt18Platform {
		if _, err := os.Lstat(p); err == nil {
			r = append(r, rt18R_(p))
		}
	}
	return r
}

func rt18Profiles() []rt18Prof {
	pd := rt18PlatformRules()
	bin := []rt18Rule{rt18R_("{bin}")}
	return []rt18Prof{
		// Built-ins.
		{name: "read-only", builtin: true, rules: []rt18Rule{rt18R_("/")}},
		{name: "workspace", builtin: true, rules: rt18Workspace, protect: rt18WorkspaceProtect},
		{name: "workspace-net", builtin: true, rules: rt18Workspace, protect: rt18WorkspaceProtect},
		{name: "network-off", builtin: true, rules: []rt18Rule{rt18W_("/")}},
		{name: "danger-full-access", builtin: true, rules: []rt18Rule{rt18W_("/")}},

		// testdata/profiles (transcribed by hand, extends merged).
		{name: "monorepo", hclFile: "carveouts.hcl",
			rules: []rt18Rule{rt18R_("/"), rt18R_("{cwd}/vendor"), rt18RF("{cwd}/vendor/generated/.keep"),
				rt18W_("{cwd}"), rt18W_("{cwd}/vendor/generated"), rt18W_("{tmpdir}"),
				rt18DF("/etc/shadow"), rt18DF("{home}/.netrc")},
			protect: []string{".git"},
			files:   []string{"{cwd}/vendor/lib.go", "{cwd}/src/main.go"}},
		{name: "dev", hclFile: "dev.hcl",
			rules: rt18Cat(rt18Workspace, []rt18Rule{rt18R_("/"), rt18W_("{cwd}"), rt18W_("{tmpdir}"), rt18W_("/var/cache/build"),
				rt18D_("{home}/.ssh"), rt18D_("{home}/.aws"), rt18DF("{cwd}/.env")}),
			protect: rt18WorkspaceProtect,
			globs:   []rt18Glob{{"**/*.pem", 8}},
			files: []string{"{home}/.ssh/id_rsa", "{cwd}/x.pem", "{cwd}/d1/y.pem", "{tmpdir}/t.pem",
				"{cwd}/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/deep.pem"},
			missing: []string{"{home}/.aws"}},
		{name: "web-dev", hclFile: "ports.hcl", rules: rt18Workspace, protect: rt18WorkspaceProtect},
		{name: "git-ssh", hclFile: "sockets.hcl", rules: rt18Workspace, protect: rt18WorkspaceProtect},
		{name: "local-build", hclFile: "sockets.hcl", rules: rt18Workspace, protect: rt18WorkspaceProtect},
		{name: "base", hclFile: "team.hcl", rules: []rt18Rule{rt18R_("/"), rt18W_("{cwd}")}, protect: []string{".git"}},
		{name: "ci", hclFile: "team.hcl", rules: []rt18Rule{rt18R_("/"), rt18W_("{cwd}"), rt18W_("{tmpdir}")}, protect: []string{".git"}},
		{name: "ci-release", hclFile: "team.hcl", rules: []rt18Rule{rt18R_("/"), rt18W_("{cwd}"), rt18W_("{tmpdir}"), rt18W_("/var/cache/release")}, protect: []string{".git"}},
		{name: "agent", hclFile: "team.hcl",
			rules: rt18Cat(rt18Workspace, []rt18Rule{rt18D_("{home}/.ssh"), rt18D_("{home}/.aws"), rt18D_("{home}/.config/gcloud"),
				rt18DF("{home}/.netrc"), rt18DF("{cwd}/.env")}),
			protect: rt18WorkspaceProtect,
			globs:   []rt18Glob{{"**/*.pem", 8}, {"{home}/**/id_*", 4}},
			files: []string{"{home}/.ssh/id_rsa", "{home}/.config/gcloud/creds", "{home}/id_a", "{home}/d1/d2/id_b",
				"{home}/d1/d2/d3/d4/d5/d6/id_c", "{cwd}/k.pem"},
			dirs:    []string{"{home}/.aws"},
			missing: []string{"{home}/.netrc", "{cwd}/.env"}},

		// Profiles written here.
		{name: "rt18-nest", // nested read/write/deny at five levels, rules on files
			hcl: `profile "rt18-nest" {
  filesystem {
    read  = [platform_defaults, "BIN", path(cwd, "a", "ro"), path(cwd, "a", "ro", "rw", "keep.txt"), home]
    write = [cwd, path(cwd, "a", "ro", "rw"), path(cwd, "a", "ro", "rw", "deep", "w2"), path(home, "notes.txt")]
    deny  = [path(cwd, "a", "ro", "rw", "deep"), path(home, "secret.txt"), path(cwd, "a", "sec.txt")]
  }
}`,
			rules: rt18Cat(pd, bin, []rt18Rule{rt18R_("{cwd}/a/ro"), rt18RF("{cwd}/a/ro/rw/keep.txt"), rt18R_("{home}"),
				rt18W_("{cwd}"), rt18W_("{cwd}/a/ro/rw"), rt18W_("{cwd}/a/ro/rw/deep/w2"), rt18WF("{home}/notes.txt"),
				rt18D_("{cwd}/a/ro/rw/deep"), rt18DF("{home}/secret.txt"), rt18DF("{cwd}/a/sec.txt")})},
		{name: "rt18-rootnest", // read root; deny > read > write inside a writable root; protected names present and missing
			hcl: `profile "rt18-rootnest" {
  filesystem {
    read    = [root, path(cwd, "priv", "pub")]
    write   = [cwd, tmpdir, path(cwd, "priv", "pub", "drop")]
    deny    = [path(cwd, "priv"), path(home, ".netrc"), "BASE/out/hidden"]
    protect = [".git", ".cfg"]
  }
}`,
			rules: []rt18Rule{rt18R_("/"), rt18R_("{cwd}/priv/pub"), rt18W_("{cwd}"), rt18W_("{tmpdir}"), rt18W_("{cwd}/priv/pub/drop"),
				rt18D_("{cwd}/priv"), rt18DF("{home}/.netrc"), rt18D_("{base}/out/hidden")},
			protect: []string{".git", ".cfg"},
			files:   []string{"{cwd}/priv/key", "{cwd}/priv/pub/readme"}},
		{name: "rt18-protect", // nested writable roots; protected names as dirs, files and missing; missing denied names
			hcl: `profile "rt18-protect" {
  filesystem {
    read    = [root]
    write   = [cwd, path(cwd, "sub"), tmpdir]
    deny    = [path(cwd, ".env"), path(cwd, "sub", ".env")]
    protect = [".git", ".agents", "CONFIG"]
  }
}`,
			rules: []rt18Rule{rt18R_("/"), rt18W_("{cwd}"), rt18W_("{cwd}/sub"), rt18W_("{tmpdir}"),
				rt18DF("{cwd}/.env"), rt18DF("{cwd}/sub/.env")},
			protect: []string{".git", ".agents", "CONFIG"},
			files:   []string{"{cwd}/.agents", "{cwd}/sub/CONFIG", "{cwd}/sub/.env"},
			missing: []string{"{cwd}/.env"}},
		{name: "rt18-glob", // deny_glob with max_depth, anchored and anywhere, narrow roots
			hcl: `profile "rt18-glob" {
  filesystem {
    read      = [platform_defaults, "BIN", home]
    write     = [cwd]
    deny_glob = [{ pattern = "*.key", max_depth = 3 }, { pattern = "{cwd}/**/secret_*", max_depth = 2 }, "{home}/**/id_*"]
  }
}`,
			rules: rt18Cat(pd, bin, []rt18Rule{rt18R_("{home}"), rt18W_("{cwd}")}),
			globs: []rt18Glob{{"**/*.key", 3}, {"{cwd}/**/secret_*", 2}, {"{home}/**/id_*", 8}},
			files: []string{"{cwd}/k0.key", "{cwd}/d1/d2/d3/k3.key", "{cwd}/d1/d2/d3/d4/k4.key",
				"{cwd}/secret_a", "{cwd}/d1/d2/secret_b", "{cwd}/d1/d2/d3/secret_c",
				"{home}/id_a", "{home}/d1/id_b", "{home}/e1/e2/e3/e4/e5/e6/e7/e8/e9/id_deep", "{home}/k.key"}},
		{name: "rt18-symlink", // read and deny rules on symbolic links
			hcl: `profile "rt18-symlink" {
  filesystem {
    read  = [platform_defaults, "BIN", path(cwd, "notes"), path(cwd, "pub.lnk"), path(home, "dotfiles"), path(home, "cfg.lnk")]
    write = [cwd]
    deny  = [path(home, ".ssh"), path(home, ".aws")]
  }
}`,
			rules: rt18Cat(pd, bin, []rt18Rule{rt18R_("{cwd}/notes"), rt18R_("{cwd}/pub.lnk"), rt18R_("{home}/dotfiles"),
				rt18RF("{home}/cfg.lnk"), rt18W_("{cwd}"), rt18D_("{home}/.ssh"), rt18D_("{home}/.aws")}),
			files: []string{"{home}/.ssh/id_rsa", "{home}/pub/readme", "{home}/dotfiles/aws/credentials", "{home}/dotfiles/vimrc",
				"{home}/priv/real.cfg", "{home}/priv/other.cfg"},
			links: map[string]string{"{cwd}/notes": "{home}/.ssh", "{cwd}/pub.lnk": "../home/pub",
				"{home}/.aws": "dotfiles/aws", "{home}/cfg.lnk": "priv/real.cfg"}},
		{name: "rt18-files", // rules on files only, in read, write and uncovered directories
			hcl: `profile "rt18-files" {
  filesystem {
    read  = [platform_defaults, "BIN", cwd, path(tmpdir, "r.txt"), "BASE/out/only.txt"]
    write = [path(cwd, "w.txt"), tmpdir, path(cwd, "sub", "w2.txt")]
    deny  = [path(cwd, "d.txt"), path(tmpdir, "d.txt")]
  }
}`,
			rules: rt18Cat(pd, bin, []rt18Rule{rt18R_("{cwd}"), rt18RF("{tmpdir}/r.txt"), rt18RF("{base}/out/only.txt"),
				rt18WF("{cwd}/w.txt"), rt18W_("{tmpdir}"), rt18WF("{cwd}/sub/w2.txt"), rt18DF("{cwd}/d.txt"), rt18DF("{tmpdir}/d.txt")}),
			files: []string{"{cwd}/plain.txt", "{cwd}/sub/other.txt", "{base}/out/x.txt"}},
	}
}

// rt18Model is the reference model of one profile bound to one tree.
type rt18Model struct {
	rules      []rt18Rule // bound, absolute; protected names included
	prot       map[string]bool
	globDeny   map[string]bool // existing files a glob denies
	globHole   map[string]bool // existing matches deeper than max_depth
	globs      []rt18Glob      // bound patterns
	writeRoots []string
	isRule     map[string]bool
	pinned     map[string]bool // links pinned as mount points (bound profiles)
}

// best returns the most specific rule covering p (index, or -1).
func (m *rt18Model) best(p string) int {
	bi, bl, bk := -1, -1, -1
	for i, r := range m.rules {
		if !(p == r.path || r.path == "/" || strings.HasPrefix(p, r.path+"/")) {
			continue
		}
		l := len(r.path)
		if r.path == "/" {
			l = 0
		}
		// At equal specificity deny beats write beats read; a protected
		// name (read-only below a writable root) beats write.
		k := []int{rt18D: 3, rt18R: 0, rt18W: 1}[r.acc]
		if m.prot[r.path] && r.acc == rt18R {
			k = 2
		}
		if l > bl || (l == bl && k > bk) {
			bi, bl, bk = i, l, k
		}
	}
	return bi
}

// acc is the access of path p (canonical).
func (m *rt18Model) acc(p string) int {
	for q := p; ; q = path.Dir(q) {
		if m.globDeny[q] {
			return rt18D
		}
		if q == "/" || q == "." {
			break
		}
	}
	i := m.best(p)
	if i < 0 {
		return rt18D // a path no rule covers is denied
	}
	return m.rules[i].acc
}

func (m *rt18Model) W(p string) bool { return m.acc(p) == rt18W }
func (m *rt18Model) R(p string) bool { return m.acc(p) >= rt18R }

// root is the writable rule that governs p ("" when none).
func (m *rt18Model) root(p string) string {
	best := ""
	for _, w := range m.writeRoots {
		if (p == w || w == "/" || strings.HasPrefix(p, w+"/")) && len(w) >= len(best) {
			best = w
		}
	}
	return best
}

// governing is a key of the most specific rule of p (for choosing
// representatives).
func (m *rt18Model) governing(p string) string {
	i := m.best(p)
	if i < 0 {
		return "none"
	}
	return m.rules[i].path
}

// globMatch matches path components against pattern components.
func rt18GlobMatch(pat, p []string) bool {
	if len(pat) == 0 {
		return len(p) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(p); i++ {
			if rt18GlobMatch(pat[1:], p[i:]) {
				return true
			}
		}
		return false
	}
	if len(p) == 0 {
		return false
	}
	ok, _ := path.Match(pat[0], p[0])
	return ok && rt18GlobMatch(pat[1:], p[1:])
}

func rt18Split(p string) []string {
	return strings.Split(strings.Trim(p, "/"), "/")
}

// globStatus says whether file p matches a glob, and whether within
// max_depth (README "deny_glob patterns": max_depth bounds a match's depth
// as find's -maxdepth does, an entry of the anchor being at depth 1, below
// the pattern's anchor, or below any readable root for a pattern that
// matches anywhere).
func (m *rt18Model) globStatus(p string) (match, within bool) {
	for _, g := range m.globs {
		if !rt18GlobMatch(rt18Split(g.pat), rt18Split(p)) {
			continue
		}
		match = true
		if m.isRule[p] {
			// README "Known non-exact rules", deny_glob: a rule's own
			// path that a pattern matches is denied whatever max_depth
			// says.
			within = true
		}
		var anchors []string
		if strings.HasPrefix(g.pat, "**/") {
			for _, r := range m.rules {
				if r.acc != rt18D && !r.file && !m.prot[r.path] {
					anchors = append(anchors, r.path)
				}
			}
		} else {
			var a []string
			for _, c := range rt18Split(g.pat) {
				if strings.ContainsAny(c, "*?[") {
					break
				}
				a = append(a, c)
			}
			anchors = []string{"/" + strings.Join(a, "/")}
		}
		for _, a := range anchors {
			if a != "/" && !strings.HasPrefix(p, a+"/") {
				continue
			}
			rel := strings.TrimPrefix(p, a)
			depth := len(rt18Split(rel))
			if depth <= g.depth {
				within = true
			}
		}
	}
	return
}

// ---------------------------------------------------------------------------
// The tree and the operations.

const (
	rt18Allow = iota
	rt18Deny
	rt18Either
)

type rt18Op struct {
	id     int
	phase  int
	kind   string
	a, b   string
	want   int
	hole   string // a README Known limits entry that explains a disagreement
	tol    []string
	tolWhy string
	desc   string
}

type rt18Gen struct {
	base, stmp, bin string
	anch            *strings.Replacer
	m               *rt18Model
	dirs            []string
	dirSet          map[string]bool
	files           map[string]bool
	fileList        []string
	symlinks        [][2]string
	hardlinks       [][2]string
	ops             []*rt18Op
	dirPoints       []string
	filePoints      []string
	seenPoint       map[string]bool
	isLink          map[string]string // symlink path -> canonical target
	linkHop         map[string]string // symlink path -> what it names (one hop)
}

func (g *rt18Gen) in(p string) bool {
	for _, b := range []string{g.base, g.stmp} {
		if p == b || strings.HasPrefix(p, b+"/") {
			return true
		}
	}
	return false
}

func (g *rt18Gen) dir(p string) {
	if g.dirSet[p] || g.files[p] {
		return
	}
	if par := path.Dir(p); g.in(par) {
		g.dir(par)
	}
	g.dirSet[p] = true
	g.dirs = append(g.dirs, p)
}

func (g *rt18Gen) file(p string) {
	if g.files[p] {
		return
	}
	g.dir(path.Dir(p))
	g.files[p] = true
	g.fileList = append(g.fileList, p)
}

func (g *rt18Gen) op(phase int, kind, a, b string, want int, desc string) *rt18Op {
	o := &rt18Op{phase: phase, kind: kind, a: a, b: b, want: want, desc: desc}
	g.ops = append(g.ops, o)
	return o
}

func rt18B(ok bool) int {
	if ok {
		return rt18Allow
	}
	return rt18Deny
}

const (
	rt18TolNoCreate  = "README Known non-exact rules: a protected or narrower name missing deeper than a writable root's direct children: the nearest existing directory (and every writable grant above it) loses the creation rights (restrictive, no_create)"
	rt18HoleMeta     = "Known limits: Metadata outside the read rules is visible (stat works on any path; masked paths show the mask's entry)"
	rt18HoleGlob     = "Known limits: deny_glob on Linux masks what a scan finds at start (up to max_depth); files created later that match are not denied"
	rt18HoleFileRule = "red team 20 finding, not documented (TestRedTeam20ReproFileRuleHardLink): a read or write rule on a file is a Landlock rule on its inode, so every hard link of the file has the rule's access, also where the link's own path is denied"
	rt18HoleHard     = "Known limits: Rules follow paths, not files (an existing hard link reaches the file with its own tree's rights)"
	rt18TolXdev      = "README: a writable root nested in another one is made a mount point (renames between them then fail with EXDEV, as between any two roots)"
	rt18TolBusy      = "README: read-only bind / writable roots are mount points: rename/replace of the carve-out -> EBUSY; pinned directories -> EBUSY"
)

// readOps are the non-modifying operations and metadata changes on a
// file: op is the path used, canon its canonical path.
func (g *rt18Gen) fileOps(op, canon, desc string) {
	m := g.m
	a := m.acc(canon)
	st := g.op(1, "stat", op, "", rt18B(a >= rt18R), desc)
	if a == rt18D {
		st.hole = rt18HoleMeta
	}
	g.op(1, "read", op, "", rt18B(a >= rt18R), desc)
	g.op(1, "exec", op, "", rt18B(a >= rt18R), desc)
	g.op(1, "write", op, "", rt18B(a == rt18W), desc)
	g.op(1, "trunc", op, "", rt18B(a == rt18W), desc)
	g.op(1, "chmod", op, "", rt18B(a == rt18W), desc)
	g.op(1, "chown", op, "", rt18B(a == rt18W), desc)
	g.op(1, "utime", op, "", rt18B(a == rt18W), desc)
	g.op(1, "xattr", op, "", rt18B(a == rt18W), desc)
	if g.m.globHole[canon] {
		for _, o := range g.ops[len(g.ops)-9:] {
			if o.want == rt18Allow {
				o.want, o.hole = rt18Deny, rt18HoleGlob+" (deeper than max_depth)"
			}
		}
	}
}

// entryWant is the model for changing the entry p in its directory: write
// on both. A rule path (or a path with rules below it) may be a mount
// point: EBUSY is then accepted.
func (g *rt18Gen) entryWant(o *rt18Op, p string) {
	m := g.m
	o.want = rt18B(m.W(p) && m.W(path.Dir(p)))
	if m.pinned[p] {
		// README Known limits: a rule through a link on the way applies
		// to the target and pins the link (it cannot be removed or
		// replaced).
		o.want = rt18Deny
	}
	if o.want == rt18Allow && g.hasRuleAtOrBelow(p) {
		o.tol, o.tolWhy = []string{"EBUSY"}, rt18TolBusy
	}
}

func (g *rt18Gen) hasRuleAtOrBelow(p string) bool {
	for _, r := range g.m.rules {
		if r.path == p || strings.HasPrefix(r.path, p+"/") {
			if _, err := os.Lstat(r.path); err == nil || g.dirSet[r.path] || g.files[r.path] {
				return true
			}
		}
	}
	return false
}

// createWant is the model for creating name p (op path opP): write on the
// new entry and on its directory; a new name matching a deny_glob is
// denied by the language but not by Linux (documented).
func (g *rt18Gen) createWant(o *rt18Op, p string) {
	m := g.m
	o.want = rt18B(m.W(p) && m.W(path.Dir(p)))
	if o.want == rt18Allow {
		if match, _ := m.globStatus(p); match {
			o.want, o.hole = rt18Deny, rt18HoleGlob
		}
	}
}

// dirPoint adds a directory test point with its standard contents.
func (g *rt18Gen) dirPoint(d, desc string) {
	if g.seenPoint[d] || !g.in(d) {
		return
	}
	if _, isLink := g.isLink[d]; isLink {
		return
	}
	g.seenPoint[d] = true
	g.dir(d)
	g.dirPoints = append(g.dirPoints, d)
	for _, f := range []string{"z.f", "z.u", "z.u2", "z.m"} {
		g.file(d + "/" + f)
	}
	for _, s := range []string{"z.r", "z.r2", "z.md"} {
		g.dir(d + "/" + s)
	}
	g.dirOps(d, d, desc)
	g.entryOps(d, true, desc)
}

// dirOps are the operations on a directory (op path op, canonical canon).
func (g *rt18Gen) dirOps(op, canon, desc string) {
	m := g.m
	a := m.acc(canon)
	for _, p := range []string{op, op + "/", op + "/."} {
		st := g.op(1, "stat", p, "", rt18B(a >= rt18R), desc)
		if a == rt18D {
			st.hole = rt18HoleMeta
		}
		g.op(1, "readdir", p, "", rt18B(a >= rt18R), desc)
	}
	g.fileOps(op+"/z.f", canon+"/z.f", desc+" z.f")
	g.op(1, "read", op+"/./z.f", "", rt18B(m.R(canon+"/z.f")), desc+" /./")
	g.op(1, "write", op+"/./z.f", "", rt18B(m.W(canon+"/z.f")), desc+" /./")
	for _, k := range []string{"chmod", "chown", "utime", "xattr"} {
		g.op(1, k, op, "", rt18B(a == rt18W), desc+" (the directory)")
	}
	// Creation.
	for _, c := range []struct{ kind, name, suffix string }{
		{"create", "z.n.f", ""}, {"create", "./z.n.f2", ""}, {"mkdir", "z.n.d", ""}, {"mkdir", "z.n.d2", "/"},
		{"fifo", "z.n.p", ""}, {"symlink", "z.n.s", ""},
	} {
		o := g.op(2, c.kind, op+"/"+c.name+c.suffix, "", 0, desc)
		g.createWant(o, canon+"/"+strings.TrimPrefix(c.name, "./"))
	}
	g.op(2, "tmpfile", op, "", rt18B(a == rt18W), desc)
	o := g.op(2, "link", op+"/z.f", op+"/z.n.l", 0, desc)
	o.want = rt18B(m.W(canon+"/z.f") && m.W(canon) && m.W(canon+"/z.n.l"))
	for _, g2 := range m.globs {
		last := rt18Split(g2.pat)
		name := strings.Replace(last[len(last)-1], "*", "rt18", 1)
		o := g.op(2, "create", op+"/"+name, "", 0, desc+" glob name")
		g.createWant(o, canon+"/"+name)
	}
	// Renames within the directory, and back.
	for _, n := range []string{"z.m", "z.md"} {
		o := g.op(4, "renameback", op+"/"+n, op+"/"+n+".mv", 0, desc)
		o.want = rt18B(m.W(canon+"/"+n) && m.W(canon) && m.W(canon+"/"+n+".mv"))
	}
	// Removals.
	for _, r := range []struct{ kind, p, name string }{
		{"unlink", "/z.u", "z.u"}, {"unlink", "/./z.u2", "z.u2"}, {"rmdir", "/z.r", "z.r"}, {"rmdir", "/z.r2/", "z.r2"},
	} {
		o := g.op(5, r.kind, op+r.p, "", 0, desc)
		g.entryWant(o, canon+"/"+r.name)
	}
}

// entryOps change the directory entry p itself (last phases): rmdir of a
// non-empty directory is ENOTEMPTY once permitted.
func (g *rt18Gen) entryOps(p string, isDir bool, desc string) {
	if p == g.base || p == g.stmp {
		return // the tree's own roots
	}
	o := g.op(5, "renameback", p, p+".rt18mv", 0, desc+" (entry)")
	g.entryWant(o, p)
	o.want2(g, p)
	if isDir {
		o := g.op(5, "rmdir", p, "", 0, desc+" (entry)")
		g.entryWant(o, p)
		o.want2(g, p)
	} else {
		o := g.op(6, "unlink", p, "", 0, desc+" (entry)")
		g.entryWant(o, p)
		o.want2(g, p)
	}
}

// want2: moving or removing a directory that holds rules below it changes
// what those rules cover; the README does not say what happens (the masks
// move with it), so any outcome is recorded, not judged.
func (o *rt18Op) want2(g *rt18Gen, p string) {
	if o.want != rt18Allow {
		return
	}
	for _, r := range g.m.rules {
		if strings.HasPrefix(r.path, p+"/") {
			o.want = rt18Either
			return
		}
	}
	// Files a deny_glob masks are masks too (mount points below p).
	for f := range g.m.globDeny {
		if strings.HasPrefix(f, p+"/") {
			o.want = rt18Either
			return
		}
	}
}

// filePoint adds a file test point.
func (g *rt18Gen) filePoint(p, desc string) {
	if g.seenPoint[p] || !g.in(p) {
		return
	}
	if _, isLink := g.isLink[p]; isLink {
		return
	}
	g.seenPoint[p] = true
	g.file(p)
	g.filePoints = append(g.filePoints, p)
	g.fileOps(p, p, desc)
	d := path.Dir(p)
	o := g.op(1, "read", d+"/./"+path.Base(p), "", rt18B(g.m.R(p)), desc+" /./")
	if g.m.globHole[p] {
		o.want, o.hole = rt18Deny, rt18HoleGlob+" (deeper than max_depth)"
	}
	o = g.op(2, "link", p, d+"/z.lf."+path.Base(p), 0, desc)
	o.want = rt18B(g.m.W(p) && g.m.W(d) && g.m.W(d+"/z.lf."+path.Base(p)))
	if o.want == rt18Allow && g.hasRuleAtOrBelow(p) {
		o.tol, o.tolWhy = []string{"EXDEV"}, rt18TolXdev
	}
	g.entryOps(p, false, desc)
}

// missingOps try to create the missing name p (a protected or denied path
// that does not exist).
func (g *rt18Gen) missingOps(p, desc string) {
	if !g.in(p) {
		return
	}
	d := path.Dir(p)
	g.dir(d)
	for _, c := range []struct{ kind, a string }{
		{"create", p}, {"create", d + "/./" + path.Base(p)}, {"mkdir", p}, {"mkdir", p + "/"}, {"fifo", p}, {"symlink", p},
	} {
		o := g.op(2, c.kind, c.a, "", 0, desc+" (missing)")
		g.createWant(o, p)
	}
	src := d + "/z.mv." + strings.TrimPrefix(path.Base(p), ".")
	g.file(src)
	o := g.op(3, "rename", src, p, 0, desc+" (missing)")
	o.want = rt18B(g.m.W(src) && g.m.W(d) && g.m.W(p))
	g.file(d + "/z.f")
	o = g.op(3, "link", d+"/z.f", p, 0, desc+" (missing)")
	o.want = rt18B(g.m.W(d+"/z.f") && g.m.W(d) && g.m.W(p))
}

// viaSymlink: operations through the symbolic link l (planted or a rule
// path) whose canonical target is canon (a directory or a file point).
func (g *rt18Gen) viaSymlink(l, canon string, isDir bool, desc string) {
	m := g.m
	if isDir {
		for _, p := range []string{l, l + "/"} {
			g.op(1, "readdir", p, "", rt18B(m.R(canon)), desc)
		}
		g.fileOps(l+"/z.f", canon+"/z.f", desc+" z.f")
		n := path.Base(l)
		o := g.op(2, "create", l+"/z.sn."+n, "", 0, desc)
		g.createWant(o, canon+"/z.sn."+n)
		o = g.op(2, "mkdir", l+"/z.sd."+n, "", 0, desc)
		g.createWant(o, canon+"/z.sd."+n)
		g.file(canon + "/z.su." + n)
		o = g.op(5, "unlink", l+"/z.su."+n, "", 0, desc)
		g.entryWant(o, canon+"/z.su."+n)
		// Missing protected or denied names in the target, by the link.
		for _, r := range m.rules {
			if _, isLink := g.isLink[r.path]; isLink {
				continue // an existing link, not a missing name
			}
			if path.Dir(r.path) == canon && !g.dirSet[r.path] && !g.files[r.path] && g.in(r.path) {
				if _, err := os.Lstat(r.path); err != nil {
					o := g.op(2, "mkdir", l+"/"+path.Base(r.path), "", 0, desc+" missing "+path.Base(r.path))
					g.createWant(o, r.path)
				}
			}
		}
	} else {
		g.fileOps(l, canon, desc)
	}
}

// rt18Build makes the model, the tree spec and the operations for prof
// on a tree at base (and stmp below /tmp).
func rt18Build(prof rt18Prof, base, stmp, bin string) *rt18Gen {
	homeRel, tmpRel := rt18Rel(prof.homeRel, "home"), rt18Rel(prof.tmpRel, "tmp")
	anch := strings.NewReplacer("{cwd}", base+"/ws", "{home}", base+"/"+homeRel, "{tmpdir}", base+"/"+tmpRel, "{base}", base, "{bin}", bin)
	g := &rt18Gen{base: base, stmp: stmp, bin: bin, anch: anch, dirSet: map[string]bool{}, files: map[string]bool{},
		seenPoint: map[string]bool{}, isLink: map[string]string{}, linkHop: map[string]string{}}
	m := &rt18Model{prot: map[string]bool{}, globDeny: map[string]bool{}, globHole: map[string]bool{}, isRule: map[string]bool{}, pinned: map[string]bool{}}
	g.m = m
	missing := map[string]bool{}
	for _, p := range prof.missing {
		missing[anch.Replace(p)] = true
	}
	// The tree's fixed part.
	for _, d := range []string{base + "/ws", base + "/home", base + "/tmp", base + "/out", stmp, base + "/" + homeRel, base + "/" + tmpRel} {
		g.dir(d)
	}
	g.file(base + "/ws/.git/config")
	g.file(base + "/home/readme")
	for _, f := range prof.files {
		g.file(anch.Replace(f))
	}
	for _, d := range prof.dirs {
		g.dir(anch.Replace(d))
	}
	linkTargets := map[string]string{}
	for l, t := range prof.links {
		lp := anch.Replace(l)
		tp := anch.Replace(t)
		canon := tp
		if !strings.HasPrefix(tp, "/") {
			canon = path.Join(path.Dir(lp), tp)
		}
		linkTargets[lp] = tp
		g.isLink[lp] = canon
		g.linkHop[lp] = canon
	}
	// A link whose target passes through another link: its canonical
	// target (red team 20's chains).
	for lp, c := range g.isLink {
		g.isLink[lp] = rt18Canon(g.isLink, c)
	}
	for _, p := range prof.pins {
		m.pinned[anch.Replace(p)] = true
	}
	// The rules as written, links not followed: what decides whether the
	// command could have planted a link (its directory is writable).
	orig := &rt18Model{prot: map[string]bool{}, isRule: map[string]bool{}}
	for _, r := range prof.rules {
		r.path = anch.Replace(r.path)
		orig.rules = append(orig.rules, r)
	}
	// Bound rules: rule paths in the tree exist unless missing; read and
	// deny rules on a link apply to the link and to its target (README
	// Known limits: "Read and deny rules may name links"), except that a
	// read rule on a link in a writable directory grants its target
	// nothing unless the target is writable anyway ("A link in a writable
	// directory grants nothing").
	for _, r := range prof.rules {
		r.path = anch.Replace(r.path)
		if prof.bound {
			// Bound by the caller: rules on links keep the link's path
			// (never created as a directory here), the others are
			// canonical.
			m.rules = append(m.rules, r)
			m.isRule[r.path] = true
			if r.prot {
				m.prot[r.path] = true
			}
			if r.acc == rt18W && !r.file {
				m.writeRoots = append(m.writeRoots, r.path)
			}
			if _, isLink := g.isLink[r.path]; !isLink && g.in(r.path) && !missing[r.path] {
				if r.file || g.files[r.path] {
					g.file(r.path)
				} else {
					g.dir(r.path)
				}
			}
			continue
		}
		if t, ok := g.isLink[r.path]; ok {
			m.rules = append(m.rules, r)
			m.isRule[r.path] = true
			if r.acc == rt18R && orig.W(path.Dir(r.path)) && !orig.W(t) {
				continue
			}
			r.path = t
			if g.files[t] {
				r.file = true
			}
		}
		m.rules = append(m.rules, r)
		m.isRule[r.path] = true
		if r.acc == rt18W && !r.file {
			m.writeRoots = append(m.writeRoots, r.path)
		}
		if g.in(r.path) && !missing[r.path] {
			if r.file || g.files[r.path] {
				g.file(r.path)
			} else {
				g.dir(r.path)
			}
		}
	}
	// A write rule that a deny rule on the same path overrides makes no
	// writable root, so nothing is protected inside the denied tree
	// (README "filesystem", protect).
	roots := m.writeRoots[:0]
	for _, w := range m.writeRoots {
		overridden := false
		for _, r := range m.rules {
			if r.acc == rt18D && r.path == w {
				overridden = true
			}
		}
		if !overridden {
			roots = append(roots, w)
		}
	}
	m.writeRoots = roots
	// Protected names, directly below every writable root.
	for _, w := range m.writeRoots {
		for _, n := range prof.protect {
			p := path.Join(w, n)
			m.rules = append(m.rules, rt18Rule{acc: rt18R, path: p})
			m.prot[p] = true
			m.isRule[p] = true
		}
	}
	// And in every writable directory between a writable root and
	// another one nested in it (README "filesystem", protect: the folders
	// above a workspace inside /tmp, where git looks for a repository).
	var writes []string
	isWrite := map[string]bool{}
	for _, r := range m.rules {
		if r.acc != rt18W || r.file || isWrite[r.path] {
			continue
		}
		overridden := false
		for _, d := range m.rules {
			overridden = overridden || d.acc == rt18D && d.path == r.path
		}
		if !overridden {
			writes = append(writes, r.path)
			isWrite[r.path] = true
		}
	}
	var between []string
	seenBetween := map[string]bool{}
	for _, in := range writes {
		for _, out := range writes {
			if out == in || !(out == "/" || strings.HasPrefix(in, out+"/")) {
				continue
			}
			for d := path.Dir(in); d != out && (out == "/" || strings.HasPrefix(d, out+"/")); d = path.Dir(d) {
				if !seenBetween[d] && !isWrite[d] && m.W(d) {
					between = append(between, d)
				}
				seenBetween[d] = true
			}
		}
	}
	for _, d := range between {
		for _, n := range prof.protect {
			p := path.Join(d, n)
			m.rules = append(m.rules, rt18Rule{acc: rt18R, path: p})
			m.prot[p] = true
			m.isRule[p] = true
		}
	}
	for _, gl := range prof.globs {
		m.globs = append(m.globs, rt18Glob{pat: anch.Replace(gl.pat), depth: gl.depth})
	}
	g.symlinks = nil
	for lp, tp := range linkTargets {
		g.dir(path.Dir(lp))
		g.symlinks = append(g.symlinks, [2]string{lp, tp})
	}
	sort.Slice(g.symlinks, func(i, j int) bool { return g.symlinks[i][0] < g.symlinks[j][0] })

	// Glob status of the existing files and directories (before any
	// operation is modelled; "Deny globs deny whatever they match").
	for _, f := range append(append([]string(nil), g.fileList...), g.dirs...) {
		if match, within := m.globStatus(f); match {
			if within {
				m.globDeny[f] = true
			} else {
				m.globHole[f] = true
			}
		}
	}
	// README Known non-exact rules, deny_glob: "A rule's own path that a
	// pattern (or its ancestor) matches is denied whatever max_depth
	// says."
	for _, r := range m.rules {
		if !g.in(r.path) {
			continue
		}
		for q := r.path; g.in(q); q = path.Dir(q) {
			if match, _ := m.globStatus(q); match {
				m.globDeny[r.path] = true
				delete(m.globHole, r.path)
			}
		}
	}
	// Points: each rule's path, child, grandchild, parent and sibling.
	var ruleDirs []string
	for _, r := range m.rules {
		if _, isLink := g.isLink[r.path]; isLink {
			continue
		}
		p := r.path
		if !g.in(p) {
			continue
		}
		exists := g.dirSet[p] || g.files[p]
		if !exists {
			continue
		}
		if g.files[p] {
			continue // file points are added below
		}
		ruleDirs = append(ruleDirs, p)
	}
	sort.Strings(ruleDirs)
	for _, p := range ruleDirs {
		g.dirPoint(p, "rule "+strings.TrimPrefix(p, base))
		g.dirPoint(p+"/rt18c", "child of "+strings.TrimPrefix(p, base))
		g.dirPoint(p+"/rt18c/rt18g", "grandchild of "+strings.TrimPrefix(p, base))
		if par := path.Dir(p); g.in(par) {
			g.dirPoint(par, "parent of "+strings.TrimPrefix(p, base))
			g.dirPoint(par+"/rt18s."+path.Base(p), "sibling of "+strings.TrimPrefix(p, base))
		}
	}
	for _, p := range []string{base + "/ws", base + "/home", base + "/tmp", base + "/out", base + "/out/rt18c", base, stmp, stmp + "/rt18c", base + "/ws/.git"} {
		g.dirPoint(p, "fixed "+strings.TrimPrefix(p, base))
	}
	// File points: every file named by a rule or listed by the profile.
	var fps []string
	for _, f := range g.fileList {
		if strings.Contains(f, "/z.") {
			continue
		}
		fps = append(fps, f)
	}
	for _, f := range fps {
		m.rulesFileParentPoint(g, f)
		g.filePoint(f, "file "+strings.TrimPrefix(f, base))
	}
	// Missing rule paths and protected names.
	for _, r := range m.rules {
		if !g.in(r.path) || g.dirSet[r.path] || g.files[r.path] {
			continue
		}
		if _, isLink := g.isLink[r.path]; isLink {
			continue
		}
		if !g.dirSet[path.Dir(r.path)] {
			continue
		}
		g.missingOps(r.path, "name "+strings.TrimPrefix(r.path, base))
	}
	// Rule paths that are links: operations through them, and on the
	// link entry itself.
	for _, l := range g.symlinks {
		canon := g.isLink[l[0]]
		if g.dirSet[canon] || g.files[canon] {
			// (A dangling link's target is a missing name: missingOps.)
			n := len(g.ops)
			g.viaSymlink(l[0], canon, !g.files[canon], "link "+strings.TrimPrefix(l[0], base))
			if g.linkInMask(l[0]) {
				// A link in a masked directory is not there to follow,
				// also when the chain reaches it through another link.
				for _, o := range g.ops[n:] {
					o.want, o.hole, o.tol = rt18Deny, "", nil
				}
			}
		}
		o := g.op(6, "unlink", l[0], "", 0, "link entry "+strings.TrimPrefix(l[0], base))
		g.entryWant(o, l[0])
		o = g.op(5, "renameback", l[0], l[0]+".mv", 0, "link entry "+strings.TrimPrefix(l[0], base))
		g.entryWant(o, l[0])
	}
	// Representatives (one directory per access, governing rule and
	// writable root): cross-class renames and links, and links planted in
	// the workspace pointing at each.
	reps := map[string]string{}
	var repKeys []string
	for _, d := range g.dirPoints {
		k := fmt.Sprintf("%d|%s|%s", m.acc(d), m.governing(d), m.root(d))
		if _, ok := reps[k]; !ok {
			reps[k] = d
			repKeys = append(repKeys, k)
		}
	}
	var repList []string
	for _, k := range repKeys {
		repList = append(repList, reps[k])
	}
	holder := base + "/ws/z.lnk"
	g.dir(holder)
	for i, a := range repList {
		for j, b := range repList {
			if i == j {
				continue
			}
			src := fmt.Sprintf("%s/z.cr.%d", a, j)
			dst := fmt.Sprintf("%s/z.in.%d", b, i)
			g.file(src)
			o := g.op(3, "rename", src, dst, 0, fmt.Sprintf("cross %s -> %s", strings.TrimPrefix(a, base), strings.TrimPrefix(b, base)))
			o.want = rt18B(m.W(src) && m.W(a) && m.W(b) && m.W(dst))
			if o.want == rt18Allow && m.root(a) != m.root(b) {
				o.tol, o.tolWhy = []string{"EXDEV"}, rt18TolXdev
			}
			lnk := fmt.Sprintf("%s/z.ln.%d", b, i)
			o = g.op(3, "link", a+"/z.f", lnk, 0, fmt.Sprintf("cross link %s -> %s", strings.TrimPrefix(a, base), strings.TrimPrefix(b, base)))
			o.want = rt18B(m.W(a+"/z.f") && m.W(b) && m.W(lnk))
			if o.want == rt18Allow && m.root(a) != m.root(b) {
				o.tol, o.tolWhy = []string{"EXDEV"}, rt18TolXdev
			}
		}
		s := fmt.Sprintf("%s/s%d", holder, i)
		g.symlinks = append(g.symlinks, [2]string{s, a})
		g.viaSymlink(s, a, true, "planted symlink -> "+strings.TrimPrefix(a, base))
		h := fmt.Sprintf("%s/h%d", holder, i)
		g.hardlinks = append(g.hardlinks, [2]string{h, a + "/z.f"})
		g.hardOps(h, a+"/z.f")
	}
	for i, f := range g.filePoints {
		s := fmt.Sprintf("%s/fs%d", holder, i)
		g.symlinks = append(g.symlinks, [2]string{s, f})
		g.viaSymlink(s, f, false, "planted symlink -> "+strings.TrimPrefix(f, base))
		h := fmt.Sprintf("%s/fh%d", holder, i)
		g.hardlinks = append(g.hardlinks, [2]string{h, f})
		g.hardOps(h, f)
	}
	// Paths outside the tree: read-only operations only.
	sys := map[string]bool{"/etc/passwd": false, "/etc": true, "/usr/bin/true": false}
	for _, r := range m.rules {
		if !g.in(r.path) && r.path != "/" {
			if fi, err := os.Stat(r.path); err == nil && !strings.HasPrefix(r.path, bin) {
				sys[r.path] = fi.IsDir()
			}
		}
	}
	var syss []string
	for p := range sys {
		syss = append(syss, p)
	}
	sort.Strings(syss)
	for _, p := range syss {
		a := m.acc(p)
		st := g.op(1, "stat", p, "", rt18B(a >= rt18R), "system "+p)
		if a == rt18D {
			st.hole = rt18HoleMeta
		}
		if sys[p] {
			g.op(1, "readdir", p, "", rt18B(a >= rt18R), "system "+p)
		} else {
			g.op(1, "read", p, "", rt18B(a >= rt18R), "system "+p)
			if p == "/usr/bin/true" {
				// Not opened for writing: a parallel run may be executing
				// it (ETXTBSY comes before any permission check).
				g.op(1, "exec", p, "", rt18B(a >= rt18R), "system "+p)
			} else {
				g.op(1, "write", p, "", rt18B(a == rt18W), "system "+p)
			}
		}
	}
	g.noCreateTol()
	g.globViaLinks()
	if g.masked(holder) {
		// The links planted in the workspace lie in a masked directory
		// (README Mechanisms, mask: denied paths in readable trees): the
		// command cannot reach them, let alone follow them.
		for _, o := range g.ops {
			if strings.HasPrefix(o.desc, "planted symlink") {
				o.want, o.hole, o.tol = rt18Deny, "", nil
			}
		}
	}
	sort.SliceStable(g.ops, func(i, j int) bool { return g.ops[i].phase < g.ops[j].phase })
	for i, o := range g.ops {
		o.id = i + 1
	}
	return g
}

// noCreateTol accepts EACCES for creations in the directories that lose
// their creation rights (README "Known non-exact rules": protected or
// narrower names that do not exist; directly below a writable root they
// are guarded by the supervisor, elsewhere the nearest existing directory
// and every writable grant above it lose the creation rights).
func (g *rt18Gen) noCreateTol() {
	m := g.m
	noCreate := map[string]bool{}
	for _, r := range m.rules {
		if r.acc == rt18W || !g.in(r.path) || g.dirSet[r.path] || g.files[r.path] {
			continue
		}
		if _, isLink := g.isLink[r.path]; isLink {
			continue
		}
		par := path.Dir(r.path)
		if !m.W(par) || slicesContains(m.writeRoots, par) && g.dirSet[par] {
			continue // nothing to create there, or guarded
		}
		n := par
		for !g.dirSet[n] && g.in(n) {
			n = path.Dir(n)
		}
		noCreate[n] = true
		// Every writable grant above n loses them, and so does every
		// directory between the grant and n, which has no grant of its
		// own (red team 20: /ws/a between /ws and a missing
		// /ws/a/b/n1 denied).
		for _, w := range m.writeRoots {
			if n == w || strings.HasPrefix(n, w+"/") {
				for d := n; ; d = path.Dir(d) {
					noCreate[d] = true
					if d == w || d == "/" {
						break
					}
				}
			}
		}
	}
	if len(noCreate) == 0 {
		return
	}
	links := g.linkTargets()
	for _, o := range g.ops {
		if o.want != rt18Allow {
			continue
		}
		var dest string
		switch o.kind {
		case "create", "mkdir", "fifo", "symlink":
			dest = o.a
		case "link", "rename", "renameback":
			dest = o.b
		case "tmpfile":
			dest = o.a + "/x"
		default:
			continue
		}
		dest = rt18Canon(links, path.Clean(dest))
		if noCreate[path.Dir(dest)] {
			o.tol = append(o.tol, "EACCES")
			o.tolWhy = strings.TrimPrefix(o.tolWhy+"; "+rt18TolNoCreate, "; ")
		}
	}
}

// linkTargets maps every link of the tree to its canonical target: the
// profile's links, and the planted ones with an absolute target.
func (g *rt18Gen) linkTargets() map[string]string {
	links := map[string]string{}
	for l, c := range g.isLink {
		links[l] = c
	}
	for _, s := range g.symlinks {
		if _, ok := links[s[0]]; !ok && strings.HasPrefix(s[1], "/") {
			links[s[0]] = s[1]
		}
	}
	return links
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// rt18Rel is rel, or def when rel is empty.
func rt18Rel(rel, def string) string {
	if rel == "" {
		return def
	}
	return rel
}

// rt18Canon resolves the links of links (link path -> canonical target)
// in p, as the kernel would (at most 40).
func rt18Canon(links map[string]string, p string) string {
	c, _ := rt18Follow(links, p, nil)
	return c
}

// rt18Follow resolves p through links as rt18Canon does, calling stop with
// each link it follows; it returns early, with true, when stop does.
func rt18Follow(links map[string]string, p string, stop func(link string) bool) (string, bool) {
	for hops := 0; hops < 40; hops++ {
		changed := false
		for q := p; q != "/" && q != "."; q = path.Dir(q) {
			if t, ok := links[q]; ok && t != q {
				if stop != nil && stop(q) {
					return p, true
				}
				p = t + strings.TrimPrefix(p, q)
				changed = true
				break
			}
		}
		if !changed {
			break
		}
	}
	return p, false
}

// rulesFileParentPoint makes sure the directory holding a file point is a
// point too (its sibling class).
func (m *rt18Model) rulesFileParentPoint(g *rt18Gen, f string) {
	d := path.Dir(f)
	if _, isLink := g.isLink[d]; !isLink {
		g.dirPoint(d, "dir of "+strings.TrimPrefix(f, g.base))
	}
}

// hardOps: operations through a hard link h planted in the workspace to
// file f. Rules follow paths: the link has its own path's rights (README
// Known limits, "Rules follow paths, not files").
func (g *rt18Gen) hardOps(h, f string) {
	a := g.m.acc(h)
	desc := "planted hard link -> " + strings.TrimPrefix(f, g.base)
	for _, k := range []string{"read", "exec"} {
		o := g.op(1, k, h, "", rt18B(a >= rt18R), desc)
		if o.want == rt18Allow && g.m.acc(f) < rt18R {
			o.hole = rt18HoleHard
		}
		if o.want == rt18Deny && g.fileRule(f) >= rt18R {
			o.hole = rt18HoleFileRule
		}
	}
	for _, k := range []string{"write", "trunc", "chmod", "utime", "xattr"} {
		o := g.op(1, k, h, "", rt18B(a == rt18W), desc)
		if o.want == rt18Allow && g.m.acc(f) < rt18W {
			o.hole = rt18HoleHard
		}
	}
}

// masked reports whether p lies in (or is) a denied path carved out of a
// readable tree, which a mask hides (README Mechanisms: "mask: an empty
// mode-000 directory or file ... bound over the path"; the Known limits'
// metadata entry: other unreadable paths are only not opened).
// linkInMask reports whether resolving p follows a symbolic link that
// lies in a masked directory: the mask hides the link, so in the sandbox
// the path does not resolve (seed 17 p035: a link to a link inside a
// denied home directory).
func (g *rt18Gen) linkInMask(p string) bool {
	_, masked := rt18Follow(g.linkHop, p, func(link string) bool { return g.masked(path.Dir(link)) })
	return masked
}

func (g *rt18Gen) masked(p string) bool {
	for q := p; g.in(q); q = path.Dir(q) {
		if g.m.isRule[q] && g.m.acc(q) >= rt18R {
			return false // a path reopened below a mask is carried through it
		}
		if g.m.acc(q) == rt18D && g.m.acc(path.Dir(q)) >= rt18R {
			return true
		}
	}
	return false
}

// globViaLinks leaves unjudged what a deny_glob may match through a rule
// on a symbolic link: the README says a link a pattern matches is masked
// by its name and its target keeps its own access, and that deny globs
// deny whatever they match, but not what a path through a link that
// matches means for the target's own name (sbx scans a rule's link as a
// root and masks what it finds there, at the target).
func (g *rt18Gen) globViaLinks() {
	m := g.m
	via := map[string]bool{}
	for _, r := range m.rules {
		c, isLink := g.isLink[r.path]
		if !isLink || r.acc == rt18D || !(g.dirSet[c] || g.files[c]) {
			continue
		}
		for _, f := range append(append([]string(nil), g.fileList...), g.dirs...) {
			if f != c && !strings.HasPrefix(f, c+"/") {
				continue
			}
			vp := r.path + strings.TrimPrefix(f, c)
			for q := vp; q != r.path && strings.HasPrefix(q, r.path); q = path.Dir(q) {
				if match, _ := m.globStatus(q); match {
					via[f] = true
				}
			}
		}
	}
	if len(via) == 0 {
		return
	}
	links := g.linkTargets()
	for _, o := range g.ops {
		if o.want != rt18Allow {
			continue
		}
		for _, p := range []string{o.a, o.b} {
			if p == "" {
				continue
			}
			for q := rt18Canon(links, path.Clean(p)); g.in(q); q = path.Dir(q) {
				if via[q] {
					o.want = rt18Either
				}
			}
		}
	}
}

// fileRule is the most access a rule on file f itself gives it (-1: none).
func (g *rt18Gen) fileRule(f string) int {
	best := -1
	for _, r := range g.m.rules {
		if r.path == f && r.acc != rt18D && r.acc > best {
			best = r.acc
		}
	}
	return best
}

// materialize creates the tree (with base and stmp replaced by r) owned
// by uid.
func (g *rt18Gen) materialize(t *testing.T, r *strings.Replacer, uid int) {
	t.Helper()
	elf := rt18ELF()
	for _, d := range g.dirs {
		if err := os.MkdirAll(r.Replace(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range g.fileList {
		if err := os.WriteFile(r.Replace(f), elf, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range g.symlinks {
		if err := os.Symlink(r.Replace(s[1]), r.Replace(s[0])); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range g.hardlinks {
		if err := os.Link(r.Replace(h[1]), r.Replace(h[0])); err != nil {
			t.Fatal(err)
		}
	}
	for _, root := range []string{r.Replace(g.base), r.Replace(g.stmp)} {
		filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, uid, uid) })
	}
}

func (g *rt18Gen) opsFile(t *testing.T, r *strings.Replacer, name string) string {
	t.Helper()
	var b strings.Builder
	for _, o := range g.ops {
		fmt.Fprintf(&b, "%d\t%s\t%s\t%s\n", o.id, o.kind, r.Replace(o.a), r.Replace(o.b))
	}
	p := filepath.Join(bin, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(p) })
	return p
}

func rt18Parse(t *testing.T, out string, n int) map[int]string {
	t.Helper()
	res := map[int]string{}
	end := false
	for _, l := range strings.Split(out, "\n") {
		if l == "END" {
			end = true
			continue
		}
		f := strings.Fields(l)
		if len(f) != 2 {
			continue
		}
		id, err := strconv.Atoi(f[0])
		if err == nil {
			res[id] = f[1]
		}
	}
	if !end || len(res) != n {
		t.Fatalf("helper output incomplete: %d of %d results, end %v\n%.3000s", len(res), n, end, out)
	}
	return res
}

// rt18Denials are the refusals: EACCES, EPERM, EROFS, ENOENT (masked or
// hidden), EXDEV (across boundaries), EBUSY (mount points), and ETXTBSY,
// which the kernel returns before any permission check for a file being
// executed (no success, nothing learnt).
var rt18Denials = map[string]bool{"EACCES": true, "EPERM": true, "EROFS": true, "ENOENT": true, "EXDEV": true, "EBUSY": true, "ETXTBSY": true}

type rt18Finding struct {
	kind, msg string
	hole      string
}

// TestRedTeam18Diff runs the battery: each profile as root and as uid
// 65534, one sandboxed run and one unsandboxed control per pair.
func TestRedTeam18Diff(t *testing.T) {
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("setpriv is missing")
	}
	helper := rt18Helper(t)
	rt17pSbc(t)
	start := time.Now()
	holes := os.Getenv("SBX_RT18_HOLES") == "1"
	var mu sync.Mutex
	var summary []string
	t.Cleanup(func() {
		sort.Strings(summary)
		for _, s := range summary {
			t.Log(s)
		}
		t.Logf("battery time %v", time.Since(start).Round(time.Millisecond))
	})
	sem := make(chan struct{}, 2)
	for _, prof := range rt18Profiles() {
		prof := prof
		t.Run(prof.name, func(t *testing.T) {
			for _, u := range users {
				u := u
				t.Run(u.name, func(t *testing.T) {
					t.Parallel()
					sem <- struct{}{}
					defer func() { <-sem }()
					n, nf, nh := rt18RunOne(t, prof, u, helper, holes)
					mu.Lock()
					summary = append(summary, fmt.Sprintf("%-20s %-6s %5d checks, %d disagreements, %d on documented limits", prof.name, u.name, n, nf, nh))
					mu.Unlock()
				})
			}
		})
	}
}

func rt18RunOne(t *testing.T, prof rt18Prof, u user, helper string, holes bool) (int, int, int) {
	mk := func(dir, pat string) string {
		p, err := os.MkdirTemp(dir, pat)
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o755)
		os.Chown(p, u.uid, u.uid)
		t.Cleanup(func() { os.RemoveAll(p) })
		return p
	}
	base, stmp := mk("/var/tmp", "rt18-"), mk("/tmp", "rt18-")
	base2, stmp2 := mk("/var/tmp", "rt18c-"), mk("/tmp", "rt18c-")
	g := rt18Build(prof, base, stmp, bin)
	id := strings.NewReplacer()
	ctl := strings.NewReplacer(base, base2, stmp, stmp2)
	g.materialize(t, id, u.uid)
	g.materialize(t, ctl, u.uid)
	tag := fmt.Sprintf("rt18ops-%s-%s", prof.name, u.name)
	opsS := g.opsFile(t, id, tag+"-s.txt")
	opsC := g.opsFile(t, ctl, tag+"-c.txt")

	// The profile.
	args := []string{"--cwd", base + "/ws", "--timeout", "120s", "--output-cap", "16MiB"}
	switch {
	case prof.builtin:
		args = append(args, "--profile", prof.name)
	case prof.hclFile != "":
		src, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "profiles", prof.hclFile))
		if err != nil {
			t.Fatal(err)
		}
		art, _ := rt17pCompile(t, string(src), prof.name)
		args = append(args, "--artifact", art)
	default:
		src := strings.NewReplacer("BIN", bin, "BASE", base).Replace(prof.hcl)
		art, _ := rt17pCompile(t, src, prof.name)
		args = append(args, "--artifact", art)
	}
	args = append(args, prof.flags...)
	args = append(args, "--", helper, opsS)
	env := []string{"HOME=" + base + "/" + rt18Rel(prof.homeRel, "home"), "TMPDIR=" + base + "/" + rt18Rel(prof.tmpRel, "tmp")}
	r := rtRun(t, rtOpts{u: u, args: args, env: env, timeout: 90 * time.Second})
	if prof.onRefusal != nil && r.ExitCode == 125 && r.SbxError != "" {
		prof.onRefusal(t, r)
		return 0, 0, 0
	}
	if r.SbxError != "" || r.ExitCode != 0 {
		t.Fatalf("sbx run: exit %d, sbx_error %q\nstderr: %.3000s", r.ExitCode, r.SbxError, r.Stderr)
	}
	got := rt18Parse(t, r.Stdout, len(g.ops))

	// The control: the same helper, unsandboxed, as the same user.
	argv := []string{helper, opsC}
	if u.uid != 0 {
		argv = append([]string{"setpriv", "--reuid=" + strconv.Itoa(u.uid), "--regid=" + strconv.Itoa(u.uid), "--clear-groups"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = base2 + "/ws"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + base2 + "/home", "TMPDIR=" + base2 + "/tmp"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("control: %v\n%s", err, out)
	}
	want := rt18Parse(t, string(out), len(g.ops))

	var findings []rt18Finding
	checks := 0
	for _, o := range g.ops {
		s, c := got[o.id], want[o.id]
		line := fmt.Sprintf("#%d %s %s%s [%s]: model %s, sandbox %s, control %s",
			o.id, o.kind, strings.TrimPrefix(o.a, base), rt18Arrow(o.b, base), o.desc, []string{"allow", "deny", "either"}[o.want], s, c)
		switch o.want {
		case rt18Either:
			continue
		case rt18Allow:
			checks++
			if s == c {
				continue
			}
			if c == "ok" || strings.Contains(o.tolWhy, rt18TolNoCreate) {
				// (A creation the sandbox refuses in a no_create
				// directory: the control may fail otherwise, e.g. EEXIST
				// where an earlier operation made the name, ENOENT where
				// an earlier rename took the source.)
				tolerated := false
				for _, e := range o.tol {
					if s == e {
						tolerated = true
					}
				}
				if tolerated {
					continue
				}
			}
			kind := "over-restriction"
			if c != "ok" {
				kind = "mismatch"
			}
			findings = append(findings, rt18Finding{kind: o.kind, msg: kind + ": " + line, hole: o.hole})
		case rt18Deny:
			if c != "ok" && rt18Denials[c] {
				// The control is refused too (file modes): only a
				// success in the sandbox would be news.
				checks++
				if s == "ok" {
					findings = append(findings, rt18Finding{kind: o.kind, msg: "escape: " + line, hole: o.hole})
				}
				continue
			}
			checks++
			if rt18Denials[s] {
				continue
			}
			kind := "escape"
			if s != "ok" {
				kind = "not refused (" + s + ")"
			}
			findings = append(findings, rt18Finding{kind: o.kind, msg: kind + ": " + line, hole: o.hole})
		}
	}
	byKind := map[string][]string{}
	holeKind := map[string][]string{}
	nh := 0
	for _, f := range findings {
		if f.hole != "" {
			holeKind[f.kind] = append(holeKind[f.kind], f.msg+"\n\t("+f.hole+")")
			nh++
		} else {
			byKind[f.kind] = append(byKind[f.kind], f.msg)
		}
	}
	kinds := func(m map[string][]string) []string {
		var k []string
		for x := range m {
			k = append(k, x)
		}
		sort.Strings(k)
		return k
	}
	for _, k := range kinds(byKind) {
		msgs := byKind[k]
		t.Run(k, func(t *testing.T) {
			for _, m := range msgs {
				t.Error(m)
			}
		})
	}
	if len(holeKind) > 0 {
		t.Run("holes", func(t *testing.T) {
			for _, k := range kinds(holeKind) {
				msgs := holeKind[k]
				t.Run(k, func(t *testing.T) {
					if !holes {
						t.Skipf("%d disagreements on documented limits (SBX_RT18_HOLES=1 to fail them); first: %s", len(msgs), msgs[0])
					}
					for _, m := range msgs {
						t.Error(m)
					}
				})
			}
		})
	}
	return checks, len(findings) - nh, nh
}

func rt18Arrow(b, base string) string {
	if b == "" {
		return ""
	}
	return " -> " + strings.TrimPrefix(b, base)
}

// ---------------------------------------------------------------------------
// Minimal reproductions of the battery's findings (each fails on the
// current code).

// TestRedTeam18DiffReproGlobDepthUnanchored: README "deny_glob patterns":
// max_depth counts "below the readable roots for a pattern that matches
// anywhere". sbx counts it from / instead (bind.go: depth = 1 +
// Depth(root) for the anchor /), so with readable roots deeper than
// max_depth a match directly in the workspace is not masked.
func TestRedTeam18DiffReproGlobDepthUnanchored(t *testing.T) {
	const src = `
profile "rt18-gu" {
  filesystem {
    read      = [platform_defaults, home]
    write     = [cwd]
    deny_glob = [{ pattern = "*.key", max_depth = 3 }]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt18-gu")
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			base := rt17pTree(t, u, map[string]string{"ws/a.key": "RT18-KEY", "home/h.key": "RT18-HKEY"}, nil, nil)
			r := rt17pRun(t, u, art, base+"/home", base+"/ws", `cat a.key ../home/h.key 2>/dev/null; echo x >>a.key && echo WROTE; echo END`, nil)
			if r.SbxError != "" || !strings.Contains(r.Stdout, "END") {
				t.Fatalf("run failed: %+v", r)
			}
			if strings.Contains(r.Stdout, "RT18-") || strings.Contains(r.Stdout, "WROTE") {
				t.Errorf("ESCAPE: deny_glob \"*.key\" (max_depth 3) leaves {cwd}/a.key and {home}/h.key (0 directories below their readable roots) readable/writable; the depth is counted from /: %q", r.Stdout)
			}
		})
	}
}

// TestRedTeam18DiffReproGlobDepthBoundary: README: max_depth bounds a
// match's depth below the anchor as find's -maxdepth does ("{home}/**/id_*"
// with max_depth = 4 finds ~/a/b/c/id_rsa, not ~/a/b/c/d/id_rsa). The
// battery first read the README's earlier wording ("reaches four
// directories below the home directory") as one level more; the wording
// was made exact instead. With max_depth = 3, d1/d2/secret_2 (depth 3) is
// masked; with 2 it is not (a documented limit).
func TestRedTeam18DiffReproGlobDepthBoundary(t *testing.T) {
	const src = `
profile "rt18-gb" {
  filesystem {
    read      = [root]
    write     = [cwd]
    deny_glob = [{ pattern = "{cwd}/**/secret_*", max_depth = 3 }]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt18-gb")
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			base := rt17pTree(t, u, map[string]string{"ws/d1/secret_1": "RT18-ONE", "ws/d1/d2/secret_2": "RT18-TWO"}, []string{"home"}, nil)
			r := rt17pRun(t, u, art, base+"/home", base+"/ws", `cat d1/secret_1 d1/d2/secret_2 2>/dev/null; echo END`, nil)
			if r.SbxError != "" || !strings.Contains(r.Stdout, "END") {
				t.Fatalf("run failed: %+v", r)
			}
			if strings.Contains(r.Stdout, "RT18-ONE") {
				t.Fatalf("control: d1/secret_1 (1 directory below) readable: %q", r.Stdout)
			}
			if strings.Contains(r.Stdout, "RT18-TWO") {
				t.Errorf("FIDELITY: {cwd}/**/secret_* with max_depth 3 leaves d1/d2/secret_2 (depth 3 below the anchor) readable: %q", r.Stdout)
			}
		})
	}
}

// TestRedTeam18DiffReproSymlinkReadRuleNoCreate: a read rule on a symbolic
// link directly in a writable root ("a read rule on a link applies to the
// link (in a writable root it stays unremovable)") takes creation and
// removal away from the whole root: touch, mkdir and rm of ordinary names
// in the workspace fail with EACCES. sbc reports the rule supplementary
// (exact), and the README lists no such over-restriction.
func TestRedTeam18DiffReproSymlinkReadRuleNoCreate(t *testing.T) {
	const src = `
profile "rt18-sl" {
  filesystem {
    read  = [root, path(cwd, "notes")]
    write = [cwd]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt18-sl")
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			base := rt17pTree(t, u, map[string]string{"ws/old": "x", "home/pub/readme": "r"}, nil, map[string]string{"ws/notes": "../home/pub"})
			r := rt17pRun(t, u, art, base+"/home", base+"/ws",
				`touch new && echo CREATE; mkdir dir && echo MKDIR; rm old && echo RM; rm notes 2>/dev/null && echo RMLINK; cat notes/readme >/dev/null && echo READ; echo END`, nil)
			if r.SbxError != "" || !strings.Contains(r.Stdout, "END") {
				t.Fatalf("run failed: %+v", r)
			}
			if strings.Contains(r.Stdout, "RMLINK") || !strings.Contains(r.Stdout, "READ") {
				t.Fatalf("the link rule itself: %q", r.Stdout)
			}
			for _, w := range []string{"CREATE", "MKDIR", "RM"} {
				if !strings.Contains(r.Stdout, w+"\n") {
					t.Errorf("OVER-RESTRICTION: %s in the writable workspace refused next to a read rule on a link: %q %q", w, r.Stdout, r.Stderr)
				}
			}
		})
	}
}

// TestRedTeam18DiffLinkRules: rules on symbolic links in a writable root,
// found with the battery's rt18-symlink profile and reviewed after the fix
// (links pinned as mount points). Must hold: a deny on a link (~/.ssh made
// by stow) keeps the link where it is, so the command cannot put a
// directory of its own at the denied path; a link a deny_glob matches is
// masked by name (whatever it points to), its target keeping its own
// access; the root keeps creation and removal.
func TestRedTeam18DiffLinkRules(t *testing.T) {
	const src = `
profile "rt18-links" {
  filesystem {
    read      = [root]
    write     = [cwd]
    deny      = [path(cwd, ".ssh")]
    deny_glob = ["{cwd}/*.key"]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt18-links")
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			base := rt17pTree(t, u, map[string]string{"dot/ssh/id": "RT18-SSH", "target": "RT18-TARGET", "tdir/x": "RT18-TDIR"}, []string{"ws"},
				map[string]string{"ws/.ssh": "../dot/ssh", "ws/f.key": "../target", "ws/d.key": "../tdir"})
			script := `cat .ssh/id f.key d.key/x 2>/dev/null
rm .ssh 2>/dev/null && echo LINK-REMOVED
mv .ssh gone 2>/dev/null && echo LINK-MOVED
mkdir -p .ssh/x 2>/dev/null && echo DIR-MADE
echo k > .ssh/authorized_keys 2>/dev/null && echo KEY-PLANTED
cat ../target ../tdir/x
touch new && rm new && echo ROOT-OK`
			r := rt17pRun(t, u, art, base+"/home", base+"/ws", script, []string{"--allow-degraded"})
			if r.SbxError != "" {
				t.Fatalf("sbx failed: %s", r.SbxError)
			}
			for _, bad := range []string{"RT18-SSH", "LINK-REMOVED", "LINK-MOVED", "DIR-MADE", "KEY-PLANTED"} {
				if strings.Contains(r.Stdout, bad) {
					t.Errorf("ESCAPE: %s: %q", bad, r.Stdout)
				}
			}
			if strings.Count(r.Stdout, "RT18-TARGET") != 1 || strings.Count(r.Stdout, "RT18-TDIR") != 1 {
				t.Errorf("a deny_glob's link match must be masked by name only (the targets once, by their own names): %q", r.Stdout)
			}
			if !strings.Contains(r.Stdout, "ROOT-OK") {
				t.Errorf("the workspace lost creation or removal: %q", r.Stdout)
			}
			if fi, err := os.Lstat(base + "/ws/.ssh"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("ws/.ssh is no longer the link: %v %v", fi, err)
			}
		})
	}
}

// TestRedTeam18DiffGlobMatchGone: a deny_glob's match that is removed
// between the binding and the start (a build's temporary key file, another
// process's tree under a profile that reads /) leaves nothing to deny: the
// run goes on instead of failing the mask (CI once failed a run this way:
// "mask .../rt18.pem (deny): no such file or directory"); the matches that
// are still there stay masked.
func TestRedTeam18DiffGlobMatchGone(t *testing.T) {
	rt9Root(t)
	dir, err := os.MkdirTemp("/var/tmp", "rt18gone")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, f := range []string{"gone.pem", "kept.pem"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("RT18-"+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const src = `
profile "rt18-gone" {
  filesystem {
    read      = [root]
    write     = [cwd]
    deny_glob = [{ pattern = "{cwd}/*.pem", max_depth = 1 }]
  }
}
`
	sb := rt9New(t, rt9Plan(t, "rt18-gone", src), ir.Bindings{"cwd": {dir}}, launch.Options{AllowDegraded: true})
	if err := os.Remove(filepath.Join(dir, "gone.pem")); err != nil {
		t.Fatal(err)
	}
	res, err := rt9Sh(sb, dir, `cat kept.pem 2>/dev/null; ls gone.pem 2>/dev/null; echo END`)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("the run failed on a match gone since the binding: %s", rt9Out(res, err))
	}
	if out := string(res.Stdout.Head); strings.Contains(out, "RT18-kept") || !strings.Contains(out, "END") {
		t.Errorf("kept.pem, still a match, must stay masked: %q", out)
	}
}
