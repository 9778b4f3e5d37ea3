profile "p" {
  extends = "workspace"

  network {
    mode        = "none"
    connect_tcp = [443]
  }
}
