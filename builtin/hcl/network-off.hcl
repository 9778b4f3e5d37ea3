# Built-in profile: network-off.
# No filesystem restriction at all; only the network is cut off.

profile "network-off" {
  description = "Read and write everything, no network"

  filesystem {
    write = [root]
  }

  network {
    mode = "none"
  }
}
