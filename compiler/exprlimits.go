package compiler

import (
	"math"
	"math/big"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Limits on what evaluating a file's expressions may cost, checked on its
// syntax tree before anything is evaluated (red team 28). The token checks
// (checkBytes) bound the size of the tree, but not the work of evaluating
// it: a for expression repeats its body once per element of its
// collection, so four nested ones over a 100-element list made a 907-byte
// profile evaluate 10^8 bodies (sbc killed after 20 s at 645 MB, and
// growing); and a number is kept exactly (512 bits of mantissa, any
// exponent), so "${1e-1000000}" (converted to a string digit by digit) or
// a deny_glob's max_depth = 1e100000000 (printed in the error) took
// minutes to format.
const (
	// maxEvalCost bounds the estimated work of a for or splat expression:
	// its collection's cost (an upper bound on its number of elements)
	// times its body's, in units of a value or 16 bytes of string. The
	// estimate is high (by about 5 for nested lists), and a million units
	// evaluate within seconds and 150 MB; real profiles' for expressions
	// cost a few hundred.
	maxEvalCost = 1 << 20
	// maxNumberExp bounds the binary exponent of every number a profile
	// computes, literal or by arithmetic: beyond float64's range (2^±1024)
	// by a little, so 1e308 and 1e-308 stay valid, and a value's decimal
	// text stays a few thousand digits at most.
	maxNumberExp = 2048
	// evalCostCap keeps cost sums from overflowing.
	evalCostCap = math.MaxInt64 / 4
)

// exprFrame is what the walk knows about one open node: the cost of its
// first child (a for expression's collection, a splat's source), the sum
// of its children's costs, the largest exponent bound among them, and how
// many children it has had.
type exprFrame struct {
	node       hclsyntax.Node
	first, sum int64
	exp        int // the largest of the children's exponent bounds
	expSum     int // their sum
	n          int
	numSafe    uint64 // bit i: child i is numSafe (see Exit)
	inRepeat   bool   // the node is evaluated once per element of a for or splat
}

// safe reports whether child i is a number the walk bounds.
func (f *exprFrame) safe(i int) bool { return i < 64 && f.numSafe&(1<<i) != 0 }

// exprWalker computes, bottom up, each node's estimated evaluation cost
// and a bound on the binary exponent of the numbers it can produce, and
// reports the first node over a limit.
type exprWalker struct {
	c      *compilation
	stack  []exprFrame
	failed bool
}

func satAdd(a, b int64) int64 {
	if a > evalCostCap-b {
		return evalCostCap
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if a != 0 && b > evalCostCap/a {
		return evalCostCap
	}
	return a * b
}

func repeats(n hclsyntax.Node) bool {
	switch n.(type) {
	case *hclsyntax.ForExpr, *hclsyntax.SplatExpr:
		return true
	}
	return false
}

// checkExprs walks body's syntax tree and reports an expression that would
// cost too much to evaluate. It reports whether the file may be evaluated.
func (c *compilation) checkExprs(body *hclsyntax.Body) bool {
	w := &exprWalker{c: c, stack: []exprFrame{{}}}
	hclsyntax.Walk(body, w)
	return !w.failed
}

func (w *exprWalker) Enter(n hclsyntax.Node) hcl.Diagnostics {
	p := &w.stack[len(w.stack)-1]
	// A for expression's or splat's first child, its collection, is
	// evaluated once; the others once per element.
	in := p.inRepeat || (repeats(p.node) && p.n > 0)
	w.stack = append(w.stack, exprFrame{node: n, inRepeat: in})
	return nil
}

func (w *exprWalker) Exit(n hclsyntax.Node) hcl.Diagnostics {
	f := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	cost, exp := satAdd(1, f.sum), f.exp
	// numSafe: the node is a number the walk bounds: a number literal, or
	// arithmetic, parentheses, negation and conditionals over such
	// numbers. Arithmetic and ordering take only such operands: HCL
	// converts a string operand to a number ("1e-1000000" + 0, or an
	// iteration variable holding one), whose size the walk cannot see.
	numSafe := false
	switch e := n.(type) {
	case *hclsyntax.ForExpr, *hclsyntax.SplatExpr:
		// The collection's cost bounds its number of elements.
		cost = satAdd(f.first, satMul(f.first, satAdd(1, f.sum-f.first)))
		if cost > maxEvalCost {
			w.fail(n.Range(), "Expression too costly to evaluate",
				"This expression repeats its body once per element of a collection, over collections that may hold about %d values in all; sbc evaluates at most %d, so that no file can exhaust memory or time. A profile lists its paths and ports: write them out, or repeat over fewer elements.", cost, maxEvalCost)
		}
	case *hclsyntax.LiteralValueExpr:
		switch v := e.Val; {
		case v.IsNull() || !v.IsKnown():
		case v.Type() == cty.String:
			// A string is copied wherever it is used: count its bytes,
			// 16 to a unit.
			cost = satAdd(cost, int64(len(v.AsString())/16))
		case v.Type() == cty.Number:
			numSafe = true
			if x := v.AsBigFloat(); x.Sign() != 0 {
				exp = absInt(x.MantExp(nil))
			}
		}
	case *hclsyntax.ParenthesesExpr:
		numSafe = f.safe(0)
	case *hclsyntax.ConditionalExpr:
		numSafe = f.safe(1) && f.safe(2)
	case *hclsyntax.UnaryOpExpr:
		if e.Op == hclsyntax.OpNegate {
			numSafe = f.safe(0)
			if !numSafe {
				w.failNotNumber(e.Range())
			}
		}
	case *hclsyntax.IndexExpr:
		// A tuple's index is converted to a number: a string key must be
		// a bounded one.
		if !f.safe(1) && !indexKeyOK(e.Key) {
			w.failIndex(e.Key.Range())
		}
	case *hclsyntax.ScopeTraversalExpr:
		w.checkTraversal(e.Traversal, e.Range())
	case *hclsyntax.RelativeTraversalExpr:
		w.checkTraversal(e.Traversal, e.Range())
	case *hclsyntax.BinaryOpExpr:
		switch e.Op {
		case hclsyntax.OpAdd, hclsyntax.OpSubtract, hclsyntax.OpMultiply, hclsyntax.OpDivide, hclsyntax.OpModulo,
			hclsyntax.OpGreaterThan, hclsyntax.OpGreaterThanOrEqual, hclsyntax.OpLessThan, hclsyntax.OpLessThanOrEqual:
			if !f.safe(0) || !f.safe(1) {
				w.failNotNumber(e.Range())
			}
			numSafe = e.Op.Type == cty.Number
		}
		switch e.Op {
		case hclsyntax.OpMultiply, hclsyntax.OpDivide:
			// The exponents add up.
			exp = f.expSum + 1
		default:
			// A sum can carry into one more bit; a comparison or a
			// logical operator makes no number (f.exp is 0 without one).
			if f.exp > 0 {
				exp = f.exp + 1
			}
		}
	}
	if exp > maxNumberExp {
		w.fail(n.Range(), "Number out of range",
			"This number is beyond 2^%d (about 1e%d) in magnitude, or a fraction closer to 0 than 2^-%[1]d: no value in a profile is, and sbc does not compute with such numbers (their decimal text alone can take minutes to write).", maxNumberExp, int(float64(maxNumberExp)*math.Log10(2)))
	}
	p := &w.stack[len(w.stack)-1]
	if p.n == 0 {
		p.first = cost
	}
	if numSafe && p.n < 64 {
		p.numSafe |= 1 << p.n
	}
	p.n++
	p.sum = satAdd(p.sum, cost)
	p.exp = max(p.exp, exp)
	p.expSum = min(p.expSum+exp, 1<<30)
	return nil
}

// fail reports the first expression over a limit.
func (w *exprWalker) fail(r hcl.Range, summary, detailFormat string, args ...any) {
	if w.failed {
		return
	}
	w.failed = true
	w.c.errorf("too-complex", r, summary, detailFormat, args...)
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func (w *exprWalker) failNotNumber(r hcl.Range) {
	w.fail(r, "Arithmetic on a value that is not a number",
		"sbc computes only with numbers written in the profile (443, 512 * 1024): an operand or index converted from a string or taken from a for expression's variable could be a number of any size, which sbc does not compute with. Write the number itself.")
}

func (w *exprWalker) failIndex(r hcl.Range) {
	w.fail(r, "Index not a bounded number",
		"An index is converted to a number, and sbc indexes only with a number or string written in the profile, of at most %d characters and within 2^±%d.", maxNumberLen, maxNumberExp)
}

// checkTraversal checks the literal index keys of a traversal (x[0],
// x["1"]).
func (w *exprWalker) checkTraversal(t hcl.Traversal, r hcl.Range) {
	for _, step := range t {
		if ix, ok := step.(hcl.TraverseIndex); ok && !literalKeyOK(ix.Key) {
			w.failIndex(ix.SrcRange)
		}
	}
}

// indexKeyOK reports whether an index expression's key is a literal that
// converts to a bounded number, or to none.
func indexKeyOK(e hclsyntax.Expression) bool {
	switch k := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		return literalKeyOK(k.Val)
	case *hclsyntax.TemplateExpr:
		if len(k.Parts) == 1 {
			return indexKeyOK(k.Parts[0])
		}
	}
	return false
}

// literalKeyOK reports whether a literal key is a bounded number or a
// string that is not a number, or one whose size is bounded.
func literalKeyOK(v cty.Value) bool {
	if v.IsNull() || !v.IsKnown() {
		return true
	}
	var x *big.Float
	switch v.Type() {
	case cty.Number:
		x = v.AsBigFloat()
	case cty.String:
		s := strings.TrimSpace(v.AsString())
		if s == "" || strings.Trim(s, "0123456789.eE+-") != "" {
			return true // not a number: the conversion fails at once
		}
		if len(s) > maxNumberLen {
			return false
		}
		f, _, err := big.ParseFloat(s, 10, 512, big.ToNearestEven)
		if err != nil {
			return true
		}
		x = f
	default:
		return true
	}
	return x.Sign() == 0 || x.IsInf() || absInt(x.MantExp(nil)) <= maxNumberExp
}
