package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock"
)

const explainUsage = `Usage: sbc explain [-p NAME] [--path PATH]... [--cwd DIR] [--format text|json] [FILE...]

Explain what a profile allows: its path rules once extends are merged, in
the order that decides (the most specific path wins; at equal paths deny
beats write beats read; a path no rule covers is denied), the names it
protects below writable roots, its deny globs, its network and process
policy, and how Linux enforces each rule: exactly (Landlock), with a
supplementary mechanism (named), or not at all.

The profile is chosen as sbc compile chooses it: -p NAME in the FILEs or a
built-in profile; without -p, the only profile in the FILEs.

With --path (repeatable), also say what the profile gives each PATH on
this machine, and which rule decides: the anchors are bound as sbx run
binds them (cwd from --cwd or the current directory, home and tmpdir from
the environment). PATH is absolute, relative to the working directory, or
starts with ~/ or an anchor ({cwd}/src, {home}/.ssh). This is the
profile's answer; what sbx enforces on this machine, with symbolic links,
git link files and the mounts that carry it out, is what
'sbx run --dry-run' shows.

Examples:
  sbc explain -p workspace
  sbc explain dev.hcl --path ~/.ssh/id_ed25519 --path {cwd}/.git/config
  sbc explain --format json team.hcl -p ci

Exit status: 0 explained; 1 a profile is invalid; 2 usage or I/O error.
`

func explainCommand() *command {
	return &command{
		name:    "explain",
		summary: "Explain what a profile allows, and why, path by path",
		usage:   explainUsage,
		setup: func(e *env, fs *flag.FlagSet) func([]string) int {
			name := fs.String("p", "", "explain the profile `NAME`")
			cwd := fs.String("cwd", "", "the working directory `DIR` that {cwd} and relative --path values bind to (default: the current one)")
			format := fs.String("format", "text", "output format: text, or json")
			var paths repeatedFlag
			fs.Var(&paths, "path", "also explain `PATH` on this machine (repeatable)")
			return func(files []string) int {
				if !checkFormat(e, "explain", *format) {
					return exitUsage
				}
				return runExplain(e, files, *name, *cwd, *format, paths)
			}
		},
	}
}

// explanation is what sbc explain reports, and its JSON form.
type explanation struct {
	Profile *ir.Profile `json:"profile"`
	Linux   struct {
		Unsandboxed bool                   `json:"unsandboxed,omitempty"`
		MinABI      int                    `json:"min_abi"`
		MinKernel   string                 `json:"min_kernel"`
		Fidelity    []landlock.Fidelity    `json:"fidelity"`
		Base        []string               `json:"base,omitempty"`
		Require     []landlock.Requirement `json:"requirements,omitempty"`
	} `json:"linux"`
	Paths []pathAnswer `json:"paths,omitempty"`
}

// pathAnswer is what the profile gives one --path on this machine.
type pathAnswer struct {
	Path   string `json:"path"`
	Bound  string `json:"bound"`
	Access string `json:"access"`
	// Rule is the deciding rule as written ("deny {home}/.ssh"), or the
	// deny glob that matches; empty when no rule covers the path.
	Rule   string    `json:"rule,omitempty"`
	Source *ir.Range `json:"source,omitempty"`
	Why    string    `json:"why"`
}

func runExplain(e *env, files []string, name, cwd, format string, paths []string) int {
	p, srcs, ds := explainProfile(e, files, name)
	if ds.HasErrors() || p == nil {
		e.report(ds, srcs, format)
		return exitCode(ds)
	}
	if len(ds) > 0 && format == "text" {
		// Warnings (an unknown anchor, say) still explain the profile.
		e.report(ds, srcs, format)
	}
	var x explanation
	x.Profile = p
	plan, err := landlock.Compile(p)
	if err != nil {
		fmt.Fprintf(e.stderr, "sbc explain: the Linux target: %v\n", err)
		return exitInvalid
	}
	x.Linux.Unsandboxed, x.Linux.MinABI, x.Linux.MinKernel = plan.Unsandboxed, plan.MinABI, plan.MinKernel
	x.Linux.Fidelity, x.Linux.Require = plan.Fidelity, plan.Requirements
	if !plan.Unsandboxed {
		x.Linux.Base = plan.Base
	}
	if len(paths) > 0 {
		if cwd == "" {
			wd, err := os.Getwd()
			if err != nil {
				return usageError(e, "explain", "the current directory: %v (give --cwd)", err)
			}
			cwd = wd
		}
		b, err := landlock.DefaultBindings(cwd, os.Getenv)
		if err != nil {
			return usageError(e, "explain", "binding the anchors: %v", err)
		}
		bd, err := p.Bind(b)
		if err != nil {
			return usageError(e, "explain", "binding the anchors: %v", err)
		}
		for _, q := range paths {
			abs, err := explainPath(q, b)
			if err != nil {
				return usageError(e, "explain", "--path %s: %v", q, err)
			}
			x.Paths = append(x.Paths, answerFor(p, bd, q, abs))
		}
	}
	if format == "json" {
		data, err := json.MarshalIndent(x, "", "  ")
		if err != nil {
			fmt.Fprintf(e.stderr, "sbc explain: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(e.stdout, "%s\n", data)
		return exitOK
	}
	writeExplanation(e, &x)
	return exitOK
}

// explainProfile compiles the inputs and picks the profile as sbc compile
// does: -p NAME in the files or a built-in; else the files' only profile.
func explainProfile(e *env, files []string, name string) (*ir.Profile, *diag.Sources, diag.Diagnostics) {
	srcs := diag.NewSources()
	var ds diag.Diagnostics
	if len(files) == 0 && name == "" {
		return nil, srcs, ds.Errorf(diag.CodeUsage, nil, "Nothing to explain",
			"Name profile files, or a built-in profile with -p NAME (built-ins: %s).", strings.Join(builtin.Names(), ", "))
	}
	var inFiles []string
	if len(files) > 0 {
		res, more := compiler.CompileInputs(files, e.stdin)
		srcs.Merge(res.Sources)
		ds = append(ds, more...)
		if ds.HasErrors() {
			return nil, srcs, ds
		}
		inFiles = res.Names()
		switch {
		case name != "":
			if p := res.Profile(name); p != nil {
				return p, srcs, ds
			}
		case len(res.Profiles) == 1:
			return res.Profiles[0], srcs, ds
		case len(res.Profiles) == 0:
			return nil, srcs, ds.Errorf(diag.CodeUsage, nil, "Nothing to explain", "The input files declare no profiles.")
		default:
			return nil, srcs, ds.Errorf(diag.CodeUsage, nil, "Which profile?",
				"The input files declare several profiles (%s): choose one with -p NAME.", strings.Join(inFiles, ", "))
		}
	}
	profiles, ds, ok := builtinByName(name, inFiles, srcs, ds)
	if !ok || len(profiles) == 0 {
		return nil, srcs, ds
	}
	return profiles[0], srcs, ds
}

// explainPath makes a --path value absolute: an anchor ({cwd}, {home},
// ...) or ~/ bound with b, a relative path from the working directory.
func explainPath(q string, b ir.Bindings) (string, error) {
	first := func(anchor string) (string, error) {
		if v := b[anchor]; len(v) > 0 {
			return v[0], nil
		}
		return "", fmt.Errorf("{%s} is not bound on this machine", anchor)
	}
	switch {
	case strings.HasPrefix(q, "{"):
		sp, err := ir.ParsePath(q)
		if err != nil {
			return "", err
		}
		if sp.Anchor == ir.AnchorRoot {
			return "/" + sp.Rel, nil
		}
		base, err := first(sp.Anchor)
		if err != nil {
			return "", err
		}
		return filepath.Join(base, sp.Rel), nil
	case q == "~" || strings.HasPrefix(q, "~/"):
		home, err := first(ir.AnchorHome)
		if err != nil {
			return "", err
		}
		return filepath.Join(home, strings.TrimPrefix(strings.TrimPrefix(q, "~"), "/")), nil
	case filepath.IsAbs(q):
		return filepath.Clean(q), nil
	}
	cwd, err := first(ir.AnchorCwd)
	if err != nil {
		return "", err
	}
	return filepath.Join(cwd, q), nil
}

// answerFor says what bd gives abs, and why.
func answerFor(p *ir.Profile, bd *ir.Bound, q, abs string) pathAnswer {
	a := pathAnswer{Path: q, Bound: abs}
	if p.Unsandboxed {
		a.Access, a.Why = "write", "the profile applies no sandbox: the command has all of the caller's rights"
		return a
	}
	acc, rule, glob := bd.Access(abs)
	a.Access = acc.String()
	switch {
	case glob != nil:
		a.Rule = "deny_glob " + glob.Pattern
		src := glob.Source
		a.Source = &src
		a.Why = fmt.Sprintf("the path matches the deny glob %s (within max_depth %d of where the pattern is anchored)", glob.Pattern, glob.MaxDepth)
	case rule != nil:
		src := rule.Source
		a.Source = &src
		switch rule.Origin {
		case ir.OriginProtect:
			a.Rule = "protect " + filepath.Base(rule.Path)
			a.Why = fmt.Sprintf("%s is a protected name directly below the writable root %s: read-only, and not creatable", filepath.Base(rule.Path), filepath.Dir(rule.Path))
		default:
			a.Rule = rule.Access.String() + " " + rule.Symbolic.String()
			if rule.Path == abs {
				a.Why = "the rule names this path"
			} else {
				a.Why = fmt.Sprintf("the most specific rule that covers it, on %s", rule.Path)
			}
		}
	default:
		a.Why = "no rule covers this path: denied"
	}
	return a
}

// writeExplanation prints x for a person.
func writeExplanation(e *env, x *explanation) {
	p := x.Profile
	w := e.stdout
	fmt.Fprintf(w, "profile %q (%s)\n", ir.Printable(p.Name), ir.Printable(p.Source.String()))
	if p.Description != "" {
		fmt.Fprintf(w, "  %s\n", ir.Printable(p.Description))
	}
	if len(p.Extends) > 0 {
		fmt.Fprintf(w, "  extends %s\n", ir.Printable(strings.Join(p.Extends, " <- ")))
	}
	if p.Unsandboxed {
		fmt.Fprintln(w, "\nNO SANDBOX: the command runs with all of the caller's rights (files, network, processes).")
		writeProcess(w, p)
		writePaths(w, x.Paths)
		return
	}
	fmt.Fprintln(w, "\nfilesystem: the most specific rule decides; at equal paths deny beats write beats read; a path no rule covers is denied")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range p.Filesystem.Rules {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.Access, ir.Printable(r.Path.String()), ir.Printable(r.Source.String()))
	}
	for _, g := range p.Filesystem.DenyGlobs {
		fmt.Fprintf(tw, "  deny_glob\t%s (max_depth %d)\t%s\n", ir.Printable(g.Pattern), g.MaxDepth, ir.Printable(g.Source.String()))
	}
	tw.Flush()
	if len(p.Filesystem.Protect) > 0 {
		var names []string
		for _, pr := range p.Filesystem.Protect {
			names = append(names, ir.Printable(pr.Name))
		}
		fmt.Fprintf(w, "  protect %s: read-only where they exist, and not creatable where they do not, directly below every writable root\n", strings.Join(names, " "))
	}
	n := p.Network
	fmt.Fprintf(w, "\nnetwork: %s", n.Mode)
	switch n.Mode {
	case ir.NetworkNone:
		fmt.Fprint(w, " (no TCP, UDP, raw or netlink sockets, no abstract Unix sockets; pathname Unix sockets only as listed)")
	case ir.NetworkPorts:
		fmt.Fprintf(w, " (TCP connect to %s, bind %s; nothing else leaves the sandbox)", portList(n.ConnectTCP), portList(n.BindTCP))
	case ir.NetworkFull:
		fmt.Fprint(w, " (no network restriction)")
		if n.Reason != "" {
			fmt.Fprintf(w, "; reason: %s", ir.Printable(n.Reason))
		}
	}
	fmt.Fprintln(w)
	for _, s := range n.UnixSockets {
		fmt.Fprintf(w, "  unix socket %s (%s)\n", ir.Printable(s.Path.String()), ir.Printable(s.Source.String()))
	}
	writeProcess(w, p)
	fmt.Fprintf(w, "\nLinux (Landlock): exact at ABI %d (Linux %s) and later\n", x.Linux.MinABI, x.Linux.MinKernel)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range x.Linux.Fidelity {
		how := string(f.Level)
		if f.Mechanism != "" {
			how += " (" + f.Mechanism + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", ir.Printable(f.Rule), how, ir.Printable(f.Source.String()))
	}
	tw.Flush()
	protects := false
	for _, f := range x.Linux.Fidelity {
		if strings.HasPrefix(f.Rule, "protect ") {
			// The same for every name and root: said once below.
			protects = true
			continue
		}
		if f.Level != landlock.LevelExact && f.Detail != "" {
			fmt.Fprintf(w, "  %s: %s\n", ir.Printable(f.Rule), ir.Printable(f.Detail))
		}
	}
	if protects {
		fmt.Fprintln(w, "  protect: a read-only bind mount in the sandbox's mount namespace where the name exists (Landlock alone would grant the writable root's rights); where it is missing, the seccomp supervisor refuses its creation (without the supervisor, nothing can be created directly in the writable root: restrictive); --format json gives each rule's detail")
	}
	writePaths(w, x.Paths)
}

// writeProcess prints the process policy.
func writeProcess(w io.Writer, p *ir.Profile) {
	pr := p.Process
	timeout, capBytes := "10s (the default)", "1 MiB per stream (the default)"
	if pr.TimeoutMS > 0 {
		timeout = fmt.Sprintf("%d ms", pr.TimeoutMS)
	}
	if pr.OutputCap > 0 {
		capBytes = fmt.Sprintf("%d bytes per stream", pr.OutputCap)
	}
	inherit := string(pr.Env.Inherit)
	if inherit == "" {
		inherit = "core"
	}
	fmt.Fprintf(w, "\nprocess: timeout %s, output cap %s; environment: inherit %s", timeout, capBytes, inherit)
	if len(pr.Env.Unset) > 0 {
		fmt.Fprintf(w, ", unset %s", ir.Printable(strings.Join(pr.Env.Unset, " ")))
	}
	for _, v := range pr.Env.Set {
		fmt.Fprintf(w, ", set %s", ir.Printable(v.Name))
	}
	fmt.Fprintln(w)
}

// writePaths prints the --path answers.
func writePaths(w io.Writer, paths []pathAnswer) {
	if len(paths) == 0 {
		return
	}
	fmt.Fprintln(w, "\npaths on this machine:")
	for _, a := range paths {
		fmt.Fprintf(w, "  %s", ir.Printable(a.Path))
		if a.Bound != a.Path {
			fmt.Fprintf(w, " (%s)", ir.Printable(a.Bound))
		}
		fmt.Fprintf(w, ": %s", a.Access)
		if a.Rule != "" {
			fmt.Fprintf(w, " (rule %q, %s)", ir.Printable(a.Rule), ir.Printable(a.Source.String()))
		}
		fmt.Fprintf(w, "\n    %s\n", ir.Printable(a.Why))
	}
}

// portList formats port ranges ("443, 8000-8100"), or "none".
func portList(rs []ir.PortRange) string {
	if len(rs) == 0 {
		return "none"
	}
	var out []string
	for _, r := range rs {
		if r.From == r.To {
			out = append(out, fmt.Sprint(r.From))
		} else {
			out = append(out, fmt.Sprintf("%d-%d", r.From, r.To))
		}
	}
	return strings.Join(out, ", ")
}
