# Only warnings: full network access without a reason.
profile "net" {
  description = "Read everything but the secrets, full network"

  filesystem {
    read  = [root]
    write = [tmpdir]
    deny = [
      "~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gcloud", "~/.kube", "~/.docker/config.json",
      "~/.azure", "~/.config/gh", "~/.git-credentials", "~/.netrc", "~/.npmrc", "~/.pypirc",
      "~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.terraform.d/credentials.tfrc.json",
      "~/.vault-token", "~/.mozilla/firefox", "~/.config/google-chrome", "~/.config/chromium",
      "~/.config/BraveSoftware", "~/Library/Application Support/Google/Chrome",
      "~/Library/Application Support/Firefox", "~/Library/Application Support/BraveSoftware",
    ]
    deny_glob = ["**/.env"]
    protect   = [".git"]
  }

  network {
    mode = "full"
  }
}
