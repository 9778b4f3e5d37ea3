package ir

import (
	"path"
	"strings"
)

// Glob is an absolute glob pattern (see GlobRule for the syntax) compiled
// to match a path one name at a time. A directory walk carries a GlobState
// from each directory to its entries, so matching an entry costs one step
// over the pattern's parts instead of re-matching its whole path: the deny
// glob scan at start visits hundreds of thousands of entries ("**/*.pem"
// over a profile that reads /), where matching each full path against
// every split point of "**" was half the time.
//
// Its answers are MatchGlob's: for every path, stepping through its names
// from Root ends in a state that Matches exactly when MatchGlob is true
// (checked by FuzzMatchGlob).
type Glob struct {
	parts []globPart
}

// GlobState is the set of pattern positions a path prefix can have reached:
// bit i set means the prefix may have consumed the first i parts. The empty
// set means no extension of the prefix can match.
type GlobState uint64

// maxGlobParts keeps every position, 0 through the number of parts, in one
// GlobState.
const maxGlobParts = 63

type globKind uint8

const (
	globAny     globKind = iota // "**": any number of whole names
	globLiteral                 // no wildcard: equal names
	globStar                    // "*": any name
	globSuffix                  // "*" then a literal
	globPrefix                  // a literal then "*"
	globGeneral                 // anything else: path.Match
)

type globPart struct {
	kind globKind
	text string // the literal, the suffix, the prefix, or the pattern
}

// CompileGlob compiles an absolute pattern. It reports false for a pattern
// of more than 63 names, which MatchGlob still answers.
func CompileGlob(pattern string) (*Glob, bool) {
	names := splitAbs(pattern)
	if len(names) > maxGlobParts {
		return nil, false
	}
	g := &Glob{parts: make([]globPart, len(names))}
	for i, n := range names {
		g.parts[i] = compilePart(n)
	}
	return g, true
}

func compilePart(p string) globPart {
	const meta = `*?[\`
	switch {
	case p == "**":
		return globPart{kind: globAny}
	case !strings.ContainsAny(p, meta):
		return globPart{kind: globLiteral, text: p}
	case p == "*":
		return globPart{kind: globStar}
	case p[0] == '*' && !strings.ContainsAny(p[1:], meta):
		return globPart{kind: globSuffix, text: p[1:]}
	case p[len(p)-1] == '*' && !strings.ContainsAny(p[:len(p)-1], meta):
		return globPart{kind: globPrefix, text: p[:len(p)-1]}
	}
	return globPart{kind: globGeneral, text: p}
}

func (p globPart) match(name string) bool {
	switch p.kind {
	case globLiteral:
		return name == p.text
	case globStar:
		return true
	case globSuffix:
		return strings.HasSuffix(name, p.text)
	case globPrefix:
		return strings.HasPrefix(name, p.text)
	}
	ok, err := path.Match(p.text, name)
	return err == nil && ok
}

// Root returns the state of "/", where no name has been consumed.
func (g *Glob) Root() GlobState { return g.closure(1) }

// Step returns the state after the name (one path component, never empty
// and without "/") following a prefix in state s.
func (g *Glob) Step(s GlobState, name string) GlobState {
	var next GlobState
	for i, p := range g.parts {
		if s&(1<<i) == 0 {
			continue
		}
		if p.kind == globAny {
			next |= 1 << i
		} else if p.match(name) {
			next |= 1 << (i + 1)
		}
	}
	return g.closure(next)
}

// closure adds the positions reachable by letting "**" match no name. A
// "**" only leads forward, so one ascending pass reaches them all.
func (g *Glob) closure(s GlobState) GlobState {
	for i, p := range g.parts {
		if p.kind == globAny && s&(1<<i) != 0 {
			s |= 1 << (i + 1)
		}
	}
	return s
}

// Match reports whether a path in state s matches the whole pattern.
func (g *Glob) Match(s GlobState) bool { return s&(1<<len(g.parts)) != 0 }

// State returns the state of the absolute, clean path abs.
func (g *Glob) State(abs string) GlobState {
	s := g.Root()
	for _, n := range splitAbs(abs) {
		s = g.Step(s, n)
	}
	return s
}
