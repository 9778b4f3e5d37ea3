profile "p" {
  filesystem {
    read  = [root]
    write = [cwd, "build/out"]
  }
}
