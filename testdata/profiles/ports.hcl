# A development server: TCP only on named ports.

profile "web-dev" {
  description = "Run a dev server on 3000 and talk to local databases and HTTPS"
  extends     = "workspace"

  network {
    mode        = "ports"
    reason      = "dev server, local Postgres and Redis, HTTPS APIs"
    connect_tcp = [443, 5432, 6379, "8000-8100"]
    bind_tcp    = [3000, "9229"]
  }
}
