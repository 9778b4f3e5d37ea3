profile "p" {
  extends = "workspace"

  network {
    mode = "off"
  }
}
