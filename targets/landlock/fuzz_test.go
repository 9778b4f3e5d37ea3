package landlock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sbx-dev/sbx/ir"
)

// escapeMountinfo writes s as the kernel writes a path in mountinfo
// (fs/proc_namespace.c, mangle_path with " \t\n\\"): those four bytes as
// three-digit octal escapes, everything else as it is.
func escapeMountinfo(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\\':
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// FuzzParseMountinfo feeds arbitrary text to parseMountinfo (the listing
// of the mounts that decides which kernel file systems below writable
// roots are made read-only), and a mount point of arbitrary bytes written
// as the kernel writes it. Every listed mount has a non-empty point and a
// type without separators; a point written by the kernel comes back
// exactly, with its type, between other lines (with and without optional
// fields), and unescapeMountinfo inverts the kernel's escaping.
//
//	go test ./targets/landlock -run '^$' -fuzz '^FuzzParseMountinfo$' -fuzztime 200000x
func FuzzParseMountinfo(f *testing.F) {
	f.Add("22 27 0:21 / /proc rw,relatime - proc proc rw\n27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n", "/work/my chroot/proc", "proc", true)
	f.Add("40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime shared:9 master:2 - cgroup cgroup rw,name=systemd\n", "/a\\134b\n- x", "cgroup2", false)
	f.Add("1 2 3 / - rw - ext4 x\nbad line\n", "/ - /", "tmpfs", true)
	f.Fuzz(func(t *testing.T, text, point, fstype string, optional bool) {
		for _, m := range parseMountinfo(text) {
			if m.Path == "" || m.FSType == "" || strings.ContainsAny(m.FSType, " \n") {
				t.Fatalf("parseMountinfo(%q): mount %+v", text, m)
			}
		}
		if got := unescapeMountinfo(escapeMountinfo(point)); got != point {
			t.Fatalf("unescapeMountinfo(escape(%q)) = %q", point, got)
		}
		// Kernel types are short names: [a-z0-9_.]+ here.
		if point == "" || fstype == "" || strings.Trim(fstype, "abcdefghijklmnopqrstuvwxyz0123456789_.") != "" {
			return
		}
		opt := ""
		if optional {
			opt = "shared:1 master:2 "
		}
		listing := "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n" +
			fmt.Sprintf("36 27 98:0 %s %s rw,noatime %s- %s %s rw,errors=continue\n", escapeMountinfo(point), escapeMountinfo(point), opt, fstype, escapeMountinfo(point)) +
			"22 27 0:21 / /proc rw,relatime - proc proc rw"
		want := []Mount{{"/", "ext4"}, {point, fstype}, {"/proc", "proc"}}
		if got := parseMountinfo(listing); !slices.Equal(got, want) {
			t.Fatalf("parseMountinfo(%q) = %q, want %q", listing, got, want)
		}
	})
}

// fuzzPaths are the directories the fuzz targets below build paths from.
var fuzzPaths = []string{"/", "/w", "/w/a", "/w/a/b", "/w/.git", "/w/proc", "/h", "/h/.ssh", "/sys", "/sys/fs/cgroup", "/proc", "/proc/sys", "/t", "/w/t", "/w/h", "/dev", "/dev/pts", "/w/dev"}

// FuzzKernelMountOps checks kernelMountOps on fuzzed mounts, grants and
// masks. Every operation names a listed kernel mount outside /proc and the
// masks; in user runs every kernel mount that a grant makes writable
// (outside /proc, /sys and the masks) becomes read-only; in root runs
// every revealing one (procfs, tracefs, debugfs) the grants make readable
// is detached, or lies below a detached one.
//
//	go test ./targets/landlock -run '^$' -fuzz '^FuzzKernelMountOps$' -fuzztime 200000x
func FuzzKernelMountOps(f *testing.F) {
	f.Add([]byte{1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, false)
	f.Add([]byte{0, 2, 5, 9, 14, 7, 3, 3, 3, 3, 3, 4, 11, 12}, true)
	f.Fuzz(func(t *testing.T, data []byte, root bool) {
		types := []string{"ext4", "proc", "sysfs", "cgroup2", "tracefs", "debugfs", "binfmt_misc", "tmpfs", "mqueue", "devtmpfs", "devpts"}
		rights := []AccessFS{ReadRights, WriteRights, NoCreateRights, DeviceRights, FSReadDir, 0}
		var ms []Mount
		var gs []Grant
		var masked []string
		for len(data) >= 3 {
			p := fuzzPaths[int(data[1])%len(fuzzPaths)]
			if data[2]%5 == 4 {
				p = path.Join(p, "x")
			}
			switch data[0] % 3 {
			case 0:
				ms = append(ms, Mount{Path: p, FSType: types[int(data[2])%len(types)]})
			case 1:
				gs = append(gs, Grant{Path: p, Rights: rights[int(data[2])%len(rights)]})
			default:
				if data[2]%4 == 0 {
					masked = append(masked, p)
				}
			}
			data = data[3:]
		}
		ops := kernelMountOps(ms, gs, masked, root)
		below := func(p string, dirs []string) bool {
			for _, d := range dirs {
				if ir.PathWithin(p, d) {
					return true
				}
			}
			return false
		}
		// Independent of the package's own helpers: a grant lets the
		// command read below its path with read_file or read_dir, and
		// change something there with any right beyond reading.
		grants := func(p string, rights AccessFS) bool {
			for _, g := range gs {
				if g.Rights&rights != 0 && ir.PathWithin(p, g.Path) {
					return true
				}
			}
			return false
		}
		opAt := map[string]MountKind{}
		var detached []string
		for _, op := range ops {
			listed := false
			for _, m := range ms {
				listed = listed || (m.Path == op.Path && kernelFSTypes[m.FSType])
			}
			if !listed || op.Path == "/" || ir.PathWithin(op.Path, "/proc") || below(op.Path, masked) {
				t.Fatalf("operation %s %s: not a kernel mount of the view outside /proc and the masks (mounts %v, masked %v)", op.Kind, op.Path, ms, masked)
			}
			if op.Kind == MountDetach {
				if !root {
					t.Fatalf("detach %s in a user run", op.Path)
				}
				detached = append(detached, op.Path)
			}
			if op.Kind == MountMask {
				detached = append(detached, op.Path)
			}
			opAt[op.Path] = op.Kind
		}
		for _, m := range ms {
			if !kernelFSTypes[m.FSType] || m.Path == "/" || ir.PathWithin(m.Path, "/proc") || below(m.Path, masked) || below(m.Path, detached) {
				continue
			}
			if root && revealingFSTypes[m.FSType] && grants(m.Path, FSReadFile|FSReadDir) {
				t.Fatalf("root run: %s at %s is readable and not detached: %v", m.FSType, m.Path, ops)
			}
			if (consumingFSTypes[m.FSType] || m.FSType == "proc") && grants(m.Path, FSReadFile|FSReadDir) {
				t.Fatalf("%s at %s is readable and neither detached nor masked: %v", m.FSType, m.Path, ops)
			}
			devOwn := (m.FSType == "devtmpfs" || m.FSType == "devpts") && ir.PathWithin(m.Path, "/dev")
			if !ir.PathWithin(m.Path, "/sys") && !devOwn && grants(m.Path, ^(FSExecute|FSReadFile|FSReadDir)) && opAt[m.Path] != MountKernelReadOnly {
				t.Fatalf("%s at %s is writable (grants %v) and not made read-only: %v", m.FSType, m.Path, gs, ops)
			}
		}
	})
}

// layoutView is a fuzzed file system: every path not listed is missing.
type layoutView map[string]Kind

func (v layoutView) Lstat(p string) Kind {
	if k, ok := v[p]; ok {
		return k
	}
	return KindMissing
}

func (v layoutView) Stat(p string) Kind { return v.Lstat(p) }

func (v layoutView) Subdirs(dir string) []string {
	var out []string
	for p, k := range v {
		if k == KindDir && p != "/" && path.Dir(p) == dir {
			out = append(out, path.Base(p))
		}
	}
	sort.Strings(out)
	return out
}

// FuzzBindLayout compiles and binds a fuzzed profile (up to eight path
// rules on the anchors, protected names) against a fuzzed file system with
// fuzzed anchor bindings, and checks the bound spec against the reference
// model, ir.Bound.Access, which implements the README's semantics (the
// most specific rule wins; deny beats write beats read at equal
// specificity; no rule denies):
//
//   - for every path that exists, what the Landlock grants allow
//     intersected with what the innermost mount allows (read-only binds,
//     masks and what they carry through, the read-only base) is exactly
//     the model's access: never more (a read-only carve-out or denied path
//     left writable or readable), and never less, unless the layout
//     reports the directory as non-creatable (no_create);
//   - a path the model does not make writable but that does not exist
//     cannot be created: its nearest existing directory lacks the
//     creation rights or the read-write mount, or the supervisor guards
//     the name.
//
// It also checks that Compile accepts the profile and that the plan
// survives its JSON encoding.
//
//	go test ./targets/landlock -run '^$' -fuzz '^FuzzBindLayout$' -fuzztime 20000x
func FuzzBindLayout(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 0, 2, 1, 7, 1, 2, 9, 0}, uint8(0x0f), uint16(0))
	f.Add([]byte{0, 0, 1, 1, 0, 2, 1, 3, 1, 1, 4, 2, 2, 9, 0, 2, 10, 1}, uint8(0x21), uint16(7))
	f.Add([]byte{1, 0, 2, 1, 0, 0, 3, 0, 2, 1, 2, 1, 1, 5, 1}, uint8(0x3c), uint16(12345))
	f.Fuzz(func(t *testing.T, data []byte, flags uint8, seed uint16) {
		anchors := []string{ir.AnchorRoot, ir.AnchorCwd, ir.AnchorHome, ir.AnchorTmpdir, ir.AnchorSlashTmp}
		rels := []string{"", "a", "a/b", ".git", "a/.git", "b", "vendor", "vendor/gen", "vendor/gen/x", ".ssh", ".env", "w", "t"}
		p := &ir.Profile{Name: "fuzz", Network: ir.Network{Mode: ir.NetworkFull}}
		for i := 0; len(data) >= 3 && i < 8; i++ {
			p.Filesystem.Rules = append(p.Filesystem.Rules, ir.PathRule{
				Path:   ir.Path{Anchor: anchors[int(data[0])%len(anchors)], Rel: rels[int(data[1])%len(rels)]},
				Access: ir.Access(data[2] % 3),
				Source: ir.Range{Filename: "f", Start: ir.Pos{Byte: i}},
			})
			data = data[3:]
		}
		if flags&1 != 0 {
			p.Filesystem.Protect = append(p.Filesystem.Protect, ir.ProtectRule{Name: ".git", Source: ir.Range{Filename: "f", Start: ir.Pos{Byte: 100}}})
		}
		if flags&2 != 0 {
			p.Filesystem.Protect = append(p.Filesystem.Protect, ir.ProtectRule{Name: "b", Source: ir.Range{Filename: "f", Start: ir.Pos{Byte: 101}}})
		}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		roots := []string{"/w", "/w/h", "/h", "/t", "/w/t", "/h/w"}
		b := ir.Bindings{
			ir.AnchorCwd:      {roots[int(flags>>2&7)%len(roots)]},
			ir.AnchorHome:     {roots[int(flags>>5)%len(roots)]},
			ir.AnchorTmpdir:   {roots[int(seed)%len(roots)]},
			ir.AnchorSlashTmp: {"/tmp"},
		}
		supervise := seed&0x8000 != 0

		pl, err := Compile(p)
		if err != nil {
			t.Fatalf("Compile: %v", err)
		}
		enc, _ := json.Marshal(pl)
		var back Plan
		dec := json.NewDecoder(bytes.NewReader(enc))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&back); err != nil {
			t.Fatalf("the plan does not decode: %v", err)
		}
		if enc2, _ := json.Marshal(&back); !bytes.Equal(enc, enc2) {
			t.Fatalf("the plan does not round-trip:\n%s\n%s", enc, enc2)
		}

		bd, err := p.Bind(b)
		if err != nil {
			t.Fatal(err)
		}
		// The file system: every bound path, its ancestors and a child,
		// each a directory, a file or missing (by a hash of the seed and
		// the path), consistently (nothing below a file or a missing one).
		cand := map[string]bool{"/": true}
		for _, r := range bd.Rules {
			for q := r.Path; q != "/"; q = path.Dir(q) {
				cand[q] = true
			}
			cand[ir.JoinAbs(r.Path, "zz")] = true
		}
		for _, ps := range b {
			for _, q := range ps {
				cand[ir.JoinAbs(q, "zz")] = true
			}
		}
		paths := make([]string, 0, len(cand))
		for q := range cand {
			paths = append(paths, q)
		}
		sort.Slice(paths, func(i, j int) bool {
			if di, dj := ir.Depth(paths[i]), ir.Depth(paths[j]); di != dj {
				return di < dj
			}
			return paths[i] < paths[j]
		})
		v := layoutView{"/": KindDir}
		for _, q := range paths[1:] {
			if v.Lstat(path.Dir(q)) != KindDir {
				continue
			}
			h := fnv.New32a()
			fmt.Fprintf(h, "%d%s", seed, q)
			switch h.Sum32() % 5 {
			case 0:
				v[q] = KindFile
			case 1: // missing
			default:
				v[q] = KindDir
			}
		}
		// The target also protects the names in the directories between
		// nested writable roots, which it judges on the view.
		if add := bd.ProtectedBetween(p.Filesystem.Protect, func(q string) bool { return v.Stat(q) == KindFile }); len(add) > 0 {
			bd.Rules = append(bd.Rules, add...)
			bd.SortRules()
			for _, r := range add {
				if !slices.Contains(paths, r.Path) {
					paths = append(paths, r.Path)
				}
			}
		}
		spec, rep, err := pl.Bind(b, BindOptions{KernelABI: MaxKnownABI, AllowDegraded: true, View: v, Supervise: supervise,
			Mounts: func() ([]Mount, error) { return nil, nil }})
		if err != nil {
			t.Fatalf("Bind: %v", err)
		}
		noCreate := map[string]bool{}
		for _, nc := range rep.NoCreate {
			noCreate[nc.Dir] = true
		}
		describe := func() string {
			var s strings.Builder
			fmt.Fprintf(&s, "bindings %v supervise %v\nrules:", b, supervise)
			for _, r := range p.Filesystem.Rules {
				fmt.Fprintf(&s, " %s %s;", r.Access, r.Path)
			}
			fmt.Fprintf(&s, " protect %v\nview %v\ngrants:", p.Filesystem.Protect, v)
			for _, g := range spec.Grants {
				fmt.Fprintf(&s, " %s=%s;", g.Path, g.Rights)
			}
			s.WriteString("\nmounts:")
			for _, m := range spec.Mounts {
				fmt.Fprintf(&s, " %s %s keep %v;", m.Kind, m.Path, m.Keep)
			}
			fmt.Fprintf(&s, "\nno_create %v guarded %v", rep.NoCreate, spec.Guarded)
			return s.String()
		}
		for _, q := range paths {
			k := v.Lstat(q)
			want, _, _ := bd.Access(q)
			if k != KindMissing {
				got := effectiveAccess(spec, q)
				if got > want {
					t.Fatalf("%s: the spec gives %s, the profile %s\n%s", q, got, want, describe())
				}
				if got < want && !restricted(q, noCreate) {
					t.Fatalf("%s: the spec gives %s, the profile %s (no no_create reported)\n%s", q, got, want, describe())
				}
				continue
			}
			if want == ir.Write {
				continue
			}
			ex := path.Dir(q)
			for v.Lstat(ex) == KindMissing {
				ex = path.Dir(ex)
			}
			if v.Lstat(ex) != KindDir || !creatable(spec, ex) {
				continue
			}
			if path.Dir(q) == ex && slices.Contains(spec.Guarded, q) {
				continue
			}
			t.Fatalf("%s is missing, the profile makes it %s, but %s is creatable and the name is not guarded\n%s", q, want, ex, describe())
		}
	})
}

// restricted reports whether q is, or lies below, a non-creatable
// directory: Landlock grants there may be narrower than the model
// (restrictive, reported), which only the creation of entries needs.
func restricted(q string, noCreate map[string]bool) bool {
	for d := range noCreate {
		if ir.PathWithin(q, d) {
			return true
		}
	}
	return false
}

// effectiveAccess is the access a spec gives to an existing path q: the
// Landlock level (the union of the grants at q and its ancestors)
// intersected with the state of the innermost mount over q.
func effectiveAccess(s *Spec, q string) ir.Access {
	var rights AccessFS
	for _, g := range s.Grants {
		if ir.PathWithin(q, g.Path) {
			rights |= g.Rights
		}
	}
	ll := ir.Deny
	switch {
	case rights&(FSWriteFile|FSMakeReg|FSRemoveFile) != 0:
		ll = ir.Write
	case rights&(FSReadFile|FSReadDir) != 0:
		ll = ir.Read
	}
	return min(ll, mountAccess(s.Mounts, q, len(s.Mounts)))
}

// mountAccess is what the first n mounts of ms allow at q: the innermost
// one decides (the later of two at one path); a mask denies everything
// but the paths it keeps, which keep the state around the mask.
func mountAccess(ms []MountOp, q string, n int) ir.Access {
	best, depth := -1, -1
	for i, m := range ms[:n] {
		switch m.Kind {
		case MountBaseReadOnly, MountReadWrite, MountReadOnly, MountMask, MountKernelReadOnly:
		default:
			continue
		}
		if ir.PathWithin(q, m.Path) && ir.Depth(m.Path) >= depth {
			best, depth = i, ir.Depth(m.Path)
		}
	}
	if best < 0 {
		return ir.Write // no base-read-only: the profile writes /
	}
	switch m := ms[best]; m.Kind {
	case MountReadWrite:
		return ir.Write
	case MountMask:
		for _, k := range m.Keep {
			if ir.PathWithin(q, ir.JoinAbs(m.Path, k.Rel)) {
				// The kept clone has the state around the mask.
				var outer []MountOp
				for _, o := range ms[:n] {
					if o.Path != m.Path && !ir.PathWithin(o.Path, m.Path) {
						outer = append(outer, o)
					}
				}
				return mountAccess(outer, m.Path, len(outer))
			}
		}
		return ir.Deny
	}
	return ir.Read
}

// creatable reports whether the spec lets the command create an entry
// directly in the existing directory dir: the creation rights granted
// there and a read-write mount.
func creatable(s *Spec, dir string) bool {
	var rights AccessFS
	for _, g := range s.Grants {
		if ir.PathWithin(dir, g.Path) {
			rights |= g.Rights
		}
	}
	return rights&(FSMakeReg|FSMakeDir|FSMakeSym) != 0 && mountAccess(s.Mounts, dir, len(s.Mounts)) == ir.Write
}

// FuzzLandlockConfig exports fuzzed specs (grants on arbitrary paths with
// arbitrary rights, ports) as landlockconfig JSON: the output is valid
// JSON, decodes strictly into the same document, and its rules, read back
// (path variables "$$" unescaped), grant each path exactly the union of
// the rights the spec grants it, and each port exactly its rights.
//
//	go test ./targets/landlock -run '^$' -fuzz '^FuzzLandlockConfig$' -fuzztime 200000x
func FuzzLandlockConfig(f *testing.F) {
	f.Add("/w\x00/h/$HOME\x00/usr\x00/w", []byte{1, 2, 3, 4, 5}, []byte{0, 80, 1, 1, 187, 3, 0, 80, 2})
	f.Add("/a b/\"q\"/\\\x00/${x}", []byte{0, 0xff, 0x7f}, []byte{})
	f.Fuzz(func(t *testing.T, pathList string, rightBytes, portBytes []byte) {
		s := &Spec{ABI: 7, Handled: handledAt(7, ir.NetworkPorts)}
		want := map[string]AccessFS{}
		paths := strings.Split(pathList, "\x00")
		if len(paths) > 64 {
			paths = paths[:64] // enough for every grouping; keeps the run fast
		}
		for i, p := range paths {
			var r AccessFS
			if i < len(rightBytes) {
				r = AccessFS(rightBytes[i]) * (1 + AccessFS(rightBytes[i])<<8) & (1<<len(fsNames) - 1)
			}
			s.Grants = append(s.Grants, Grant{Path: p, Rights: r})
			if r != 0 {
				want[p] |= r
			}
		}
		wantPorts := map[uint16]AccessNet{}
		for len(portBytes) >= 3 && len(s.Ports) < 64 {
			port := uint16(portBytes[0])<<8 | uint16(portBytes[1])
			r := AccessNet(portBytes[2] % 4)
			s.Ports = append(s.Ports, PortGrant{Port: port, Rights: r})
			wantPorts[port] |= r
			portBytes = portBytes[3:]
		}
		c, warns := ToLandlockConfig(s)
		for p := range want {
			if !utf8.ValidString(p) && !slices.ContainsFunc(warns, func(w string) bool { return strings.HasPrefix(w, fmt.Sprintf("%q", p)) }) {
				t.Fatalf("%q left out without a warning: %q", p, warns)
			}
		}
		out, err := c.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON:\n%s", out)
		}
		var back LandlockConfig
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&back); err != nil {
			t.Fatalf("the document does not decode: %v\n%s", err, out)
		}
		if again, _ := back.Encode(); !bytes.Equal(again, out) {
			t.Fatalf("the document does not round-trip:\n%s\n%s", out, again)
		}
		got := map[string]AccessFS{}
		for _, pb := range back.PathBeneath {
			names, _ := json.Marshal(pb.AllowedAccess)
			r, err := parseNames(names, fsNames[:])
			if err != nil {
				t.Fatalf("allowedAccess %v: %v", pb.AllowedAccess, err)
			}
			for _, p := range pb.Parent {
				got[strings.ReplaceAll(p, "$$", "$")] |= AccessFS(r)
			}
		}
		for p, r := range want {
			if !utf8.ValidString(p) {
				// JSON cannot carry it: it must not be exported as another path.
				if _, ok := got[p]; ok {
					t.Fatalf("%q: exported", p)
				}
				continue
			}
			if got[p] != r {
				t.Fatalf("%q: exported rights %s, spec %s\n%s", p, got[p], r, out)
			}
		}
		for p, r := range got {
			if want[p] == 0 {
				t.Fatalf("%q: exported rights %s on a path the spec does not grant\n%s", p, r, out)
			}
		}
		gotPorts := map[uint16]AccessNet{}
		for _, np := range back.NetPort {
			names, _ := json.Marshal(np.AllowedAccess)
			r, err := parseNames(names, netNames[:])
			if err != nil {
				t.Fatal(err)
			}
			for _, port := range np.Port {
				if port > 65535 {
					t.Fatalf("port %d", port)
				}
				gotPorts[uint16(port)] |= AccessNet(r)
			}
		}
		for port, r := range wantPorts {
			if gotPorts[port] != r {
				t.Fatalf("port %d: exported %v, spec %v\n%s", port, gotPorts[port], r, out)
			}
		}
		if len(back.Ruleset) != 1 || !slices.Equal(back.Ruleset[0].HandledAccessFs, s.Handled.FS.Names()) {
			t.Fatalf("ruleset %+v", back.Ruleset)
		}
	})
}

// linkFS is a fuzzed file system with symbolic links, answering as the
// kernel would: nodes are keyed by canonical path (every directory above
// a node is a real directory), links have absolute targets (to
// directories, files, missing paths, other links, themselves). It is a
// View and a Resolver.
type linkFS struct {
	nodes  map[string]Kind
	target map[string]string
}

// walk resolves abs with every link on the way followed, and the final
// one with follow. It returns the canonical path (after the first missing
// component, the rest as written), what is there (KindMissing below a
// file too), and false for a loop (ELOOP: 40 links). visit, if not nil,
// is called with each link followed.
func (fs *linkFS) walk(abs string, follow bool, hops *int, visit func(link string)) (string, Kind, bool) {
	if abs == "/" {
		return "/", KindDir, true
	}
	parts := strings.Split(strings.Trim(abs, "/"), "/")
	rest := func(c string, i int) string { return ir.JoinAbs(c, strings.Join(parts[i+1:], "/")) }
	cur := "/"
	for i, part := range parts {
		next := ir.JoinAbs(cur, part)
		k, ok := fs.nodes[next]
		last := i == len(parts)-1
		switch {
		case !ok:
			return rest(next, i), KindMissing, true
		case k == KindSymlink && (!last || follow):
			if *hops++; *hops > 40 {
				return "", KindMissing, false
			}
			if visit != nil {
				visit(next)
			}
			t, tk, ok := fs.walk(fs.target[next], true, hops, visit)
			if !ok {
				return "", KindMissing, false
			}
			if last {
				return t, tk, true
			}
			if tk != KindDir {
				return rest(t, i), KindMissing, true
			}
			cur = t
		case last:
			return next, k, true
		case k != KindDir:
			return rest(next, i), KindMissing, true
		default:
			cur = next
		}
	}
	return cur, KindDir, true
}

// intended is what abs names: every link followed, dangling ones to the
// path they name; false for a loop.
func (fs *linkFS) intended(abs string) (string, bool) {
	n := 0
	c, _, ok := fs.walk(abs, true, &n, nil)
	return c, ok
}

// throughLinkIn reports whether resolving abs follows a link whose
// directory in satisfies.
func (fs *linkFS) throughLinkIn(abs string, in func(dir string) bool) bool {
	n, found := 0, false
	fs.walk(abs, true, &n, func(l string) { found = found || in(path.Dir(l)) })
	return found
}

// at is where the entry abs itself is (its directory resolved, the final
// component not followed); false for a loop on the way.
func (fs *linkFS) at(abs string) (string, bool) {
	if abs == "/" {
		return "/", true
	}
	d, ok := fs.intended(path.Dir(abs))
	return ir.JoinAbs(d, path.Base(abs)), ok
}

// hasLink reports whether a component of abs, the last one included, is
// a link (what openat2 RESOLVE_NO_SYMLINKS refuses).
func (fs *linkFS) hasLink(abs string) bool {
	for q := abs; q != "/"; q = path.Dir(q) {
		if fs.nodes[q] == KindSymlink {
			return true
		}
	}
	return false
}

func (fs *linkFS) Lstat(abs string) Kind { return fs.kind(abs, false) }
func (fs *linkFS) Stat(abs string) Kind  { return fs.kind(abs, true) }

// kind is what abs is, its last link followed with follow (a loop:
// missing, as ELOOP).
func (fs *linkFS) kind(abs string, follow bool) Kind {
	n := 0
	_, k, ok := fs.walk(abs, follow, &n, nil)
	if !ok {
		return KindMissing
	}
	return k
}

func (fs *linkFS) Subdirs(dir string) []string {
	n := 0
	c, k, ok := fs.walk(dir, true, &n, nil)
	if !ok || k != KindDir {
		return nil
	}
	var out []string
	for p, pk := range fs.nodes {
		if pk == KindDir && p != "/" && path.Dir(p) == c {
			out = append(out, path.Base(p))
		}
	}
	sort.Strings(out)
	return out
}

// Resolve answers as cachedView.Resolve does over the real file system:
// every link followed, a dangling one to the path it names (the missing
// rest as written); for a loop, abs as it is.
func (fs *linkFS) Resolve(abs string) string {
	if c, ok := fs.intended(abs); ok {
		return c
	}
	return abs
}

// Readlink returns the target of the link at abs.
func (fs *linkFS) Readlink(abs string) (string, error) {
	if fs.nodes[abs] != KindSymlink {
		return "", os.ErrInvalid
	}
	return fs.target[abs], nil
}

// materialize creates fs's nodes below top (every node lies below it) on
// disk, for the deny_glob scan, which lists real directories.
func (fs *linkFS) materialize(t *testing.T, top string) {
	ps := make([]string, 0, len(fs.nodes))
	for p := range fs.nodes {
		if ir.PathWithin(p, top) && p != top {
			ps = append(ps, p)
		}
	}
	sort.Strings(ps)
	for _, p := range ps {
		var err error
		switch fs.nodes[p] {
		case KindDir:
			err = os.Mkdir(p, 0o755)
		case KindFile:
			err = os.WriteFile(p, nil, 0o644)
		case KindSymlink:
			err = os.Symlink(fs.target[p], p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzBindLayoutLinks is FuzzBindLayout over file systems with symbolic
// links (linkFS: links to directories and files, inside and outside the
// writable roots, chained, dangling, looping, on the way to rule paths),
// with deny_glob patterns that match links (the tree is then created on
// disk, where the scan lists it). The oracle follows the README
// ("Read and deny rules may name links" in Known limits, the pin-link
// row of the mechanisms): a rule on a link, or through one, applies to
// what the link names, so the model is ir.Bound.Access over the rules
// with their paths resolved (a dangling link names the path it points
// to); deny_glob patterns match names. It checks:
//
//  1. every link that is the path of a read, deny or protect rule, or
//     lies on the way to a rule's path, in a directory the model makes
//     writable, is a mount point (pin-link, or the mask of a deny_glob
//     match), in its directory's canonical spelling;
//  2. no Landlock grant is on a link;
//  3. every existing file and directory gets exactly the model's access
//     from the grants (opened following links) and the mounts (mount
//     follows links; a mask on a link covers the link), less only in
//     reported no_create directories; a missing path the model does not
//     make writable cannot be created;
//  4. no no_create is caused by a link (a link is pinned instead);
//  5. Bind succeeds.
//
// Profiles the launcher refuses at start are skipped (README, Known
// limits: writable roots and paths carried through a mask must be
// canonical).
//
//	go test ./targets/landlock -run '^$' -fuzz '^FuzzBindLayoutLinks$' -fuzztime 50000x -parallel 1
func FuzzBindLayoutLinks(f *testing.F) {
	f.Add([]byte{1, 1, 2, 2, 1, 0, 1, 0, 1, 3, 6, 1}, uint8(0x05), uint32(1))
	f.Add([]byte{1, 0, 2, 2, 0, 1, 1, 2, 0, 1, 4, 1}, uint8(0x81), uint32(9))
	f.Fuzz(func(t *testing.T, data []byte, flags uint8, seed uint32) {
		globs := flags&0x80 != 0
		top := "/sbx-fuzz-links" // never created: only the view knows it
		if globs {
			d, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			top = d
		}
		j := func(rel string) string { return ir.JoinAbs(top, rel) }
		anchors := []string{ir.AnchorRoot, ir.AnchorCwd, ir.AnchorHome, ir.AnchorTmpdir}
		rels := []string{"", "l", "k", "l/x", "k/l", "a", "a/l", "a/l/x", "a/x", ".git", ".ssh", ".ssh/id", "d", "d/l", "m", "f", "l/l/x", "h/l"}
		p := &ir.Profile{Name: "fuzz", Network: ir.Network{Mode: ir.NetworkFull}}
		for i := 0; len(data) >= 3 && i < 8; i++ {
			a := anchors[int(data[0])%len(anchors)]
			rel := rels[int(data[1])%len(rels)]
			if a == ir.AnchorRoot {
				rel = "" // the tree lies below top
			}
			p.Filesystem.Rules = append(p.Filesystem.Rules, ir.PathRule{
				Path: ir.Path{Anchor: a, Rel: rel}, Access: ir.Access(data[2] % 3),
				Source: ir.Range{Filename: "f", Start: ir.Pos{Byte: i}},
			})
			data = data[3:]
		}
		for i, name := range []string{".git", "l", ".ssh"} {
			if flags&(1<<i) != 0 {
				p.Filesystem.Protect = append(p.Filesystem.Protect, ir.ProtectRule{Name: name, Source: ir.Range{Filename: "f", Start: ir.Pos{Byte: 100 + i}}})
			}
		}
		if globs {
			pats := []string{"{cwd}/l*", "{cwd}/**/l", "{home}/.ssh", "{cwd}/*/x", "{home}/**/l*", "{tmpdir}/k", "{cwd}/k"}
			p.Filesystem.DenyGlobs = []ir.GlobRule{{Pattern: pats[(seed>>16)%uint32(len(pats))], MaxDepth: 1 + int(flags>>3&3), Source: ir.Range{Filename: "f", Start: ir.Pos{Byte: 200}}}}
		}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		cwds, homes, tmps := []string{"w", "w/h", "h"}, []string{"h", "w/h", "w"}, []string{"o", "t"}
		b := ir.Bindings{
			ir.AnchorCwd:    {j(cwds[seed%3])},
			ir.AnchorHome:   {j(homes[(seed>>2)%3])},
			ir.AnchorTmpdir: {j(tmps[(seed>>4)%2])},
		}
		supervise := flags&0x40 != 0

		// The tree: the anchors' directories (real, as sbx binds them),
		// and below w, h, o and t the names the rules use, each a link, a
		// directory, a file or missing by a hash of the seed and the path.
		fs := &linkFS{nodes: map[string]Kind{}, target: map[string]string{}}
		for q := top; ; q = path.Dir(q) {
			fs.nodes[q] = KindDir
			if q == "/" {
				break
			}
		}
		for _, ps := range b {
			for q := ps[0]; q != top; q = path.Dir(q) {
				fs.nodes[q] = KindDir
			}
		}
		var positions []string
		for _, r := range []string{"w", "h", "o", "t"} {
			for _, n := range []string{"l", "k", "a", ".git", ".ssh", "m", "d", "f", "h", "x"} {
				positions = append(positions, j(r+"/"+n))
				if strings.Contains("a d .ssh .git h", n) {
					for _, m := range []string{"l", "x", "id"} {
						positions = append(positions, j(r+"/"+n+"/"+m))
					}
				}
			}
		}
		targets := append(slices.Clone(positions), j("w"), j("o"), j("o/nt/deep"), j("w/nn"), j("h/nn"))
		hash := func(s string) uint32 {
			h := fnv.New32a()
			fmt.Fprintf(h, "%d%s", seed, strings.ReplaceAll(s, top, "")) // the same tree wherever top is
			return h.Sum32()
		}
		for _, r := range []string{"w", "h", "o", "t"} {
			if _, ok := fs.nodes[j(r)]; !ok {
				fs.nodes[j(r)] = KindDir
			}
		}
		for _, q := range positions {
			if _, forced := fs.nodes[q]; forced || fs.nodes[path.Dir(q)] != KindDir {
				continue
			}
			hv := hash(q)
			link := hv%16 < 3
			if n := path.Base(q); n == "l" || n == "k" {
				link = hv%16 < 10
			}
			switch {
			case link:
				fs.nodes[q] = KindSymlink
				fs.target[q] = targets[hash("->"+q)%uint32(len(targets))]
			case hv%16 < 11:
				fs.nodes[q] = KindDir
			case hv%16 < 13:
				fs.nodes[q] = KindFile
			}
		}
		if globs {
			fs.materialize(t, top)
			// The view answers as the disk does.
			cv := newCachedView(osView{})
			for _, q := range append(slices.Clone(positions), j("l/x"), j("w/l/x"), j("w/l/l/x"), j("h/a/l/x")) {
				if a, b := fs.Lstat(q), cv.Lstat(q); a != b {
					t.Fatalf("linkFS.Lstat(%s) = %v, the disk %v", q, a, b)
				}
				if a, b := fs.Resolve(q), cv.Resolve(q); a != b {
					t.Fatalf("linkFS.Resolve(%s) = %s, cachedView %s", q, a, b)
				}
			}
		}

		pl, err := Compile(p)
		if err != nil {
			t.Fatalf("Compile: %v", err)
		}
		bd, err := p.Bind(b)
		if err != nil {
			t.Fatal(err)
		}
		// Where a command could have planted a link: a directory the
		// profile makes writable, or one below {cwd}, {tmpdir} or /tmp
		// (other profiles' runs write there) the user may write.
		writable := func(d string) bool { a, _, _ := bd.Access(d); return a == ir.Write }
		plant := func(d string) bool {
			if writable(d) {
				return true
			}
			for _, a := range []string{"cwd", "tmpdir", "slash_tmp"} {
				for _, s := range b[a] {
					if s != "/" && ir.PathWithin(d, s) && userWritable(d) {
						return true
					}
				}
			}
			return false
		}
		// Whether a link's target is writable anyway is judged with every
		// deny at what it names as well: a deny on a link, or through one,
		// masks its target, so nothing below it is writable whatever the
		// write rules spelled without links say (resolveRules' judge).
		judge := &ir.Bound{Rules: slices.Clone(bd.Rules), DenyGlobs: bd.DenyGlobs}
		for _, r := range bd.Rules {
			if c, ok := fs.intended(r.Path); ok && r.Access == ir.Deny && r.Origin == ir.OriginRule && c != r.Path {
				r.Path = c
				judge.Rules = append(judge.Rules, r)
			}
		}
		writableAnyway := func(d string) bool { a, _, _ := judge.Access(d); return a == ir.Write }
		// A write rule through a link that could be planted is left out
		// unless its target is writable anyway; other writable roots
		// through links are refused at start (README).
		for _, r := range bd.Rules {
			if r.Access == ir.Write && fs.hasLink(r.Path) {
				if c, ok := fs.intended(r.Path); ok && c != r.Path && fs.throughLinkIn(r.Path, plant) && !writableAnyway(c) {
					continue
				}
				t.Skip("a write rule through a link: refused at start")
			}
		}
		spec, rep, err := pl.Bind(b, BindOptions{KernelABI: MaxKnownABI, AllowDegraded: true, View: fs, Supervise: supervise,
			Mounts: func() ([]Mount, error) { return nil, nil }})
		if err != nil {
			t.Fatalf("Bind: %v", err)
		}
		describe := func() string {
			var s strings.Builder
			fmt.Fprintf(&s, "bindings %v supervise %v\nrules:", b, supervise)
			for _, r := range p.Filesystem.Rules {
				fmt.Fprintf(&s, " %s %s;", r.Access, r.Path)
			}
			fmt.Fprintf(&s, " protect %v globs %v\nfs:", p.Filesystem.Protect, p.Filesystem.DenyGlobs)
			ps := make([]string, 0, len(fs.nodes))
			for q := range fs.nodes {
				if ir.PathWithin(q, top) && q != top {
					ps = append(ps, q)
				}
			}
			sort.Strings(ps)
			for _, q := range ps {
				switch fs.nodes[q] {
				case KindDir:
					fmt.Fprintf(&s, " %s/", q)
				case KindFile:
					fmt.Fprintf(&s, " %s", q)
				default:
					fmt.Fprintf(&s, " %s->%s", q, fs.target[q])
				}
			}
			s.WriteString("\ngrants:")
			for _, g := range spec.Grants {
				fmt.Fprintf(&s, " %s=%s;", g.Path, g.Rights)
			}
			s.WriteString("\nmounts:")
			for _, m := range spec.Mounts {
				fmt.Fprintf(&s, " %s %s keep %v;", m.Kind, m.Path, m.Keep)
			}
			fmt.Fprintf(&s, "\nno_create %v guarded %v", rep.NoCreate, spec.Guarded)
			return s.String()
		}
		// Paths carried through a mask must be canonical: refused at
		// start otherwise (README).
		for _, m := range spec.Mounts {
			for _, k := range m.Keep {
				if fs.hasLink(ir.JoinAbs(m.Path, k.Rel)) {
					t.Skip("a path carried through a mask through a link: refused at start")
				}
			}
			if m.Kind == MountReadWrite && fs.hasLink(m.Path) {
				t.Fatalf("read-write %s through a link: the launcher refuses it, the profile writes no link\n%s", m.Path, describe())
			}
		}

		// The model: the rules at what their paths name. A read rule
		// through a link in a writable directory (which a command could
		// have planted) applies to its target only where the profile
		// makes that writable (it narrows; it never grants).
		model := *bd
		model.Rules = nil
		leftOut := map[string]bool{} // write roots left out, with their protected names
		for _, r := range bd.Rules {
			if c, ok := fs.intended(r.Path); ok && r.Access == ir.Write && r.Origin == ir.OriginRule && c != r.Path && fs.throughLinkIn(r.Path, plant) && !writableAnyway(c) {
				leftOut[r.Path] = true
			}
		}
		notCarried := map[int]bool{} // bd.Rules left out of the model
		for i, r := range bd.Rules {
			if leftOut[r.Path] && r.Access == ir.Write || leftOut[path.Dir(r.Path)] && r.Origin == ir.OriginProtect {
				notCarried[i] = true
				continue
			}
			if c, ok := fs.intended(r.Path); ok {
				if r.Access == ir.Read && c != r.Path && fs.throughLinkIn(r.Path, plant) && !writableAnyway(c) {
					notCarried[i] = true
					continue
				}
				r.Path = c
			}
			model.Rules = append(model.Rules, r)
		}
		// The protected names between nested writable roots, judged on
		// the rules at what they name, as the target judges them; one on
		// a link is its target's, as any protected name.
		for _, r := range model.ProtectedBetween(p.Filesystem.Protect, func(q string) bool { return fs.Stat(q) == KindFile }) {
			if c, ok := fs.intended(r.Path); ok {
				if c != r.Path && fs.throughLinkIn(r.Path, plant) && !writableAnyway(c) {
					continue
				}
				r.Path = c
			}
			model.Rules = append(model.Rules, r)
		}
		// A deny at what it names that stands at a writable root's own path
		// overrides the write (equal specificity): the root's protected
		// names, read rules more specific than the deny, are left out, as
		// ir.Profile.Bind leaves them out for a deny spelled there, and so
		// is a protected name that leads into a denied directory (red
		// team 20, resolveRules).
		deniedAt := map[string]bool{}
		for _, r := range model.Rules {
			if r.Access == ir.Deny {
				deniedAt[r.Path] = true
			}
		}
		kept := model.Rules[:0]
		for _, r := range model.Rules {
			if r.Origin == ir.OriginProtect && deniedAt[path.Dir(r.Path)] {
				continue
			}
			kept = append(kept, r)
		}
		model.Rules = kept
		access := func(q string) ir.Access { a, _, _ := model.Access(q); return a }

		// 2. No grant on a link.
		for _, g := range spec.Grants {
			if fs.Lstat(g.Path) == KindSymlink {
				t.Fatalf("a grant on the link %s (Landlock follows it)\n%s", g.Path, describe())
			}
		}
		// Where the spec's grants and mounts take effect.
		phys := &Spec{}
		for _, g := range spec.Grants {
			if !g.NoFollow {
				c, ok := fs.intended(g.Path)
				if !ok {
					continue
				}
				g.Path = c
			}
			phys.Grants = append(phys.Grants, g)
		}
		pins := map[string]bool{}      // links that are mount points
		linkMasks := map[string]bool{} // links masked by their name
		for _, m := range spec.Mounts {
			switch {
			case m.Kind == MountPinLink:
				if fs.Lstat(m.Path) != KindSymlink || fs.hasLink(path.Dir(m.Path)) {
					t.Fatalf("pin-link %s: not a link in a canonical directory\n%s", m.Path, describe())
				}
				pins[m.Path] = true
				continue
			case m.Kind == MountMask && fs.Lstat(m.Path) == KindSymlink:
				if m.Dir {
					t.Fatalf("mask %s: a directory mask on a link\n%s", m.Path, describe())
				}
				c, ok := fs.at(m.Path)
				if !ok {
					continue
				}
				pins[c] = true
				linkMasks[c] = true
				m.Path = c
			case m.Kind == MountReadWrite, m.Kind == MountReadOnly, m.Kind == MountMask:
				c, ok := fs.intended(m.Path)
				if !ok {
					continue
				}
				m.Path = c
				if m.Kind == MountReadOnly && mountAccess(phys.Mounts, c, len(phys.Mounts)) == ir.Deny {
					// A read-only bind of a path through a link onto
					// itself, where a mask already is: it binds the
					// mask (or finds nothing below it, and the run
					// fails at start).
					continue
				}
			}
			phys.Mounts = append(phys.Mounts, m)
		}

		// 1. Links named by rules, or on the way to their paths, in
		// writable directories are mount points.
		for _, r := range bd.Rules {
			if leftOut[r.Path] && r.Access == ir.Write || leftOut[path.Dir(r.Path)] && r.Origin == ir.OriginProtect {
				continue // no rule there: nothing to keep in place
			}
			var links []string
			for q := path.Dir(r.Path); q != "/"; q = path.Dir(q) {
				if fs.Lstat(q) == KindSymlink {
					links = append(links, q)
				}
			}
			if (r.Access != ir.Write || r.Origin == ir.OriginProtect) && fs.Lstat(r.Path) == KindSymlink {
				links = append(links, r.Path)
			}
			for _, l := range links {
				c, ok := fs.at(l)
				if !ok || access(path.Dir(c)) != ir.Write {
					continue
				}
				if !pins[c] {
					t.Fatalf("%s (%s, for %s %s) is a link in a writable directory and no mount point: the command can replace it\n%s", c, l, r.Access, r.Path, describe())
				}
			}
		}

		// A link a deny_glob's scan reaches and matches is masked by its
		// name (README: deny_glob in Fidelity).
		denied := map[string]bool{}
		for _, r := range bd.Rules {
			if r.Access == ir.Deny {
				denied[r.Path] = true
			}
		}
		for l, k := range fs.nodes {
			if k != KindSymlink {
				continue
			}
			for _, g := range bd.DenyGlobs {
				lit := globLiteralDir(g.Pattern)
				if !ir.PathWithin(l, lit) || l == lit || ir.Depth(l)-ir.Depth(lit) > g.MaxDepth || !ir.MatchGlob(g.Pattern, l) {
					continue
				}
				reached := slices.ContainsFunc(bd.Rules, func(r ir.BoundRule) bool { return r.Access != ir.Deny && ir.PathWithin(lit, r.Path) })
				for q := path.Dir(l); reached; q = path.Dir(q) {
					if denied[q] || (q != path.Dir(l) && ir.MatchGlob(g.Pattern, q)) {
						reached = false
					}
					if q == lit {
						break
					}
				}
				if reached && !linkMasks[l] && access(path.Dir(l)) > ir.Deny {
					t.Fatalf("%s is a link %s matches, reached by the scan, and not masked by its name\n%s", l, g.Pattern, describe())
				}
			}
		}

		// 4. No no_create for a link.
		noCreate := map[string]bool{}
		for _, nc := range rep.NoCreate {
			noCreate[nc.Dir] = true
			for _, m := range nc.Missing {
				if nc.NoRemove || fs.Lstat(m) == KindSymlink {
					t.Fatalf("no_create %+v for the link %s: a link is pinned instead\n%s", nc, m, describe())
				}
			}
		}

		// 3. Every file and directory gets the model's access.
		var paths []string
		for q, k := range fs.nodes {
			if k != KindSymlink {
				paths = append(paths, q)
			}
		}
		sort.Strings(paths)
		for _, q := range paths {
			want := access(q)
			got := effectiveAccess(phys, q)
			if got > want {
				t.Fatalf("%s: the spec gives %s, the profile %s\n%s", q, got, want, describe())
			}
			if got < want && !restricted(q, noCreate) {
				t.Fatalf("%s: the spec gives %s, the profile %s (no no_create reported)\n%s", q, got, want, describe())
			}
		}
		// Missing paths the model does not make writable (what rules
		// name, through links too) cannot be created.
		guarded := map[string]bool{}
		for _, g := range spec.Guarded {
			if c, ok := fs.at(g); ok {
				guarded[c] = true
			}
		}
		var missing []string
		for i, r := range bd.Rules {
			if notCarried[i] {
				continue // what it names is the other rules' (a dropped rule guards nothing)
			}
			for _, q := range []string{r.Path, ir.JoinAbs(r.Path, "zz")} {
				if c, ok := fs.intended(q); ok && fs.Lstat(c) == KindMissing {
					missing = append(missing, c)
				}
			}
		}
		for _, q := range missing {
			if access(q) == ir.Write {
				continue
			}
			ex := path.Dir(q)
			for fs.Lstat(ex) == KindMissing {
				ex = path.Dir(ex)
			}
			if fs.nodes[ex] != KindDir || !creatable(phys, ex) {
				continue
			}
			// The name directly in ex on the way to q is refused.
			if guarded[ir.JoinAbs(ex, strings.SplitN(strings.TrimPrefix(strings.TrimPrefix(q, ex), "/"), "/", 2)[0])] {
				continue
			}
			t.Fatalf("%s is missing, the profile makes it %s, but %s is creatable and the name is not guarded\n%s", q, access(q), ex, describe())
		}
	})
}
