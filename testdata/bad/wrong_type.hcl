profile "p" {
  description = 42
  unsandboxed = "no"

  filesystem {
    read  = "/etc"
    write = [cwd, 7]
  }
}
