// Package policies validates sandbox profiles with Rego (OPA) policy: the
// built-in rules embedded in sbc and an organisation's own policy, loaded
// from directories, single .rego files or OPA bundle tarballs.
//
// It follows conftest's conventions so that OPA users feel at home: rules
// named deny or violation (or deny_NAME, violation_NAME) fail a check, warn
// rules warn, exception rules suppress; every rule is a partial set rule
// whose elements are message strings or objects with "msg" (and ideally
// "code"). The Rego input is the profile's IR (see Input), and a finding
// that returns the offending IR node ("node") or its path into the input
// ("path") is located at that node's HCL source automatically.
//
// An Engine is prepared once per process (parsing, compiling and preparing
// the queries) and is then safe for concurrent use. Evaluation is hermetic:
// the built-in functions that reach the network or the process environment
// are not available, and a policy that calls them is refused when loaded.
package policies

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown/print"

	"github.com/sbx-dev/sbx/ir"
)

//go:embed builtin/*.rego
var builtinFS embed.FS

// BuiltinPrefix is the file name prefix of the embedded built-in policy
// modules in locations and coverage reports ("builtin:filesystem.rego"),
// like the built-in profiles' sources ("builtin:workspace.hcl").
const BuiltinPrefix = "builtin:"

// BuiltinNamespace is the package prefix of the built-in rules. Their
// helpers live in package sbx.lib.
const BuiltinNamespace = "sbx.builtin"

// DefaultNamespace is the package whose rules are evaluated when no
// namespace is selected, as in conftest.
const DefaultNamespace = "main"

// Options configure an Engine.
type Options struct {
	// Policies lists organisation policy: directories (their .rego files,
	// recursively, without *_test.rego), single .rego files, or OPA bundle
	// tarballs (.tar.gz), whose data documents are loaded too.
	Policies []string
	// Namespaces selects the packages of organisation policy whose rules
	// are evaluated; empty means DefaultNamespace. Built-in rules are
	// always evaluated unless NoBuiltin is set.
	Namespaces []string
	// AllNamespaces evaluates the rules of every package of organisation
	// policy, ignoring Namespaces.
	AllNamespaces bool
	// NoBuiltin leaves out the built-in rules (the sbx.lib helpers stay
	// available to organisation policy).
	NoBuiltin bool
	// Print receives the output of print() calls in policy; nil discards
	// it.
	Print io.Writer
	// Timeout bounds the evaluation of the policy for one profile (0: no
	// bound): a rule that runs for hours fails that profile's check
	// (Result.Err) instead of hanging a CI job.
	Timeout time.Duration
}

// Kind is what a rule does with its results.
type Kind string

// Rule kinds.
const (
	KindDeny      Kind = "deny"      // deny and violation rules: failures
	KindWarn      Kind = "warn"      // warn rules: warnings
	KindException Kind = "exception" // exception rules: suppress others
)

// Rule describes one evaluated policy rule (all definitions of one rule
// name in one package).
type Rule struct {
	// ID is the rule's full name without "data.":
	// "sbx.builtin.filesystem.deny_write_home".
	ID string `json:"id"`
	// Package is the rule's package ("sbx.builtin.filesystem", "main").
	Package string `json:"package"`
	// Name is the rule's name ("deny_write_home").
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Code is the code from the rule's METADATA (custom.code), used for
	// results that do not carry their own; empty when not annotated.
	Code string `json:"code,omitempty"`
	// Title and Description come from the rule's METADATA.
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// File and Line locate the rule's first definition.
	File string `json:"file"`
	Line int    `json:"line"`
	// Builtin marks the rules embedded in sbc.
	Builtin bool `json:"builtin"`
}

// Engine evaluates prepared policy against profiles. Build one with New;
// it is safe for concurrent use.
type Engine struct {
	query   rego.PreparedEvalQuery
	slots   []*Rule
	rules   []*Rule
	modules map[string]*ast.Module
	timeout time.Duration // Options.Timeout
}

// forbidden are the built-in functions removed from the capabilities, with
// why. Policy evaluation must be hermetic: the same profile and policy give
// the same findings on every machine, with no network access.
var forbidden = map[string]string{
	"http.send":          "it makes network requests",
	"net.lookup_ip_addr": "it makes DNS queries",
	"opa.runtime":        "it exposes the process environment",
	// A schema's "$ref" may name a local file (file://...), which the
	// JSON Schema loader reads: findings would depend on the machine's
	// files, and a policy could copy one into a finding's message.
	"json.match_schema":  "its schema references may read local files",
	"json.verify_schema": "its schema references may read local files",
	// Random values: the same profile and policy would pass one CI run
	// and fail the next (red team 23).
	"rand.intn":    "its result differs from run to run",
	"uuid.rfc4122": "its result differs from run to run",
}

// Capabilities returns the OPA capabilities policy is compiled with: this
// OPA version's, without the functions that reach the network or the
// process environment, and with sbc's own sbx.access and sbx.glob_match
// (see AccessBuiltin, GlobMatchBuiltin).
func Capabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		if _, bad := forbidden[b.Name]; !bad {
			kept = append(kept, b)
		}
	}
	caps.Builtins = append(kept, accessBuiltinDecl(), globMatchBuiltinDecl())
	caps.AllowNet = []string{}
	return caps
}

// New loads, checks and compiles the built-in rules and the organisation
// policy of opts, and prepares their evaluation. Every error it returns
// concerns the policy (a missing directory, a corrupt bundle, a syntax or
// type error with its file and line, a boolean deny rule, a call of a
// forbidden function) rather than a profile.
func New(ctx context.Context, opts Options) (*Engine, error) {
	set, err := Load(opts.Policies, false)
	if err != nil {
		return nil, err
	}
	builtin, err := BuiltinModules(false)
	if err != nil {
		return nil, err
	}
	for name, m := range set.Modules {
		if reservedPackage(m) {
			return nil, fmt.Errorf("%s: package %s is reserved for sbc's built-in rules: use another package name", name, packageName(m))
		}
	}
	modules := make(map[string]*ast.Module, len(builtin)+len(set.Modules))
	for name, m := range builtin {
		modules[name] = m
	}
	for name, m := range set.Modules {
		modules[name] = m
	}
	if err := checkHermetic(modules); err != nil {
		return nil, err
	}
	compiler := ast.NewCompiler().
		WithCapabilities(Capabilities()).
		WithEnablePrintStatements(opts.Print != nil).
		WithDefaultRegoVersion(ast.RegoV1)
	if compiler.Compile(modules); compiler.Failed() {
		return nil, policyErrors(compiler.Errors)
	}

	pkgs, err := selectPackages(set.Modules, builtin, opts)
	if err != nil {
		return nil, err
	}
	e := &Engine{modules: modules, timeout: opts.Timeout}
	if err := e.collectRules(modules, pkgs); err != nil {
		return nil, err
	}

	refs := make([]*ast.Term, len(e.slots))
	for i, r := range e.slots {
		refs[i] = ast.NewTerm(ruleRef(r))
	}
	query := ast.NewBody(ast.NewExpr(ast.ArrayTerm(refs...)))
	ropts := []func(*rego.Rego){
		rego.ParsedQuery(query),
		rego.Compiler(compiler),
		rego.StrictBuiltinErrors(true),
		rego.EnablePrintStatements(opts.Print != nil),
		accessOption(),
		globMatchOption(),
	}
	if opts.Print != nil {
		ropts = append(ropts, rego.PrintHook(printableHook{opts.Print}))
	}
	if len(set.Data) > 0 {
		ropts = append(ropts, rego.Store(inmem.NewFromObject(set.Data)))
	} else {
		ropts = append(ropts, rego.Store(inmem.New()))
	}
	pq, err := rego.New(ropts...).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("preparing policy: %w", err)
	}
	e.query = pq
	return e, nil
}

// Rules returns the deny, warn and exception rules the engine evaluates,
// sorted by ID.
func (e *Engine) Rules() []Rule {
	out := make([]Rule, len(e.rules))
	for i, r := range e.rules {
		out[i] = *r
	}
	return out
}

// Modules returns the compiled policy modules by file name, built-in ones
// under BuiltinPrefix. The modules must not be modified.
func (e *Engine) Modules() map[string]*ast.Module { return e.modules }

// ruleRef returns data.PACKAGE.NAME for r.
func ruleRef(r *Rule) ast.Ref {
	return ast.MustParseRef("data." + r.Package).Append(ast.StringTerm(r.Name))
}

// BuiltinModules parses the embedded built-in policy: the rules and the
// sbx.lib helpers, plus their unit tests when tests is true. Module names
// carry BuiltinPrefix.
func BuiltinModules(tests bool) (map[string]*ast.Module, error) {
	out := map[string]*ast.Module{}
	err := fs.WalkDir(builtinFS, "builtin", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return err
		}
		if !tests && strings.HasSuffix(p, "_test.rego") {
			return nil
		}
		src, err := builtinFS.ReadFile(p)
		if err != nil {
			return err
		}
		name := BuiltinPrefix + path.Base(p)
		m, err := ast.ParseModuleWithOpts(name, string(src), parserOptions())
		if err != nil {
			return err
		}
		out[name] = m
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("built-in policy: %w", err)
	}
	return out, nil
}

// BuiltinSources returns the source of the embedded built-in policy files
// by module name (BuiltinPrefix + base name), tests included.
func BuiltinSources() map[string][]byte {
	out := map[string][]byte{}
	entries, _ := builtinFS.ReadDir("builtin")
	for _, ent := range entries {
		if data, err := builtinFS.ReadFile("builtin/" + ent.Name()); err == nil {
			out[BuiltinPrefix+ent.Name()] = data
		}
	}
	return out
}

func parserOptions() ast.ParserOptions {
	return ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true}
}

func packageName(m *ast.Module) string {
	return strings.TrimPrefix(m.Package.Path.String(), "data.")
}

func reservedPackage(m *ast.Module) bool {
	p := packageName(m)
	for _, r := range []string{BuiltinNamespace, "sbx.lib"} {
		if p == r || strings.HasPrefix(p, r+".") {
			return true
		}
	}
	return false
}

// checkHermetic refuses policy that calls a forbidden function, saying
// where, before the compiler would report it as merely undefined.
func checkHermetic(modules map[string]*ast.Module) error {
	var errs []string
	names := sortedKeys(modules)
	for _, name := range names {
		ast.WalkTerms(modules[name], func(t *ast.Term) bool {
			var op string
			switch v := t.Value.(type) {
			case ast.Call:
				if len(v) > 0 {
					op = v[0].String()
				}
			case ast.Ref:
				op = v.String()
			}
			if why, bad := forbidden[op]; bad {
				errs = append(errs, fmt.Sprintf("%s: policy uses %s, which sbc does not allow: policy evaluation is hermetic and %s; put the data the policy needs in a bundle's data.json instead", loc(t.Location, name), op, why))
			}
			return false
		})
	}
	if len(errs) > 0 {
		errs = slices.Compact(errs)
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

func loc(l *ast.Location, fallback string) string {
	if l == nil {
		return fallback
	}
	file := l.File
	if file == "" {
		file = fallback
	}
	return fmt.Sprintf("%s:%d", file, l.Row)
}

// policyErrors formats compiler errors one per line as FILE:LINE: message.
func policyErrors(errs ast.Errors) error {
	lines := make([]string, 0, len(errs))
	for _, e := range errs {
		msg := e.Message
		if e.Code != "" {
			msg = e.Code + ": " + msg
		}
		if e.Details != nil {
			for _, l := range e.Details.Lines() {
				msg += "\n\t" + l
			}
		}
		if e.Location != nil {
			lines = append(lines, fmt.Sprintf("%s: %s", loc(e.Location, "policy"), msg))
		} else {
			lines = append(lines, msg)
		}
	}
	return &LoadError{Errs: lines}
}

// LoadError lists the problems found in policy, one per entry, each
// starting with FILE:LINE where known.
type LoadError struct {
	Errs []string
}

// Error joins the problems, one per line.
func (e *LoadError) Error() string { return strings.Join(e.Errs, "\n") }

// ruleKind classifies a rule name by conftest's conventions.
func ruleKind(name string) (Kind, bool) {
	for _, k := range []struct {
		prefix string
		kind   Kind
	}{{"deny", KindDeny}, {"violation", KindDeny}, {"warn", KindWarn}, {"exception", KindException}} {
		if name == k.prefix || strings.HasPrefix(name, k.prefix+"_") {
			return k.kind, true
		}
	}
	return "", false
}

// selectPackages returns the packages whose rules are evaluated.
func selectPackages(org, builtin map[string]*ast.Module, opts Options) (map[string]bool, error) {
	pkgs := map[string]bool{}
	if !opts.NoBuiltin {
		for _, m := range builtin {
			if p := packageName(m); strings.HasPrefix(p, BuiltinNamespace+".") {
				pkgs[p] = true
			}
		}
	}
	have := map[string]bool{}
	for _, m := range org {
		have[packageName(m)] = true
	}
	if opts.AllNamespaces {
		for p := range have {
			pkgs[p] = true
		}
		// A namespace named as well must still exist: a misspelt one is
		// an error, as without --all-namespaces.
		for _, n := range opts.Namespaces {
			if !have[n] {
				hint := "no organisation policy was loaded (use --policy)"
				if len(have) > 0 {
					hint = "the policy defines packages " + strings.Join(sortedKeys(have), ", ")
				}
				return nil, fmt.Errorf("namespace %q: no policy module declares package %s: %s", n, n, hint)
			}
		}
		return pkgs, nil
	}
	ns := opts.Namespaces
	explicit := len(ns) > 0
	if !explicit {
		ns = []string{DefaultNamespace}
	}
	for _, n := range ns {
		if !have[n] {
			if len(org) == 0 && !explicit {
				continue
			}
			found := sortedKeys(have)
			hint := "no organisation policy was loaded (use --policy)"
			if len(found) > 0 {
				hint = "the policy defines packages " + strings.Join(found, ", ") + "; select them with --namespace or --all-namespaces"
			}
			return nil, fmt.Errorf("namespace %q: no policy module declares package %s: %s", n, n, hint)
		}
		pkgs[n] = true
	}
	return pkgs, nil
}

// collectRules finds the deny, warn and exception rules of the selected
// packages, rejecting rules that are not partial set rules.
func (e *Engine) collectRules(modules map[string]*ast.Module, pkgs map[string]bool) error {
	byID := map[string]*Rule{}
	var errs []string
	for _, name := range sortedKeys(modules) {
		m := modules[name]
		pkg := packageName(m)
		if !pkgs[pkg] {
			continue
		}
		for _, r := range m.Rules {
			ref := r.Head.Ref()
			if len(ref) == 0 {
				continue
			}
			v, ok := ref[0].Value.(ast.Var)
			if !ok {
				continue
			}
			rname := string(v)
			kind, ok := ruleKind(rname)
			if !ok {
				continue
			}
			if msg := shapeError(r, rname, kind); msg != "" {
				errs = append(errs, fmt.Sprintf("%s: %s", loc(r.Location, name), msg))
				continue
			}
			id := pkg + "." + rname
			info := byID[id]
			if info == nil {
				info = &Rule{ID: id, Package: pkg, Name: rname, Kind: kind, File: name, Builtin: strings.HasPrefix(name, BuiltinPrefix)}
				if r.Location != nil {
					info.Line = r.Location.Row
				}
				byID[id] = info
			}
			for _, a := range r.Annotations {
				if info.Title == "" {
					info.Title = a.Title
				}
				if info.Description == "" {
					info.Description = strings.TrimSpace(a.Description)
				}
				if c, ok := a.Custom["code"].(string); ok && info.Code == "" {
					info.Code = c
				}
			}
		}
	}
	if len(errs) > 0 {
		return &LoadError{Errs: errs}
	}
	for _, id := range sortedKeys(byID) {
		e.rules = append(e.rules, byID[id])
	}
	e.slots = e.rules
	return nil
}

// shapeError explains why a deny, warn or exception rule has a shape sbc
// cannot use, or returns "".
func shapeError(r *ast.Rule, name string, kind Kind) string {
	example := fmt.Sprintf("%s contains msg if { ...; msg := \"...\" }", name)
	what := "messages"
	if kind == KindException {
		example = fmt.Sprintf("%s contains rules if { ...; rules := [\"rule_name\"] }", name)
		what = "the names of the rules to suppress"
	}
	switch {
	case len(r.Head.Ref()) > 1:
		return fmt.Sprintf("rule %s is declared with a multi-part name (%s): sbc, like conftest, needs %s rules to be partial set rules that collect %s: `%s`", name, r.Head.Ref(), kind, what, example)
	case len(r.Head.Args) > 0:
		return fmt.Sprintf("%s is a function: sbc, like conftest, needs %s rules to be partial set rules that collect %s: `%s`", name, kind, what, example)
	case r.Default || r.Head.RuleKind() != ast.MultiValue:
		shape := "a single-value rule"
		if r.Head.Value == nil || ast.BooleanTerm(true).Equal(r.Head.Value) || r.Default {
			shape = fmt.Sprintf("a boolean rule (`%s if { ... }`)", name)
		}
		return fmt.Sprintf("%s is %s: sbc, like conftest, needs %s rules to be partial set rules that collect %s, so each finding says what is wrong: `%s`", name, shape, kind, what, example)
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// printableHook writes each print() call's output as one line with its
// control characters (an ESC sequence, a newline) shown as U+FFFD, as the
// text report shows values from profiles (red team 23). Red team 28: it
// was written raw (topdown.NewPrintHook), so a policy printing an input
// value (print(input.profile.description)) let a profile from an untrusted
// change retitle the terminal or forge a "FAIL - ..." line in the CI log.
type printableHook struct{ w io.Writer }

func (h printableHook) Print(_ print.Context, msg string) error {
	_, err := io.WriteString(h.w, ir.Printable(msg)+"\n")
	return err
}
