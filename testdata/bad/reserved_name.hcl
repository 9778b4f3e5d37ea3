profile "workspace" {
  filesystem {
    read = [root]
  }
}
