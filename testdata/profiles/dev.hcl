# The profile from the issue's sketch. The env block is spelled over several
# lines: HCL allows only one argument in a single-line block.

profile "dev" {
  description = "Edit the workspace, read the system, no network"
  extends     = "workspace" # a built-in or another profile in scope

  filesystem {
    read      = [root]
    write     = [cwd, tmpdir, "/var/cache/build"]
    deny      = ["~/.ssh", "~/.aws", path(cwd, ".env")]
    deny_glob = ["**/*.pem"] # deny only, scanned at most 8 levels deep where a target must expand it
    protect   = [".git", ".agents"]
  }

  network {
    mode         = "none" # none | ports | full
    connect_tcp  = [443, "8000-8100"]
    bind_tcp     = []
    unix_sockets = ["/run/user/1000/ssh-agent.sock"]
  }

  process {
    timeout    = "10s"
    output_cap = "1MiB"

    env {
      inherit = "core"
      set     = { CI = "1" }
      unset   = ["AWS_SECRET_ACCESS_KEY"]
    }
  }
}
