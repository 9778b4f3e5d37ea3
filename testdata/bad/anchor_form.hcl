profile "p" {
  extends = "workspace"

  filesystem {
    read = ["{cwd", "~alice/src", path(platform_defaults, "lib"), "/a/{home}/b"]
  }
}
