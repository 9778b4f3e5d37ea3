package sbx.builtin.secrets_test

import data.sbx.builtin.secrets
import data.sbx.fixtures as f

test_read_everything_exposes_secrets if {
	findings := secrets.warn_readable_secrets with input as f.fs_input([["read", "/"], ["write", "{cwd}"]])
	f.codes(findings) == {"SBX007"}
	f.lines(findings) == {2}
	some x in findings
	contains(x.msg, "{home}/.ssh (SSH private keys)")
	contains(x.msg, "{home}/.docker/config.json")
}

test_denied_secrets_are_fine if {
	inp := f.fs_input_with(
		array.concat([["read", "/"]], [["deny", sprintf("{home}/%s", [s])] | some s, _ in secrets.secrets]),
		{"deny_globs": [f.glob("**/.env", 30)]},
	)
	count(secrets.warn_readable_secrets) == 0 with input as inp
}

test_partially_denied_secrets_name_the_rest if {
	findings := secrets.warn_readable_secrets with input as f.fs_input([["read", "{home}"], ["deny", "{home}/.ssh"]])
	some x in findings
	contains(x.msg, "{home}/.aws")
	not contains(x.msg, "{home}/.ssh")
}

test_narrow_profiles_are_not_read_everything if {
	count(secrets.warn_readable_secrets) == 0 with input as f.fs_input([["read", "{cwd}"], ["read", "/usr"]])
}

test_env_files if {
	findings := secrets.warn_readable_secrets with input as f.fs_input_with([["read", "/"]], {"deny_globs": [f.glob("{home}/.ssh", 9)]})
	some x in findings
	contains(x.msg, ".env files")
}

test_env_files_reported_once_at_the_authors_rule if {
	rules := [f.inherited("read", "/", 10), f.rule("read", "/", 2), f.rule("read", "{home}", 3)]
	findings := [x | some x in secrets.warn_readable_secrets with input as f.doc(f.profile({"rules": rules})); contains(x.msg, ".env")]
	count(findings) == 1
	findings[0].node.source.start.line == 2
}

# Red team 27: every user's home, or root's, read whole.
test_home_directories_expose_secrets if {
	every rel in ["/home", "/Users", "/root"] {
		findings := secrets.warn_readable_secrets with input as f.fs_input([["read", rel], ["write", "{cwd}"]])
		f.codes(findings) == {"SBX007"}
		some x in findings
		contains(x.msg, ".ssh (SSH private keys)")
	}
}

test_home_directories_with_name_globs_are_fine if {
	globs := [f.glob(sprintf("**/%s", [n]), 9) | some s, _ in secrets.secrets; parts := split(s, "/"); n := parts[count(parts) - 1]]
	count(secrets.warn_readable_secrets) == 0 with input as f.fs_input_with([["read", "/home"]], {"deny_globs": globs})
}

# Red team 29: one user's home by its path is a home, as for SBX002.
test_one_home_by_path_exposes_its_secrets if {
	findings := secrets.warn_readable_secrets with input as f.fs_input([["read", "/home/alice"]])
	f.codes(findings) == {"SBX007"}
	some x in findings
	contains(x.msg, "/home/alice/.ssh (SSH private keys)")
	not contains(x.msg, "every")
}

test_one_home_with_its_secrets_denied_is_fine if {
	rules := array.concat([["read", "/root"]], [["deny", sprintf("/root/%s", [s])] | some s, _ in secrets.secrets])
	count(secrets.warn_readable_secrets) == 0 with input as f.fs_input(rules)
}

test_below_a_home_is_not_a_home if {
	count(secrets.warn_readable_secrets) == 0 with input as f.fs_input([["read", "/home/alice/src"]])
}

# A name glob counts for every user's home only where its max_depth
# reaches: /home/NAME/.ssh is 2 names below /home.
test_home_directories_with_shallow_name_globs if {
	shallow := {"pattern": "**/.ssh", "max_depth": 1, "source": f.src(9)}
	findings := secrets.warn_readable_secrets with input as f.fs_input_with([["read", "/home"]], {"deny_globs": [shallow]})
	some x in findings
	contains(x.msg, ", .ssh (SSH private keys)")
	deep := {"pattern": "**/.ssh", "max_depth": 2, "source": f.src(9)}
	found := secrets.warn_readable_secrets with input as f.fs_input_with([["read", "/home"]], {"deny_globs": [deep]})
	every x in found {
		not contains(x.msg, ", .ssh (SSH private keys)")
	}
}

# With / readable, {home}/.ssh is 3 names below it (/home/NAME/.ssh).
test_read_everything_with_shallow_glob if {
	shallow := {"pattern": "**/.ssh", "max_depth": 1, "source": f.src(9)}
	findings := secrets.warn_readable_secrets with input as f.fs_input_with([["read", "/"]], {"deny_globs": [shallow]})
	some x in findings
	contains(x.msg, "{home}/.ssh (SSH private keys)")
}
