profile "p" {
  filesystem {
    read   = [root]
    writes = [cwd]
  }
}
