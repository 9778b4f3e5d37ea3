profile "p" {
  extends = "worksapce"
}
