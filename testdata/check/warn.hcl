# Only warnings: full network access without a reason.
profile "net" {
  description = "Read everything but the secrets, full network"

  filesystem {
    read  = [root]
    write = [tmpdir]
    deny = [
      "~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gcloud", "~/.kube", "~/.docker/config.json",
      "~/.azure", "~/.config/gh", "~/.git-credentials", "~/.netrc", "~/.npmrc", "~/.pypirc",
    ]
    deny_glob = ["**/.env"]
    protect   = [".git"]
  }

  network {
    mode = "full"
  }
}
