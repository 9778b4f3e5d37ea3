package landlock

import (
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/sbx-dev/sbx/ir"
)

// A Resolver is a View that resolves symbolic links (the real view does).
// Bind resolves the paths of read and deny rules with it: Landlock opens a
// rule's path following links, so a read rule on a link grants its target,
// and a deny below that target must be masked there; a mask cannot be
// mounted over a link, only over what it points to.
type Resolver interface {
	// Resolve returns abs with every symbolic link in the part that exists
	// resolved; the rest (missing components) stays as written.
	Resolve(abs string) string
	// Readlink returns the contents of the symbolic link at abs.
	Readlink(abs string) (string, error)
}

// Resolve resolves the links in abs, asking the kernel only where a
// component of it (cached) is a link. A dangling link is followed too, to
// the path it names (which does not exist yet: the rest stays as
// written); after 40 links (a loop) abs is returned as it is.
func (c *cachedView) Resolve(abs string) string {
	if r, ok := c.v.(Resolver); ok {
		return r.Resolve(abs) // a view of its own (tests)
	}
	return resolvePath(c, c.Readlink, abs, nil)
}

// Readlink reads the link at abs, once per binding like Lstat: the
// binding resolves a rule's path, and judges whether a link it followed
// could have been planted, in separate walks (resolvePath), and each must
// see the same link. Read again, a link that another process flips with a
// directory (renameat2 RENAME_EXCHANGE, a concurrent run's command in a
// shared /tmp) resolved the rule to its target in one walk and failed to
// read (EINVAL: a directory now) in the walk that judges it, which then
// saw no link: the read rule was carried to the target, a ~/.ssh the
// profile never grants, in about one start in five (red team 28).
func (c *cachedView) Readlink(abs string) (string, error) {
	if r, ok := c.v.(Resolver); ok {
		return r.Readlink(abs)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.links[abs]; ok {
		return a.target, a.err
	}
	t, err := os.Readlink(abs)
	if c.links == nil {
		c.links = make(map[string]readlinkAnswer, 8)
	}
	c.links[abs] = readlinkAnswer{t, err}
	return t, err
}

// resolvePath resolves abs through v's links as the kernel does, a
// dangling link to the path it names (the rest as written). visit, if not
// nil, is given every link followed, nested ones (in a link's target)
// included, each spelled with its directory resolved. After 40 links (a
// loop) abs is returned as it is.
func resolvePath(v View, readlink func(string) (string, error), abs string, visit func(link string)) string {
	if abs == "/" || !strings.HasPrefix(abs, "/") {
		return abs
	}
	rest := strings.Split(abs[1:], "/")
	cur := "/"
	for hops := 0; len(rest) > 0; {
		part := rest[0]
		rest = rest[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := ir.JoinAbs(cur, part)
		switch v.Lstat(next) {
		case KindSymlink:
			if hops++; hops > 40 {
				return abs
			}
			t, err := readlink(next)
			if err != nil {
				return abs
			}
			if visit != nil {
				visit(next)
			}
			if strings.HasPrefix(t, "/") {
				cur = "/"
			}
			rest = append(strings.Split(t, "/"), rest...)
			continue
		case KindMissing:
			return path.Join(append([]string{next}, rest...)...)
		}
		cur = next
	}
	return cur
}

// resolveRules resolves the paths of bd's read and deny rules, and of
// protected names that are links, through v's links (writable roots are
// refused through a link at launch instead: a writable path must not
// move). A rule whose path is a link keeps it, in its directory's
// canonical spelling (the layout pins the link, MountPinLink), and gains a
// rule on the link's target; a rule through links on the way becomes the
// target's, and the links are returned to be pinned. A dangling link names
// the path it points to; a loop names nothing. Rules keep their symbolic
// path, so the report still names what the profile wrote.
//
// A link in a directory the profile makes writable may have been put there
// by a command an earlier run confined (or have come with a cloned
// repository), so following it must not grant anything: a read rule (or
// a protected name) through such a link applies to the target only where
// the profile makes the target writable (a carve-out, which narrows);
// elsewhere it is left out (bd.Dropped says so where the target stays
// denied), and the link is still pinned. Denies always carry through.
//
// Where another profile's run could have planted a link counts too (shared,
// see plantableIn).
//
// Once the write rules stand where they will be enforced, the protected
// names (protect) are added in the directories between nested writable
// roots (ir.Bound.ProtectedBetween), before protected names that are links
// are handled; where v cannot resolve links, they are added as bound.
//
// It returns the paths of the read rules that are links, whose Landlock
// grant must go (dropLinkGrants), since Landlock would follow the link to
// a target a deny may have masked nothing of (the layout sees the target
// through the added rule, where a deny wins); and the links on the way to
// a rule's path (canonical spellings), which must stay where they are
// while the rule is enforced (pinLinksOnTheWay).
func resolveRules(bd *ir.Bound, v View, shared []string, protect []ir.ProtectRule) (links, onTheWay []string) {
	file := func(p string) bool { return v.Stat(p) == KindFile }
	res, ok := v.(Resolver)
	if !ok {
		if add := bd.ProtectedBetween(protect, file); len(add) > 0 {
			bd.Rules = append(bd.Rules, add...)
			bd.SortRules()
		}
		return nil, nil
	}
	// Judged on the rules as bound, before any is moved to a target.
	// (Shared with bd until bd's rules first change in place: own copies
	// them then. Most bindings change none, and each copy of the rules is
	// heap sbx touches at start.)
	orig := &ir.Bound{Rules: bd.Rules, DenyGlobs: bd.DenyGlobs}
	own := func() {
		if len(orig.Rules) > 0 && len(bd.Rules) > 0 && &orig.Rules[0] == &bd.Rules[0] {
			orig.Rules = slices.Clone(orig.Rules)
		}
	}
	plantable := plantableIn(orig, shared)
	// Whether the profile makes a link's target writable is judged with
	// the denies at what they name too: a deny on a link, or through one,
	// masks its target (below), so a target below it is not writable,
	// whatever the write rules spelled without links say. (Judged on orig
	// alone, a read rule through a planted link reopened a directory a
	// deny on a link masked: red team 20.)
	// (orig itself where no deny leads through a link, as in most
	// profiles: each copy of the rules is heap sbx touches at start.)
	judge := orig
	for _, r := range bd.Rules {
		if r.Origin != ir.OriginRule || r.Access != ir.Deny {
			continue
		}
		if p := res.Resolve(r.Path); p != r.Path && p != "" {
			if judge == orig {
				judge = &ir.Bound{Rules: slices.Clone(orig.Rules), DenyGlobs: bd.DenyGlobs}
			}
			t := r
			t.Path = p
			judge.Rules = append(judge.Rules, t)
		}
	}
	changed := false
	var gone []int // rules through a plantable link, left out
	// A write rule through a link the command could have planted would
	// open its Landlock grant on the link's target (a rule nested in a
	// writable root has no mount of its own to refuse the link): it is
	// left out unless the target is writable anyway, with the protected
	// names below it. The link stays an entry of the writable directory.
	droppedRoots := map[string]bool{}
	// One the target of which is writable anyway is its target's (with
	// its protected names): kept on the link, it would open its grant
	// through the link and its protected names, below the link, would
	// be neither guarded nor read-only (red team 20).
	movedRoots := map[string]string{}
	for i, r := range bd.Rules {
		if r.Origin != ir.OriginRule || r.Access != ir.Write {
			continue
		}
		p := res.Resolve(r.Path)
		if p == r.Path || p == "" {
			continue
		}
		planted := false
		resolvePath(v, res.Readlink, r.Path, func(l string) { planted = planted || plantable(l) })
		if planted && globDenies(v, bd.DenyGlobs, r.Path) {
			// A rule's own path that a pattern matches is denied whatever
			// max_depth says; through a link, that denial is what the
			// link leads to, which the rule, dropped, would otherwise
			// leave to the scan's depth (random battery, seed 26 p030: a
			// write on {cwd}/b/l7/k.key, l7 -> ../a/b, and "*.key" with
			// max_depth 1 left {cwd}/a/b/k.key readable). A deny carries
			// through links (below).
			changed = true
			own()
			bd.Rules[i].Access = ir.Deny
			continue
		}
		if a, _, _ := judge.Access(p); planted && a != ir.Write {
			changed = true
			gone = append(gone, i)
			droppedRoots[r.Path] = true
			bd.Dropped = append(bd.Dropped, ir.Dropped{Rule: r.Access.String() + " " + r.Symbolic.String(), Source: r.Source,
				Reason: fmt.Sprintf("%s leads through a symbolic link in a directory a command could have written (it could have put the link there) to %s, which this profile does not make writable: not granted there", r.Path, p)})
		} else if planted {
			changed = true
			movedRoots[r.Path] = p
			own()
			bd.Rules[i].Path = p
		}
	}
	// The writable roots are where they will be enforced now: the
	// protected names between nested ones join the rules here, so that
	// one that is a link is handled below like any protected name (red
	// team 25: added after this, a .git link above the workspace was
	// pinned and its target left writable).
	live := bd
	if len(gone) > 0 {
		live = &ir.Bound{Rules: make([]ir.BoundRule, 0, len(bd.Rules))}
		for i, r := range bd.Rules {
			if !slices.Contains(gone, i) {
				live.Rules = append(live.Rules, r)
			}
		}
	}
	if add := live.ProtectedBetween(protect, file); len(add) > 0 {
		bd.Rules = append(bd.Rules, add...)
		changed = true
	}
	for i, n := 0, len(bd.Rules); i < n; i++ {
		// (By index: appending to bd.Rules below may move it.)
		r := bd.Rules[i]
		if np, ok := movedRoots[path.Dir(r.Path)]; ok && r.Origin == ir.OriginProtect {
			own()
			bd.Rules[i].Path = ir.JoinAbs(np, path.Base(r.Path))
			r = bd.Rules[i]
		}
		final := v.Lstat(r.Path) == KindSymlink
		if r.Access == ir.Write || droppedRoots[path.Dir(r.Path)] && r.Origin == ir.OriginProtect {
			if r.Access != ir.Write {
				gone = append(gone, i) // a protected name below a root left out
			}
			continue
		}
		if !(r.Origin == ir.OriginProtect && final) && (r.Origin != ir.OriginRule || (r.Access != ir.Read && r.Access != ir.Deny)) {
			continue
		}
		// Links on the way are pinned even when they name nothing (a
		// loop): replaced by a directory, they would make the path a
		// new one the command chose.
		way := linksOnTheWay(res, v, r.Path)
		onTheWay = append(onTheWay, way...)
		p := res.Resolve(r.Path)
		if p != r.Path || final || len(way) > 0 {
			// And every link followed inside a link's target (vendor ->
			// m1/v, m1 a link): linksOnTheWay follows the first and
			// walks on from where it leads, and a link it passed inside
			// the target, re-pointed by the command, would move the
			// rule's path (red team 22: a read-only vendor/lib made
			// writable, a denied ~/.ssh through a stow-style link farm
			// given an authorized_keys).
			resolvePath(v, res.Readlink, r.Path, func(l string) { onTheWay = append(onTheWay, l) })
		}
		if p == r.Path && !final {
			continue
		}
		changed = true
		// lp is the link itself, spelled with its directory resolved (the
		// pin opens that without symlinks).
		lp := ir.JoinAbs(res.Resolve(path.Dir(r.Path)), path.Base(r.Path))
		carry := true
		planted := false // a link followed, nested ones included, is plantable
		resolvePath(v, res.Readlink, r.Path, func(l string) { planted = planted || plantable(l) })
		if r.Access == ir.Read && p != r.Path && planted && globDenies(v, bd.DenyGlobs, r.Path) {
			// As for a write rule above: the denial of the rule's own
			// path goes with it to the target.
			r.Access = ir.Deny
			own()
			bd.Rules[i].Access = ir.Deny
		}
		if r.Access == ir.Read && p != r.Path && planted {
			if a, _, _ := judge.Access(p); a != ir.Write {
				carry = false
				if a == ir.Deny {
					bd.Dropped = append(bd.Dropped, ir.Dropped{Rule: r.Access.String() + " " + r.Symbolic.String(), Source: r.Source,
						Reason: fmt.Sprintf("%s leads through a symbolic link in a directory a command could have written (it could have put the link there) to %s, which this profile does not make readable: not granted there", r.Path, p)})
				}
			}
		}
		if !final {
			// Links on the way only: the rule is the target's (the
			// links are pinned where the command could change them).
			if carry {
				own()
				bd.Rules[i].Path = p
			} else {
				gone = append(gone, i)
			}
			continue
		}
		// A deny on a link masks what it points to (a mount cannot cover
		// a link), which denies it under every name; a read rule, or a
		// protected name that is a link, applies to the target as well, so
		// that a deny below the target is masked there. Each keeps its own
		// path too: in a writable directory the layout pins the link, which
		// the command could otherwise replace (a directory of its own at a
		// denied ~/.ssh that is a link, with an authorized_keys in it).
		if p != r.Path && carry {
			// p == r.Path: a loop, which names nothing.
			t := r
			t.Path = p
			bd.Rules = append(bd.Rules, t)
		}
		own()
		bd.Rules[i].Path = lp
		if r.Access != ir.Deny {
			links = append(links, lp)
		}
	}
	// A deny on a link (or through one) now stands at what it names: where
	// that is a writable root's own path, the deny overrides the write
	// (equal specificity) and the root is no writable root, so its
	// protected names, read rules more specific than the deny, would
	// reopen them inside the denied tree (`deny = [path(home, "l")]`, `l
	// -> {cwd}`, and `{cwd}/.git` readable: red team 20). ir.Profile.Bind
	// leaves them out for a deny spelled at the root's own path.
	denied := map[string]bool{}
	for _, r := range bd.Rules {
		if r.Access == ir.Deny {
			denied[r.Path] = true
		}
	}
	for i, r := range bd.Rules {
		if r.Origin == ir.OriginProtect && denied[path.Dir(r.Path)] && !slices.Contains(gone, i) {
			changed = true
			gone = append(gone, i)
		}
	}
	if len(gone) > 0 {
		kept := make([]ir.BoundRule, 0, len(bd.Rules)-len(gone))
		for i, r := range bd.Rules {
			if !slices.Contains(gone, i) {
				kept = append(kept, r)
			}
		}
		bd.Rules = kept
	}
	if changed {
		bd.SortRules()
	}
	return links, onTheWay
}

// linksOnTheWay returns the links among abs's ancestors, each spelled with
// its directory resolved (every link before it followed).
func linksOnTheWay(res Resolver, v View, abs string) []string {
	var out []string
	cur := "/"
	parts := strings.Split(strings.Trim(abs, "/"), "/")
	for _, part := range parts[:len(parts)-1] {
		next := ir.JoinAbs(cur, part)
		if v.Lstat(next) != KindSymlink {
			cur = next
			continue
		}
		out = append(out, next)
		cur = res.Resolve(next)
		if cur == next || !strings.HasPrefix(cur, "/") {
			// Dangling, or a loop: nothing further on the way exists.
			break
		}
	}
	return out
}

// pinLinksOnTheWay returns MountPinLink operations for the links in
// onTheWay whose directory the command can change (bd gives it write
// access there) and that no mask in ops hides: a rule's path through a
// link names what the link points to only while the link stays.
func pinLinksOnTheWay(onTheWay []string, bd *ir.Bound, ops []MountOp) []MountOp {
	var out []MountOp
	seen := map[string]bool{}
	for _, m := range ops {
		if m.Kind == MountPinLink {
			seen[m.Path] = true
		}
	}
	sort.Strings(onTheWay)
	for _, l := range onTheWay {
		if seen[l] {
			continue
		}
		seen[l] = true
		if a, _, _ := bd.Access(path.Dir(l)); a != ir.Write {
			continue
		}
		hidden := false
		for _, m := range ops {
			if m.Kind == MountMask && ir.PathWithin(l, m.Path) {
				hidden = true
			}
		}
		if !hidden {
			out = append(out, MountOp{Kind: MountPinLink, Path: l, Why: "a link on the way to a rule's path"})
		}
	}
	return out
}

// dropLinkGrants removes the grants at links (see resolveRules).
func dropLinkGrants(gs []Grant, links []string) []Grant {
	if len(links) == 0 {
		return gs
	}
	out := gs[:0]
	for _, g := range gs {
		if !slices.Contains(links, g.Path) {
			out = append(out, g)
		}
	}
	return out
}

// globDenies reports whether a deny glob matches p, or one of its
// ancestors, where that is not a symbolic link: a link a pattern matches
// is masked by its own name, and what it points to keeps the access the
// profile gives it under its own name.
func globDenies(v View, gs []ir.BoundGlob, p string) bool {
	for _, g := range gs {
		for q := p; ; q = path.Dir(q) {
			if ir.MatchGlob(g.Pattern, q) && v.Lstat(q) != KindSymlink {
				return true
			}
			if q == "/" || q == "." {
				break
			}
		}
	}
	return false
}

// plantableIn returns the test of whether a command could have put the
// link at a path there: its directory is writable under the profile being
// bound (bd, links not followed), or lies below one of shared, the places
// other profiles' runs write (the working directory, $TMPDIR and /tmp,
// which the default workspace profile makes writable), in a directory the
// invoking user may write (no earlier run of this user could have written
// anywhere else). "/" as a shared place is left out: every system link
// would count.
func plantableIn(bd *ir.Bound, shared []string) func(link string) bool {
	return func(link string) bool {
		dir := path.Dir(link)
		if a, _, _ := bd.Access(dir); a == ir.Write {
			return true
		}
		for _, s := range shared {
			if s != "/" && ir.PathWithin(dir, s) && userWritable(dir) {
				return true
			}
		}
		return false
	}
}

// SharedPlaces are the bound paths where runs of other profiles may have
// left links: {cwd}, {tmpdir} and {slash_tmp} (see plantableIn).
func SharedPlaces(b ir.Bindings) []string {
	var out []string
	for _, a := range []string{ir.AnchorCwd, ir.AnchorTmpdir, ir.AnchorSlashTmp} {
		out = append(out, b[a]...)
	}
	return out
}
