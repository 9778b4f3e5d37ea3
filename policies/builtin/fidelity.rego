# METADATA
# title: Target fidelity
# description: |
#   Built-in rules about how faithfully the platform targets enforce a
#   profile. They read input.fidelity, which sbc fills from the target
#   planners: for each target, the rules it cannot enforce exactly.
package sbx.builtin.fidelity

import data.sbx.lib

# Fidelities that enforce a rule as written (possibly with help from a
# mechanism besides the target's main one).
exact := {"exact", "supplementary"}

_targets := object.get(input, "fidelity", {})

# _inexact holds the input paths of the IR nodes some target does not
# enforce exactly.
_inexact contains e.path if {
	some f in _targets
	some e in object.get(f, "rules", [])
	not e.fidelity in exact
}

_inexact_in(f, p) if {
	some e in object.get(f, "rules", [])
	e.path == p
	not e.fidelity in exact
}

# METADATA
# title: no-exact-target
# description: |
#   A rule that no target can enforce exactly is either enforced more
#   strictly than written (the sandboxed command fails where the author
#   expected it to work) or less strictly (it can do what the author meant
#   to forbid). The targets' planners explain why for each platform; the
#   usual fix is to restructure the rule, for example to avoid a read-only
#   carve-out inside a writable root on Landlock.
# custom:
#   code: SBX010
#   severity: warning
warn_no_exact_target contains {
	"code": "SBX010",
	"msg": sprintf("no target enforces this rule exactly; %s", [concat("; ", reasons)]),
	"path": p,
} if {
	lib.sandboxed
	count(_targets) > 0
	some p in _inexact
	every f in _targets {
		_inexact_in(f, p)
	}
	reasons := sort([sprintf("%s: %s (%s)", [t, e.fidelity, object.get(e, "reason", "no reason given")]) |
		some t, f in _targets
		some e in object.get(f, "rules", [])
		e.path == p
		not e.fidelity in exact
	])
}
