package policies

import (
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/ir"
)

// AccessBuiltin is the name of the Rego built-in function sbc adds:
//
//	sbx.access(filesystem, anchor, rel) -> {"access", "rule", "glob", "parent"}
//
// It answers, for the path rel below anchor, which access the profile's
// filesystem block (input.profile.filesystem) gives: "access" is "deny",
// "read" or "write"; "rule" is the index, in the rules followed by the read
// rules protect implies (data.sbx.lib.xrules), of the rule that decides it;
// "glob" is the index of the first deny_glob that matches the path or an
// ancestor within its max_depth, as a target that scans for its matches
// reaches (see fsModel.reaches); "parent" is the index of the rule that
// would decide it if the rules on exactly that path did not exist.
// Indices are -1 when there is none. Paths are compared symbolically,
// within one anchor, with "/" as the fallback for every anchor (see
// package sbx.lib).
//
// It is a Go function rather than Rego because every built-in rule asks it
// many questions per profile: in Go an answer costs about a microsecond.
const AccessBuiltin = "sbx.access"

var accessDecl = &rego.Function{
	Name: AccessBuiltin,
	Decl: types.NewFunction(
		types.Args(
			types.Named("filesystem", types.NewObject(nil, types.NewDynamicProperty(types.S, types.A))).Description("input.profile.filesystem"),
			types.Named("anchor", types.S).Description("anchor of the path (\"home\", \"root\", ...)"),
			types.Named("rel", types.S).Description("path relative to the anchor (\"\" for the anchor itself)"),
		),
		types.Named("result", types.NewObject(nil, types.NewDynamicProperty(types.S, types.A))).Description("access, rule, glob and parent"),
	),
	Description: "Answers which access a profile's filesystem block gives to a symbolic path, and which rule or deny_glob decides it.",
}

// accessBuiltinDecl is the declaration added to the capabilities.
func accessBuiltinDecl() *ast.Builtin {
	return &ast.Builtin{Name: AccessBuiltin, Decl: accessDecl.Decl, Description: accessDecl.Description, Categories: []string{"sbx"}}
}

// accessOption registers the implementation with a rego.Rego.
func accessOption() func(*rego.Rego) {
	return rego.Function3(accessDecl, accessImpl)
}

// accessTesterBuiltin registers the implementation with a test runner.
func accessTesterBuiltin() *tester.Builtin {
	return &tester.Builtin{Decl: accessBuiltinDecl(), Func: accessOption()}
}

// fsModel is a filesystem block parsed for access queries. One is built
// per evaluation and filesystem value, and kept in the evaluation's
// built-in cache.
type fsModel struct {
	value ast.Object
	rules []fsRule
	// at indexes rules by their path: the rules on anchor/rel, in order.
	// A query looks up the path and its ancestors (red team 29: it scanned
	// every rule, and the built-in rules ask once or more per rule, so a
	// profile of 9,000 rules took 90 s to check).
	at    map[[2]string][]int
	globs []string // the deny_globs' patterns
	// depths are the deny_globs' max_depth (0 when absent: no limit).
	depths []int
	// bound are the deny_globs compiled (see glob), in the order of globs.
	bound []boundGlob
	memo  map[[2]string]*ast.Term
}

type fsRule struct {
	anchor, rel string
	rank        int // deny 3, write 2, read 1
	authored    int // 0 for rules from built-in profiles
	access      string
}

type accessCacheKey struct{}

var accessRank = map[string]int{"deny": 3, "write": 2, "read": 1}

func accessImpl(bctx rego.BuiltinContext, fsT, anchorT, relT *ast.Term) (*ast.Term, error) {
	anchor, ok1 := anchorT.Value.(ast.String)
	rel, ok2 := relT.Value.(ast.String)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("%s: anchor and rel must be strings", AccessBuiltin)
	}
	m, err := model(bctx, fsT.Value)
	if err != nil {
		return nil, err
	}
	key := [2]string{string(anchor), string(rel)}
	if t, ok := m.memo[key]; ok {
		return t, nil
	}
	t := m.query(string(anchor), string(rel))
	m.memo[key] = t
	return t, nil
}

func model(bctx rego.BuiltinContext, v ast.Value) (*fsModel, error) {
	if bctx.Cache != nil {
		if m, ok := bctx.Cache.Get(accessCacheKey{}); ok {
			if fm, ok := m.(*fsModel); ok && sameObject(fm.value, v) {
				return fm, nil
			}
		}
	}
	fm, err := parseFS(v)
	if err != nil {
		return nil, err
	}
	if bctx.Cache != nil {
		bctx.Cache.Put(accessCacheKey{}, fm)
	}
	return fm, nil
}

// sameObject reports whether v is the object the model was built from:
// the same term (the usual case, input.profile.filesystem), or an equal
// one.
func sameObject(a ast.Object, v ast.Value) bool {
	o, ok := v.(ast.Object)
	return ok && (a == o || a.Compare(o) == 0)
}

func getStr(o ast.Object, key string) string {
	if o == nil {
		return ""
	}
	t := o.Get(ast.InternedTerm(key))
	if t == nil {
		return ""
	}
	s, _ := t.Value.(ast.String)
	return string(s)
}

func getArr(o ast.Object, key string) *ast.Array {
	if o == nil {
		return nil
	}
	t := o.Get(ast.InternedTerm(key))
	if t == nil {
		return nil
	}
	a, _ := t.Value.(*ast.Array)
	return a
}

// getInt returns an integer field, 0 when it is absent or not an
// integer.
func getInt(o ast.Object, key string) int {
	if o == nil {
		return 0
	}
	t := o.Get(ast.InternedTerm(key))
	if t == nil {
		return 0
	}
	n, ok := t.Value.(ast.Number)
	if !ok {
		return 0
	}
	i, ok := n.Int()
	if !ok || i < 0 {
		return 0
	}
	return i
}

func asObj(v ast.Value) ast.Object {
	o, _ := v.(ast.Object)
	return o
}

// parseFS builds the model of a filesystem block: its rules, then the read
// rules protect implies below every writable root (in the order
// data.sbx.lib.xrules lists them), and its deny_globs.
func parseFS(v ast.Value) (*fsModel, error) {
	fs := asObj(v)
	if fs == nil {
		return nil, fmt.Errorf("%s: the filesystem argument must be an object (input.profile.filesystem)", AccessBuiltin)
	}
	m := &fsModel{value: fs, memo: map[[2]string]*ast.Term{}}
	var protect []struct{ name, file string }
	if a := getArr(fs, "protect"); a != nil {
		for i := 0; i < a.Len(); i++ {
			if p := asObj(a.Elem(i).Value); p != nil {
				file := ""
				if src := p.Get(ast.InternedTerm("source")); src != nil {
					file = getStr(asObj(src.Value), "filename")
				}
				protect = append(protect, struct{ name, file string }{getStr(p, "name"), file})
			}
		}
	}
	rules := getArr(fs, "rules")
	var implied []fsRule
	// A write rule a deny rule at its own path overrides is no writable
	// root: protected names below it imply nothing (as in ir.Profile.Bind
	// and data.sbx.lib.xrules).
	denied := map[[2]string]bool{}
	for i := 0; rules != nil && i < rules.Len(); i++ {
		if r := asObj(rules.Elem(i).Value); r != nil && getStr(r, "access") == "deny" {
			if t := r.Get(ast.InternedTerm("path")); t != nil {
				p := asObj(t.Value)
				denied[[2]string{getStr(p, "anchor"), getStr(p, "rel")}] = true
			}
		}
	}
	for i := 0; rules != nil && i < rules.Len(); i++ {
		r := asObj(rules.Elem(i).Value)
		if r == nil {
			return nil, fmt.Errorf("%s: rule %d is not an object", AccessBuiltin, i)
		}
		var p ast.Object
		if t := r.Get(ast.InternedTerm("path")); t != nil {
			p = asObj(t.Value)
		}
		access := getStr(r, "access")
		file := ""
		if src := r.Get(ast.InternedTerm("source")); src != nil {
			file = getStr(asObj(src.Value), "filename")
		}
		fr := fsRule{anchor: getStr(p, "anchor"), rel: getStr(p, "rel"), rank: accessRank[access], authored: authored(file), access: access}
		m.rules = append(m.rules, fr)
		if access == "write" && !denied[[2]string{fr.anchor, fr.rel}] {
			for _, pr := range protect {
				implied = append(implied, fsRule{anchor: fr.anchor, rel: joinRel(fr.rel, pr.name), rank: 1, authored: authored(pr.file), access: "read"})
			}
		}
	}
	m.rules = append(m.rules, implied...)
	m.at = make(map[[2]string][]int, len(m.rules))
	for i, r := range m.rules {
		k := [2]string{r.anchor, r.rel}
		m.at[k] = append(m.at[k], i)
	}
	if a := getArr(fs, "deny_globs"); a != nil {
		for i := 0; i < a.Len(); i++ {
			g := asObj(a.Elem(i).Value)
			pat := getStr(g, "pattern")
			m.globs = append(m.globs, pat)
			m.depths = append(m.depths, getInt(g, "max_depth"))
			m.bound = append(m.bound, bindGlob(pat))
		}
	}
	return m, nil
}

// boundGlob is a deny_glob pattern as glob matches it: below the
// directory of anchor ("" for an absolute pattern, which applies to paths
// of "/" or, starting with "/**", of every anchor; "*" for a relative
// one, which applies everywhere), the pattern of what lies below, as an
// absolute pattern (compiled when it can be: ir.Glob steps a name at a
// time, so the path's ancestors are matched in one pass).
type boundGlob struct {
	anchor   string
	anywhere bool // an absolute pattern starting with "/**"
	all      bool // a pattern of the anchor itself
	// relative is set for a pattern the profile did not anchor ("*.pem",
	// "**/.ssh"): a target that scans for its matches counts max_depth
	// from every readable or writable root (ir.BoundGlob.Anywhere).
	relative bool
	// lit is the number of names of the pattern's anchor (its literal
	// directories before the first wildcard, below the anchor's
	// directory), where an anchored pattern's scan starts.
	lit     int
	pattern string
	g       *ir.Glob
}

func bindGlob(pat string) boundGlob {
	var b boundGlob
	switch {
	case strings.HasPrefix(pat, "{"):
		end := strings.IndexByte(pat, '}')
		if end < 0 {
			return boundGlob{anchor: "{"} // matches no anchor
		}
		b.anchor = pat[1:end]
		rest := strings.TrimPrefix(pat[end+1:], "/")
		if rest == "" {
			b.all = true
			return b
		}
		b.pattern = "/" + rest
		b.lit = literalDepth(b.pattern)
	case strings.HasPrefix(pat, "/"):
		// Red team 28: "/**/build" matches below every anchor too
		// (each is somewhere below /, which ** spans), as "**/build"
		// does; skipped, a write rule on {cwd}/build that it denies
		// passed SBX006, and "/**/.ssh" left SBX007 reporting
		// {home}/.ssh readable.
		b.anchor = ir.AnchorRoot
		b.anywhere = pat == "/**" || strings.HasPrefix(pat, "/**/")
		b.pattern = pat
		b.lit = literalDepth(pat)
	case strings.HasPrefix(pat, "**/") || pat == "**":
		b.anchor, b.anywhere, b.relative, b.pattern = ir.AnchorRoot, true, true, "/"+pat
	default:
		b.anchor, b.anywhere, b.relative, b.pattern = ir.AnchorRoot, true, true, "/**/"+pat
	}
	b.g, _ = ir.CompileGlob(b.pattern)
	return b
}

// literalDepth is the number of names in an absolute pattern's literal
// directory: the names before the first one with a wildcard, or, for a
// pattern without any, its parent's (as targets/landlock's
// globLiteralDir, where the scan starts).
func literalDepth(pattern string) int {
	parts := strings.Split(strings.TrimPrefix(pattern, "/"), "/")
	for i, c := range parts {
		if _, ok := ir.GlobLiteral(c); !ok {
			return i
		}
	}
	return len(parts) - 1
}

// anchorDepth is how many names below "/" the lint takes an anchor's
// directory to be, for a pattern whose scan counts max_depth from "/" or
// from a readable "/": {home} as a user's home (/home/NAME, /Users/NAME;
// root's /root is shallower, so a deny_glob that reaches only its keys
// does not count), /tmp as itself, and the anchors whose depth is known
// only when sbx runs as the least they can be.
func anchorDepth(anchor string) int {
	switch anchor {
	case ir.AnchorRoot:
		return 0
	case ir.AnchorHome:
		return 2
	}
	return 1
}

// reaches reports whether deny_glob gi, matching anchor/names[:j], denies
// it when sbx runs on a target that expands the pattern by scanning
// (Landlock, Windows): the scan stops max_depth names below where it
// starts, as targets/landlock's expandGlobs counts. A rule's own path
// that the match is, or lies below, is denied whatever max_depth says (it
// needs no scan); otherwise the match must be at most max_depth names
// below the pattern's anchor, or, for a pattern that matches anywhere,
// below a readable or writable root of the same anchor or a readable "/".
// Red team 29 (compiler): deny_globs counted whatever their max_depth, so
// with read = [root] a "**/.ssh" with max_depth 1, which masks no home's
// keys on Linux, silenced SBX007. A glob without max_depth (0) reaches
// every depth, as before.
func (m *fsModel) reaches(gi int, anchor string, names []string, j int) bool {
	md := m.depths[gi]
	if md <= 0 {
		return true
	}
	root := func(anchor, rel string) bool {
		for _, i := range m.at[[2]string{anchor, rel}] {
			if m.rules[i].rank != accessRank["deny"] {
				return true
			}
		}
		return false
	}
	for k := j; k <= len(names); k++ {
		if root(anchor, strings.Join(names[:k], "/")) {
			return true
		}
	}
	b := m.bound[gi]
	if !b.relative {
		base := 0
		if b.anchor != anchor {
			base = anchorDepth(anchor) // "/**/..." below another anchor
		}
		return base+j-b.lit <= md
	}
	for k := j - 1; k >= 0 && j-k <= md; k-- {
		if root(anchor, strings.Join(names[:k], "/")) {
			return true
		}
	}
	return anchor != ir.AnchorRoot && anchorDepth(anchor)+j <= md && root(ir.AnchorRoot, "")
}

func authored(file string) int {
	if strings.HasPrefix(file, builtin.SourcePrefix) {
		return 0
	}
	return 1
}

func joinRel(base, rel string) string {
	switch {
	case base == "":
		return rel
	case rel == "":
		return base
	}
	return base + "/" + rel
}

// within reports whether rel is base or lies below it.
func within(rel, base string) bool {
	return base == "" || rel == base || (strings.HasPrefix(rel, base) && rel[len(base)] == '/')
}

// better reports whether rule a decides over rule b (both covering the
// path): deeper first, then deny > write > read, then authored, then later.
func better(a, b fsRule, ai, bi int) bool {
	switch {
	case len(a.rel) != len(b.rel):
		return len(a.rel) > len(b.rel)
	case a.rank != b.rank:
		return a.rank > b.rank
	case a.authored != b.authored:
		return a.authored > b.authored
	}
	return ai > bi
}

func (m *fsModel) decide(anchor, rel string, skipExact bool) int {
	// The deepest of rel and its ancestors that has rules decides (a
	// longer path is a deeper one among them), and among its rules the
	// best by rank, authorship and order.
	best := -1
	pick := func(anchor, rel string) {
		for _, i := range m.at[[2]string{anchor, rel}] {
			if best < 0 || better(m.rules[i], m.rules[best], i, best) {
				best = i
			}
		}
	}
	for p, first := rel, true; ; first = false {
		if !(skipExact && first) {
			pick(anchor, p)
			if best >= 0 {
				return best
			}
		}
		if p == "" {
			break
		}
		if j := strings.LastIndexByte(p, '/'); j >= 0 {
			p = p[:j]
		} else {
			p = ""
		}
	}
	if anchor == ir.AnchorRoot || skipExact {
		return best
	}
	pick(ir.AnchorRoot, "")
	return best
}

// glob returns the index of the first deny_glob matching anchor/rel or an
// ancestor below the anchor, matched as the IR matches bound paths: a
// "{anchor}/..." pattern against paths of that anchor, an absolute one
// against paths of "/", and a relative one against any trailing run of
// components (it is implicitly prefixed with "**/").
func (m *fsModel) glob(anchor, rel string) int {
	if len(m.bound) == 0 {
		return -1
	}
	var names []string
	if rel != "" {
		names = strings.Split(rel, "/")
	}
	for gi, b := range m.bound {
		if b.anchor != anchor && !b.anywhere {
			continue
		}
		if b.all {
			return gi
		}
		if b.g == nil {
			// More names than ir.Glob holds: match each ancestor.
			for j := 1; j <= len(names); j++ {
				if ir.MatchGlob(b.pattern, "/"+strings.Join(names[:j], "/")) && m.reaches(gi, anchor, names, j) {
					return gi
				}
			}
			continue
		}
		// The path and its ancestors below the anchor, as absolute paths
		// below a placeholder component standing for the anchor's
		// directory: one step per name.
		st := b.g.Root()
		for j, n := range names {
			if st = b.g.Step(st, n); st == 0 {
				break
			}
			if b.g.Match(st) && m.reaches(gi, anchor, names, j+1) {
				return gi
			}
		}
	}
	return -1
}

func (m *fsModel) query(anchor, rel string) *ast.Term {
	rule := m.decide(anchor, rel, false)
	g := m.glob(anchor, rel)
	access := "deny"
	if g < 0 && rule >= 0 {
		access = m.rules[rule].access
	}
	parent := m.decide(anchor, rel, true)
	return ast.ObjectTerm(
		ast.Item(ast.InternedTerm("access"), ast.StringTerm(access)),
		ast.Item(ast.InternedTerm("rule"), ast.IntNumberTerm(rule)),
		ast.Item(ast.InternedTerm("glob"), ast.IntNumberTerm(g)),
		ast.Item(ast.InternedTerm("parent"), ast.IntNumberTerm(parent)),
	)
}
