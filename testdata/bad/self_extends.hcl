profile "me" {
  extends = "me"
}
