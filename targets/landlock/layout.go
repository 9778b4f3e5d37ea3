package landlock

import (
	"path"
	"sort"
	"strings"

	"github.com/sbx-dev/sbx/ir"
)

// Kind is what lstat finds at a path.
type Kind int

// Kinds. KindUnknown is what the compile-time (symbolic) view answers.
const (
	KindUnknown Kind = iota
	KindMissing
	KindDir
	KindFile
	KindSymlink
)

// View answers the questions the layout asks about the filesystem a plan is
// bound to. The compile-time planner uses a view that knows nothing, so the
// same algorithm yields the symbolic plan and, at run time, the bound one.
type View interface {
	// Lstat reports what is at abs without following a final symlink.
	Lstat(abs string) Kind
	// Stat reports what abs resolves to (KindDir, KindFile or KindMissing).
	Stat(abs string) Kind
	// Subdirs lists the real (not symlinked) subdirectories of dir, sorted.
	Subdirs(dir string) []string
}

// unknownView is the compile-time view.
type unknownView struct{}

func (unknownView) Lstat(string) Kind       { return KindUnknown }
func (unknownView) Stat(string) Kind        { return KindUnknown }
func (unknownView) Subdirs(string) []string { return nil }

// MountKind is one mount-namespace operation of the helper.
type MountKind string

// Mount operations, applied in plan order after the mount namespace was made
// private.
const (
	// MountBaseReadOnly makes every mount of the view read-only, recursively,
	// so that metadata changes (chmod, chown, utime, xattrs), truncation and
	// writes outside the writable roots fail with EROFS whatever Landlock
	// allows. Omitted only when the profile grants write on /.
	MountBaseReadOnly MountKind = "base-read-only"
	// MountReadWrite binds the path onto itself (recursively) and clears the
	// read-only flag: a writable root, or a writable descendant reopened under
	// a read-only one. It is nosuid and nodev (device nodes found there are
	// not devices inside).
	MountReadWrite MountKind = "read-write"
	// MountReadOnly binds the path onto itself (recursively) read-only and
	// nosuid: a read-only carve-out inside a writable root (or a standard
	// device kept through a mask of /dev).
	MountReadOnly MountKind = "read-only"
	// MountMask mounts an empty, read-only, mode-000 directory or file over
	// the path, so that reading and listing fail with EACCES (the command has
	// no capabilities to override the mode) and the entry cannot be renamed or
	// removed (EBUSY). Keep lists descendants the profile reopens: they are
	// carried through the mask on mode-0111 (traverse-only) directories.
	MountMask MountKind = "mask"
	// MountProc mounts a fresh procfs of the sandbox's PID namespace on
	// /proc, so other processes' entries do not exist.
	MountProc MountKind = "proc"
	// MountDevpts mounts a private devpts instance on /dev/pts and binds
	// its ptmx onto /dev/ptmx where /dev is not masked (a mask carries its
	// own), so the base allowance's /dev/pts never reaches the host's
	// terminals.
	MountDevpts MountKind = "devpts"
	// MountDetach detaches the mount at the path from the view (umount2
	// MNT_DETACH), leaving the directory below it: for root runs only,
	// whose view copies the host's mounts unlocked (no user namespace).
	MountDetach MountKind = "detach"
	// MountKernelReadOnly makes the mount at the path, and those below it,
	// read-only, nosuid, nodev and noexec where it is (no bind): a kernel
	// file system (procfs, sysfs, cgroup, binfmt_misc, ...) the host
	// mounted below a writable root.
	MountKernelReadOnly MountKind = "kernel-read-only"
	// MountPinLink binds a symbolic link onto itself (not following it):
	// the link becomes a mount point, which cannot be removed,
	// renamed or replaced (EBUSY), while lookups through it still follow
	// it. It keeps a read, deny or protect rule on a link in a writable
	// directory on that link; what the link points to has a rule of its
	// own (see resolveRules).
	MountPinLink MountKind = "pin-link"
)

// MountOp is one mount-namespace operation.
type MountOp struct {
	Kind MountKind `json:"kind"`
	Path string    `json:"path"`
	// Dir tells a mask whether the target is a directory (resolved at bind
	// time; unknown at compile time).
	Dir bool `json:"dir,omitempty"`
	// Keep lists the paths, relative to Path, that a mask carries through.
	Keep []Keep `json:"keep,omitempty"`
	// Why names the rule that needs the operation.
	Why string `json:"why,omitempty"`
	// Vanishing marks a deny_glob's match: if it is gone when the view is
	// built, there is nothing to deny there (a match created later is not
	// denied either), so the mask is skipped instead of failing the run.
	Vanishing bool `json:"vanishing,omitempty"`
	// Mounted marks a detach or mask of a mount the host made there (a
	// kernel file system): the path must still be a mount point when the
	// view is built, which is made read-only through the descriptor it is
	// opened as, and a mask goes on that very mount; otherwise the run is
	// refused. A directory above it that another process renamed since
	// the binding (a concurrent run exchanging a build chroot in /tmp with
	// a look-alike) would otherwise have the mask or the detach land on
	// the look-alike, and the host's procfs stay read-write at its new
	// name (red team 28).
	Mounted bool `json:"mounted,omitempty"`
}

// Keep is a descendant reopened below a mask.
type Keep struct {
	Rel string `json:"rel"`
	Dir bool   `json:"dir"`
}

// Grant is one Landlock path-beneath rule.
type Grant struct {
	Path   string   `json:"path"`
	Rights AccessFS `json:"rights"`
	// NoFollow opens the path with O_NOFOLLOW and requires a directory: used
	// for subdirectories re-granted next to a non-creatable directory, which
	// must never be reached through a symlink planted there.
	NoFollow bool   `json:"no_follow,omitempty"`
	Why      string `json:"why,omitempty"`
}

// NoCreate records a writable directory whose direct entries cannot be
// created, because a narrower path directly or further below it does not
// exist and neither Landlock nor a mount can stop its creation by name.
type NoCreate struct {
	Dir string `json:"dir"`
	// Missing are the narrower paths below Dir that do not exist.
	Missing []string `json:"missing"`
	// NoRemove is set when a narrower name is a symlink that must not be
	// replaced: direct entries cannot be removed either.
	NoRemove bool `json:"no_remove,omitempty"`
}

// input is one bound rule handed to the layout.
type input struct {
	path   string
	access ir.Access
	forced bool // a deny-glob match: nothing below it is reopened
	ref    int  // index of the IR rule in the fidelity table
	// protect: a protected name's rule (ir.OriginProtect)
	protect bool
}

type entry struct {
	path    string
	access  ir.Access
	forced  bool
	protect bool // a protected name's (one of its inputs is)
	refs    []int
	depth   int

	parent *entry
	ll     ir.Access // access Landlock alone grants here (max over ancestors)
	state  mountState
	op     MountKind
	keep   []Keep
	kind   Kind
}

type mountState int

const (
	stateRO mountState = iota
	stateRW
	stateMask
)

// note is the layout's remark about one IR rule.
type note struct {
	ref       int
	level     Level
	mechanism string
	detail    string
}

// layout is the result of the one algorithm that turns bound rules into
// Landlock grants, mount operations and non-creatable directories.
type layout struct {
	grants   []Grant
	mounts   []MountOp
	noCreate []NoCreate
	// guarded are missing narrower paths whose creation the seccomp
	// user-notification supervisor refuses by name (see Spec.Guarded).
	guarded []string
	notes   []note
	entries []*entry
}

// computeLayout is the algorithm shared by compile time (symbolic paths such
// as "/{cwd}/.git" and a view that knows nothing) and run time (absolute
// paths and the real filesystem):
//
//  1. rules at the same path collapse to the strongest access (deny > write
//     > read, as in ir.Bound.Access); a deny-glob match overrides everything
//     at and below it;
//  2. every read or write path gets a Landlock rule with the rights of its
//     level; Landlock then grants a path the union of its ancestors' rights;
//  3. where that union is wider than the IR access (read-only inside a
//     writable root, deny inside a readable tree), a mount operation narrows
//     it: read-only bind or mask; a read or write path below a mask is
//     carried through the mask; the base view is read-only, and writable
//     paths are bound read-write;
//  4. a narrower path that does not exist inside a writable directory cannot
//     be protected by name with Landlock or a mount. With supervise, a
//     missing path directly below a writable root (a read-write mount
//     point, which cannot be renamed or replaced: EBUSY) is guarded: the
//     supervisor refuses its creation by (parent inode, name). Otherwise the
//     nearest existing directory becomes non-creatable (restrictive), its
//     existing real subdirectories are re-granted write.
func computeLayout(ins []input, v View, supervise bool) *layout {
	// Sized once from the inputs (most are paths of their own, and most
	// of those get a note): sbx computes this at every start, where each
	// allocation is heap the run touches first.
	lo := &layout{notes: make([]note, 0, len(ins))}
	byPath := make(map[string]*entry, len(ins))
	store := make([]entry, 0, len(ins))
	for _, in := range ins {
		e := byPath[in.path]
		if e == nil {
			store = append(store, entry{path: in.path, access: in.access, depth: ir.Depth(in.path)})
			e = &store[len(store)-1]
			byPath[in.path] = e
		} else if stronger(in.access, e.access) {
			e.access = in.access
		}
		if in.forced {
			e.forced = true
			e.access = ir.Deny
		}
		e.protect = e.protect || in.protect
		e.refs = append(e.refs, in.ref)
	}
	// A deny glob denies its match and everything below, whatever deeper
	// rule matches.
	for p, e := range byPath {
		for q := path.Dir(p); ; q = path.Dir(q) {
			if f := byPath[q]; f != nil && f.forced && q != p {
				for _, r := range e.refs {
					lo.notes = append(lo.notes, note{ref: r, level: LevelExact, detail: "inside " + q + ", denied by a deny_glob match"})
				}
				delete(byPath, p)
				break
			}
			if q == "/" {
				break
			}
		}
	}
	entries := make([]*entry, 0, len(byPath))
	for _, e := range byPath {
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].depth != entries[j].depth {
			return entries[i].depth < entries[j].depth
		}
		return entries[i].path < entries[j].path
	})
	lo.entries = entries
	nearest := func(p string) *entry { // nearest entry strictly above p
		for q := p; q != "/"; {
			q = path.Dir(q)
			if e := byPath[q]; e != nil {
				return e
			}
		}
		return nil
	}
	model := func(p string) ir.Access { // the IR access of p (entries only)
		if e := byPath[p]; e != nil {
			return e.access
		}
		if e := nearest(p); e != nil {
			return e.access
		}
		return ir.Deny
	}

	base := stateRO
	if r := byPath["/"]; r != nil && r.access == ir.Write {
		base = stateRW
	} else {
		lo.mounts = append(lo.mounts, MountOp{Kind: MountBaseReadOnly, Path: "/", Why: "everything outside the writable roots is read-only (metadata, truncation)"})
	}

	noCreate := map[string]*NoCreate{}
	addNoCreate := func(dir, missing string, noRemove bool, refs []int) {
		nc := noCreate[dir]
		if nc == nil {
			nc = &NoCreate{Dir: dir}
			noCreate[dir] = nc
		}
		nc.Missing = append(nc.Missing, missing)
		nc.NoRemove = nc.NoRemove || noRemove
		what := "does not exist"
		if noRemove {
			what = "is a symbolic link"
		}
		for _, r := range refs {
			lo.notes = append(lo.notes, note{ref: r, level: LevelRestrictive, mechanism: "landlock",
				detail: "new entries cannot be created directly in " + dir + " because " + missing + " " + what + " there"})
		}
	}

	for _, e := range entries {
		e.parent = nearest(e.path)
		llParent, stParent := ir.Deny, base
		if e.parent != nil {
			llParent, stParent = e.parent.ll, e.parent.state
		}
		e.ll = max(llParent, e.access)
		var need mountState
		switch e.access {
		case ir.Write:
			need = stateRW
		case ir.Read:
			need = stateRO
		default:
			if llParent > ir.Deny {
				need = stateMask
			} else {
				need = stParent
			}
		}
		e.kind = v.Lstat(e.path)
		if e.kind == KindMissing {
			e.state = stParent
			if e.access < ir.Write {
				// Can the missing path be created? Only where the nearest
				// existing ancestor is writable.
				ex := path.Dir(e.path)
				for ex != "/" && v.Lstat(ex) == KindMissing {
					ex = path.Dir(ex)
				}
				if model(ex) == ir.Write && v.Lstat(ex) == KindDir {
					// Only a direct child of a read-write mount point can be
					// guarded by inode: any other directory could be renamed
					// away and recreated, and the name would then be free
					// under the original path.
					p := byPath[ex]
					if supervise && ex == path.Dir(e.path) && p != nil && p.access == ir.Write && p.op == "" {
						// A writable root nested in another one (the
						// workspace inside /tmp) becomes a mount point too.
						p.op = MountReadWrite
					}
					// A protected name in a writable directory between
					// two nested writable roots (ir.Bound.ProtectedBetween)
					// has no entry for that directory: the pins below make
					// it a mount point, since it is above a guarded path.
					if supervise && ex == path.Dir(e.path) && (p != nil && p.op == MountReadWrite || p == nil && e.protect) {
						lo.guarded = append(lo.guarded, e.path)
						for _, r := range e.refs {
							lo.notes = append(lo.notes, note{ref: r, level: LevelSupplementary, mechanism: "seccomp user notification",
								detail: e.path + " does not exist: the supervisor performs every creation system call and refuses this name directly in " + ex + " (EACCES)"})
						}
						continue
					}
					addNoCreate(ex, e.path, false, e.refs)
					continue
				}
			}
			if e.access == ir.Write {
				// A missing writable root is writable once created, and
				// only the nearest existing ancestor's rights can create
				// it: where that is not writable, the command cannot (red
				// team 23: dry-run said exact, mkdir failed with EROFS).
				ex := path.Dir(e.path)
				for ex != "/" && v.Lstat(ex) == KindMissing {
					ex = path.Dir(ex)
				}
				if model(ex) != ir.Write || v.Lstat(ex) != KindDir {
					for _, r := range e.refs {
						lo.notes = append(lo.notes, note{ref: r, level: LevelRestrictive, mechanism: "landlock",
							detail: e.path + " does not exist, and the command cannot create it (" + ex + " is not writable): create it before the run"})
					}
					continue
				}
			}
			for _, r := range e.refs {
				lo.notes = append(lo.notes, note{ref: r, level: LevelExact, detail: e.path + " does not exist"})
			}
			continue
		}
		if e.kind == KindSymlink && e.access < ir.Write && stParent != stateMask && !e.forced {
			// A rule on a link: its target has an entry of its own
			// (resolveRules), which gets the rule's mount; the link only
			// has to stay this link. In a writable directory it is pinned
			// (a mount point cannot be removed, renamed or replaced);
			// elsewhere the view keeps it as it is. (A deny_glob matches
			// names: a link it matches is masked itself, below.)
			e.state = stParent
			level, mech, detail := LevelExact, "", ""
			if stParent == stateRW {
				e.op = MountPinLink
				level, mech = LevelSupplementary, "mount-namespace pin of the link"
				detail = e.path + " is a symbolic link in a writable directory: the link is pinned (a mount point: it cannot be removed, renamed or replaced), and the rule applies to what it points to"
			}
			// No grant on the link: Landlock would follow it (the target's
			// entry has the rule's).
			for _, r := range e.refs {
				lo.notes = append(lo.notes, note{ref: r, level: level, mechanism: mech, detail: detail})
			}
			continue
		}
		mech := ""
		switch {
		case need == stParent:
		case stParent == stateMask:
			// Carry the path through the mask above it.
			m := e.parent
			for m != nil && m.op != MountMask {
				m = m.parent
			}
			pre := base // the view's state where the mask was placed
			if m != nil {
				rel := strings.TrimPrefix(strings.TrimPrefix(e.path, m.path), "/")
				m.keep = append(m.keep, Keep{Rel: rel, Dir: v.Stat(e.path) != KindFile})
				if m.parent != nil {
					pre = m.parent.state
				}
			}
			// The kept clone already has the state of the view around the
			// mask; writable paths always get their op (their clone is taken
			// before the view is made read-only).
			if need != pre || need == stateRW {
				e.op = modeOp(need)
			}
			mech = "mount-namespace bind through a mask"
		default:
			e.op = modeOp(need)
			switch e.op {
			case MountReadOnly:
				mech = "mount-namespace read-only bind"
			case MountMask:
				mech = "mount-namespace mask"
			}
		}
		e.state = need
		// A link with a mount of its own (a deny_glob's mask) is a mount
		// point already: it cannot be removed or replaced.
		if e.kind == KindSymlink && e.op == "" && e.access < ir.Write && model(path.Dir(e.path)) == ir.Write {
			addNoCreate(path.Dir(e.path), e.path, true, e.refs)
		}
		if e.access != ir.Deny {
			rights := ReadRights
			if e.access == ir.Write {
				rights = WriteRights
			}
			lo.grants = append(lo.grants, Grant{Path: e.path, Rights: rights, Why: e.access.String()})
		}
		level, detail := LevelExact, ""
		if mech != "" {
			level = LevelSupplementary
			detail = "Landlock alone would grant " + e.ll.String() + " here (rights are inherited from " + e.parent.path + "); the mount narrows it to " + e.access.String()
		}
		if e.kind == KindUnknown && e.access < ir.Write && model(path.Dir(e.path)) == ir.Write {
			if detail != "" {
				detail += "; "
			}
			detail += "if it does not exist at run time, the seccomp user-notification supervisor refuses its creation (supplementary; where the supervisor is unavailable, new entries cannot be created directly in its parent: restrictive)"
		}
		for _, r := range e.refs {
			lo.notes = append(lo.notes, note{ref: r, level: level, mechanism: mech, detail: detail})
		}
	}
	for _, e := range entries {
		if e.op == "" {
			continue
		}
		op := MountOp{Kind: e.op, Path: e.path, Keep: e.keep, Why: e.access.String(), Vanishing: e.forced && e.op == MountMask && len(e.keep) == 0}
		if e.op == MountMask {
			// A link (a deny_glob's match) is masked itself, by a file:
			// a mount on a link's own entry must not be a directory, and
			// the name then reads the mask instead of following the link.
			op.Dir = e.kind != KindSymlink && v.Stat(e.path) != KindFile
		}
		lo.mounts = append(lo.mounts, op)
	}

	// Non-creatable directories: every write grant above them loses the
	// creation rights; real subdirectories off the path are re-granted.
	dirs := make([]string, 0, len(noCreate))
	for d := range noCreate {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	reduced := map[string]AccessFS{}
	regrant := map[string]bool{}
	// A re-grant gives a whole subtree every creation right (Landlock
	// rights add up): never to a directory that is, or holds, another
	// non-creatable directory. The walk for that one re-grants what is
	// off its own path.
	holdsNoCreate := func(c string) bool {
		for d2 := range noCreate {
			if ir.PathWithin(d2, c) {
				return true
			}
		}
		return false
	}
	for _, d := range dirs {
		nc := noCreate[d]
		sort.Strings(nc.Missing)
		lo.noCreate = append(lo.noCreate, *nc)
		rights := NoCreateRights
		if nc.NoRemove {
			rights = NoCreateNoRemoveRights
		}
		top := ""
		for _, e := range entries {
			if e.access == ir.Write && ir.PathWithin(d, e.path) {
				if cur, ok := reduced[e.path]; !ok || rights < cur {
					reduced[e.path] = rights
				}
				if top == "" || ir.Depth(e.path) < ir.Depth(top) {
					top = e.path
				}
			}
		}
		if top == "" {
			continue
		}
		// Walk from top down to d; re-grant writable subdirectories off the
		// chain, and every writable subdirectory of d itself.
		for cur := top; ; {
			var next string
			if cur != d {
				rest := strings.TrimPrefix(strings.TrimPrefix(d, cur), "/")
				next = ir.JoinAbs(cur, strings.SplitN(rest, "/", 2)[0])
			}
			for _, sd := range v.Subdirs(cur) {
				c := ir.JoinAbs(cur, sd)
				if c == next || byPath[c] != nil || model(c) != ir.Write || holdsNoCreate(c) {
					continue
				}
				regrant[c] = true
			}
			if cur == d {
				break
			}
			cur = next
		}
	}
	for i := range lo.grants {
		if r, ok := reduced[lo.grants[i].Path]; ok {
			lo.grants[i].Rights = r
			lo.grants[i].Why += ", no creation (see no_create)"
			for _, e := range entries {
				if e.path == lo.grants[i].Path {
					for _, ref := range e.refs {
						lo.notes = append(lo.notes, note{ref: ref, level: LevelRestrictive, mechanism: "landlock",
							detail: "entries cannot be created directly in some directories below " + e.path + " (see no_create)"})
					}
				}
			}
		}
	}
	for c := range regrant {
		lo.grants = append(lo.grants, Grant{Path: c, Rights: WriteRights, NoFollow: true, Why: "write, re-granted next to a non-creatable directory"})
	}
	sort.Slice(lo.grants, func(i, j int) bool { return lo.grants[i].Path < lo.grants[j].Path })

	// Pins. Every protection is a mount or a rule on a path name. A
	// writable directory above a protected path that is not itself a mount
	// point could be renamed by the command (the mounts below move with
	// it), leaving the protected content unprotected at the new name for
	// the next run, which binds the old name. Such directories become
	// mount points (a read-write bind onto themselves): renaming or
	// removing a mount point fails with EBUSY.
	mounted := map[string]bool{"/": true}
	for _, m := range lo.mounts {
		mounted[m.Path] = true
	}
	var protected []string
	for _, e := range entries {
		if e.op == MountReadOnly || e.op == MountMask {
			protected = append(protected, e.path)
		}
	}
	protected = append(protected, lo.guarded...)
	for _, d := range dirs {
		protected = append(protected, d)
		protected = append(protected, noCreate[d].Missing...)
	}
	pinned := map[string]bool{}
	for _, pr := range protected {
		for a := path.Dir(pr); a != "/"; a = path.Dir(a) {
			if model(path.Dir(a)) != ir.Write {
				break // a's parent is read-only: a cannot be renamed
			}
			if mounted[a] || pinned[a] {
				continue // itself fixed; its parent may still move it
			}
			if k := v.Lstat(a); k != KindDir && k != KindUnknown {
				break
			}
			pinned[a] = true
		}
	}
	for a := range pinned {
		lo.mounts = append(lo.mounts, MountOp{Kind: MountReadWrite, Path: a, Why: "pinned: a directory above a protected path, which the command must not rename"})
	}
	if len(pinned) > 0 {
		// Parents before children, the base first (it is "/").
		sort.SliceStable(lo.mounts, func(i, j int) bool {
			di, dj := ir.Depth(lo.mounts[i].Path), ir.Depth(lo.mounts[j].Path)
			if di != dj {
				return di < dj
			}
			return lo.mounts[i].Path < lo.mounts[j].Path
		})
	}
	return lo
}

func modeOp(s mountState) MountKind {
	switch s {
	case stateRW:
		return MountReadWrite
	case stateRO:
		return MountReadOnly
	default:
		return MountMask
	}
}

// stronger orders accesses at equal specificity: deny beats write beats read.
func stronger(a, b ir.Access) bool {
	rank := func(x ir.Access) int {
		switch x {
		case ir.Deny:
			return 3
		case ir.Write:
			return 2
		default:
			return 1
		}
	}
	return rank(a) > rank(b)
}
