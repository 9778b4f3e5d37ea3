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
    # Sapling's, like Mercurial's .hg; _darcs, .pijul, and Fossil's
    # checkout database .fslckout, which names the repository). HEAD: git
    # takes a directory with HEAD, objects/, refs/ for a bare repository.
    # Agents' and editors' project config: hooks, tasks and servers that
    # the host's agent or editor starts on its own (.mcp.json: Claude
    # Code's project MCP servers, commands it starts once they are enabled;
    # .idea: JetBrains IDEs' file watchers and run configurations; .zed:
    # Zed's tasks and language servers; opencode's, Crush's and aider's
    # files; .devcontainer: initializeCommand runs on the host).
    # Environment managers that run commands on entering the directory
    # (mise's hooks and env scripts; direnv's .envrc is left: direnv runs
    # a changed .envrc only once it is allowed again).
    protect = [
      ".git", ".hg", ".sl", ".svn", ".jj", "HEAD",
      "_darcs", ".pijul", ".fslckout",
      ".agents", ".claude", ".codex", ".gemini", ".cursor", ".vscode",
      ".mcp.json",
      ".idea", ".zed", ".devcontainer", ".devcontainer.json",
      ".kiro", ".amazonq", ".roo", ".continue", ".qwen",
      ".opencode", "opencode.json", "opencode.jsonc", "crush.json", ".crush.json",
      ".aider.conf.yml",
      "mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".mise",
    ]
  }

  network {
    mode = "none"
  }
}
