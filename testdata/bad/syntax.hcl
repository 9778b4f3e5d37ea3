profile "broken" {
  filesystem {
    read = [root
  }
}
