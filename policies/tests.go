package policies

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"
)

// TestOptions configure RunTests.
type TestOptions struct {
	// Paths are directories, .rego files or bundles holding policy and its
	// tests (test_* rules in *_test.rego files).
	Paths []string
	// Builtin runs the built-in rules' tests too. The built-in policy and
	// the sbx.fixtures helpers are always loaded, so that tests of
	// organisation policy can use them.
	Builtin bool
	// Run keeps only the tests whose full name matches this regular
	// expression, as `opa test --run`.
	Run string
	// Coverage records which policy lines the tests evaluate.
	Coverage bool
	// Trace records evaluation traces of failing tests (`opa test -v`);
	// it cannot be combined with Coverage.
	Trace bool
	// Timeout bounds each test; zero means 5 s.
	Timeout time.Duration
}

// TestRun is the outcome of RunTests.
type TestRun struct {
	Results []*tester.Result
	// Modules are the modules tests ran over, by file name.
	Modules map[string]*ast.Module
	// Cover is set when coverage was requested; Report it over
	// CoverageModules.
	Cover *cover.Cover
	// CoverageModules are the modules coverage is reported on: those under
	// test (the built-in ones only when their tests ran).
	CoverageModules map[string]*ast.Module
}

// Failed reports whether any test failed or errored, or no test ran.
func (t *TestRun) Failed() bool {
	if len(t.Results) == 0 {
		return true
	}
	for _, r := range t.Results {
		if r.Fail || r.Error != nil {
			return true
		}
	}
	return false
}

// RunTests runs the Rego unit tests of the built-in rules and of the policy
// at opts.Paths, compiled as `sbc check` compiles policy (Rego v1, hermetic
// capabilities, strict built-in errors).
func RunTests(ctx context.Context, opts TestOptions) (*TestRun, error) {
	set, err := Load(opts.Paths, true)
	if err != nil {
		return nil, err
	}
	for name, m := range set.Modules {
		if !strings.HasSuffix(name, "_test.rego") && reservedPackage(m) {
			return nil, fmt.Errorf("%s: package %s is reserved for sbc's built-in rules: use another package name", name, packageName(m))
		}
	}
	builtin, err := BuiltinModules(true)
	if err != nil {
		return nil, err
	}
	modules := map[string]*ast.Module{}
	covered := map[string]*ast.Module{}
	for name, m := range builtin {
		isTest := strings.HasSuffix(name, "_test.rego")
		if isTest && !opts.Builtin && name != BuiltinPrefix+"fixtures_test.rego" {
			continue
		}
		modules[name] = m
		if opts.Builtin && !isTest {
			covered[name] = m
		}
	}
	for name, m := range set.Modules {
		if _, dup := modules[name]; dup {
			return nil, fmt.Errorf("policy file %s clashes with a built-in file name", name)
		}
		modules[name] = m
		if !strings.HasSuffix(name, "_test.rego") {
			covered[name] = m
		}
	}
	if err := checkHermetic(modules); err != nil {
		return nil, err
	}
	compiler := ast.NewCompiler().
		WithCapabilities(Capabilities()).
		WithEnablePrintStatements(true).
		WithDefaultRegoVersion(ast.RegoV1)
	runner := tester.NewRunner().
		SetCompiler(compiler).
		SetStore(inmem.NewFromObject(set.Data)).
		SetModules(modules).
		AddCustomBuiltins([]*tester.Builtin{accessTesterBuiltin(), globMatchTesterBuiltin()}).
		RaiseBuiltinErrors(true).
		CapturePrintOutput(true).
		EnableTracing(opts.Trace).
		SetDefaultRegoVersion(ast.RegoV1)
	if opts.Timeout > 0 {
		runner.SetTimeout(opts.Timeout)
	}
	if opts.Run != "" {
		runner.Filter(opts.Run)
	}
	run := &TestRun{Modules: modules, CoverageModules: covered}
	if opts.Coverage {
		run.Cover = cover.New()
		runner.SetCoverageQueryTracer(run.Cover)
	}
	ch, err := runner.RunTests(ctx, nil)
	if err != nil {
		if errs, ok := err.(ast.Errors); ok {
			return nil, policyErrors(errs)
		}
		return nil, fmt.Errorf("running policy tests: %w", err)
	}
	for r := range ch {
		run.Results = append(run.Results, r)
	}
	sort.SliceStable(run.Results, func(i, j int) bool {
		a, b := run.Results[i], run.Results[j]
		if a.Location != nil && b.Location != nil && a.Location.File != b.Location.File {
			return a.Location.File < b.Location.File
		}
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		if a.Location != nil && b.Location != nil && a.Location.Row != b.Location.Row {
			return a.Location.Row < b.Location.Row
		}
		return a.Name < b.Name
	})
	return run, nil
}

// CoverageReport returns the coverage of the modules under test
// (CoverageModules): the policy files, not the tests, and the built-in
// rules only when their tests ran. It is empty unless Coverage was set.
func (t *TestRun) CoverageReport() cover.Report {
	if t.Cover == nil {
		return cover.Report{Files: map[string]*cover.FileReport{}}
	}
	full := t.Cover.Report(t.CoverageModules)
	rep := cover.Report{Files: map[string]*cover.FileReport{}}
	for name, fr := range full.Files {
		if _, ok := t.CoverageModules[name]; !ok {
			continue
		}
		rep.Files[name] = fr
		rep.CoveredLines += fr.CoveredLines
		rep.NotCoveredLines += fr.NotCoveredLines
	}
	if total := rep.CoveredLines + rep.NotCoveredLines; total > 0 {
		rep.Coverage = 100 * float64(rep.CoveredLines) / float64(total)
	}
	return rep
}
