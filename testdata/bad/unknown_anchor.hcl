profile "p" {
  extends = "workspace"

  filesystem {
    write = [xdg_cache]
    deny  = [path(xdg_config, "secrets")]
  }
}
