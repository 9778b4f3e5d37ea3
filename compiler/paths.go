package compiler

import (
	"fmt"
	"math/big"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/sbx-dev/sbx/ir"
)

// pathContext is the evaluation context of path expressions: each known
// anchor is a variable whose value is the anchor's IR string form ("{cwd}",
// "/" for root), and path(base, sub...) joins. Other attributes are
// evaluated without a context, so variables and functions are errors there.
func pathContext() *hcl.EvalContext {
	vars := map[string]cty.Value{}
	for _, a := range ir.KnownAnchors {
		vars[a] = cty.StringVal(ir.Path{Anchor: a}.String())
	}
	return &hcl.EvalContext{
		Variables: vars,
		Functions: map[string]function.Function{"path": pathFunc()},
	}
}

// pathFunc implements path(base, sub...): base joined with relative
// sub-paths, such as path(cwd, ".env") = "{cwd}/.env". The result is
// checked and cleaned like any other path string.
func pathFunc() function.Function {
	return function.New(&function.Spec{
		Description: "Joins an anchor or absolute path with relative sub-paths.",
		Params:      []function.Parameter{{Name: "base", Type: cty.String}},
		VarParam:    &function.Parameter{Name: "sub", Type: cty.String},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			base := args[0].AsString()
			if base == "" {
				// Red team 27: joined, path("", "etc") became "/etc", a
				// rule on the root's subtree from an empty base.
				return cty.NilVal, function.NewArgErrorf(0, "path() needs a base: an anchor (cwd, home, ...), \"~\" or an absolute path, not an empty string")
			}
			if len(args) == 1 {
				return args[0], nil
			}
			var b strings.Builder
			b.WriteString(strings.TrimSuffix(base, "/"))
			for i, a := range args[1:] {
				s := a.AsString()
				if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "{") {
					return cty.NilVal, function.NewArgErrorf(i+1, "path() joins relative sub-paths to its first argument, and %q is not relative", s)
				}
				b.WriteByte('/')
				b.WriteString(s)
			}
			return cty.StringVal(b.String()), nil
		},
	})
}

// pathElems evaluates a list of paths. Bare names that are not anchors this
// version knows (xdg_cache from a newer sbc) are given their symbolic value
// "{xdg_cache}" rather than failing, so that old tools read new profiles;
// path() warns about them.
func (c *compilation) pathElems(a *hcl.Attribute) []elem {
	ctx := c.ctx
	for _, t := range a.Expr.Variables() {
		name := t.RootName()
		if _, known := ctx.Variables[name]; known {
			continue
		}
		if ctx == c.ctx {
			ctx = c.ctx.NewChild()
			ctx.Variables = map[string]cty.Value{}
		}
		ctx.Variables[name] = cty.StringVal("{" + name + "}")
	}
	return c.elems(a, ctx, a.Name, "a list of paths, such as [cwd, \"/var/cache\"]")
}

// pathErr describes why a path string is rejected.
type pathErr struct {
	code, summary, detail string
}

const pathForms = `Paths must be absolute ("/var/cache"), start with "~" (the home directory), or start with an anchor: root, cwd, home, tmpdir, slash_tmp, or platform_defaults; path(cwd, "build") or "{cwd}/build" is a path inside the workspace.`

// splitAnchor splits a path string into its anchor and the rest.
func splitAnchor(s string) (anchor, rest string, perr *pathErr) {
	switch {
	case s == "":
		return "", "", &pathErr{"invalid-path", "Empty path", pathForms}
	case s == "~" || strings.HasPrefix(s, "~/"):
		return ir.AnchorHome, s[1:], nil
	case s[0] == '~':
		return "", "", &pathErr{"invalid-path", "Unsupported home directory form", fmt.Sprintf("%q names another user's home directory, which sbc does not support. Use \"~/...\" for the home directory of the user running the command, or an absolute path.", s)}
	case s[0] == '/':
		return ir.AnchorRoot, s[1:], nil
	case s[0] == '{':
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", "", &pathErr{"invalid-path", "Invalid anchor", fmt.Sprintf("%q opens an anchor with { but never closes it. Write \"{cwd}/sub\" or path(cwd, \"sub\").", s)}
		}
		anchor, rest = s[1:end], s[end+1:]
		if !validAnchor(anchor) {
			return "", "", &pathErr{"invalid-path", "Invalid anchor", fmt.Sprintf("%q is not an anchor name: anchors are identifiers such as cwd or home.", anchor)}
		}
		if rest != "" && rest[0] != '/' {
			return "", "", &pathErr{"invalid-path", "Invalid anchor", fmt.Sprintf("In %q the anchor must be followed by / or end the path.", s)}
		}
		return anchor, rest, nil
	}
	return "", s, &pathErr{"relative-path", "Relative path", fmt.Sprintf("%q is relative. %s", s, pathForms)}
}

// validAnchor reports whether s is an identifier that can name an anchor.
func validAnchor(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
		case (r >= '0' && r <= '9' || r == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// cleanRel normalises the part of a path after its anchor: empty and "."
// components and trailing slashes go; "..", braces and NUL are errors, and
// so are glob characters unless glob is set (then the pattern is checked).
func cleanRel(s, rest, attr string, glob bool) (string, *pathErr) {
	parts := strings.Split(rest, "/")
	out := parts[:0]
	for _, p := range parts {
		switch {
		case p == "" || p == ".":
			continue
		case p == "..":
			return "", &pathErr{"dotdot-path", `Path contains ".."`, fmt.Sprintf("%q contains \"..\". sbc does not resolve \"..\": resolving it lexically can differ from what the kernel does through symbolic links, and in a security policy it is usually a mistake. Write the path without it.", s)}
		case strings.IndexByte(p, 0) >= 0:
			return "", &pathErr{"invalid-path", "NUL character in path", fmt.Sprintf("%q contains a NUL character.", s)}
		case strings.HasSuffix(p, "\n") || strings.HasSuffix(p, "\r"):
			// Red team 27: a path written as a heredoc ("deny = [<<EOT",
			// "/etc/shadow", "EOT") ends in a newline. Kept, the rule named
			// "/etc/shadow\n", a file nobody has, so the deny silently
			// denied nothing. A name ending in a line break is never meant.
			return "", &pathErr{"invalid-path", "Path ends with a line break", fmt.Sprintf("%q has a name ending in a line break, so it cannot name the file meant. A heredoc (<<EOT) ends with a newline: write the path as a quoted string.", s)}
		case strings.ContainsAny(p, "{}"):
			return "", &pathErr{"invalid-path", "Misplaced anchor", fmt.Sprintf("%q has a brace after its start. An anchor (\"{cwd}\") can only begin a path.", s)}
		case !glob && strings.ContainsAny(p, "*?["):
			return "", &pathErr{"glob-in-rule", fmt.Sprintf("Glob pattern in %s", attr), fmt.Sprintf("%q contains *, ? or [. The %s rules take literal paths, each covering its whole subtree, and a pattern can never grant access. To deny paths by pattern, use deny_glob = [%q] in the filesystem block.", s, attr, s)}
		case glob && p != "**":
			if _, err := path.Match(p, ""); err != nil {
				return "", &pathErr{"invalid-glob", "Invalid glob pattern", fmt.Sprintf("%q: %v (in component %q). Patterns use * (within one name), ** (any number of directories), ? and [abc].", s, err, p)}
			}
		}
		out = append(out, p)
	}
	return strings.Join(out, "/"), nil
}

// parsePath parses and normalises a path string written for attribute attr.
func parsePath(s, attr string) (ir.Path, *pathErr) {
	anchor, rest, perr := splitAnchor(s)
	if perr != nil {
		return ir.Path{}, perr
	}
	rel, perr := cleanRel(s, rest, attr, false)
	if perr != nil {
		return ir.Path{}, perr
	}
	if anchor == ir.AnchorPlatform && rel != "" {
		return ir.Path{}, &pathErr{"invalid-path", "platform_defaults takes no sub-path", "platform_defaults stands for the platform's set of system paths (/usr, /bin, /lib, /etc on Linux); it cannot be joined with a sub-path."}
	}
	return ir.Path{Anchor: anchor, Rel: rel}, nil
}

// path decodes one element of a path list; deny says whether it is a deny
// rule (for the unknown-anchor warning).
func (c *compilation) path(e elem, attr string, deny bool) (ir.Path, bool) {
	s, ok := c.elemString(e, attr, "a path string or anchor")
	if !ok {
		return ir.Path{}, false
	}
	p, perr := parsePath(s, attr)
	if perr != nil {
		c.errorf(perr.code, e.rng, perr.summary, "%s", perr.detail)
		return ir.Path{}, false
	}
	c.checkAnchor(p.Anchor, e.rng, deny)
	c.warnControl(s, e.rng, attr)
	return p, true
}

// warnControl warns about control characters in a path or name that is
// otherwise valid. Linux allows them in file names, so the rule is kept as
// written, but one is almost always a mistake (an escape such as "\t" or
// "\u001b" in the string) that makes the rule name another file than
// meant: red team 27 found them accepted silently. Line breaks at the end
// of a name are errors (cleanRel, protectName).
func (c *compilation) warnControl(s string, r hcl.Range, attr string) {
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		c.warnf("invalid-path", r, fmt.Sprintf("Control character in %s", attr),
			"%q contains a control character (a tab, an escape, a line break or similar). The rule is kept as written, for that exact name; if that is not the name meant, remove it.", s)
		return
	}
	// Red team 29: what a reader of the profile cannot see either. A
	// zero-width space or a byte order mark in deny = ["~/.ssh"], or a
	// trailing space ("~/.aws "), names another file than the one shown,
	// so the rule silently denied nothing; a bidirectional override
	// (U+202E) makes the path display in another order than it is.
	if strings.IndexFunc(s, isInvisible) >= 0 {
		c.warnf("invalid-path", r, fmt.Sprintf("Invisible character in %s", attr),
			"%q contains an invisible or formatting character (a zero-width space, a byte order mark, a direction override or similar), so the name is not the one displayed. The rule is kept as written, for that exact name; if that is not the name meant, remove it.", s)
		return
	}
	for _, name := range strings.Split(s, "/") {
		if name != "" && (startsSpace(name) || endsSpace(name)) {
			c.warnf("invalid-path", r, fmt.Sprintf("Space at the start or end of a name in %s", attr),
				"In %q the name %q starts or ends with a space, so it names another file than %q. The rule is kept as written, for that exact name; if that is not the name meant, remove the space.", s, name, strings.TrimFunc(name, unicode.IsSpace))
			return
		}
	}
}

// isInvisible reports whether r is a format character (Unicode category
// Cf: zero-width spaces and joiners, direction marks and overrides, the
// byte order mark, the soft hyphen).
func isInvisible(r rune) bool { return unicode.Is(unicode.Cf, r) }

func startsSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

func endsSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r)
}

// checkAnchor warns about an anchor this version does not know.
func (c *compilation) checkAnchor(anchor string, r hcl.Range, deny bool) {
	if ir.IsKnownAnchor(anchor) {
		return
	}
	effect := "An sbx that cannot bind it drops this allow rule, so the profile grants less than written there."
	if deny {
		effect = "An sbx that cannot bind it refuses to run this profile, because ignoring a deny rule would grant more than written."
	}
	c.warnf("unknown-anchor", r, fmt.Sprintf("Unknown anchor %q", anchor),
		"This version of sbc knows the anchors %s. The rule is kept with the symbolic anchor %q for a newer sbx to bind. %s%s",
		strings.Join(ir.KnownAnchors, ", "), anchor, effect, suggest(anchor, ir.KnownAnchors))
}

// glob decodes one deny_glob element: a pattern string or
// { pattern = "...", max_depth = N }.
func (c *compilation) glob(e elem) (ir.GlobRule, bool) {
	g := ir.GlobRule{MaxDepth: DefaultGlobDepth, Source: rng(e.rng)}
	var pat string
	switch t := e.val.Type(); {
	case t.Equals(cty.String):
		pat = e.val.AsString()
	case t.IsObjectType():
		for name := range t.AttributeTypes() {
			if name != "pattern" && name != "max_depth" {
				c.errorf("schema", e.rng, "Unsupported deny_glob key", "%q is not a deny_glob key: use { pattern = \"**/*.pem\", max_depth = 4 }.%s", name, suggest(name, []string{"pattern", "max_depth"}))
				return g, false
			}
		}
		if !t.HasAttribute("pattern") || !e.val.GetAttr("pattern").Type().Equals(cty.String) || e.val.GetAttr("pattern").IsNull() {
			c.errorf("type", e.rng, "deny_glob needs a pattern", "Write { pattern = \"**/*.pem\", max_depth = 4 }: pattern is a string.")
			return g, false
		}
		pat = e.val.GetAttr("pattern").AsString()
		if t.HasAttribute("max_depth") && !e.val.GetAttr("max_depth").IsNull() {
			d := e.val.GetAttr("max_depth")
			n, ok := wholeNumber(d)
			if !ok || n < 1 || n > MaxGlobDepth {
				c.errorf("invalid-glob", e.rng, "Invalid max_depth", "max_depth must be a whole number from 1 to %d (the default is %d), not %s.", MaxGlobDepth, DefaultGlobDepth, valueString(d))
				return g, false
			}
			g.MaxDepth = int(n)
		}
	default:
		c.errorf("type", e.rng, "Incorrect element type in deny_glob", "Each element of deny_glob must be a pattern string such as \"**/*.pem\" or an object { pattern = \"**/*.pem\", max_depth = 4 }, not %s.", typeName(e.val))
		return g, false
	}
	anchor, rest, perr := splitAnchor(pat)
	relative := perr != nil && perr.code == "relative-path"
	if perr != nil && !relative {
		c.errorf(perr.code, e.rng, perr.summary, "%s", perr.detail)
		return g, false
	}
	rel, perr := cleanRel(pat, rest, "deny_glob", true)
	if perr != nil {
		c.errorf(perr.code, e.rng, perr.summary, "%s", perr.detail)
		return g, false
	}
	switch {
	case relative:
		if rel == "" {
			c.errorf("invalid-glob", e.rng, "Empty glob pattern", "Write a pattern such as \"**/*.pem\".")
			return g, false
		}
		if rel != "**" && !strings.HasPrefix(rel, "**/") {
			rel = "**/" + rel // "*.pem" matches at any depth; say so in the IR
		}
		g.Pattern = rel
	case anchor == ir.AnchorPlatform:
		c.errorf("invalid-glob", e.rng, "platform_defaults in deny_glob", "platform_defaults stands for several system paths and cannot anchor a pattern; use / or another anchor.")
		return g, false
	case anchor == ir.AnchorRoot && rel == "":
		// A pattern of the root alone would match the whole file system
		// (and is no pattern the IR can hold: its one component is
		// empty); red team 23 saw it reported as an internal error.
		c.errorf("invalid-glob", e.rng, "Glob pattern names the root", "%q matches the root itself, that is, the whole file system. A deny_glob names what to hide below an anchor, such as \"/**/*.pem\"; to grant nothing, give / no rule (what no rule grants is denied).", pat)
		return g, false
	case anchor == ir.AnchorRoot:
		g.Pattern = "/" + rel
	default:
		c.checkAnchor(anchor, e.rng, true)
		g.Pattern = ir.Path{Anchor: anchor, Rel: rel}.String()
	}
	c.warnControl(pat, e.rng, "deny_glob")
	return g, true
}

// protectName decodes one protect element: a single file name.
func (c *compilation) protectName(e elem) (string, bool) {
	s, ok := c.elemString(e, "protect", "a file name such as \".git\"")
	if !ok {
		return "", false
	}
	name := strings.TrimRight(s, "/")
	switch {
	case name == "" || name == "." || name == "..":
		c.errorf("invalid-protect", e.rng, "Invalid protected name", "%q is not a file name. protect takes names such as \".git\", kept read-only below every writable root.", s)
	case strings.Contains(name, "/"):
		c.errorf("invalid-protect", e.rng, "Protected name contains /", "%q is a path, but protect takes single names such as \".git\", which are kept read-only directly below every writable root. For a specific path, use a read rule inside the writable root instead, such as read = [path(cwd, %q)].", s, name)
	case strings.ContainsAny(name, "*?["):
		c.errorf("invalid-protect", e.rng, "Glob pattern in protect", "%q contains *, ? or [. protect takes literal names.", s)
	case strings.IndexByte(name, 0) >= 0:
		c.errorf("invalid-protect", e.rng, "NUL character in protected name", "%q contains a NUL character.", s)
	case strings.HasSuffix(name, "\n") || strings.HasSuffix(name, "\r"):
		// As for paths (cleanRel): a heredoc's ".git\n" protected nothing.
		c.errorf("invalid-protect", e.rng, "Protected name ends with a line break", "%q ends in a line break, so it cannot be the name meant. A heredoc (<<EOT) ends with a newline: write the name as a quoted string.", s)
	default:
		c.warnControl(s, e.rng, "protect")
		return name, true
	}
	return "", false
}

// wholeNumber returns v as an int64 if it is a whole number that fits.
func wholeNumber(v cty.Value) (int64, bool) {
	if v.IsNull() || !v.Type().Equals(cty.Number) {
		return 0, false
	}
	f := v.AsBigFloat()
	if !f.IsInt() {
		return 0, false
	}
	n, acc := f.Int64()
	return n, acc == big.Exact
}

// valueString shows a value in a message.
func valueString(v cty.Value) string {
	switch {
	case v.IsNull():
		return "null"
	case v.Type().Equals(cty.String):
		return fmt.Sprintf("%q", v.AsString())
	case v.Type().Equals(cty.Number):
		return v.AsBigFloat().Text('g', 10)
	}
	return typeName(v)
}

// suggest returns " Did you mean "x"?" for the option closest to s, or ""
// when none is close.
func suggest(s string, options []string) string {
	best, bestD := "", 3
	for _, o := range options {
		if absInt(len(s)-len(o)) >= bestD {
			continue // the distance is at least the difference in length
		}
		if d := levenshtein(s, o); d < bestD {
			best, bestD = o, d
		}
	}
	if best == "" || best == s {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", best)
}

func levenshtein(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 30 // not worth comparing; also bounds the work
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
