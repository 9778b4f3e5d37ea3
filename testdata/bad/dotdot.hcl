profile "p" {
  filesystem {
    read = [root]
    deny = [path(cwd, "../secrets"), "/etc/../root"]
  }
}
