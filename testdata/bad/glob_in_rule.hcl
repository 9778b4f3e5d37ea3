profile "p" {
  filesystem {
    read  = ["/home/*/src"]
    write = [path(cwd, "**/build")]
  }
}
