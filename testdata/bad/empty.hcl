profile "nothing" {
  description = "Forgot the rules"
}
