profile "p" {
  filesystem {
    read = [root]
  }
  filesystem {
    write = [cwd]
  }
}
