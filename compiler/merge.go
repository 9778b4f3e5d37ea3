package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
)

// resolved is a declaration with extends applied.
type resolved struct {
	eff   *settings
	chain []string // profiles merged in, nearest first
}

// emit resolves d and appends its IR to the output.
func (c *compilation) emit(d *decl) {
	r := c.resolve(d, nil)
	if r == nil {
		return
	}
	if p := c.finalize(d, r); p != nil {
		c.out = append(c.out, p)
	}
}

// lookup finds the profile that d extends. User profiles see each other and
// the built-ins; built-ins see only built-ins.
func (c *compilation) lookup(d *decl, name string) *decl {
	if !d.builtin {
		if x := c.byName[name]; x != nil {
			return x
		}
	}
	return c.builtinDecl(name)
}

// resolve merges d with the profiles it extends, depth first. It returns
// nil when d or a profile it extends has errors; those were reported where
// they occur, so a chain of failures yields one diagnostic. stack holds the
// declarations being resolved, for cycle reports.
func (c *compilation) resolve(d *decl, stack []*decl) *resolved {
	if c.state[d] == 2 {
		return c.done[d]
	}
	c.state[d] = 1
	var r *resolved
	switch {
	case d.failed:
	case d.extends == "":
		r = &resolved{eff: merge(&settings{}, &d.own)}
	default:
		parent := c.lookup(d, d.extends)
		switch {
		case parent == nil:
			// Red team 29: the suggestion compares the name with every
			// profile in scope, so it is made only for an error that is
			// shown (13,000 profiles extending an unknown name, a 400 KB
			// file, took 19 s for the 50 errors shown).
			hint := ""
			if !c.full(d.extendsRange.Filename) {
				hint = suggest(d.extends, c.knownNames(d))
			}
			c.errorf("unknown-profile", d.extendsRange, fmt.Sprintf("Unknown profile %q in extends", d.extends),
				"No profile named %q is declared in the files compiled together, and it is not a built-in profile (%s).%s",
				d.extends, quoteList(builtin.Names()), hint)
		case c.state[parent] == 1:
			cycle := append(slices.Clone(stack), d)
			i := slices.Index(cycle, parent)
			names := make([]string, 0, len(cycle)-i+1)
			for _, x := range cycle[max(i, 0):] {
				names = append(names, x.name)
			}
			names = append(names, parent.name)
			c.errorf("extends-cycle", d.extendsRange, "Cycle in extends",
				"Profile %q extends %q, which leads back to it: %s. A profile cannot extend itself, directly or through others.",
				d.name, d.extends, strings.Join(names, " -> "))
		default:
			pr := c.resolve(parent, append(stack, d))
			switch {
			case pr == nil:
			case len(pr.chain)+1 > maxExtendsDepth:
				// Every profile's IR lists its whole chain: without a
				// bound, a file of one-line profiles each extending the
				// previous one costs memory quadratic in its length.
				c.errorf("too-large", d.extendsRange, "Extends chain too long",
					"Profile %q extends %q, which extends %d more profiles; a chain may hold at most %d.", d.name, d.extends, len(pr.chain), maxExtendsDepth)
			default:
				r = &resolved{eff: merge(pr.eff, &d.own), chain: append([]string{parent.name}, pr.chain...)}
			}
		}
	}
	if r != nil {
		r = c.checkSize(d, r)
	}
	c.state[d] = 2
	c.done[d] = r
	return r
}

// checkSize enforces maxProfileElems and maxCompileElems, so that extends
// cannot turn a small file into gigabytes of IR (a profile of 5,000 rules
// extended by 100,000 one-line profiles).
func (c *compilation) checkSize(d *decl, r *resolved) *resolved {
	n := r.eff.size()
	if n > maxProfileElems {
		c.errorf("too-large", d.def, fmt.Sprintf("Profile %q is too large", d.name),
			"With the profiles it extends, it has %d rules, patterns, names, ports, sockets and variables; the limit is %d.", n, maxProfileElems)
		return nil
	}
	c.elemCount += n
	if c.elemCount > maxCompileElems {
		if !c.overBudget {
			c.overBudget = true
			c.errorf("too-large", d.def, "Too many rules in total",
				"The profiles compiled together have more than %d rules, patterns, names, ports, sockets and variables in total, counting what each inherits through extends. Compile fewer profiles at a time.", maxCompileElems)
		}
		return nil
	}
	return r
}

// size counts the elements of s that take memory in the IR.
func (s *settings) size() int {
	return len(s.rules) + len(s.globs) + len(s.protect) + len(s.connect) + len(s.bind) +
		len(s.sockets) + len(s.envSet) + len(s.unset)
}

// knownNames lists the names d could extend, for suggestions.
func (c *compilation) knownNames(d *decl) []string {
	names := builtin.Names()
	if !d.builtin {
		for _, u := range c.user {
			names = append(names, u.name)
		}
	}
	return names
}

// merge applies child on top of parent and returns a new settings value
// sharing no slices with either. The rules:
//
//   - read, write and deny rules: the child's are appended to the parent's;
//     each stays an independent rule and the IR semantics (most specific
//     path wins; deny beats write beats read at equal specificity) decide.
//   - deny_glob, protect, unix_sockets: union (identical entries once).
//   - network mode: the child's replaces the parent's if set; reason goes
//     with the mode (a child that sets mode without reason has none);
//     connect_tcp and bind_tcp replace the parent's lists if set.
//   - process timeout and output_cap: the child's replaces the parent's.
//   - env inherit: the child's replaces; env set: merged, the child winning
//     per variable, and a parent's variable the child unsets is dropped;
//     env unset: union.
//   - unsandboxed: the child's replaces the parent's if set.
func merge(parent, child *settings) *settings {
	m := &settings{
		unsandboxed: pick(child.unsandboxed, parent.unsandboxed),
		rules:       append(slices.Clone(parent.rules), child.rules...),
		globs:       union(parent.globs, child.globs, func(g ir.GlobRule) string { return fmt.Sprint(g.Pattern, "\x00", g.MaxDepth) }),
		protect:     union(parent.protect, child.protect, func(p ir.ProtectRule) string { return p.Name }),
		netSource:   pick(child.netSource, parent.netSource),
		mode:        pick(child.mode, parent.mode),
		reason:      pick(child.reason, parent.reason),
		sockets:     union(parent.sockets, child.sockets, func(s ir.SocketRule) string { return s.Path.String() }),
		procSource:  pick(child.procSource, parent.procSource),
		timeoutMS:   pick(child.timeoutMS, parent.timeoutMS),
		outputCap:   pick(child.outputCap, parent.outputCap),
		inherit:     pick(child.inherit, parent.inherit),
		unset:       union(parent.unset, child.unset, func(s string) string { return s }),
	}
	if child.mode != nil {
		m.reason = child.reason
	}
	m.connect, m.connectSet = parent.connect, parent.connectSet
	if child.connectSet {
		m.connect, m.connectSet = child.connect, true
	}
	m.bind, m.bindSet = parent.bind, parent.bindSet
	if child.bindSet {
		m.bind, m.bindSet = child.bind, true
	}
	m.connect, m.bind = slices.Clone(m.connect), slices.Clone(m.bind)
	for _, v := range parent.envSet {
		if slices.ContainsFunc(child.unset, func(u string) bool { return unsetMatches(u, v.Name) }) {
			continue
		}
		if slices.ContainsFunc(child.envSet, func(x ir.EnvVar) bool { return x.Name == v.Name }) {
			continue
		}
		m.envSet = append(m.envSet, v)
	}
	m.envSet = append(m.envSet, child.envSet...)
	return m
}

func pick[T any](child, parent *T) *T {
	if child != nil {
		return child
	}
	return parent
}

// union returns a followed by the elements of b whose key is not already
// present, keeping the first occurrence (and so its source range).
func union[T any](a, b []T, key func(T) string) []T {
	if len(a)+len(b) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(a)+len(b))
	out := make([]T, 0, len(a)+len(b))
	for _, list := range [][]T{a, b} {
		for _, x := range list {
			k := key(x)
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

// unsetMatches reports whether an unset entry ("AWS_*" or "TOKEN") removes
// the variable name; it mirrors the semantics of ir.Env.
func unsetMatches(pattern, name string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return pattern == name
}

// finalize turns resolved settings into the IR of profile d, with the
// warnings that concern the profile as a whole.
func (c *compilation) finalize(d *decl, r *resolved) *ir.Profile {
	eff := r.eff
	p := &ir.Profile{
		Name:        d.name,
		Description: d.description,
		Extends:     r.chain,
		Source:      rng(d.def),
	}
	if eff.unsandboxed != nil {
		p.Unsandboxed = *eff.unsandboxed
	}
	// The IR gets its own slices: eff is cached for the profiles that extend
	// this one, and Canonicalize sorts in place.
	p.Filesystem = ir.Filesystem{Rules: slices.Clone(eff.rules), DenyGlobs: slices.Clone(eff.globs), Protect: slices.Clone(eff.protect)}

	mode := ir.NetworkNone
	if eff.mode != nil {
		mode = *eff.mode
	}
	p.Network = ir.Network{Mode: mode, Source: p.Source, UnixSockets: slices.Clone(eff.sockets)}
	if eff.netSource != nil {
		p.Network.Source = *eff.netSource
	}
	if eff.reason != nil {
		p.Network.Reason = *eff.reason
	}
	if mode == ir.NetworkPorts {
		p.Network.ConnectTCP, p.Network.BindTCP = slices.Clone(eff.connect), slices.Clone(eff.bind)
	} else {
		for _, pr := range []*struct {
			attr string
			r    *ir.Range
		}{{"connect_tcp", hclRangePtr(d.connectRange)}, {"bind_tcp", hclRangePtr(d.bindRange)}} {
			if pr.r != nil {
				c.add(diag.Diagnostic{Severity: diag.Warning, Code: "ports-ignored", Range: pr.r,
					Summary: fmt.Sprintf("%s is ignored with network mode %q", pr.attr, mode),
					Detail:  fmt.Sprintf("Port lists apply only with mode = \"ports\". The compiled profile of %q keeps mode %q and drops them; set mode = \"ports\" to allow exactly these ports.", d.name, mode)})
			}
		}
	}

	p.Process = ir.Process{Source: p.Source}
	if eff.procSource != nil {
		p.Process.Source = *eff.procSource
	}
	if eff.timeoutMS != nil {
		p.Process.TimeoutMS = *eff.timeoutMS
	}
	if eff.outputCap != nil {
		p.Process.OutputCap = *eff.outputCap
	}
	if eff.inherit != nil {
		p.Process.Env.Inherit = *eff.inherit
	}
	p.Process.Env.Set, p.Process.Env.Unset = slices.Clone(eff.envSet), slices.Clone(eff.unset)

	def := rp(d.def)
	if p.Unsandboxed {
		c.add(diag.Diagnostic{Severity: diag.Warning, Code: "unsandboxed", Range: def,
			Summary: fmt.Sprintf("Profile %q applies NO SANDBOX", d.name),
			Detail:  "Commands run with this profile have the full access of the user running them: every file, the network, other processes. Its filesystem and network rules are not enforced. sbx warns on every run. Use it only for commands you trust completely."})
	} else if !slices.ContainsFunc(p.Filesystem.Rules, func(r ir.PathRule) bool { return r.Access != ir.Deny }) {
		c.add(diag.Diagnostic{Severity: diag.Warning, Code: "empty-profile", Range: def,
			Summary: fmt.Sprintf("Profile %q denies everything", d.name),
			Detail:  "It has no read or write rule, and a path that no rule allows is denied, so commands cannot read any file, not even their own program, and most will fail to start. Add rules in a filesystem block, or start from a built-in: extends = \"read-only\" or extends = \"workspace\"."})
	}
	// Canonical order now, so that every consumer of the Result (the policy
	// linter, explain) sees the rules in the order the artifact has them.
	p.Canonicalize()
	if err := p.Validate(); err != nil {
		c.add(diag.Diagnostic{Severity: diag.Error, Code: diag.CodeInternal, Range: def,
			Summary: "The compiled profile is invalid (a bug in sbc)",
			Detail:  fmt.Sprintf("%v. Please report it with the profile.", err)})
		return nil
	}
	return p
}

func hclRangePtr(r *hcl.Range) *ir.Range {
	if r == nil {
		return nil
	}
	return rp(*r)
}

// quoteList formats names as "a", "b", "c".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
