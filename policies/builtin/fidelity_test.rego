package sbx.builtin.fidelity_test

import data.sbx.builtin.fidelity
import data.sbx.fixtures as f

_base := f.fs_input([["read", "/"], ["write", "{cwd}"], ["read", "{cwd}/.git"]])

_entry(i, fid) := {"path": ["profile", "filesystem", "rules", i], "fidelity": fid, "reason": "read-only carve-out inside a writable root"}

test_inexact_everywhere if {
	inp := object.union(_base, {"fidelity": {"landlock": {"rules": [_entry(2, "restrictive")]}}})
	findings := fidelity.warn_no_exact_target with input as inp
	f.codes(findings) == {"SBX010"}
	some x in findings
	x.path == ["profile", "filesystem", "rules", 2]
	contains(x.msg, "landlock: restrictive")
}

test_exact_on_some_target if {
	inp := object.union(_base, {"fidelity": {
		"landlock": {"rules": [_entry(2, "unenforceable")]},
		"seatbelt": {"rules": [_entry(2, "exact")]},
	}})
	count(fidelity.warn_no_exact_target) == 0 with input as inp
}

test_target_silent_about_rule_counts_as_exact if {
	inp := object.union(_base, {"fidelity": {
		"landlock": {"rules": [_entry(2, "unenforceable")]},
		"seatbelt": {"rules": []},
	}})
	count(fidelity.warn_no_exact_target) == 0 with input as inp
}

test_supplementary_is_exact if {
	inp := object.union(_base, {"fidelity": {"landlock": {"rules": [_entry(2, "supplementary")]}}})
	count(fidelity.warn_no_exact_target) == 0 with input as inp
}

test_no_fidelity_data if {
	count(fidelity.warn_no_exact_target) == 0 with input as _base
}
