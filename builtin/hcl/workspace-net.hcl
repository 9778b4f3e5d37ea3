# Built-in profile: workspace-net.
# The workspace profile with unrestricted network access.

profile "workspace-net" {
  description = "Like workspace, with full network access"
  extends     = "workspace"

  network {
    mode   = "full"
    reason = "package managers and tests that need the network"
  }
}
