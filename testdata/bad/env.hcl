profile "p" {
  extends = "workspace"

  process {
    env {
      inherit = "some"
      set     = { "A=B" = "1" }
      unset   = ["X*Y"]
    }
  }
}
