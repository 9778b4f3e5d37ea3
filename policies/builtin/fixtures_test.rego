# METADATA
# title: Test fixtures
# description: |
#   Builders for Rego inputs in the shape sbc passes to policy, for the
#   built-in rules' unit tests. Organisation policy tests may use them too
#   (sbc test loads them with the built-in policy).
package sbx.fixtures

# src is a source range on line n of t.hcl.
src(n) := {"filename": "t.hcl", "start": {"line": n, "column": 3, "byte": 0}, "end": {"line": n, "column": 20, "byte": 0}}

# path parses a path spelled as in profiles: "/etc", "{home}/.ssh".
path(p) := {"anchor": "root", "rel": trim_prefix(p, "/")} if startswith(p, "/")

path(p) := {"anchor": substring(p, 1, end - 1), "rel": trim_prefix(substring(p, end + 1, -1), "/")} if {
	startswith(p, "{")
	end := indexof(p, "}")
}

# rule is a path rule on line n.
rule(access, p, n) := {"path": path(p), "access": access, "source": src(n)}

# inherited is a path rule on line n of the built-in profile workspace, as
# extends brings it into a profile.
inherited(access, p, n) := object.union(rule(access, p, n), {"source": object.union(src(n), {"filename": "builtin:workspace.hcl"})})

# rules builds path rules from [access, path] pairs, on lines 2, 3, ...
rules(pairs) := [rule(a, p, i + 2) | some i, pair in pairs; [a, p] := pair]

# profile is a profile with the given filesystem block (missing fields
# are filled in as sbc fills them) and no network.
profile(fs) := {
	"name": "t",
	"description": "",
	"extends": [],
	"unsandboxed": false,
	"filesystem": object.union({"rules": [], "deny_globs": [], "protect": []}, fs),
	"network": {"mode": "none", "reason": "", "connect_tcp": [], "bind_tcp": [], "unix_sockets": [], "source": src(40)},
	"process": {"timeout_ms": 0, "output_cap": 0, "env": {"inherit": "core", "set": [], "unset": []}, "source": src(50)},
	"source": src(1),
}

# doc wraps a profile into an input document.
doc(p) := {"profile": p, "name": p.name, "file": "profiles/t.hcl", "artifact": "build/t.sbx.json", "fidelity": {}}

# fs_input is the input for a profile with only the given path rules.
fs_input(pairs) := doc(profile({"rules": rules(pairs)}))

# fs_input_with is fs_input with more filesystem fields (deny_globs,
# protect).
fs_input_with(pairs, extra) := doc(profile(object.union({"rules": rules(pairs)}, extra)))

# glob is a deny_glob on line n.
glob(pattern, n) := {"pattern": pattern, "max_depth": 8, "source": src(n)}

# protect is a protect entry on line n.
protect(name, n) := {"name": name, "source": src(n)}

# network_input is the input for a profile with the given network block.
network_input(net) := doc(object.union(profile({"rules": rules([["read", "{cwd}"]])}), {"network": object.union(profile({}).network, net)}))

# codes returns the codes of a set of findings.
codes(findings) := {f.code | some f in findings}

# lines returns the source lines the findings point at.
lines(findings) := {f.node.source.start.line | some f in findings}
