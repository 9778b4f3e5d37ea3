profile "../evil" {
  extends = "workspace"
}
