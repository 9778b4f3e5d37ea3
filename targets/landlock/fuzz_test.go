package landlock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path"
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
var fuzzPaths = []string{"/", "/w", "/w/a", "/w/a/b", "/w/.git", "/w/proc", "/h", "/h/.ssh", "/sys", "/sys/fs/cgroup", "/proc", "/proc/sys", "/t", "/w/t", "/w/h"}

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
		types := []string{"ext4", "proc", "sysfs", "cgroup2", "tracefs", "debugfs", "binfmt_misc", "tmpfs", "mqueue"}
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
			opAt[op.Path] = op.Kind
		}
		for _, m := range ms {
			if !kernelFSTypes[m.FSType] || m.Path == "/" || ir.PathWithin(m.Path, "/proc") || below(m.Path, masked) || below(m.Path, detached) {
				continue
			}
			if root && revealingFSTypes[m.FSType] && grants(m.Path, FSReadFile|FSReadDir) {
				t.Fatalf("root run: %s at %s is readable and not detached: %v", m.FSType, m.Path, ops)
			}
			if !ir.PathWithin(m.Path, "/sys") && grants(m.Path, ^(FSExecute|FSReadFile|FSReadDir)) && opAt[m.Path] != MountKernelReadOnly {
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
