profile "p" {
  extends = "workspace"

  filesystem {
    deny_glob = ["[abc", { pattern = "*.key", max_depth = 0 }, { pattern = "*.p12", depth = 2 }, "../*.pem"]
  }
}
