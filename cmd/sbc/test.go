package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"time"

	"github.com/open-policy-agent/opa/v1/tester"

	"github.com/sbx-dev/sbx/policies"
)

const testUsage = `Usage: sbc test [flags] [PATH...]

Run Rego unit tests: the test_* rules in *_test.rego files, as 'opa test'
does. With no PATH, run the tests of sbc's built-in rules. With PATHs
(directories, .rego files or bundles), run the tests found there; the
built-in policy and its test fixtures (package sbx.fixtures) are loaded
too, so organisation tests can use them, and --builtin also runs the
built-in tests. Policy is compiled as 'sbc check' compiles it: Rego v1,
no network access (http.send and friends are refused).

Examples:
  sbc test
  sbc test -v policy/
  sbc test --coverage --threshold 90 policy/

Exit status: 0 all tests passed; 1 a test failed or errored, no test ran,
or coverage is below --threshold; 2 usage error or invalid policy.
`

func testCommand() *command {
	return &command{
		name:    "test",
		summary: "Run Rego unit tests of built-in and organisation policy",
		usage:   testUsage,
		setup: func(e *env, fs *flag.FlagSet) func([]string) int {
			verbose := fs.Bool("v", false, "verbose: list every test, and trace failing ones")
			coverage := fs.Bool("coverage", false, "report coverage as JSON on stdout, as opa test --coverage does")
			threshold := fs.Float64("threshold", 0, "with --coverage, fail when coverage is below `PERCENT`")
			runRe := fs.String("run", "", "run only tests whose name matches `REGEX`")
			format := fs.String("format", "pretty", "output `format`: pretty or json")
			builtin := fs.Bool("builtin", false, "with PATHs, also run the built-in rules' tests")
			timeout := timeoutFlag(5 * time.Second)
			fs.Var(&timeout, "timeout", "time limit for each test")
			return func(args []string) int {
				if *format != "pretty" && *format != "json" {
					return usageError(e, "test", "unknown --format %q (want pretty or json)", *format)
				}
				// Red team 28: NaN passed this check (every comparison
				// with it is false) and then no coverage was ever under it.
				if !(*threshold >= 0 && *threshold <= 100) {
					return usageError(e, "test", "--threshold must be between 0 and 100")
				}
				if *threshold > 0 {
					*coverage = true
				}
				opts := policies.TestOptions{
					Paths:    args,
					Builtin:  len(args) == 0 || *builtin,
					Run:      *runRe,
					Coverage: *coverage,
					Trace:    *verbose && !*coverage,
					Timeout:  time.Duration(timeout),
				}
				return runTest(e, opts, *verbose, *format, *threshold)
			}
		},
	}
}

func runTest(e *env, opts policies.TestOptions, verbose bool, format string, threshold float64) int {
	run, err := policies.RunTests(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(e.stderr, "sbc test: policy error:\n%s\n", indentBlock(err.Error()))
		return exitUsage
	}
	if len(run.Results) == 0 {
		fmt.Fprintln(e.stderr, "sbc test: no tests found (test rules are named test_* and live in *_test.rego files)")
		return exitInvalid
	}
	ch := make(chan *tester.Result, len(run.Results))
	for _, r := range run.Results {
		ch <- r
	}
	close(ch)
	if opts.Coverage {
		for _, r := range run.Results {
			if r.Fail || r.Error != nil {
				// Like opa test --coverage: report failures, not coverage.
				return reportTests(e, ch, verbose, "pretty")
			}
		}
		rep := run.CoverageReport()
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			fmt.Fprintf(e.stderr, "sbc test: encoding coverage: %v\n", err)
			return exitUsage
		}
		e.stdout.Write(append(data, '\n'))
		fmt.Fprintf(e.stderr, "sbc test: %d tests passed, coverage %.1f%% (%d of %d lines)\n",
			len(run.Results), rep.Coverage, rep.CoveredLines, rep.CoveredLines+rep.NotCoveredLines)
		if rep.Coverage < threshold {
			fmt.Fprintf(e.stderr, "sbc test: coverage %.1f%% is below the threshold of %.1f%%\n", rep.Coverage, threshold)
			return exitInvalid
		}
		return exitOK
	}
	return reportTests(e, ch, verbose, format)
}

func reportTests(e *env, ch chan *tester.Result, verbose bool, format string) int {
	var results []*tester.Result
	pass := make(chan *tester.Result, cap(ch))
	for r := range ch {
		results = append(results, r)
		pass <- r
	}
	close(pass)
	var rep tester.Reporter = tester.PrettyReporter{Output: e.stdout, Verbose: verbose, FailureLine: true}
	if format == "json" {
		rep = tester.JSONReporter{Output: e.stdout}
	}
	if err := rep.Report(pass); err != nil {
		fmt.Fprintf(e.stderr, "sbc test: %v\n", err)
		return exitUsage
	}
	for _, r := range results {
		if r.Fail || r.Error != nil {
			return exitInvalid
		}
	}
	return exitOK
}
