package sbx.builtin.hygiene_test

import data.sbx.builtin.hygiene
import data.sbx.fixtures as f

test_duplicate_rule if {
	findings := hygiene.warn_duplicate with input as f.fs_input([["read", "/"], ["write", "{cwd}"], ["write", "{cwd}"], ["write", "{cwd}"]])
	f.codes(findings) == {"SBX011"}
	f.lines(findings) == {4, 5}
	every x in findings {
		contains(x.msg, "line 3")
	}
}

test_duplicate_glob_protect_socket if {
	inp := f.fs_input_with([["read", "/"]], {
		"deny_globs": [f.glob("*.pem", 10), f.glob("*.pem", 11)],
		"protect": [f.protect(".git", 12), f.protect(".git", 13)],
	})
	f.lines(hygiene.warn_duplicate) == {11, 13} with input as inp
}

test_same_path_different_access_is_not_duplicate if {
	count(hygiene.warn_duplicate) == 0 with input as f.fs_input([["read", "{cwd}"], ["write", "{cwd}"]])
}

test_read_overridden_on_same_path if {
	findings := hygiene.warn_shadowed with input as f.fs_input([["read", "{cwd}"], ["write", "{cwd}"]])
	f.codes(findings) == {"SBX012"}
	f.lines(findings) == {2}
}

test_read_under_deny_glob if {
	findings := hygiene.warn_shadowed with input as f.fs_input_with([["read", "{cwd}/node_modules"]], {"deny_globs": [f.glob("node_modules", 9)]})
	f.codes(findings) == {"SBX012"}
}

test_redundant_with_parent if {
	findings := hygiene.warn_shadowed with input as f.fs_input([["read", "/"], ["read", "/usr"], ["write", "{cwd}"], ["write", "{cwd}/build"]])
	f.lines(findings) == {3, 5}
}

test_nested_writable_root_matters_with_protect if {
	inp := f.fs_input_with([["write", "{cwd}"], ["write", "{cwd}/vendor/lib"]], {"protect": [f.protect(".git", 9)]})
	count(hygiene.warn_shadowed) == 0 with input as inp
}

test_carve_out_is_not_shadowed if {
	count(hygiene.warn_shadowed) == 0 with input as f.fs_input([["read", "/"], ["deny", "{home}"], ["read", "{home}/.config/tool"], ["write", "{cwd}"], ["read", "{cwd}/.git"]])
}

test_duplicate_of_inherited_rule_points_at_the_authors_copy if {
	rules := [f.rule("read", "/", 2), f.inherited("read", "/", 10), f.inherited("write", "{cwd}", 11), f.rule("write", "{cwd}", 3)]
	findings := hygiene.warn_duplicate with input as f.doc(f.profile({"rules": rules}))
	f.lines(findings) == {2, 3}
	every x in findings {
		x.node.source.filename == "t.hcl"
		contains(x.msg, "builtin:workspace.hcl:1")
	}
}

test_read_overridden_reported_once if {
	findings := hygiene.warn_shadowed with input as f.fs_input([["read", "{cwd}"], ["write", "{cwd}"], ["deny", "{cwd}"], ["write", "{cwd}"]])
	count(findings) == 1
	some x in findings
	contains(x.msg, "the deny rule on the same path at line 4 wins")
}
