# METADATA
# title: Acme sandbox policy
# description: Example organisation policy for sbc check.
package main

import data.sbx.lib

# METADATA
# title: no-home-writes
# description: No profile may write anywhere below $HOME.
# custom:
#   code: ACME001
deny_home_write contains {
	"code": "ACME001",
	"msg": sprintf("%s: profiles must not write below $HOME", [lib.path_string(r.path)]),
	"node": r,
} if {
	some r in input.profile.filesystem.rules
	r.access == "write"
	r.path.anchor == "home"
}

# METADATA
# title: network-needs-reason
# description: Network access must be off unless the profile says why.
# custom:
#   code: ACME002
deny_network contains {
	"code": "ACME002",
	"msg": sprintf("network mode %q needs a reason", [input.profile.network.mode]),
	"node": input.profile.network,
} if {
	input.profile.network.mode != "none"
	input.profile.network.reason == ""
}

# METADATA
# title: secrets-unreadable
# description: SSH and AWS credentials stay unreadable.
# custom:
#   code: ACME003
deny_secrets contains {
	"code": "ACME003",
	"msg": sprintf("{home}/%s must not be readable", [s]),
	"path": ["profile", "filesystem", "rules", lib.deciding_index("home", s)],
} if {
	some s in [".ssh", ".aws"]
	lib.access_at("home", s) != "deny"
}

# Profiles should say what they are for (a plain message: the code is
# the rule's name, main.warn_description).
warn_description contains "profiles should have a description" if input.profile.description == ""

# Profiles named legacy-* predate the network rule.
exception contains rules if {
	startswith(input.name, "legacy-")
	rules := ["network"]
}
