profile "p" {
  description = "café"
}
