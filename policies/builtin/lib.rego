# METADATA
# title: sbx policy library
# description: |
#   Helpers shared by the built-in rules and available to organisation
#   policy as data.sbx.lib. They reason about the profile in input
#   symbolically: paths are compared within one anchor ({home}, {cwd}, /,
#   ...), because where an anchor points is only known when sbx runs.
#   The access questions are answered by sbc's built-in function
#   sbx.access, in Go, because every rule asks many of them per profile.
package sbx.lib

# rank orders accesses for ties at equal specificity: deny beats write beats
# read, as in the IR.
rank := {"deny": 3, "write": 2, "read": 1}

# rel returns a path's relative part ("" for the anchor itself). sbc's
# input always has "rel"; IR documents from elsewhere may omit it when
# empty.
rel(p) := object.get(p, "rel", "")

# path_string formats an IR path the way profiles spell it: "/etc",
# "{home}" or "{home}/.ssh".
path_string(p) := concat("", ["/", rel(p)]) if p.anchor == "root"

path_string(p) := concat("", ["{", p.anchor, "}"]) if {
	p.anchor != "root"
	rel(p) == ""
}

path_string(p) := concat("", ["{", p.anchor, "}/", rel(p)]) if {
	p.anchor != "root"
	rel(p) != ""
}

# within reports whether the relative path r is base or lies below it.
within(_, "")

within(r, base) if r == base

within(r, base) if startswith(r, concat("", [base, "/"]))

# join appends a relative path to a relative path.
join("", r) := r

join(base, "") := base if base != ""

join(base, r) := concat("/", [base, r]) if {
	base != ""
	r != ""
}

# fs is the profile's filesystem block.
fs := object.get(input.profile, "filesystem", {})

# rules are the profile's path rules.
rules := object.get(fs, "rules", [])

# globs are the profile's deny_globs.
globs := object.get(fs, "deny_globs", [])

# xrules are the profile's rules followed by the read rules its protect
# block implies: NAME directly below every writable root, as the IR binds
# them. Implied rules carry the protect entry's source and "origin":
# "protect"; indices below count(rules) are the profile's own rules.
xrules := array.concat(rules, [{"path": {"anchor": w.path.anchor, "rel": join(rel(w.path), p.name)}, "access": "read", "source": p.source, "origin": "protect"} |
	some w in rules
	w.access == "write"
	not denied_root(w)
	some p in object.get(fs, "protect", [])
])

# denied_root(w) holds when a deny rule at w's own path overrides the write
# rule w (deny beats write at equal specificity): w is then no writable
# root, and protected names below it imply nothing (they would reopen
# reading inside the denied tree).
denied_root(w) if [w.path.anchor, rel(w.path)] in _denied_at

# _denied_at are the [anchor, rel] of the deny rules: a set, so that
# denied_root costs one lookup per write rule (red team 29: a loop over
# the rules made xrules quadratic, 90 s of evaluation for 9,000 rules).
_denied_at contains [d.path.anchor, rel(d.path)] if {
	some d in rules
	d.access == "deny"
}

# ancestors returns r and every ancestor of r below its anchor, the anchor
# itself ("") included: the rels of the rules that can cover r.
ancestors(r) := {concat("/", array.slice(parts, 0, j)) |
	parts := split(r, "/")
	some j in numbers.range(0, count(parts))
}

# access returns sbx.access for anchor/r over the profile's filesystem
# block: {"access", "rule", "glob", "parent"} (see the README). The
# functions below are the usual way to ask it.
access(anchor, r) := sbx.access(fs, anchor, r)

# access_at returns the access the profile gives to anchor/r: "deny" when a
# deny_glob matches it or an ancestor, otherwise the access of the rule
# that decides it (the most specific covering rule of the same anchor, or
# a rule on "/" when none of that anchor covers it; ties: deny, write,
# read), otherwise "deny" (a path no rule covers is denied).
access_at(anchor, r) := sbx.access(fs, anchor, r).access

# deciding_index is the index in xrules of the rule that decides the access
# to anchor/r, ignoring deny_globs. Among equal rules, one from the
# author's files is preferred to one inherited from a built-in profile, so
# that findings point where the author can act. Undefined when no rule
# covers the path.
deciding_index(anchor, r) := i if {
	i := sbx.access(fs, anchor, r).rule
	i >= 0
}

# deciding_rule is xrules[deciding_index(anchor, r)].
deciding_rule(anchor, r) := xrules[deciding_index(anchor, r)]

# parent_rule returns the rule that would decide anchor/r if the rules on
# exactly that path did not exist: the most specific covering rule of the
# same anchor strictly above it.
parent_rule(anchor, r) := xrules[i] if {
	i := sbx.access(fs, anchor, r).parent
	i >= 0
}

# glob_denied reports whether a deny_glob of the profile matches anchor/r or
# one of its ancestors (a glob-denied directory denies its subtree), within
# the glob's max_depth: a match deeper than the scan for it reaches when
# sbx runs (counted from the pattern's anchor, or from the readable roots
# for a relative pattern; {home} two names below "/") does not count.
glob_denied(anchor, r) if sbx.access(fs, anchor, r).glob >= 0

# denying_glob returns the first deny_glob that matches anchor/r or an
# ancestor. Globs are matched symbolically, as the IR matches bound paths:
# "{anchor}/..." patterns against paths of that anchor, absolute patterns
# against paths of "/", and relative patterns ("*.pem", "**/.env")
# against any trailing run of components.
denying_glob(anchor, r) := globs[i] if {
	i := sbx.access(fs, anchor, r).glob
	i >= 0
}

# protected reports whether name is listed in the profile's protect block.
protected(name) if {
	some p in object.get(fs, "protect", [])
	p.name == name
}

# name_glob_denied reports whether a deny_glob denies every entry called
# name wherever it appears (a relative pattern such as ".env", "**/.env" or
# ".env*" whose last component matches name, or the same below "/**/",
# which matches anywhere too: red team 28).
name_glob_denied(name) if {
	some g in globs
	pat := _anywhere_pattern(g.pattern)
	parts := split(pat, "/")
	sbx.glob_match(parts[count(parts) - 1], name)
	every p in array.slice(parts, 0, count(parts) - 1) {
		p == "**"
	}
}

# name_glob_denied_within is name_glob_denied for an entry depth names
# below a readable root that is itself base names below "/": the glob's
# max_depth must reach it, as sbx's scan for a pattern's matches counts on
# targets that cannot match patterns natively (from every readable root
# for a relative pattern, from "/" for "/**/NAME"). A glob without
# max_depth reaches every depth.
name_glob_denied_within(name, base, depth) if {
	some g in globs
	pat := _anywhere_pattern(g.pattern)
	parts := split(pat, "/")
	sbx.glob_match(parts[count(parts) - 1], name)
	every p in array.slice(parts, 0, count(parts) - 1) {
		p == "**"
	}
	_glob_reaches(g, base, depth)
}

_glob_reaches(g, _, _) if object.get(g, "max_depth", 0) <= 0

_glob_reaches(g, _, depth) if {
	not startswith(g.pattern, "/")
	g.max_depth >= depth
}

_glob_reaches(g, base, depth) if {
	startswith(g.pattern, "/")
	g.max_depth >= base + depth
}

# _anywhere_pattern is a pattern that matches at any depth, relative.
_anywhere_pattern(p) := p if {
	not startswith(p, "/")
	not startswith(p, "{")
}

_anywhere_pattern(p) := substring(p, 1, -1) if startswith(p, "/**/")

# sandboxed holds unless the profile applies no sandbox at all, in which
# case its rules mean nothing and only SBX013 reports on it.
sandboxed if not input.profile.unsandboxed

# authored is 1 for a node from the author's files and 0 for one from a
# built-in profile (source "builtin:NAME.hcl"), which extends brings in.
authored(node) := 0 if startswith(node.source.filename, "builtin:")

authored(node) := 1 if not startswith(node.source.filename, "builtin:")

# preferred returns, of a non-empty collection of indices into xs, the
# first whose node the author wrote, else the first.
preferred(xs, indices) := k[1] if {
	k := min({[1 - authored(xs[i]), i] | some i in indices})
}

# where describes a node's location for a message about another node n:
# "line 12" in the same file, "FILE:12" in another.
where(node, n) := sprintf("line %d", [node.source.start.line]) if node.source.filename == n.source.filename

where(node, n) := sprintf("%s:%d", [node.source.filename, node.source.start.line]) if node.source.filename != n.source.filename

# line returns the start line of a node's source, for messages that refer
# to another rule.
line(node) := node.source.start.line
