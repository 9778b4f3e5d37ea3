profile "a" {
  extends = "b"
}

profile "b" {
  extends = "c"
}

profile "c" {
  extends = "a"
}
