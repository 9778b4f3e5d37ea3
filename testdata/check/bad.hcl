# Profiles that break the built-in rules.
profile "home-writer" {
  description = "Writes all of $HOME"

  filesystem {
    read  = [root]
    write = [cwd, home]
  }

  network {
    mode = "full"
  }
}

profile "dotfiles" {
  description = "Edits dotfiles"

  filesystem {
    read  = [cwd]
    write = [path(home, ".config"), "~/.bashrc"]
  }
}
