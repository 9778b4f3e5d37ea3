package sbx.lib_test

import data.sbx.fixtures as f
import data.sbx.lib

test_path_string if {
	lib.path_string(f.path("/")) == "/"
	lib.path_string(f.path("/etc")) == "/etc"
	lib.path_string(f.path("{home}")) == "{home}"
	lib.path_string(f.path("{home}/.ssh")) == "{home}/.ssh"
	lib.path_string({"anchor": "cwd"}) == "{cwd}"
}

test_within if {
	lib.within("a/b", "")
	lib.within("a/b", "a")
	lib.within("a/b", "a/b")
	not lib.within("a/bc", "a/b")
	not lib.within("a", "a/b")
}

test_join if {
	lib.join("", "x") == "x"
	lib.join("a", "") == "a"
	lib.join("a", "x/y") == "a/x/y"
}

test_most_specific_rule_decides if {
	inp := f.fs_input([["read", "/"], ["write", "{home}"], ["deny", "{home}/.ssh"], ["read", "{home}/.ssh/config"]])
	lib.access_at("home", "x") == "write" with input as inp
	lib.access_at("home", ".ssh") == "deny" with input as inp
	lib.access_at("home", ".ssh/id_ed25519") == "deny" with input as inp
	lib.access_at("home", ".ssh/config") == "read" with input as inp
	lib.access_at("root", "etc") == "read" with input as inp
}

test_root_rule_covers_other_anchors if {
	inp := f.fs_input([["read", "/"]])
	lib.access_at("home", ".aws") == "read" with input as inp
	lib.deciding_index("home", ".aws") == 0 with input as inp
}

test_uncovered_is_denied if {
	inp := f.fs_input([["read", "{cwd}"]])
	lib.access_at("home", ".aws") == "deny" with input as inp
	not lib.deciding_rule("home", ".aws") with input as inp
}

test_ties_deny_beats_write_beats_read if {
	lib.access_at("cwd", "x") == "write" with input as f.fs_input([["read", "{cwd}"], ["write", "{cwd}"]])
	lib.access_at("cwd", "x") == "deny" with input as f.fs_input([["write", "{cwd}"], ["deny", "{cwd}"]])
}

test_deny_globs if {
	inp := f.fs_input_with([["read", "/"]], {"deny_globs": [f.glob("**/.env", 3), f.glob("*.pem", 4), f.glob("{home}/.ssh", 5), f.glob("/etc/shadow", 6)]})
	lib.access_at("cwd", ".env") == "deny" with input as inp
	lib.access_at("cwd", "app/.env") == "deny" with input as inp
	lib.access_at("cwd", "app/.env.local") == "read" with input as inp
	lib.access_at("home", "keys/server.pem") == "deny" with input as inp
	lib.access_at("home", ".ssh/id_rsa") == "deny" with input as inp
	lib.access_at("cwd", ".ssh/id_rsa") == "read" with input as inp
	lib.access_at("root", "etc/shadow") == "deny" with input as inp
	lib.access_at("root", "etc/passwd") == "read" with input as inp
	lib.denying_glob("home", "keys/server.pem").pattern == "*.pem" with input as inp
}

test_glob_denies_descendants if {
	inp := f.fs_input_with([["read", "/"]], {"deny_globs": [f.glob("node_modules", 3)]})
	lib.access_at("cwd", "node_modules/x/y.js") == "deny" with input as inp
}

test_name_glob_denied if {
	lib.name_glob_denied(".env") with input as f.fs_input_with([], {"deny_globs": [f.glob("**/.env", 3)]})
	lib.name_glob_denied(".env") with input as f.fs_input_with([], {"deny_globs": [f.glob(".env*", 3)]})
	not lib.name_glob_denied(".env") with input as f.fs_input_with([], {"deny_globs": [f.glob("{cwd}/.env", 3)]})
	not lib.name_glob_denied(".env") with input as f.fs_input_with([], {"deny_globs": [f.glob("app/.env", 3)]})
}

test_protect_implies_read_rules if {
	inp := f.fs_input_with([["read", "/"], ["write", "{cwd}"]], {"protect": [f.protect(".git", 9)]})
	count(lib.xrules) == 3 with input as inp
	lib.xrules[2].origin == "protect" with input as inp
	lib.access_at("cwd", ".git/hooks") == "read" with input as inp
	lib.access_at("cwd", "src") == "write" with input as inp
}

# A write rule that a deny at its own path overrides is no writable root:
# protected names imply nothing below it (red team 18: .git was readable
# in a denied workspace).
test_protect_implies_nothing_below_a_denied_root if {
	inp := f.fs_input_with([["read", "/"], ["write", "{cwd}"], ["deny", "{cwd}"]], {"protect": [f.protect(".git", 9)]})
	count(lib.xrules) == 3 with input as inp
	lib.access_at("cwd", ".git/config") == "deny" with input as inp
	lib.access_at("cwd", "src") == "deny" with input as inp
}

test_parent_rule if {
	inp := f.fs_input([["read", "{cwd}"], ["write", "{cwd}/a"], ["read", "{cwd}/a/b"]])
	lib.parent_rule("cwd", "a/b").access == "write" with input as inp
	lib.parent_rule("cwd", "a").access == "read" with input as inp
	not lib.parent_rule("cwd", "") with input as inp
}

test_authored_rule_preferred_among_equals if {
	rules := [f.inherited("read", "/", 10), f.rule("read", "/", 2)]
	lib.deciding_index("home", ".ssh") == 1 with input as f.doc(f.profile({"rules": rules}))
}

test_access_indices_match_xrules if {
	inp := f.fs_input_with([["read", "/"], ["write", "{cwd}"], ["write", "{tmpdir}"]], {"protect": [f.protect(".git", 9), f.protect(".hg", 10)]})
	lib.deciding_rule("cwd", ".git/hooks").path == {"anchor": "cwd", "rel": ".git"} with input as inp
	lib.deciding_rule("tmpdir", ".hg").path == {"anchor": "tmpdir", "rel": ".hg"} with input as inp
	lib.deciding_rule("tmpdir", ".hg").source.start.line == 10 with input as inp
	lib.deciding_rule("tmpdir", "x").source.start.line == 4 with input as inp
	lib.parent_rule("tmpdir", ".hg").path == {"anchor": "tmpdir", "rel": ""} with input as inp
}

test_access_object if {
	inp := f.fs_input_with([["read", "/"], ["write", "{cwd}"]], {"deny_globs": [f.glob("**/*.pem", 9)]})
	lib.access("cwd", "a/key.pem") == {"access": "deny", "rule": 1, "glob": 0, "parent": 1} with input as inp
	lib.access("home", "x") == {"access": "read", "rule": 0, "glob": -1, "parent": -1} with input as inp
}
