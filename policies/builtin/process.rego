# METADATA
# title: Process
# description: |
#   Built-in rules about unsandboxed profiles and the environment.
package sbx.builtin.process

# METADATA
# title: unsandboxed
# description: |
#   An unsandboxed profile (danger-full-access) applies no restriction at
#   all. It exists for debugging and trusted tools; in a shared profile set it
#   should stand out in review, and an organisation will usually forbid it
#   with an exception for the few profiles that need it.
# custom:
#   code: SBX013
#   severity: warning
warn_unsandboxed contains {
	"code": "SBX013",
	"msg": "this profile applies no sandbox at all (unsandboxed): every rule is ignored",
	"node": input.profile,
} if {
	input.profile.unsandboxed == true
}

# METADATA
# title: inherit-all-environment
# description: |
#   Inheriting the whole environment passes every token and password in it
#   (AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, ...) to the sandboxed command,
#   whatever the filesystem rules say. Inherit "core" (the default) and set
#   what the tool needs, or unset the secrets ("AWS_*").
# custom:
#   code: SBX014
#   severity: warning
warn_inherit_all_env contains {
	"code": "SBX014",
	"msg": "the whole environment is inherited (env inherit = \"all\") with nothing unset: tokens and passwords in it reach the sandbox",
	"node": input.profile.process,
} if {
	env := object.get(input.profile.process, "env", {})
	object.get(env, "inherit", "") == "all"
	count(object.get(env, "unset", [])) == 0
}
