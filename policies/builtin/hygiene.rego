# METADATA
# title: Hygiene
# description: |
#   Built-in rules about rules that have no effect: duplicates and rules
#   shadowed by others. They are harmless to enforce but mislead whoever
#   reads the profile.
package sbx.builtin.hygiene

import data.sbx.lib

_rules := lib.rules

# METADATA
# title: duplicate-rule
# description: |
#   The same rule written twice (same path and access, same glob, same
#   protected name, same socket) has no effect the second time. It usually
#   means a profile was extended or merged carelessly; remove the copy.
# custom:
#   code: SBX011
#   severity: warning
warn_duplicate contains {
	"code": "SBX011",
	"msg": sprintf("duplicate rule: %s %s is already given at %s", [r.access, lib.path_string(r.path), lib.where(_rules[orig], r)]),
	"node": r,
} if {
	lib.sandboxed
	some [j, orig] in _rule_duplicates
	r := _rules[j]
}

warn_duplicate contains {
	"code": "SBX011",
	"msg": sprintf("duplicate deny_glob %q: already given at %s", [g.pattern, lib.where(globs[orig], g)]),
	"node": g,
} if {
	lib.sandboxed
	globs := lib.globs
	some [j, orig] in _duplicates(globs, [x.pattern | some x in globs])
	g := globs[j]
}

warn_duplicate contains {
	"code": "SBX011",
	"msg": sprintf("duplicate protect %q: already given at %s", [p.name, lib.where(prot[orig], p)]),
	"node": p,
} if {
	lib.sandboxed
	prot := lib.fs.protect
	some [j, orig] in _duplicates(prot, [x.name | some x in prot])
	p := prot[j]
}

warn_duplicate contains {
	"code": "SBX011",
	"msg": sprintf("duplicate unix_socket %s: already given at %s", [lib.path_string(s.path), lib.where(socks[orig], s)]),
	"node": s,
} if {
	lib.sandboxed
	socks := input.profile.network.unix_sockets
	some [j, orig] in _duplicates(socks, [x.path | some x in socks])
	s := socks[j]
}

# _duplicates returns [copy, original] index pairs of the elements of xs
# whose keys (keys[i] for xs[i]) repeat another's. The original is an
# element inherited from a built-in profile when there is one (the author
# can only remove their own copy), else the first. Sorting keeps this
# O(n log n) for profiles with thousands of rules.
_duplicates(xs, keys) := {[e[2], firsts[e[0]]] |
	count({k | some k in keys}) < count(keys)
	sorted := sort([[k, {true: 0, false: 1}[startswith(xs[i].source.filename, "builtin:")], i] | some i, k in keys])
	firsts := {e[0]: e[2] | some p, e in sorted; _run_start(sorted, p)}
	some p, e in sorted
	not _run_start(sorted, p)
}

_run_start(_, 0)

_run_start(sorted, p) if {
	p > 0
	sorted[p - 1][0] != sorted[p][0]
}

# METADATA
# title: shadowed-rule
# description: |
#   A rule that another rule overrides everywhere has no effect: a read rule
#   on a path that is also writable or denied (write and deny win at equal
#   specificity), a read rule below a deny_glob that matches it, or a rule
#   that repeats the access its nearest enclosing rule already gives. Remove
#   it, or fix the rule it was meant to change.
# custom:
#   code: SBX012
#   severity: warning
warn_shadowed contains {
	"code": "SBX012",
	"msg": sprintf("read %s has no effect: the %s rule on the same path at line %d wins", [lib.path_string(r.path), o.access, lib.line(o)]),
	"node": r,
} if {
	lib.sandboxed
	some r in _rules
	r.access == "read"
	_multi_access[r.path]

	# The rule that wins: deny over write, then the first.
	w := max([[lib.rank[x.access], 0 - k] | some k, x in _rules; x.path == r.path; x.access in {"write", "deny"}])
	o := _rules[0 - w[1]]
}

warn_shadowed contains {
	"code": "SBX012",
	"msg": sprintf("%s %s has no effect: deny_glob %q (line %d) denies it", [r.access, lib.path_string(r.path), g.pattern, lib.line(g)]),
	"node": r,
} if {
	lib.sandboxed
	count(lib.globs) > 0
	some r in _rules
	r.access == "read"
	g := lib.denying_glob(r.path.anchor, r.path.rel)
}

warn_shadowed contains {
	"code": "SBX012",
	"msg": sprintf("%s %s has no effect: %s (line %d) already gives %s access to it", [r.access, lib.path_string(r.path), lib.path_string(p.path), lib.line(p), r.access]),
	"node": r,
} if {
	lib.sandboxed
	some j, r in _rules
	r.path.rel != ""
	i := sbx.access(lib.fs, r.path.anchor, r.path.rel).parent
	i >= 0
	p := lib.xrules[i]
	p.access == r.access
	not j in _rule_copies
	not _same_path_conflict(r)

	# A nested writable root still matters when protect names apply below it.
	not _nested_write_with_protect(r)
}

_rule_duplicates := _duplicates(_rules, [[x.path, x.access] | some x in _rules])

# Copies are reported once, as duplicates.
_rule_copies := {j | some [j, _] in _rule_duplicates}

_same_path_conflict(r) if _multi_access[r.path]

# _multi_access holds the paths that rules give different accesses to
# (found by sorting, to stay O(n log n)).
_multi_access := {s[k][0] |
	pairs := {[x.path, x.access] | some x in _rules}
	count({p[0] | some p in pairs}) < count(pairs)
	s := sort(pairs)
	some k in numbers.range(1, count(s) - 1)
	s[k][0] == s[k - 1][0]
}

_nested_write_with_protect(r) if {
	r.access == "write"
	count(lib.fs.protect) > 0
}
