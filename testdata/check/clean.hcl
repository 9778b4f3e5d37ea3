# A profile the built-in rules have nothing to say about.
profile "clean" {
  description = "Read the workspace and /usr, write temporary files"

  filesystem {
    read    = [cwd, "/usr"]
    write   = [tmpdir]
    protect = [".git"]
  }

  network {
    mode = "none"
  }
}
