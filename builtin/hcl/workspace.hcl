# Built-in profile: workspace.
# The default for coding agents and build tools: read everything, write the
# workspace (cwd) and the temporary directories, keep version-control and
# agent metadata read-only, no network.

profile "workspace" {
  description = "Read everything, write the workspace and temp dirs (.git and similar read-only), no network"

  filesystem {
    read  = [root]
    write = [cwd, tmpdir, slash_tmp]
    # Version control: hooks and config the host's tools run (.sl:
    # Sapling's, like Mercurial's .hg). HEAD: git takes a directory with
    # HEAD, objects/, refs/ for a bare repository.
    # Agents' and editors' project config: hooks, tasks and servers that
    # the host's agent or editor starts on its own (.mcp.json: Claude
    # Code's project MCP servers, commands it starts once they are enabled).
    protect = [
      ".git", ".hg", ".sl", ".svn", ".jj", "HEAD",
      ".agents", ".claude", ".codex", ".gemini", ".cursor", ".vscode",
      ".mcp.json",
    ]
  }

  network {
    mode = "none"
  }
}
