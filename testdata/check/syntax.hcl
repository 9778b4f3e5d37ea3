profile "broken" {
  filesystem {
    read = [cwd
  }
