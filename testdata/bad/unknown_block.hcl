profile "p" {
  filesystem {
    read = [root]
  }
  sandbox {
    strict = true
  }
}
