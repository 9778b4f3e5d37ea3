# Several profiles in one file, extending each other and the built-ins.
#
#   read-only (built-in)
#     └── base          read the system, write the workspace
#           └── ci      + CI environment, limits
#                 └── ci-release   + the release cache, a longer timeout
#   workspace (built-in)
#     └── agent         a coding agent: secrets denied, registry ports open

profile "base" {
  description = "Read the system, write the workspace"
  extends     = "read-only"

  filesystem {
    write   = [cwd]
    protect = [".git"]
  }
}

profile "ci" {
  description = "Continuous integration jobs"
  extends     = "base"

  filesystem {
    write = [tmpdir]
  }

  process {
    timeout    = "10m"
    output_cap = "4MiB"

    env {
      inherit = "none"
      set = {
        CI   = "true"
        LANG = "C.UTF-8"
        PATH = "/usr/local/bin:/usr/bin:/bin"
      }
    }
  }
}

profile "ci-release" {
  description = "Release builds: CI plus the shared release cache"
  extends     = "ci"

  filesystem {
    write = ["/var/cache/release"]
  }

  process {
    timeout = "1h"

    env {
      set   = { RELEASE = "1" }
      unset = ["LANG"]
    }
  }
}

profile "agent" {
  description = "A coding agent in the workspace: secrets denied, package registries reachable"
  extends     = "workspace"

  filesystem {
    deny      = ["~/.ssh", "~/.aws", "~/.config/gcloud", "~/.netrc", path(cwd, ".env")]
    deny_glob = ["*.pem", { pattern = "{home}/**/id_*", max_depth = 4 }]
  }

  network {
    mode        = "ports"
    reason      = "package registries over HTTPS"
    connect_tcp = [443]
  }

  process {
    env {
      inherit = "core"
      unset   = ["AWS_*", "GITHUB_TOKEN"]
    }
  }
}
