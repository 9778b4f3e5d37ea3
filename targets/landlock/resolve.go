package landlock

import (
	"path/filepath"
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
// component of it (cached) is a link.
func (c *cachedView) Resolve(abs string) string {
	if abs == "/" || !strings.HasPrefix(abs, "/") {
		return abs
	}
	parts := strings.Split(abs[1:], "/")
	cur := ""
	for i, part := range parts {
		next := cur + "/" + part
		switch c.Lstat(next) {
		case KindSymlink:
			r, err := filepath.EvalSymlinks(next)
			if err != nil {
				// Dangling, or a loop: leave the rest as written.
				return filepath.Join(append([]string{next}, parts[i+1:]...)...)
			}
			next = r
		case KindMissing:
			return filepath.Join(append([]string{next}, parts[i+1:]...)...)
		}
		cur = next
	}
	if cur == "" {
		return "/"
	}
	return cur
}

// resolveRules resolves the paths of bd's read and deny rules through v's
// links (writable roots are refused through a link at launch instead: a
// writable path must not move; protected names keep their own handling). Rules keep their symbolic path, so the
// report still names what the profile wrote.
//
// It returns the paths of the read rules that are links: their Landlock
// grant must go (dropLinkGrants), since Landlock would follow the link to
// a target a deny may have masked nothing of (the layout sees the target
// through the added rule, where a deny wins).
func resolveRules(bd *ir.Bound, v View) (links []string) {
	res, ok := v.(Resolver)
	if !ok {
		return nil
	}
	changed := false
	for i, n := 0, len(bd.Rules); i < n; i++ {
		r := &bd.Rules[i]
		if r.Origin != ir.OriginRule || (r.Access != ir.Read && r.Access != ir.Deny) {
			continue
		}
		p := res.Resolve(r.Path)
		if p == r.Path {
			continue
		}
		changed = true
		if r.Access == ir.Deny {
			// The mask goes on what the link points to (a mount cannot
			// cover a link), which denies it under every name.
			r.Path = p
			continue
		}
		// A read rule keeps its own path (a read-only link in a writable
		// root stays unremovable) and applies to the target as well, so
		// that a deny below the target is masked there.
		t := *r
		t.Path = p
		bd.Rules = append(bd.Rules, t)
		links = append(links, r.Path)
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
	return links
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
