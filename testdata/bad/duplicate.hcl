profile "dup" {
  extends = "read-only"
}

profile "dup" {
  extends = "workspace"
}
