profile "p" {
  extends = "workspace"

  process {
    timeout = "10 seconds"
  }
}

profile "q" {
  extends = "workspace"

  process {
    timeout = 10
  }
}
