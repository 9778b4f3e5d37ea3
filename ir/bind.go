package ir

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// Bindings map anchors to absolute, clean paths on one machine. Most anchors
// bind to one path; platform_defaults binds to several. The executor builds
// bindings at run time from the invocation (cwd from --cwd or the current
// directory, home and tmpdir from the environment).
type Bindings map[string][]string

// Resolve returns the absolute paths p denotes. An anchor with no binding is
// reported as an error wrapping ErrUnbound.
func (b Bindings) Resolve(p Path) ([]string, error) {
	var roots []string
	if p.Anchor == AnchorRoot {
		roots = []string{"/"}
	} else {
		roots = b[p.Anchor]
	}
	if len(roots) == 0 {
		return nil, fmt.Errorf("%s: %w %q", p, ErrUnbound, p.Anchor)
	}
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		out = append(out, JoinAbs(r, p.Rel))
	}
	return out, nil
}

// ErrUnbound reports an anchor that has no binding on this machine (an
// anchor unknown to this version, or one the caller could not determine).
var ErrUnbound = fmt.Errorf("no binding for anchor")

// JoinAbs joins an absolute directory and a clean relative path.
func JoinAbs(dir, rel string) string {
	if rel == "" {
		return dir
	}
	if dir == "/" {
		return "/" + rel
	}
	return dir + "/" + rel
}

// Origin says why a bound rule exists.
type Origin string

// Origins of bound rules.
const (
	OriginRule    Origin = "rule"    // a read, write or deny rule
	OriginProtect Origin = "protect" // a protected name below a writable root
)

// BoundRule is a path rule bound to an absolute path.
type BoundRule struct {
	Path   string `json:"path"`
	Access Access `json:"access"`
	Origin Origin `json:"origin"`
	// Symbolic is the rule's path before binding.
	Symbolic Path  `json:"symbolic"`
	Source   Range `json:"source"`
}

// BoundGlob is a deny glob with its anchor bound.
type BoundGlob struct {
	// Pattern is absolute.
	Pattern  string `json:"pattern"`
	MaxDepth int    `json:"max_depth"`
	// Anywhere is set for a pattern the profile did not anchor ("*.pem",
	// bound as "/**/*.pem"): a target that expands it by scanning counts
	// MaxDepth from each readable root, not from "/".
	Anywhere bool  `json:"anywhere,omitempty"`
	Source   Range `json:"source"`
}

// BoundSocket is an allowed Unix socket bound to an absolute path.
type BoundSocket struct {
	Path   string `json:"path"`
	Source Range  `json:"source"`
}

// Dropped records a rule that could not be bound. Only allow rules are ever
// dropped (that narrows access); an unbindable deny is an error.
type Dropped struct {
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
	Source Range  `json:"source"`
}

// Bound is a profile's filesystem and socket rules bound to one machine. It
// is what targets enforce at run time and what Access evaluates.
type Bound struct {
	// Rules are sorted by path, then access.
	Rules     []BoundRule   `json:"rules"`
	DenyGlobs []BoundGlob   `json:"deny_globs,omitempty"`
	Sockets   []BoundSocket `json:"unix_sockets,omitempty"`
	Dropped   []Dropped     `json:"dropped,omitempty"`
}

// Bind binds p's rules with b. Protected names are expanded into read rules
// directly below every bound writable root (see also ProtectedBetween). Allow rules (read, write, sockets) whose
// anchor has no binding are dropped and listed in Dropped; a deny rule or
// deny glob whose anchor has no binding is an error, because ignoring it
// would grant more than the profile says.
func (p *Profile) Bind(b Bindings) (*Bound, error) {
	out := &Bound{}
	for _, r := range p.Filesystem.Rules {
		paths, err := b.Resolve(r.Path)
		if err != nil {
			if r.Access == Deny {
				return nil, fmt.Errorf("%s: deny rule %s: %w", r.Source, r.Path, err)
			}
			out.Dropped = append(out.Dropped, Dropped{Rule: r.Access.String() + " " + r.Path.String(), Reason: err.Error(), Source: r.Source})
			continue
		}
		for _, ap := range paths {
			out.Rules = append(out.Rules, BoundRule{Path: ap, Access: r.Access, Origin: OriginRule, Symbolic: r.Path, Source: r.Source})
		}
	}
	// A write rule that a deny rule at the same path overrides (deny beats
	// write at equal specificity) makes no writable root: protected names
	// below it would otherwise become read rules more specific than the
	// deny, reopening {cwd}/.git for reading in a profile that denies
	// {cwd} (red team 18, FuzzBind).
	denied := map[string]bool{}
	for _, r := range out.Rules {
		if r.Access == Deny {
			denied[r.Path] = true
		}
	}
	// The protected names' rules go straight into out.Rules, grown once:
	// with a dozen names below three roots they are most of the rules, and
	// sbx binds at every start (each allocation there is a first touch of
	// a heap page).
	roots := 0
	for _, r := range out.Rules {
		if r.Access == Write && !denied[r.Path] {
			roots++
		}
	}
	n := len(out.Rules)
	out.Rules = slices.Grow(out.Rules, roots*len(p.Filesystem.Protect))
	for _, r := range out.Rules[:n] {
		if r.Access != Write || denied[r.Path] {
			continue
		}
		for _, pr := range p.Filesystem.Protect {
			out.Rules = append(out.Rules, BoundRule{
				Path:     JoinAbs(r.Path, pr.Name),
				Access:   Read,
				Origin:   OriginProtect,
				Symbolic: r.Symbolic.Join(pr.Name),
				Source:   pr.Source,
			})
		}
	}
	out.SortRules()
	for _, g := range p.Filesystem.DenyGlobs {
		pats, err := bindGlob(g.Pattern, b)
		if err != nil {
			return nil, fmt.Errorf("%s: deny_glob %q: %w", g.Source, g.Pattern, err)
		}
		anywhere := !strings.HasPrefix(g.Pattern, "/") && !strings.HasPrefix(g.Pattern, "{")
		for _, pat := range pats {
			out.DenyGlobs = append(out.DenyGlobs, BoundGlob{Pattern: pat, MaxDepth: g.MaxDepth, Anywhere: anywhere, Source: g.Source})
		}
	}
	for _, s := range p.Network.UnixSockets {
		paths, err := b.Resolve(s.Path)
		if err != nil {
			out.Dropped = append(out.Dropped, Dropped{Rule: "unix_socket " + s.Path.String(), Reason: err.Error(), Source: s.Source})
			continue
		}
		for _, ap := range paths {
			out.Sockets = append(out.Sockets, BoundSocket{Path: ap, Source: s.Source})
		}
	}
	return out, nil
}

// ProtectedBetween returns the read rules that protect names in every
// writable directory strictly between a writable root and another one
// nested in it (the folders between /tmp and a workspace in /tmp/a/b/ws):
// git, hg and jj look for a repository in every parent of the directory
// they run in, so a .git planted there would be the workspace's repository
// for the host's tools (red team 25: its core.fsmonitor ran on the host's
// next git status). A target adds them to the rules as it enforces them
// (links followed, rules through planted links dropped), before it handles
// protected names that are links; file(p) says whether the write rule at p
// is on a file, which is no root. Only where the rules make the directory
// writable: a read rule for D/.git would otherwise reopen a denied or
// read-only D.
func (bd *Bound) ProtectedBetween(protect []ProtectRule, file func(string) bool) []BoundRule {
	if len(protect) == 0 {
		return nil
	}
	denied := map[string]bool{}
	for _, r := range bd.Rules {
		if r.Access == Deny {
			denied[r.Path] = true
		}
	}
	var roots []BoundRule
	isRoot := map[string]bool{}
	for _, r := range bd.Rules {
		if r.Access == Write && !denied[r.Path] && !isRoot[r.Path] && !file(r.Path) {
			roots = append(roots, r)
			isRoot[r.Path] = true
		}
	}
	seen := map[string]bool{}
	var add []BoundRule
	for _, inner := range roots {
		for _, outer := range roots {
			if outer.Path == inner.Path || !PathWithin(inner.Path, outer.Path) {
				continue
			}
			for d := path.Dir(inner.Path); d != outer.Path && PathWithin(d, outer.Path); d = path.Dir(d) {
				if seen[d] || isRoot[d] {
					continue
				}
				seen[d] = true
				if acc, _, _ := (&Bound{Rules: bd.Rules}).Access(d); acc != Write {
					continue
				}
				rel := strings.TrimPrefix(strings.TrimPrefix(d, outer.Path), "/")
				for _, pr := range protect {
					add = append(add, BoundRule{
						Path:     JoinAbs(d, pr.Name),
						Access:   Read,
						Origin:   OriginProtect,
						Symbolic: outer.Symbolic.Join(rel).Join(pr.Name),
						Source:   pr.Source,
					})
				}
			}
		}
	}
	return add
}

// SortRules sorts bd's rules by path, then access (Bind's order).
func (bd *Bound) SortRules() {
	sort.SliceStable(bd.Rules, func(i, j int) bool {
		a, c := bd.Rules[i], bd.Rules[j]
		if a.Path != c.Path {
			return a.Path < c.Path
		}
		return a.Access < c.Access
	})
}

// bindGlob turns a glob pattern into absolute patterns.
func bindGlob(pattern string, b Bindings) ([]string, error) {
	switch {
	case strings.HasPrefix(pattern, "/"):
		return []string{pattern}, nil
	case strings.HasPrefix(pattern, "{"):
		end := strings.IndexByte(pattern, '}')
		if end < 0 {
			return nil, fmt.Errorf("unterminated anchor")
		}
		anchor := pattern[1:end]
		rest := strings.TrimPrefix(pattern[end+1:], "/")
		roots, err := b.Resolve(Path{Anchor: anchor})
		if err != nil {
			return nil, err
		}
		out := make([]string, 0, len(roots))
		for _, r := range roots {
			// The anchor's path is literal: a workspace at p[1]/ws, a
			// home with a * in its name, would otherwise be read as a
			// pattern that no longer matches its own directory (red team
			// 22: nothing masked).
			out = append(out, JoinAbs(EscapeGlob(r), rest))
		}
		return out, nil
	default:
		if strings.HasPrefix(pattern, "**/") || pattern == "**" {
			return []string{"/" + pattern}, nil
		}
		return []string{"/**/" + pattern}, nil
	}
}

// Access returns the access the bound rules give to the absolute path abs,
// and the rule that decided it (nil when no rule matched, which denies).
// A deny glob matching abs or any of its ancestors denies it outright; the
// returned rule is then nil and glob is the matching pattern.
func (bd *Bound) Access(abs string) (acc Access, rule *BoundRule, glob *BoundGlob) {
	abs = path.Clean(abs)
	for i := range bd.DenyGlobs {
		g := &bd.DenyGlobs[i]
		for p := abs; ; p = path.Dir(p) {
			if MatchGlob(g.Pattern, p) {
				return Deny, nil, g
			}
			if p == "/" {
				break
			}
		}
	}
	best := -1
	bestLen := -1
	for i := range bd.Rules {
		r := &bd.Rules[i]
		if !PathWithin(abs, r.Path) {
			continue
		}
		l := Depth(r.Path)
		if l > bestLen || (l == bestLen && stronger(r.Access, bd.Rules[best].Access)) {
			best, bestLen = i, l
		}
	}
	if best < 0 {
		return Deny, nil, nil
	}
	return bd.Rules[best].Access, &bd.Rules[best], nil
}

// stronger orders accesses for ties at equal specificity: deny beats write
// beats read.
func stronger(a, b Access) bool {
	rank := func(x Access) int {
		switch x {
		case Deny:
			return 3
		case Write:
			return 2
		default:
			return 1
		}
	}
	return rank(a) > rank(b)
}

// PathWithin reports whether abs is dir or lies below it (both absolute and
// clean).
func PathWithin(abs, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(abs, "/")
	}
	return abs == dir || (strings.HasPrefix(abs, dir) && abs[len(dir)] == '/')
}

// Depth is the number of components of a clean absolute path ("/" is 0).
func Depth(abs string) int {
	if abs == "/" {
		return 0
	}
	return strings.Count(abs, "/")
}

// Access answers "what access does this profile give to this path, given
// these anchor bindings". It is the reference model every target is checked
// against.
func (p *Profile) Access(abs string, b Bindings) (Access, error) {
	bd, err := p.Bind(b)
	if err != nil {
		return Deny, err
	}
	a, _, _ := bd.Access(abs)
	return a, nil
}

// EscapeGlob returns s with the glob metacharacters (*, ?, [ and \)
// escaped by a backslash, so that a pattern holding it matches s itself.
func EscapeGlob(s string) string {
	if !strings.ContainsAny(s, `*?[\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', '\\':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// GlobLiteral returns the name a pattern component matches when it holds
// no unescaped metacharacter (escapes removed), and whether it is such a
// literal.
func GlobLiteral(part string) (string, bool) {
	if !strings.ContainsAny(part, `*?[\`) {
		return part, true
	}
	var b strings.Builder
	for i := 0; i < len(part); i++ {
		switch part[i] {
		case '*', '?', '[':
			return "", false
		case '\\':
			if i+1 == len(part) {
				return "", false
			}
			i++
		}
		b.WriteByte(part[i])
	}
	return b.String(), true
}

// MatchGlob reports whether the absolute path name matches the absolute
// glob pattern (see GlobRule for the syntax).
func MatchGlob(pattern, name string) bool {
	return matchParts(splitAbs(pattern), splitAbs(name))
}

func splitAbs(s string) []string {
	s = strings.Trim(s, "/")
	if s == "" {
		return nil
	}
	return strings.Split(s, "/")
}

func matchParts(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			// Collapse runs of ** and try every split point.
			rest := pat[1:]
			for len(rest) > 0 && rest[0] == "**" {
				rest = rest[1:]
			}
			if len(rest) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchParts(rest, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
