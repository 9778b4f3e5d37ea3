# Nested rules. The most specific path wins; at equal specificity deny beats
# write beats read.
#
#   /                                  read
#   /etc/shadow                        deny    (a denied file in a readable tree)
#   {cwd}                              write
#   {cwd}/vendor                       read    (a read-only carve-out in a writable root)
#   {cwd}/vendor/generated             write   (a writable folder reopened inside it)
#   {cwd}/vendor/generated/.keep       read    (and a read-only file inside that)
#   {home}/.netrc                      deny

profile "monorepo" {
  description = "Write the repository except vendored code, whose generated folder stays writable"

  filesystem {
    read  = [root, path(cwd, "vendor"), "{cwd}/vendor/generated/.keep"]
    write = [cwd, path(cwd, "vendor", "generated"), tmpdir]
    deny  = ["/etc/shadow", "~/.netrc"]

    protect = [".git"]
  }
}
