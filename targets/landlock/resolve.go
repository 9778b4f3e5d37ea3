package landlock

import (
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
}

// Resolve resolves the links in abs, asking the kernel only where a
// component of it (cached) is a link. A dangling link is followed too, to
// the path it names (which does not exist yet: the rest stays as
// written); after 40 links (a loop) abs is returned as it is.
func (c *cachedView) Resolve(abs string) string {
	if abs == "/" || !strings.HasPrefix(abs, "/") {
		return abs
	}
	if r, ok := c.v.(Resolver); ok {
		return r.Resolve(abs) // a view of its own (tests)
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
		switch c.Lstat(next) {
		case KindSymlink:
			if hops++; hops > 40 {
				return abs
			}
			t, err := os.Readlink(next)
			if err != nil {
				return abs
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
// It returns the paths of the read rules that are links, whose Landlock
// grant must go (dropLinkGrants), since Landlock would follow the link to
// a target a deny may have masked nothing of (the layout sees the target
// through the added rule, where a deny wins); and the links on the way to
// a rule's path (canonical spellings), which must stay where they are
// while the rule is enforced (pinLinksOnTheWay).
func resolveRules(bd *ir.Bound, v View) (links, onTheWay []string) {
	res, ok := v.(Resolver)
	if !ok {
		return nil, nil
	}
	changed := false
	for i, n := 0, len(bd.Rules); i < n; i++ {
		// (By index: appending to bd.Rules below may move it.)
		r := bd.Rules[i]
		final := v.Lstat(r.Path) == KindSymlink
		if !(r.Origin == ir.OriginProtect && final) && (r.Origin != ir.OriginRule || (r.Access != ir.Read && r.Access != ir.Deny)) {
			continue
		}
		// Links on the way are pinned even when they name nothing (a
		// loop): replaced by a directory, they would make the path a
		// new one the command chose.
		onTheWay = append(onTheWay, linksOnTheWay(res, v, r.Path)...)
		p := res.Resolve(r.Path)
		if p == r.Path && !final {
			continue
		}
		changed = true
		if !final {
			// Links on the way only: the rule is the target's (the
			// links are pinned where the command could change them).
			bd.Rules[i].Path = p
			continue
		}
		// A deny on a link masks what it points to (a mount cannot cover
		// a link), which denies it under every name; a read rule, or a
		// protected name that is a link, applies to the target as well, so
		// that a deny below the target is masked there. Each keeps its own
		// path too: in a writable directory the layout pins the link, which
		// the command could otherwise replace (a directory of its own at a
		// denied ~/.ssh that is a link, with an authorized_keys in it),
		// spelled with its directory resolved (the pin opens that without
		// symlinks).
		lp := ir.JoinAbs(res.Resolve(path.Dir(r.Path)), path.Base(r.Path))
		if p != r.Path {
			// p == r.Path: a loop, which names nothing.
			t := r
			t.Path = p
			bd.Rules = append(bd.Rules, t)
		}
		bd.Rules[i].Path = lp
		if r.Access != ir.Deny {
			links = append(links, lp)
		}
	}
	if changed {
		sort.SliceStable(bd.Rules, func(i, j int) bool {
			a, c := bd.Rules[i], bd.Rules[j]
			if a.Path != c.Path {
				return a.Path < c.Path
			}
			return a.Access < c.Access
		})
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
