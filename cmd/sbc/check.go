package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/policies"
	"github.com/sbx-dev/sbx/targets/landlock"
)

const checkUsage = `Usage: sbc check [flags] PATH...

Lint profiles with policy written in Rego (OPA): sbc's built-in rules
and, with --policy, an organisation's own. A PATH is a profile file, a
directory (searched recursively for *.hcl files, hidden directories
skipped) or a compiled artifact (*.sbx.json). All profile files are
compiled together, so profiles may extend each other across files.

Policy follows conftest's conventions: deny and violation rules (and
deny_NAME, violation_NAME) fail, warn rules warn, exception rules
suppress findings by rule name or code. Organisation policy is evaluated
in package main unless --namespace or --all-namespaces says otherwise;
the built-in rules (package sbx.builtin.*) always run unless
--no-builtin. Every finding points at the profile line it is about.

Output formats (--format):
  text     FAIL/WARN lines with the offending source lines, and a summary
  json     {"summary": {...}, "results": [...]} for scripts
  sarif    SARIF 2.1.0 for GitHub code scanning and other SARIF viewers
  junit    JUnit XML for CI dashboards
  github   GitHub Actions workflow commands (::error file=...,line=...::)

Examples:
  sbc check profiles/
  sbc check --policy org-policy/ --fail-on-warn profiles/
  sbc check --policy org.tar.gz --namespace sbx.org profiles/dev.hcl
  sbc check --format sarif profiles/ > sbc.sarif

Exit status: 0 no failures; 1 failures (or warnings with --fail-on-warn);
2 usage error, unreadable or invalid profile or policy, or a policy that
failed to evaluate.
`

// repeatedFlag is a repeatable string flag.
type repeatedFlag []string

// String joins the values given so far.
func (l *repeatedFlag) String() string { return strings.Join(*l, ",") }

// Set adds one value; an empty one is a mistake (an unset variable).
func (l *repeatedFlag) Set(v string) error {
	if v == "" {
		return errors.New("empty value")
	}
	*l = append(*l, v)
	return nil
}

// timeoutFlag is a time limit: a duration of 0 or more (0: none). A
// negative one is a usage error rather than, as time.Duration's flag
// would take it, no limit at all.
type timeoutFlag time.Duration

func (d *timeoutFlag) String() string { return time.Duration(*d).String() }

func (d *timeoutFlag) Set(v string) error {
	t, err := time.ParseDuration(v)
	if err != nil {
		return errors.New("not a duration such as 5s or 2m")
	}
	if t < 0 {
		return errors.New("negative (0 means no limit)")
	}
	*d = timeoutFlag(t)
	return nil
}

// policyFlags are the flags that select policy, shared by check and
// compile.
type policyFlags struct {
	policies   repeatedFlag
	namespaces repeatedFlag
	all        bool
	noBuiltin  bool
	timeout    timeoutFlag
}

// defaultPolicyTimeout bounds a profile's policy evaluation, as sbc
// test's default bounds a test: real policy takes milliseconds.
const defaultPolicyTimeout = 5 * time.Second

func addPolicyFlags(fs *flag.FlagSet) *policyFlags {
	pf := &policyFlags{}
	fs.Var(&pf.policies, "policy", "add organisation policy from a `DIR`, a .rego file or an OPA bundle (.tar.gz); repeatable")
	fs.Var(&pf.namespaces, "namespace", "evaluate organisation policy in package `NS` (default main); repeatable")
	fs.BoolVar(&pf.all, "all-namespaces", false, "evaluate organisation policy in every package it declares")
	fs.BoolVar(&pf.noBuiltin, "no-builtin", false, "do not evaluate sbc's built-in rules")
	pf.timeout = timeoutFlag(defaultPolicyTimeout)
	fs.Var(&pf.timeout, "timeout", "time limit for evaluating the policy for each profile (0: none)")
	return pf
}

// engine prepares the policy, reporting problems on stderr. It returns a
// nil engine, and the error, after reporting one.
func (pf *policyFlags) engine(e *env, cmd string) (*policies.Engine, error) {
	eng, err := policies.New(context.Background(), policies.Options{
		Policies:      pf.policies,
		Namespaces:    pf.namespaces,
		AllNamespaces: pf.all,
		NoBuiltin:     pf.noBuiltin,
		Print:         e.stderr,
		Timeout:       time.Duration(pf.timeout),
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "sbc %s: policy error:\n%s\n", cmd, indentBlock(err.Error()))
		return nil, err
	}
	return eng, nil
}

func indentBlock(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

func checkCommand() *command {
	return &command{
		name:    "check",
		summary: "Lint profiles with built-in and organisation policy (Rego)",
		usage:   checkUsage,
		setup: func(e *env, fs *flag.FlagSet) func([]string) int {
			pf := addPolicyFlags(fs)
			format := fs.String("format", "text", "output `format`: text, json, sarif, junit or github")
			failOnWarn := fs.Bool("fail-on-warn", false, "exit 1 when there are warnings")
			maxPerRule := fs.Int("max-per-rule", 10, "text output: show at most `N` findings of one code per file and count the rest (0: all)")
			showExc := fs.Bool("show-exceptions", false, "text output: list the findings that exceptions suppressed")
			return func(args []string) int {
				f := policies.Format(*format)
				valid := false
				for _, x := range policies.Formats {
					valid = valid || f == x
				}
				if !valid {
					return usageError(e, "check", "unknown --format %q (want text, json, sarif, junit or github)", *format)
				}
				if len(args) == 0 {
					return usageError(e, "check", "no input: name profile files or directories")
				}
				if *maxPerRule < 0 {
					return usageError(e, "check", "--max-per-rule must not be negative")
				}
				return runCheck(e, args, pf, f, policies.WriteOptions{MaxPerRule: *maxPerRule, FailOnWarn: *failOnWarn, ShowExceptions: *showExc})
			}
		},
	}
}

func runCheck(e *env, args []string, pf *policyFlags, format policies.Format, opts policies.WriteOptions) int {
	eng, err := pf.engine(e, "check")
	if eng == nil {
		if format != policies.FormatText {
			// As for profiles that do not compile (below): CI uploads
			// what it gets, so the document reports the policy error.
			rep := &policies.Report{Tool: compiler.Version, Problems: diag.Diagnostics{{
				Severity: diag.Error, Code: "policy-error", Summary: "Organisation policy could not be loaded", Detail: err.Error(),
			}}}
			if err := rep.Write(e.stdout, format, opts); err != nil {
				fmt.Fprintf(e.stderr, "sbc check: writing the report: %v\n", err)
			}
		}
		return exitUsage
	}
	inputs, srcs, problems, code := loadProfiles(e, args)
	if code != exitOK {
		if format != policies.FormatText {
			// CI parses and uploads what it gets (sbc check --format sarif
			// > sbc.sarif || true): the document reports the problems,
			// which stderr has for people.
			rep := &policies.Report{Rules: eng.Rules(), Sources: srcs, Tool: compiler.Version, Problems: problems}
			if err := rep.Write(e.stdout, format, opts); err != nil {
				fmt.Fprintf(e.stderr, "sbc check: writing the report: %v\n", err)
			}
		}
		return code
	}
	rep := &policies.Report{
		Results: eng.CheckAll(context.Background(), inputs),
		Rules:   eng.Rules(),
		Sources: srcs,
		Tool:    compiler.Version,
	}
	if err := rep.Write(e.stdout, format, opts); err != nil {
		fmt.Fprintf(e.stderr, "sbc check: writing the report: %v\n", err)
		return exitUsage
	}
	for _, res := range rep.Results {
		if res.Err != nil && format != policies.FormatText {
			fmt.Fprintf(e.stderr, "sbc check: %v\n", res.Err)
		}
	}
	return checkExit(rep.Summary(), opts.FailOnWarn)
}

// checkExit maps a check's outcome to conftest's exit codes.
func checkExit(s policies.Summary, failOnWarn bool) int {
	switch {
	case s.Errors > 0:
		return exitUsage
	case s.Failures > 0, failOnWarn && s.Warnings > 0:
		return exitInvalid
	}
	return exitOK
}

// loadProfiles compiles the profile files named by args (files,
// directories, artifacts) and returns one policy input per profile.
// Problems are reported on stderr, and returned with the exit code to
// return when they keep the input from being checked.
func loadProfiles(e *env, args []string) ([]policies.Input, *diag.Sources, diag.Diagnostics, int) {
	var files, artifacts []string
	var ds diag.Diagnostics
	for _, arg := range args {
		if arg == "-" {
			// A profile on standard input (sbc compile takes it too).
			files = append(files, arg)
			continue
		}
		st, err := os.Stat(arg)
		if err != nil {
			ds = ds.Errorf(diag.CodeIO, nil, "Cannot read "+arg, "%v", err)
			continue
		}
		if !st.IsDir() && strings.HasSuffix(arg, ".json") {
			artifacts = append(artifacts, arg)
			continue
		}
		found, err := hclFiles(arg)
		if err != nil {
			ds = ds.Errorf(diag.CodeIO, nil, "Cannot read "+arg, "%v", err)
			continue
		}
		if st.IsDir() && len(found) == 0 {
			ds = ds.Errorf(diag.CodeUsage, nil, "No profile files in "+arg, "sbc check looks for *.hcl files in directories (hidden directories are skipped).")
		}
		files = append(files, found...)
	}
	srcs := diag.NewSources()
	var inputs []policies.Input
	if len(files) > 0 && !ds.HasErrors() {
		res, more := compiler.CompileInputs(files, e.stdin)
		srcs.Merge(res.Sources)
		ds = append(ds, more...)
		for _, p := range res.Profiles {
			inputs = append(inputs, policies.Input{Profile: p, Fidelity: targetFidelity(p)})
		}
	}
	for _, a := range artifacts {
		art, p, err := ir.ReadArtifact(a)
		if err != nil {
			ds = ds.Errorf(diag.CodeUsage, nil, "Cannot check "+a, "%v", err)
			continue
		}
		if data, ok := artifactSource(art.Digest, p); ok {
			srcs.Add(p.Source.Filename, data)
		}
		inputs = append(inputs, policies.Input{Profile: p, Artifact: a, Fidelity: targetFidelity(p)})
	}
	if ds.HasErrors() {
		e.report(ds, srcs, "text")
		return nil, srcs, ds, exitUsage
	}
	if len(ds) > 0 {
		e.report(ds, srcs, "text")
	}
	if len(inputs) == 0 {
		fmt.Fprintln(e.stderr, "sbc check: the input declares no profiles")
		return nil, srcs, ds.Errorf(diag.CodeUsage, nil, "No profiles", "The input declares no profiles: nothing was checked."), exitUsage
	}
	return inputs, srcs, nil, exitOK
}

// artifactSource returns the HCL an artifact names as its source, for the
// findings' snippets, when it is safe and right to show it: a local path
// (not absolute, no ".."; os.Root keeps symbolic links inside the working
// directory too), read as profiles are (bounded, never blocking on a
// FIFO), that compiles to the artifact's own profile (the same IR digest).
// An artifact is anyone's to write: without these checks one in a pull
// request could name /proc/self/environ or a private key, and sbc check
// would print it into the CI log.
func artifactSource(digest string, p *ir.Profile) ([]byte, bool) {
	name := p.Source.Filename
	if !filepath.IsLocal(name) {
		return nil, false
	}
	root, err := os.OpenRoot(".")
	if err != nil {
		return nil, false
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, compiler.MaxFileSize+1))
	if err != nil || len(data) > compiler.MaxFileSize {
		return nil, false
	}
	res, ds := compiler.CompileSources([]compiler.Source{{Name: name, Data: data}})
	if ds.HasErrors() {
		return nil, false
	}
	for _, q := range res.Profiles {
		if q.Name == p.Name {
			_, d, err := ir.Encode(q)
			return data, err == nil && d == digest
		}
	}
	return nil, false
}

// targetFidelity returns the targets' fidelity reports for p
// (input.fidelity, read by rule SBX010): how faithfully each target
// enforces each rule. Landlock is the only target that reports it so far;
// add others here.
func targetFidelity(p *ir.Profile) map[string]policies.FidelityReport {
	plan, err := landlock.Compile(p)
	if err != nil || plan == nil {
		return nil
	}
	rep := policies.FidelityReport{Rules: []policies.FidelityEntry{}}
	for _, f := range plan.Fidelity {
		path := policies.NodePath(p, f.Source)
		if path == nil {
			continue
		}
		reason := f.Detail
		if f.Mechanism != "" {
			reason = f.Mechanism + ": " + reason
		}
		rep.Rules = append(rep.Rules, policies.FidelityEntry{Path: path, Fidelity: string(f.Level), Reason: reason})
	}
	return map[string]policies.FidelityReport{landlock.TargetName: rep}
}

// validate runs the check policy against profiles about to be written by
// compile (artifacts maps a profile's name to its artifact path) and
// returns the findings as diagnostics: failures as errors, so that no
// artifact is written, warnings as warnings. Built-in profiles are checked
// against organisation policy only: the built-in rules' opinions about
// sbc's own profiles (network-off writes "/") are deliberate.
func (pf *policyFlags) validate(profiles []*ir.Profile, artifacts map[string]string, print io.Writer) diag.Diagnostics {
	var ds diag.Diagnostics
	eng, err := policies.New(context.Background(), policies.Options{
		Policies:      pf.policies,
		Namespaces:    pf.namespaces,
		AllNamespaces: pf.all,
		NoBuiltin:     pf.noBuiltin,
		// print() output goes to standard error, as in sbc check (it
		// was dropped in compile: red team 27).
		Print: print,
		// Red team 27: compile accepts --timeout (addPolicyFlags) and
		// must honour it, as check does: without it an organisation
		// policy that never finishes hung sbc compile for good.
		Timeout: time.Duration(pf.timeout),
	})
	if err != nil {
		return ds.Errorf(diag.CodeUsage, nil, "Invalid policy", "%v", err)
	}
	inputs := make([]policies.Input, len(profiles))
	for i, p := range profiles {
		// No fidelity: compile reports the targets' own findings already.
		inputs[i] = policies.Input{Profile: p, Artifact: artifacts[p.Name]}
	}
	failing := 0
	for _, res := range eng.CheckAll(context.Background(), inputs) {
		if res.Err != nil {
			ds = ds.Errorf(diag.CodeUsage, nil, fmt.Sprintf("Policy failed to evaluate for profile %q", res.Profile), "%v", res.Err)
			continue
		}
		// A built-in is known by its name, which no user profile may
		// take, not by its file name alone: red team 27 compiled a user's
		// "builtin:evil.hcl" (a legal file name) writing "/" past the
		// built-in rules.
		if builtin.Has(res.Profile) && res.File == builtin.SourceName(res.Profile) {
			res.Failures = dropBuiltin(res.Failures)
			res.Warnings = dropBuiltin(res.Warnings)
		}
		if len(res.Failures) > 0 {
			failing++
		}
		for _, f := range append(res.Failures, res.Warnings...) {
			d := diag.Diagnostic{Severity: diag.Error, Code: f.Code, Summary: f.Code + ": " + f.Message, Range: f.Range,
				Detail: fmt.Sprintf("From policy rule %s.", f.Rule)}
			if f.Severity == policies.Warning {
				d.Severity = diag.Warning
			}
			ds = append(ds, d)
		}
	}
	if failing > 0 {
		ds = ds.Errorf("policy", nil, fmt.Sprintf("No artifact written: %s failed policy", nounCount(failing, "profile")),
			"Fix the findings above, or suppress them with an exception rule in organisation policy ('sbc check' lints without compiling).")
	}
	return ds
}

func dropBuiltin(fs []policies.Finding) []policies.Finding {
	out := fs[:0]
	for _, f := range fs {
		if !strings.HasPrefix(f.Rule, policies.BuiltinNamespace+".") {
			out = append(out, f)
		}
	}
	return out
}

func nounCount(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
