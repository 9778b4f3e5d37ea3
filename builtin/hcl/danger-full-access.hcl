# Built-in profile: danger-full-access.
# NO SANDBOX. Commands run with every right of the user running them. sbc
# warns when compiling it and sbx warns on every run.

profile "danger-full-access" {
  description = "NO SANDBOX: full filesystem, network and process access"
  unsandboxed = true

  filesystem {
    write = [root]
  }

  network {
    mode   = "full"
    reason = "no sandbox"
  }

  process {
    env {
      inherit = "all"
    }
  }
}
