profiles "p" {
}
