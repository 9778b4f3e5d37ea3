# Unix sockets are reachable only when listed, in every network mode:
# they are the classic escape from file-based sandboxes (Docker, D-Bus).

profile "git-ssh" {
  description = "Fetch and push with git over SSH, through the user's ssh-agent"
  extends     = "workspace"

  network {
    mode         = "ports"
    reason       = "git over SSH"
    connect_tcp  = [22]
    unix_sockets = ["/run/user/1000/ssh-agent.sock", path(home, ".gnupg/S.gpg-agent")]
  }
}

profile "local-build" {
  description = "Builds that talk to a build daemon over a socket in the temp dir; no network"
  extends     = "workspace"

  network {
    mode         = "none"
    unix_sockets = ["{tmpdir}/buildd.sock"]
  }
}
