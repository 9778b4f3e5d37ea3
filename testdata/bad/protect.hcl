profile "p" {
  extends = "workspace"

  filesystem {
    protect = [".git/hooks", "*.lock", ".."]
  }
}
