package policies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/sbx-dev/sbx/ir"
)

// Input is one profile to check.
type Input struct {
	Profile *ir.Profile
	// File is the profile's source file as the user named it; empty means
	// Profile.Source.Filename.
	File string
	// Artifact is where the profile's compiled artifact is (or would be)
	// written, relative to the current directory; empty means
	// NAME.sbx.json, where `sbc compile` writes it by default.
	Artifact string
	// Fidelity reports, per target name ("landlock"), how faithfully the
	// target enforces each rule; see FidelityReport. Nil when unknown.
	Fidelity map[string]FidelityReport
}

// FidelityReport is one target's account of the rules it cannot enforce
// exactly, as input.fidelity.TARGET.
type FidelityReport struct {
	Rules []FidelityEntry `json:"rules"`
}

// FidelityEntry is one IR node's fidelity on one target.
type FidelityEntry struct {
	// Path locates the IR node in the input document, as
	// ["profile", "filesystem", "rules", 3].
	Path []any `json:"path"`
	// Fidelity is "exact", "supplementary", "restrictive" or
	// "unenforceable".
	Fidelity string `json:"fidelity"`
	// Reason explains a fidelity other than exact.
	Reason string `json:"reason,omitempty"`
}

// names returns the file and artifact the input document names.
func (in Input) names() (file, artifact string) {
	file = in.File
	if file == "" {
		file = in.Profile.Source.Filename
	}
	artifact = in.Artifact
	if artifact == "" {
		artifact = in.Profile.Name + ".sbx.json"
	}
	return file, artifact
}

// InputDocument returns the Rego input for in, as JSON: what policy sees
// as input (see "The Rego input" in the README).
func InputDocument(in Input) ([]byte, error) {
	if in.Profile == nil {
		return nil, errors.New("no profile")
	}
	file, artifact := in.names()
	v, err := ast.JSON(inputValue(in, file, artifact))
	if err != nil {
		return nil, fmt.Errorf("encoding the input of profile %q: %w", in.Profile.Name, err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the input of profile %q: %w", in.Profile.Name, err)
	}
	return data, nil
}

// Severity is how a finding counts.
type Severity string

// Severities.
const (
	Failure Severity = "failure"
	Warning Severity = "warning"
)

// Finding is one result of a deny, violation or warn rule.
type Finding struct {
	Severity Severity `json:"severity"`
	// Code identifies the check: the result's "code", else the rule's
	// METADATA custom.code, else the rule's ID.
	Code    string `json:"code"`
	Message string `json:"message"`
	// Rule is the ID of the rule that produced the finding
	// ("sbx.builtin.filesystem.deny_write_home", "main.deny").
	Rule string `json:"rule"`
	// Range is the HCL source the finding is about: the node the policy
	// returned, else the profile.
	Range *ir.Range `json:"range,omitempty"`
	// Path is the input path of the node the finding was located at, when
	// known.
	Path []any `json:"path,omitempty"`
	// Details holds the result object's other fields.
	Details map[string]any `json:"details,omitempty"`
	// ExceptedBy names the exception that suppressed the finding (only on
	// Result.Exceptions).
	ExceptedBy string `json:"excepted_by,omitempty"`
}

// Result is the outcome of checking one profile.
type Result struct {
	Profile    string    `json:"profile"`
	File       string    `json:"file"`
	Failures   []Finding `json:"failures"`
	Warnings   []Finding `json:"warnings"`
	Exceptions []Finding `json:"exceptions"`
	// Err is set when policy could not be evaluated for this profile; the
	// findings are then incomplete and the check must fail.
	Err error `json:"-"`
	// Source is the profile block's range in the author's file.
	Source *ir.Range `json:"-"`
}

// Located returns where a code-scanning report (SARIF, GitHub
// annotations) places finding f: its own range, except that a finding on
// a rule inherited from a built-in profile (builtin:NAME.hcl, a file in no
// repository) is placed at the profile that extends it, in the author's
// file, where an annotation can attach; inherited then returns the
// built-in's range (nil otherwise).
func (res *Result) Located(f Finding) (at, inherited *ir.Range) {
	if f.Range != nil && strings.HasPrefix(f.Range.Filename, BuiltinPrefix) &&
		res.Source != nil && res.Source.Filename != "" && !strings.HasPrefix(res.Source.Filename, BuiltinPrefix) {
		return res.Source, f.Range
	}
	return f.Range, nil
}

// Check evaluates the policy against one profile.
func (e *Engine) Check(ctx context.Context, in Input) (*Result, error) {
	if in.Profile == nil {
		return nil, errors.New("no profile")
	}
	file, artifact := in.names()
	src := in.Profile.Source
	res := &Result{Profile: in.Profile.Name, File: file, Source: &src, Failures: []Finding{}, Warnings: []Finding{}, Exceptions: []Finding{}}
	val := inputValue(in, file, artifact)
	if e.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
		defer cancel()
	}
	rs, err := e.query.Eval(ctx, rego.EvalParsedInput(val))
	if err != nil {
		if e.timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("evaluating policy for profile %q (%s): still running after %v (--timeout)", res.Profile, res.File, e.timeout)
		}
		return nil, fmt.Errorf("evaluating policy for profile %q (%s): %w", res.Profile, res.File, err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("evaluating policy for profile %q: unexpected result shape", res.Profile)
	}
	values, ok := rs[0].Expressions[0].Value.([]any)
	if !ok || len(values) != len(e.slots) {
		return nil, fmt.Errorf("evaluating policy for profile %q: unexpected result shape", res.Profile)
	}
	loc := &locator{doc: val, profile: in.Profile.Source}
	var findings []Finding
	var exceptions []exception
	var errs []string
	for i, v := range values {
		rule := e.slots[i]
		items, _ := v.([]any)
		for _, item := range items {
			if rule.Kind == KindException {
				ex, err := exceptionNames(item)
				if err != nil {
					errs = append(errs, fmt.Sprintf("%s (%s:%d): %v", rule.ID, rule.File, rule.Line, err))
					continue
				}
				for _, n := range ex {
					exceptions = append(exceptions, exception{name: n, rule: rule.ID})
				}
				continue
			}
			f, err := makeFinding(rule, item, loc)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s (%s:%d): %v", rule.ID, rule.File, rule.Line, err))
				continue
			}
			findings = append(findings, f)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("evaluating policy for profile %q (%s): %s", res.Profile, res.File, strings.Join(errs, "; "))
	}
	sortFindings(findings)
	for _, f := range findings {
		if by, ok := excepted(f, exceptions); ok {
			f.ExceptedBy = by
			res.Exceptions = append(res.Exceptions, f)
			continue
		}
		if f.Severity == Failure {
			res.Failures = append(res.Failures, f)
		} else {
			res.Warnings = append(res.Warnings, f)
		}
	}
	return res, nil
}

// CheckAll checks every input with up to GOMAXPROCS evaluations in
// parallel. Results are in input order; a profile whose evaluation failed
// has Result.Err set.
func (e *Engine) CheckAll(ctx context.Context, ins []Input) []*Result {
	out := make([]*Result, len(ins))
	workers := min(runtime.GOMAXPROCS(0), len(ins))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := e.Check(ctx, ins[i])
				if err != nil {
					r = &Result{Err: err, Failures: []Finding{}, Warnings: []Finding{}, Exceptions: []Finding{}}
					if p := ins[i].Profile; p != nil {
						r.Profile, r.File = p.Name, p.Source.Filename
					}
					if ins[i].File != "" {
						r.File = ins[i].File
					}
				}
				out[i] = r
			}
		}()
	}
	for i := range ins {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		al, bl := lineOf(a.Range), lineOf(b.Range)
		if al != bl {
			return al < bl
		}
		ac, bc := colOf(a.Range), colOf(b.Range)
		if ac != bc {
			return ac < bc
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
}

func lineOf(r *ir.Range) int {
	if r == nil {
		return 0
	}
	return r.Start.Line
}

func colOf(r *ir.Range) int {
	if r == nil {
		return 0
	}
	return r.Start.Column
}

// reserved keys of a result object; the others become Details.
var reserved = map[string]bool{"msg": true, "message": true, "code": true, "node": true, "path": true, "source": true}

// makeFinding converts one element of a deny, violation or warn set.
func makeFinding(rule *Rule, item any, loc *locator) (Finding, error) {
	f := Finding{Severity: Failure, Code: rule.Code, Rule: rule.ID}
	if rule.Kind == KindWarn {
		f.Severity = Warning
	}
	if f.Code == "" {
		f.Code = rule.ID
	}
	switch v := item.(type) {
	case string:
		f.Message = v
		f.Range = loc.fallback()
		return f, nil
	case map[string]any:
		msg, ok := v["msg"].(string)
		if !ok {
			msg, ok = v["message"].(string)
		}
		if !ok {
			return f, fmt.Errorf("a result object has no \"msg\" string (got %s)", brief(item))
		}
		f.Message = msg
		if c, ok := v["code"]; ok {
			s, ok := c.(string)
			if !ok || s == "" {
				return f, fmt.Errorf("a result's \"code\" must be a non-empty string (got %s)", brief(c))
			}
			f.Code = s
		}
		f.Range, f.Path = loc.locate(v)
		for k, x := range v {
			if !reserved[k] {
				if f.Details == nil {
					f.Details = map[string]any{}
				}
				f.Details[k] = x
			}
		}
		return f, nil
	}
	return f, fmt.Errorf("a result must be a message string or an object with \"msg\" (got %s)", brief(item))
}

func brief(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%T", v)
	}
	if len(data) > 80 {
		return string(data[:77]) + "..."
	}
	return string(data)
}

// exception is one name an exception rule returned.
type exception struct {
	name string
	rule string
}

// exceptionNames accepts what conftest's exception rules return (an array
// of rule names) and also a single string.
func exceptionNames(item any) ([]string, error) {
	switch v := item.(type) {
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("an exception must list rule names or codes as strings (got %s)", brief(item))
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("an exception must be a rule name or code, or an array of them (got %s)", brief(item))
}

// excepted reports whether an exception names f's code, its rule's name,
// its rule's name without the deny_/violation_/warn_ prefix (conftest's
// convention), or its rule's full ID.
func excepted(f Finding, exs []exception) (string, bool) {
	name := f.Rule[strings.LastIndexByte(f.Rule, '.')+1:]
	short := name
	for _, p := range []string{"deny_", "violation_", "warn_"} {
		short = strings.TrimPrefix(short, p)
	}
	for _, ex := range exs {
		switch ex.name {
		case f.Code, name, short, f.Rule:
			return ex.rule + ": " + ex.name, true
		}
	}
	return "", false
}

// locator finds the source range of the node a result refers to.
type locator struct {
	doc     ast.Value
	profile ir.Range
}

func (l *locator) fallback() *ir.Range {
	r := l.profile
	if r == (ir.Range{}) {
		return nil
	}
	return &r
}

// locate returns the range for a result object: its "node" (an IR node
// with "source", or any value found in the input, located at its nearest
// enclosing node), its "path" into the input, the object's own "source",
// or else the profile.
func (l *locator) locate(obj map[string]any) (*ir.Range, []any) {
	if n, ok := obj["node"]; ok {
		if m, ok := n.(map[string]any); ok {
			if r, ok := rangeOf(m["source"]); ok {
				return r, nil
			}
		}
		if p := l.find(n); p != nil {
			if r, ok := l.rangeAt(p); ok {
				return r, p
			}
		}
	}
	if pv, ok := obj["path"]; ok {
		if p, ok := parsePath(pv); ok {
			if r, ok := l.rangeAt(p); ok {
				return r, p
			}
		}
	}
	if r, ok := rangeOf(obj["source"]); ok {
		return r, nil
	}
	return l.fallback(), nil
}

// rangeAt walks p into the input and returns the source of the deepest
// node along the way that has one.
func (l *locator) rangeAt(p []any) (*ir.Range, bool) {
	var best *ir.Range
	cur := l.doc
	note := func(v ast.Value) {
		if o, ok := v.(ast.Object); ok {
			if src := o.Get(ast.InternedTerm("source")); src != nil {
				if r, ok := rangeOfValue(src.Value); ok {
					best = r
				}
			}
		}
	}
	for _, step := range p {
		note(cur)
		switch c := cur.(type) {
		case ast.Object:
			k, ok := step.(string)
			if !ok {
				return best, best != nil
			}
			next := c.Get(ast.StringTerm(k))
			if next == nil {
				return best, best != nil
			}
			cur = next.Value
		case *ast.Array:
			i, ok := index(step)
			if !ok || i < 0 || i >= c.Len() {
				return best, best != nil
			}
			cur = c.Elem(i).Value
		default:
			return best, best != nil
		}
	}
	note(cur)
	return best, best != nil
}

// find returns the path of the first value in the input (depth first)
// equal to v, or nil. Scalars are not searched for: a string such as
// "write" would match the wrong node.
func (l *locator) find(v any) []any {
	switch v.(type) {
	case map[string]any, []any:
	default:
		return nil
	}
	want, err := ast.InterfaceToValue(v)
	if err != nil {
		return nil
	}
	var walk func(cur ast.Value, p []any) []any
	walk = func(cur ast.Value, p []any) []any {
		switch c := cur.(type) {
		case ast.Object:
			if c.Compare(want) == 0 {
				return p
			}
			for _, k := range c.Keys() {
				ks, _ := k.Value.(ast.String)
				if r := walk(c.Get(k).Value, append(p[:len(p):len(p)], string(ks))); r != nil {
					return r
				}
			}
		case *ast.Array:
			if c.Compare(want) == 0 {
				return p
			}
			for i := 0; i < c.Len(); i++ {
				if r := walk(c.Elem(i).Value, append(p[:len(p):len(p)], i)); r != nil {
					return r
				}
			}
		}
		return nil
	}
	p := walk(l.doc, []any{})
	if len(p) == 0 {
		return nil
	}
	return p
}

// rangeOfValue decodes an IR source range held as an OPA value.
func rangeOfValue(v ast.Value) (*ir.Range, bool) {
	x, err := ast.JSON(v)
	if err != nil {
		return nil, false
	}
	return rangeOf(x)
}

func index(step any) (int, bool) {
	switch s := step.(type) {
	case int:
		return s, true
	case json.Number:
		i, err := strconv.Atoi(string(s))
		return i, err == nil
	case string:
		i, err := strconv.Atoi(s)
		return i, err == nil
	}
	return 0, false
}

// parsePath accepts an array of keys and indices, a JSON pointer
// ("/profile/filesystem/rules/3") or a dotted path
// ("profile.filesystem.rules[3]"). A leading "input" is ignored.
func parsePath(v any) ([]any, bool) {
	var out []any
	switch p := v.(type) {
	case []any:
		for _, s := range p {
			if i, ok := s.(json.Number); ok {
				n, err := strconv.Atoi(string(i))
				if err != nil {
					return nil, false
				}
				out = append(out, n)
				continue
			}
			out = append(out, s)
		}
	case string:
		if strings.HasPrefix(p, "/") {
			for _, s := range strings.Split(p[1:], "/") {
				s = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
				out = append(out, s)
			}
		} else {
			for _, s := range strings.Split(strings.ReplaceAll(p, "[", ".["), ".") {
				if s == "" {
					continue
				}
				if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
					n, err := strconv.Atoi(s[1 : len(s)-1])
					if err != nil {
						return nil, false
					}
					out = append(out, n)
					continue
				}
				out = append(out, s)
			}
		}
	default:
		return nil, false
	}
	if len(out) > 0 && out[0] == "input" {
		out = out[1:]
	}
	return out, len(out) > 0
}

// rangeOf decodes an IR source range ({"filename", "start", "end"}).
func rangeOf(v any) (*ir.Range, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	var r ir.Range
	r.Filename, _ = m["filename"].(string)
	start, ok1 := pos(m["start"])
	end, ok2 := pos(m["end"])
	if !ok1 || start.Line < 1 {
		return nil, false
	}
	r.Start = start
	if ok2 {
		r.End = end
	} else {
		r.End = start
	}
	return &r, true
}

func pos(v any) (ir.Pos, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return ir.Pos{}, false
	}
	num := func(k string) int {
		switch n := m[k].(type) {
		case json.Number:
			i, _ := strconv.Atoi(string(n))
			return i
		case float64:
			return int(n)
		case int:
			return n
		}
		return 0
	}
	return ir.Pos{Line: num("line"), Column: num("column"), Byte: num("byte")}, true
}
