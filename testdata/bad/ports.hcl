profile "p" {
  extends = "workspace"

  network {
    mode        = "ports"
    connect_tcp = [0, 70000, "8100-8000", "http", 443.5]
    bind_tcp    = ["1-65536"]
  }
}
