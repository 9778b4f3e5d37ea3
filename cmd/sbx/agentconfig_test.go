//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sbx-dev/sbx/builtin"
)

// agentConfigNames are the project configuration files and directories
// the built-in workspace profile protects beside git's: the host's agent,
// editor, environment manager or other version control runs what they
// hold (hooks in .claude/settings.json, tasks in .vscode/tasks.json, MCP
// servers, JetBrains' file watchers, mise's enter hooks, a devcontainer's
// initializeCommand) on its own, outside the sandbox.
var agentConfigNames = []string{".agents", ".claude", ".codex", ".gemini", ".cursor", ".vscode", ".mcp.json",
	"_darcs", ".pijul", ".fslckout",
	".idea", ".zed", ".devcontainer", ".devcontainer.json",
	".kiro", ".amazonq", ".roo", ".continue", ".qwen",
	".opencode", "opencode.json", "opencode.jsonc", "crush.json", ".crush.json",
	".aider.conf.yml",
	"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".mise"}

// TestWorkspaceProtectsAgentConfig runs real commands under the built-in
// workspace profile, as root and as uid 65534, in a workspace where
// .vscode exists (with a tasks.json) and the other names are missing: an
// existing one cannot be written or replaced, a missing one cannot be
// created, as a directory or a file; an ordinary file beside them can.
func TestWorkspaceProtectsAgentConfig(t *testing.T) {
	sbx := rt20Sbx(t)
	// Each line of the script prints the operation and "ok" or "fail":
	// the sandbox's refusals differ (EROFS, EACCES, EPERM) and only
	// whether the host changed matters.
	var script strings.Builder
	try := func(op, cmd string) {
		script.WriteString("if " + cmd + " 2>/dev/null; then echo '" + op + " ok'; else echo '" + op + " fail'; fi\n")
	}
	try("control", "echo ok > notes.txt")
	try("write .vscode/tasks.json", "echo '{\"tasks\":[{\"runOptions\":{\"runOn\":\"folderOpen\"}}]}' > .vscode/tasks.json")
	try("create .vscode/settings.json", "echo '{}' > .vscode/settings.json")
	try("replace .vscode", "mv .vscode old && mkdir .vscode")
	for _, n := range agentConfigNames {
		if n == ".vscode" {
			continue
		}
		try("mkdir "+n, "mkdir "+n)
		try("create "+n, "echo x > "+n)
		try("link to "+n, "ln -s /tmp "+n)
	}
	want := func(out string) {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != strings.Count(script.String(), "\n") {
			t.Fatalf("%d results for %d operations:\n%s", len(lines), strings.Count(script.String(), "\n"), out)
		}
		for _, line := range lines {
			op, gotOK := strings.CutSuffix(line, " ok")
			if !gotOK {
				op = strings.TrimSuffix(line, " fail")
			}
			if wantOK := op == "control"; gotOK != wantOK {
				t.Errorf("%s: %q, want it to %s", op, line, map[bool]string{true: "succeed", false: "fail"}[wantOK])
			}
		}
	}
	check := func(t *testing.T, dir string) {
		t.Helper()
		if b, err := os.ReadFile(filepath.Join(dir, ".vscode", "tasks.json")); err != nil || string(b) != "{}\n" {
			t.Errorf("the host's .vscode/tasks.json: %q, %v", b, err)
		}
		if _, err := os.Lstat(filepath.Join(dir, ".vscode", "settings.json")); err == nil {
			t.Error("the host's .vscode/settings.json was created")
		}
		for _, n := range agentConfigNames {
			if n == ".vscode" {
				continue
			}
			if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
				t.Errorf("the host's %s was created", n)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
			t.Errorf("control: %v", err)
		}
	}
	setup := func(t *testing.T, dir string, uid int) {
		t.Helper()
		if err := os.Mkdir(filepath.Join(dir, ".vscode"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".vscode", "tasks.json"), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{".vscode", ".vscode/tasks.json"} {
			if err := os.Lchown(filepath.Join(dir, p), uid, uid); err != nil {
				t.Fatal(err)
			}
		}
	}
	run := func(t *testing.T, sbx, dir string, attr *syscall.SysProcAttr) string {
		t.Helper()
		cmd := exec.Command(sbx, "run", "--profile", "workspace", "--cwd", dir, "--", "sh", "-c", script.String())
		cmd.Dir = dir
		cmd.SysProcAttr = attr
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("sbx run: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}

	t.Run("root", func(t *testing.T) {
		dir := t.TempDir()
		setup(t, dir, 0)
		want(run(t, sbx, dir, nil))
		check(t, dir)
	})
	t.Run("uid 65534", func(t *testing.T) {
		nsbx, dir, attr := rt22Nobody(t)
		setup(t, dir, 65534)
		want(run(t, nsbx, dir, attr))
		check(t, dir)
	})
}

// TestAgentConfigNamesComplete keeps agentConfigNames in step with the
// built-in workspace profile: every protected name but the repository
// names the git tests cover is tried above.
func TestAgentConfigNamesComplete(t *testing.T) {
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range plan.Protect {
		switch p.Name {
		case ".git", ".hg", ".sl", ".svn", ".jj", "HEAD":
		default:
			got = append(got, p.Name)
		}
	}
	want := slices.Clone(agentConfigNames)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the workspace profile protects %q, agentConfigNames lists %q", got, want)
	}
}
