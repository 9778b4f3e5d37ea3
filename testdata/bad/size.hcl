profile "p" {
  extends = "workspace"

  process {
    output_cap = "1.5MiB"
  }
}

profile "q" {
  extends = "workspace"

  process {
    output_cap = "12 parsecs"
  }
}
