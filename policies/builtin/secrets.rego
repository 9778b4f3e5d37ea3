# METADATA
# title: Secrets
# description: |
#   Built-in rules about credentials a profile leaves readable.
package sbx.builtin.secrets

import data.sbx.lib

# Credential stores below $HOME, with what they hold. Each is the file or
# directory that holds the secret, not the tool's whole directory, so that
# a profile may deny just that and still read the rest (~/.cargo's
# registry cache, ~/.terraform.d's plugins). Browsers' profile
# directories hold cookies (signed-in sessions) and saved passwords: on
# Linux below ~/.mozilla and ~/.config, on macOS below ~/Library/Application
# Support (red team 29).
secrets := {
	".ssh": "SSH private keys",
	".aws": "AWS credentials",
	".gnupg": "GnuPG private keys",
	".config/gcloud": "Google Cloud credentials",
	".kube": "Kubernetes credentials",
	".docker/config.json": "Docker registry credentials",
	".azure": "Azure credentials",
	".config/gh": "GitHub CLI tokens",
	".git-credentials": "git credentials",
	".netrc": "netrc passwords",
	".npmrc": "npm tokens",
	".pypirc": "PyPI tokens",
	".cargo/credentials": "Cargo registry tokens",
	".cargo/credentials.toml": "Cargo registry tokens",
	".terraform.d/credentials.tfrc.json": "Terraform tokens",
	".vault-token": "Vault token",
	".mozilla/firefox": "Firefox cookies and passwords",
	".config/google-chrome": "Chrome cookies and passwords",
	".config/chromium": "Chromium cookies and passwords",
	".config/BraveSoftware": "Brave cookies and passwords",
	"Library/Application Support/Google/Chrome": "Chrome cookies and passwords",
	"Library/Application Support/Firefox": "Firefox cookies and passwords",
	"Library/Application Support/BraveSoftware": "Brave cookies and passwords",
}

# _broad_read holds the indices of the rules that make (nearly) everything
# readable: "/" or all of {home}.
_broad_read contains i if {
	some i, r in lib.rules
	r.access in {"read", "write"}
	r.path.anchor in {"root", "home"}
	r.path.rel == ""
}

# METADATA
# title: readable-secrets
# description: |
#   A profile that reads everything ("/" or all of {home}) also reads the
#   credentials kept there unless it denies them: SSH and GnuPG keys, cloud
#   and Kubernetes credentials, registry and package tokens. A sandboxed
#   command that can read them can use them, and with any network access,
#   send them elsewhere. Browsers' profiles count too: their cookies are
#   signed-in sessions, and they keep saved passwords. Deny them
#   explicitly (deny = ["{home}/.ssh", ...]) or narrow the read rules.
# custom:
#   code: SBX007
#   severity: warning
warn_readable_secrets contains {
	"code": "SBX007",
	"msg": sprintf("%s makes credentials readable: %s; deny them explicitly", [lib.path_string(_rules[i].path), concat(", ", sort([sprintf("{home}/%s (%s)", [s, secrets[s]]) | some s in found]))]),
	"node": _rules[i],
} if {
	lib.sandboxed
	count(_broad_read) > 0
	some i, found in _readable
}

_rules := lib.rules

# _readable maps the index of a rule to the secrets it makes readable.
_readable := {i: found |
	some [i, _] in _readable_hits
	found := {s | some [j, s] in _readable_hits; j == i}
}

_readable_hits := {[a.rule, s] |
	some s, _ in secrets
	a := sbx.access(lib.fs, "home", s)
	a.access != "deny"
}

warn_readable_secrets contains {
	"code": "SBX007",
	"msg": sprintf(".env files (application secrets) are readable through %s: add deny_glob = [\"**/.env\", \"**/.env.*\"]", [lib.path_string(r.path)]),
	"node": r,
} if {
	lib.sandboxed
	count(_broad_read) > 0
	r := _rules[lib.preferred(_rules, _broad_read)]
	not lib.name_glob_denied(".env")
}

# _homes_read holds the indices of the rules that make every user's home
# directory (/home, /Users) or root's (/root) readable whole. The rules
# above see only {home}: red team 27 found read = ["/home"] making every
# user's ~/.ssh readable without a word.
_homes_read contains i if {
	some i, r in lib.rules
	r.access in {"read", "write"}
	r.path.anchor == "root"
	r.path.rel in {"home", "Users"}
}

# _one_home_read are [rule index, home] for the rules that make one user's
# home directory readable whole by its path: root's (/root), or one below
# /home or /Users, as SBX002 takes them for homes. Red team 29: read =
# ["/home/alice"] made alice's ~/.ssh readable without a word (and /root
# was judged by name globs only, so deny rules on its credentials did not
# count).
_one_home_read contains [i, r.path.rel] if {
	some i, r in lib.rules
	r.access in {"read", "write"}
	r.path.anchor == "root"
	_one_home(r.path.rel)
}

_one_home("root")

_one_home(h) if {
	parts := split(h, "/")
	count(parts) == 2
	parts[0] in {"home", "Users"}
}

warn_readable_secrets contains {
	"code": "SBX007",
	"msg": sprintf("%s makes credentials readable: %s; deny them explicitly", [lib.path_string(_rules[i].path), concat(", ", sort([sprintf("/%s/%s (%s)", [h, s, secrets[s]]) | some s in found]))]),
	"node": _rules[i],
} if {
	lib.sandboxed
	count(_broad_read) == 0
	some [i, h] in _one_home_read
	found := {s |
		some s, _ in secrets
		sbx.access(lib.fs, "root", concat("/", [h, s])).access != "deny"
	}
	count(found) > 0
}

# _home_secrets_open are the credential stores no name glob denies
# everywhere ("**/.ssh"): below /home they are in every user's directory,
# which no one rule on {home} covers. The glob must reach them: a scan
# for its matches from /home or /Users stops max_depth names below
# (/home/NAME/.ssh is 2 below /home; 3 below "/", where "/**/.ssh" counts
# from).
_home_secrets_open := {s |
	some s, _ in secrets
	parts := split(s, "/")
	not lib.name_glob_denied_within(parts[count(parts) - 1], 1, 1 + count(parts))
}

warn_readable_secrets contains {
	"code": "SBX007",
	"msg": sprintf("%s makes the home directories in it readable, with the credentials kept in each: %s; deny them by name (deny_glob = [\"**/.ssh\", ...]) or narrow the read rules", [lib.path_string(_rules[i].path), concat(", ", sort([sprintf("%s (%s)", [s, secrets[s]]) | some s in _home_secrets_open]))]),
	"node": _rules[i],
} if {
	lib.sandboxed
	count(_broad_read) == 0
	some i in _homes_read
	count(_home_secrets_open) > 0
}
