package compiler

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
)

// Limits on the token stream of a file, checked before parsing. The HCL
// parser is recursive and in places quadratic: a few megabytes of "[[[[" or
// "!!!!" or "1+1+..." exhaust the goroutine stack (which Go cannot recover
// from), and a long heredoc (many consecutive literal parts) takes minutes.
// Real profiles nest three or four levels, use no operators and have a few
// hundred tokens. maxFileTokens is checked on an estimate, before lexing.
const (
	maxNesting      = 64      // brackets, braces, parentheses, quotes, interpolations
	maxOperators    = 1000    // unary, binary and conditional operators
	maxLiteralRun   = 2000    // consecutive literal parts of one template (heredoc lines)
	maxFileTokens   = 200_000 // tokens other than comments and newlines
	maxProfileElems = 10_000  // rules, globs, names, ports and sockets in one compiled profile
	maxCompileElems = 200_000 // the same, summed over all compiled profiles
	maxExtendsDepth = 64      // profiles in one extends chain (each IR lists its chain)
	// maxNumberLen bounds a number literal's length: HCL converts its
	// decimal digits to binary in time quadratic in their number (a
	// 3-million-digit output_cap took 26 s before red team 28).
	maxNumberLen = 1024

	// smallFile is the size up to which the token checks are skipped: so
	// few tokens cannot nest or chain deeply enough to exhaust the stack,
	// nor make the quadratic parts take more than a fraction of a second.
	// This spares typical profiles a second lexing pass.
	smallFile = 16 << 10
)

// compilation is the state of one compile: the parsed declarations, the
// resolution of extends, and the diagnostics found so far.
type compilation struct {
	srcs      *diag.Sources
	ds        diag.Diagnostics
	errs      map[string]int // errors reported per file
	dropped   map[string]int // errors beyond maxErrorsPerFile per file
	fileOrder []string

	user     []*decl          // user profiles in declaration order, duplicates excluded
	byName   map[string]*decl // user profiles by name
	builtins map[string]*decl // built-ins loaded so far, by name
	tried    map[string]bool  // built-in names looked up, found or not

	state map[*decl]int       // extends resolution: 0 new, 1 in progress, 2 done
	done  map[*decl]*resolved // resolution results; nil for failed ones
	out   []*ir.Profile

	elemCount  int  // IR elements of the profiles resolved so far
	overBudget bool // maxCompileElems was exceeded and reported

	ctx *hcl.EvalContext // for path expressions: anchors and path()
}

func newCompilation() *compilation {
	return &compilation{
		srcs:     diag.NewSources(),
		errs:     map[string]int{},
		dropped:  map[string]int{},
		byName:   map[string]*decl{},
		builtins: map[string]*decl{},
		tried:    map[string]bool{},
		state:    map[*decl]int{},
		done:     map[*decl]*resolved{},
		ctx:      pathContext(),
	}
}

// add records a diagnostic, dropping errors beyond the per-file cap.
func (c *compilation) add(d diag.Diagnostic) {
	if d.Severity == diag.Error && d.Range != nil {
		f := d.Range.Filename
		if c.errs[f] >= maxErrorsPerFile {
			c.dropped[f]++
			return
		}
		c.errs[f]++
	}
	c.ds = append(c.ds, d)
}

// full reports whether the errors of file are no longer shown (add drops
// them), so that an error's costly parts need not be made.
func (c *compilation) full(file string) bool { return c.errs[file] >= maxErrorsPerFile }

func (c *compilation) errorf(code string, r hcl.Range, summary, detailFormat string, args ...any) {
	c.add(diag.Diagnostic{Severity: diag.Error, Code: code, Summary: summary, Detail: fmt.Sprintf(detailFormat, args...), Range: rp(r)})
}

func (c *compilation) warnf(code string, r hcl.Range, summary, detailFormat string, args ...any) {
	c.add(diag.Diagnostic{Severity: diag.Warning, Code: code, Summary: summary, Detail: fmt.Sprintf(detailFormat, args...), Range: rp(r)})
}

// addHCL records HCL's diagnostics under code. It reports whether any was
// an error.
func (c *compilation) addHCL(hds hcl.Diagnostics, code string) bool {
	for _, h := range hds {
		d := diag.Diagnostic{Severity: diag.Error, Code: code, Summary: h.Summary, Detail: h.Detail}
		if h.Severity == hcl.DiagWarning {
			d.Severity = diag.Warning
		}
		if h.Subject != nil {
			d.Range = rp(*h.Subject)
		}
		c.add(d)
	}
	return hds.HasErrors()
}

// checkBytes rejects input the parser should never see: oversized files,
// invalid UTF-8 and pathological nesting.
func (c *compilation) checkBytes(name string, data []byte) bool {
	if len(data) > MaxFileSize {
		c.add(*tooLarge(name))
		return false
	}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		start := posAt(data, off)
		end := start
		end.Byte++
		end.Column++
		c.add(diag.Diagnostic{
			Severity: diag.Error, Code: "invalid-utf8", Summary: "Invalid UTF-8",
			Detail: fmt.Sprintf("Byte 0x%02x at offset %d is not valid UTF-8. Profile files must be UTF-8 text: save the file as UTF-8.", data[off], off),
			Range:  &ir.Range{Filename: name, Start: start, End: end},
		})
		return false
	}
	if off := tokenEstimate(data); off >= 0 {
		start := posAt(data, off)
		c.add(diag.Diagnostic{
			Severity: diag.Error, Code: "too-complex", Summary: "File too complex",
			Detail: fmt.Sprintf("The file has too many tokens (more than %d). sbc refuses it rather than risk exhausting memory or time in the HCL parser; a profile never needs that. Is this the right file?", maxFileTokens),
			Range:  &ir.Range{Filename: name, Start: start, End: start},
		})
		return false
	}
	if len(data) <= smallFile {
		return true
	}
	if t, what, limit := tooComplex(data, name); t != nil {
		c.add(diag.Diagnostic{
			Severity: diag.Error, Code: "too-complex", Summary: "File too complex",
			Detail: fmt.Sprintf("The file has %s (more than %d). sbc refuses it rather than risk exhausting memory or time in the HCL parser; a profile never needs that. Is this the right file?", what, limit),
			Range:  rp(t.Range),
		})
		return false
	}
	return true
}

// tokenEstimate returns the offset at which a cheap over-estimate of the
// number of tokens in data exceeds maxFileTokens, or -1. It runs before the
// lexer because the lexer's tokens take about a hundred times the memory of
// the source: counting first bounds memory by maxFileTokens rather than by
// the file size. Each run of word characters and each other non-space byte
// (newlines included) counts one. Comments are counted like code: skipping
// them would need to know where strings are, and a "#" in a string could
// then hide megabytes of tokens.
func tokenEstimate(data []byte) int {
	n := 0
	word := false
	for i, b := range data {
		isWord := b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
		switch {
		case isWord && word:
			continue
		case b == ' ' || b == '\t' || b == '\r':
			word = false
			continue
		}
		word = isWord
		if n++; n > maxFileTokens {
			return i
		}
	}
	return -1
}

// tooComplex lexes data and returns the token at which it exceeds one of
// the limits above, with a description of what and the limit, or nil.
func tooComplex(data []byte, name string) (*hclsyntax.Token, string, int) {
	toks, _ := hclsyntax.LexConfig(data, name, hcl.InitialPos) // the parser reports lexical errors
	depth, ops, run, n := 0, 0, 0, 0
	for i := range toks {
		t := &toks[i]
		switch t.Type {
		case hclsyntax.TokenComment, hclsyntax.TokenNewline:
			continue
		}
		if n++; n > maxFileTokens {
			return t, "too many tokens", maxFileTokens
		}
		if t.Type == hclsyntax.TokenQuotedLit || t.Type == hclsyntax.TokenStringLit {
			if run++; run > maxLiteralRun {
				return t, "a string or heredoc with too many parts", maxLiteralRun
			}
		} else {
			run = 0
		}
		switch t.Type {
		case hclsyntax.TokenNumberLit:
			if len(t.Bytes) > maxNumberLen {
				return t, "a number literal with too many characters", maxNumberLen
			}
		case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen, hclsyntax.TokenOQuote,
			hclsyntax.TokenOHeredoc, hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
			if depth++; depth > maxNesting {
				return t, "brackets, braces, quotes or interpolations nested too deeply", maxNesting
			}
		case hclsyntax.TokenCBrace, hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenCQuote,
			hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
			depth = max(depth-1, 0)
		case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash,
			hclsyntax.TokenPercent, hclsyntax.TokenBang, hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual,
			hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq, hclsyntax.TokenGreaterThan,
			hclsyntax.TokenGreaterThanEq, hclsyntax.TokenAnd, hclsyntax.TokenOr, hclsyntax.TokenQuestion:
			if ops++; ops > maxOperators {
				return t, "too many operators", maxOperators
			}
		}
	}
	return nil, "", 0
}

// posAt returns the position of byte offset off in valid UTF-8 data, with
// the column counted in characters.
func posAt(data []byte, off int) ir.Pos {
	p := ir.Pos{Line: 1, Column: 1, Byte: off}
	for i := 0; i < off; {
		r, size := utf8.DecodeRune(data[i:off])
		if r == '\n' {
			p.Line++
			p.Column = 1
		} else {
			p.Column++
		}
		i += size
	}
	return p
}

// rootSchema, like the other schemas, is read-only.
var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "profile", LabelNames: []string{"name"}}},
}

// parse parses one file and returns its profile blocks.
// utf8BOM is the UTF-8 encoding of U+FEFF.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

func (c *compilation) parse(name string, data []byte) (hcl.Blocks, bool) {
	// A UTF-8 byte order mark (editors on Windows write one) is not part
	// of the first line: kept, snippets showed it in the block header and
	// line 1's columns were one off from every editor's (red team 27).
	data = bytes.TrimPrefix(data, utf8BOM)
	c.srcs.Add(name, data)
	if !c.checkBytes(name, data) {
		return nil, false
	}
	f, hds := hclsyntax.ParseConfig(data, name, hcl.InitialPos)
	if c.addHCL(hds, "syntax") {
		return nil, false
	}
	// Red team 28: what evaluating the expressions may cost (exprlimits.go).
	if body, ok := f.Body.(*hclsyntax.Body); ok && !c.checkExprs(body) {
		return nil, false
	}
	content, hds := f.Body.Content(rootSchema)
	c.addHCL(hds, "schema")
	return content.Blocks, true
}

// addFile parses a user file and registers its profiles.
func (c *compilation) addFile(name string, data []byte) {
	c.fileOrder = append(c.fileOrder, name)
	before := c.errs[name]
	blocks, ok := c.parse(name, data)
	if !ok {
		return
	}
	if len(blocks) == 0 && c.errs[name] == before {
		c.add(diag.Diagnostic{
			Severity: diag.Warning, Code: "no-profiles", Summary: "No profiles in file",
			Detail: fmt.Sprintf("%s declares no profile blocks, so it contributes nothing. A profile looks like:\n\n  profile \"dev\" {\n    extends = \"workspace\"\n  }", name),
			Range:  &ir.Range{Filename: name, Start: ir.Pos{Line: 1, Column: 1}, End: ir.Pos{Line: 1, Column: 1}},
		})
	}
	for _, b := range blocks {
		d := c.decodeProfile(b, false)
		if d == nil {
			continue
		}
		if builtin.Has(d.name) {
			c.errorf("duplicate-profile", b.LabelRanges[0], fmt.Sprintf("Profile name %q is reserved", d.name),
				"%q is a built-in profile, and built-in names cannot be redeclared, so that extends = %q means the same everywhere. Choose another name; to start from the built-in, write extends = %q.", d.name, d.name, d.name)
			continue
		}
		if prev, dup := c.byName[d.name]; dup {
			c.errorf("duplicate-profile", b.LabelRanges[0], fmt.Sprintf("Duplicate profile %q", d.name),
				"A profile named %q is already declared at %s. Profile names must be unique across all the files compiled together.", d.name, where(prev.def))
			continue
		}
		c.byName[d.name] = d
		c.user = append(c.user, d)
	}
}

// builtinDecl returns the declaration of the built-in profile name, loading
// and parsing its embedded source on first use, or nil if there is none.
func (c *compilation) builtinDecl(name string) *decl {
	if d, ok := c.builtins[name]; ok || c.tried[name] {
		return d
	}
	c.tried[name] = true
	src, err := builtin.Source(name)
	if err != nil {
		return nil
	}
	file := builtin.SourceName(name)
	blocks, ok := c.parse(file, src)
	if !ok {
		return nil
	}
	for _, b := range blocks {
		d := c.decodeProfile(b, true)
		if d == nil {
			continue
		}
		if d.name != name {
			c.errorf(diag.CodeInternal, b.LabelRanges[0], "Built-in source declares the wrong profile",
				"%s must declare exactly the profile %q.", file, name)
			continue
		}
		c.builtins[name] = d
	}
	return c.builtins[name]
}
