profile "p" {
  extends = "workspace"

  network {
    mode = none
  }
}
