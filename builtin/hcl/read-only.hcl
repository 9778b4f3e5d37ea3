# Built-in profile: read-only.
# Commands may read every file but write none, and have no network.

profile "read-only" {
  description = "Read everything, write nothing, no network"

  filesystem {
    read = [root]
  }

  network {
    mode = "none"
  }
}
