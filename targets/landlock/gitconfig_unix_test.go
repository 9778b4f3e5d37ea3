//go:build unix

package landlock_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// TestGitConfigTargets: what a protected repository's configuration (and
// the user's, and what they include) makes git on the host read or run is
// read-only where it lies in a writable root: the hooks directory, an
// included file and what it sets, the fsmonitor hook, the program and the
// interpreted script of command-valued variables (a filter driver, a shell
// alias), relative as git takes them; paths outside the writable roots get
// nothing; a hooks directory, an included file or a program that is
// missing there is refused.
func TestGitConfigTargets(t *testing.T) {
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	// The workspace in the test's directory (below /tmp, writable under
	// the profile); the user's files and the outside ones where the
	// profile writes nothing.
	dir := t.TempDir() + "/ws"
	elsewhere, err := os.MkdirTemp("/var/tmp", "sbx-gitconfig-")
	if err != nil {
		t.Skip("no /var/tmp:", err)
	}
	t.Cleanup(func() { os.RemoveAll(elsewhere) })
	home, xdg, outside := elsewhere+"/home", elsewhere+"/xdg", elsewhere+"/outside"
	for _, d := range []string{dir + "/.git", dir + "/.husky/_", dir + "/tools", dir + "/sub", home, xdg + "/git", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"tools/fsmon", "tools/clean.sh", "tools/alias.sh", "tools/args.txt", "shared.inc", "sub/nested.inc", "from-home.inc", "tools/ssh"} {
		if err := os.WriteFile(dir+"/"+f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := func(k string) string {
		switch k {
		case "HOME":
			return home
		case "XDG_CONFIG_HOME":
			return xdg
		}
		return ""
	}
	bind := func() (*landlock.Spec, error) { return bindWorkspaceIn(t, plan, dir, env) }
	readOnly := func(spec *landlock.Spec) map[string]bool { return readOnlyBelow(spec, dir) }
	write(dir+"/.git/config", `[core]
	hooksPath = .husky/_
	fsmonitor = tools/fsmon
	sshCommand = /usr/bin/ssh -F `+outside+`/cfg
[include]
	path = ../shared.inc
[filter "x"]
	clean = sh tools/clean.sh --list tools/args.txt
[alias]
	go = !tools/alias.sh
	co = checkout
[remote "origin"]
	url = ../sub
`)
	write(dir+"/shared.inc", "[include]\n\tpath = sub/nested.inc\n")
	write(dir+"/sub/nested.inc", "[core]\n\tpager = "+dir+"/tools/ssh\n")
	write(xdg+"/git/config", "[includeIf \"gitdir:"+dir+"/\"]\n\tpath = "+dir+"/from-home.inc\n")
	write(home+"/.gitconfig", "[core]\n\teditor = "+outside+"/editor\n")
	spec, err := bind()
	if err != nil {
		t.Fatal(err)
	}
	ro := readOnly(spec)
	for _, want := range []string{".git", ".husky/_", "tools/fsmon", "shared.inc", "sub/nested.inc", "tools/ssh", "tools/clean.sh", "tools/args.txt", "tools/alias.sh", "from-home.inc"} {
		if !ro[want] {
			t.Errorf("%s is not read-only (read-only: %v)", want, ro)
		}
	}
	for _, not := range []string{"sub", "tools", ".husky"} {
		if ro[not] {
			t.Errorf("%s is read-only: only what git reads or runs should be", not)
		}
	}
	for p := range ro {
		if strings.HasPrefix(p, outside) || strings.HasPrefix(p, home) {
			t.Errorf("%s, outside the writable roots, got a read-only mount", p)
		}
	}

	// Missing where git would read or run it: refused, naming the setting.
	for _, tc := range []struct{ config, want string }{
		{"[core]\n\thooksPath = hooks\n", "core.hooksPath = hooks"},
		{"[include]\n\tpath = ../missing.inc\n", "include.path = ../missing.inc"},
		{"[core]\n\tfsmonitor = tools/missing\n", "core.fsmonitor = tools/missing"},
		{"[filter \"y\"]\n\tsmudge = python3 tools/missing.py\n", "filter.y.smudge"},
		{"[alias]\n\tx = !tools/missing.sh\n", "alias.x"},
		{"[core]\n\thooksPath = .\n", "names the writable root"},
		// Larger than sbx reads: the rest could name hooks.
		{strings.Repeat("# padding\n", 110000) + "[core]\n\thooksPath = .husky/_\n", "more than sbx reads"},
	} {
		write(dir+"/.git/config", tc.config)
		if _, err := bind(); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("config %q: %v, want a refusal naming %q", tc.config, err, tc.want)
		}
	}
	// Missing but not run or read as configuration: no refusal.
	for _, config := range []string{
		"[filter \"y\"]\n\tclean = tool --out tools/missing.txt\n",
		"[core]\n\thooksPath = " + outside + "/hooks\n",
		"[core]\n\tfsmonitor = true\n",
	} {
		write(dir+"/.git/config", config)
		if _, err := bind(); err != nil {
			t.Errorf("config %q: %v, want no refusal", config, err)
		}
	}
	// A hook that is a link into the workspace (scripts/pre-commit linked
	// into .git/hooks): its target is read-only, a sample's is not, and a
	// dangling one there is refused.
	write(dir+"/.git/config", "")
	if err := os.MkdirAll(dir+"/.git/hooks", 0o755); err != nil {
		t.Fatal(err)
	}
	write(dir+"/tools/pre-commit", "")
	write(dir+"/tools/sample", "")
	for target, link := range map[string]string{"../../tools/pre-commit": "pre-commit", "../../tools/sample": "pre-push.sample"} {
		if err := os.Symlink(target, dir+"/.git/hooks/"+link); err != nil {
			t.Fatal(err)
		}
	}
	spec, err = bind()
	if err != nil {
		t.Fatal(err)
	}
	if ro := readOnly(spec); !ro["tools/pre-commit"] || ro["tools/sample"] {
		t.Errorf("hook links: tools/pre-commit read-only %v (want true), tools/sample %v (want false)", ro["tools/pre-commit"], ro["tools/sample"])
	}
	if err := os.Symlink("../../tools/gone", dir+"/.git/hooks/post-merge"); err != nil {
		t.Fatal(err)
	}
	if _, err := bind(); err == nil || !strings.Contains(err.Error(), "the hook link "+dir+"/.git/hooks/post-merge") {
		t.Errorf("a dangling hook link into the workspace: %v, want a refusal naming it", err)
	}
	os.RemoveAll(dir + "/.git/hooks")
	// The same in the directory core.hooksPath names.
	if err := os.MkdirAll(dir+"/.husky/_", 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(dir + "/.husky/_/pre-commit")
	if err := os.Symlink("../../tools/pre-commit", dir+"/.husky/_/pre-commit"); err != nil {
		t.Fatal(err)
	}
	write(dir+"/.git/config", "[core]\n\thooksPath = .husky/_\n")
	if spec, err := bind(); err != nil || !readOnly(spec)["tools/pre-commit"] {
		t.Errorf("a hook link in core.hooksPath: %v, want its target read-only", err)
	}
	os.Remove(dir + "/.husky/_/pre-commit")
	write(dir+"/.git/config", "")

	// A repository one level below the workspace: its .git read-only (a
	// directory, or a gitfile), and what its configuration names;
	// another subdirectory untouched.
	for _, d := range []string{dir + "/proj/.git", dir + "/proj/nested-hooks", dir + "/plain", outside + "/wt.git"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(dir+"/proj/.git/config", "[core]\n\thooksPath = nested-hooks\n")
	if err := os.MkdirAll(dir+"/wt", 0o755); err != nil {
		t.Fatal(err)
	}
	write(dir+"/wt/.git", "gitdir: "+outside+"/wt.git\n")
	spec, err = bind()
	if err != nil {
		t.Fatal(err)
	}
	if ro := readOnly(spec); !ro["proj/.git"] || !ro["proj/nested-hooks"] || !ro["wt/.git"] || ro["plain"] || ro["proj"] {
		t.Errorf("a repository one level down: read-only %v, want proj/.git, proj/nested-hooks and wt/.git (and not plain or proj)", ro)
	}
	os.RemoveAll(dir + "/proj")
	os.RemoveAll(dir + "/wt")

	// What the host's git takes from its environment: another global or
	// system file, and variables of their own (git -c, GIT_CONFIG_COUNT).
	write(dir+"/.git/config", "")
	for _, f := range []string{"tools/g.sh", "tools/s.sh", "tools/c.sh", "tools/p.sh", "env.inc", "tools/inc.sh"} {
		write(dir+"/"+f, "")
	}
	write(outside+"/global", "[core]\n\tpager = tools/g.sh\n")
	write(outside+"/system", "[alias]\n\ts = !tools/s.sh\n")
	write(dir+"/env.inc", "[core]\n\teditor = tools/inc.sh\n")
	vars := map[string]string{
		"GIT_CONFIG_GLOBAL": outside + "/global", "GIT_CONFIG_SYSTEM": outside + "/system",
		"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "tools/c.sh",
		"GIT_CONFIG_KEY_1": "include.path", "GIT_CONFIG_VALUE_1": dir + "/env.inc",
		"GIT_CONFIG_PARAMETERS": "'filter.f.clean'='sh tools/p.sh'",
	}
	withVars := func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return env(k)
	}
	bindEnv := func() (*landlock.Spec, error) {
		b, err := landlock.DefaultBindings(dir, withVars)
		if err != nil {
			t.Fatal(err)
		}
		spec, _, err := plan.Bind(b, landlock.BindOptions{KernelABI: 7, Supervise: true, Getenv: withVars})
		return spec, err
	}
	spec, err = bindEnv()
	if err != nil {
		t.Fatal(err)
	}
	ro = readOnly(spec)
	for _, want := range []string{"tools/g.sh", "tools/s.sh", "tools/c.sh", "tools/p.sh", "env.inc", "tools/inc.sh"} {
		if !ro[want] {
			t.Errorf("with git's environment: %s is not read-only (read-only: %v)", want, ro)
		}
	}
	// Missing, from the environment: refused, naming it.
	vars["GIT_CONFIG_VALUE_0"] = "tools/gone.sh"
	if _, err := bindEnv(); err == nil || !strings.Contains(err.Error(), "core.fsmonitor = tools/gone.sh, in the environment") {
		t.Errorf("a missing fsmonitor hook from the environment: %v, want a refusal naming it", err)
	}
	// A global file the environment names inside the workspace is itself
	// read-only, and refused there when missing.
	vars["GIT_CONFIG_VALUE_0"] = "tools/c.sh"
	write(dir+"/ws.gitconfig", "")
	vars["GIT_CONFIG_GLOBAL"] = dir + "/ws.gitconfig"
	if spec, err := bindEnv(); err != nil || !readOnly(spec)["ws.gitconfig"] {
		t.Errorf("GIT_CONFIG_GLOBAL in the workspace: %v, want it read-only", err)
	}
	vars["GIT_CONFIG_GLOBAL"] = dir + "/none.gitconfig"
	if _, err := bindEnv(); err == nil || !strings.Contains(err.Error(), "GIT_CONFIG_GLOBAL = "+dir+"/none.gitconfig, in the environment") {
		t.Errorf("a missing GIT_CONFIG_GLOBAL in the workspace: %v, want a refusal naming it", err)
	}
	vars["GIT_CONFIG_GLOBAL"] = outside + "/global"
	// The repository GIT_DIR names: read-only in the workspace, its
	// configuration read, and refused there when missing.
	if err := os.MkdirAll(dir+"/other.git", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir+"/tools/dirhooks", 0o755); err != nil {
		t.Fatal(err)
	}
	write(dir+"/other.git/config", "[core]\n\thooksPath = tools/dirhooks\n")
	vars["GIT_DIR"] = dir + "/other.git"
	if spec, err := bindEnv(); err != nil || !readOnly(spec)["other.git"] || !readOnly(spec)["tools/dirhooks"] {
		t.Errorf("GIT_DIR in the workspace: %v, want it and the hooks its configuration names read-only", err)
	}
	vars["GIT_DIR"] = dir + "/none.git"
	if _, err := bindEnv(); err == nil || !strings.Contains(err.Error(), "GIT_DIR = "+dir+"/none.git, in the environment") {
		t.Errorf("a missing GIT_DIR in the workspace: %v, want a refusal naming it", err)
	}
	// Outside the writable roots, with GIT_WORK_TREE the workspace: only
	// what its configuration names there.
	if err := os.MkdirAll(outside+"/bare.git", 0o755); err != nil {
		t.Fatal(err)
	}
	write(outside+"/bare.git/config", "[core]\n\thooksPath = tools/dirhooks\n")
	vars["GIT_DIR"], vars["GIT_WORK_TREE"] = outside+"/bare.git", dir
	if spec, err := bindEnv(); err != nil || !readOnly(spec)["tools/dirhooks"] || readOnly(spec)["other.git"] {
		t.Errorf("GIT_DIR outside, GIT_WORK_TREE the workspace: %v, want the hooks it names read-only (and nothing else)", err)
	}
	delete(vars, "GIT_DIR")
	delete(vars, "GIT_WORK_TREE")
	// A relative include from the environment: git refuses it, so is it
	// not followed (and no refusal for what it would name).
	vars["GIT_CONFIG_VALUE_1"] = "missing.inc"
	if _, err := bindEnv(); err != nil {
		t.Errorf("a relative include from the environment: %v, want it ignored", err)
	}

	// An include cycle ends.
	write(dir+"/.git/config", "[include]\n\tpath = ../shared.inc\n")
	write(dir+"/shared.inc", "[include]\n\tpath = shared.inc\n")
	if spec, err := bind(); err != nil || !readOnly(spec)["shared.inc"] {
		t.Errorf("an include cycle: %v", err)
	}
}

// TestGitConfigTargetsAncestor: a workspace without a .git of its own
// inside a repository's working tree above it (outside the writable
// roots): the repository's configuration applies to the workspace's files,
// so a hooks directory it names inside the workspace is read-only, and a
// missing one there is refused; a workspace with its own .git is not
// governed by the repository above.
func TestGitConfigTargetsAncestor(t *testing.T) {
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	top, err := os.MkdirTemp("/var/tmp", "sbx-gitancestor-")
	if err != nil {
		t.Skip("no /var/tmp:", err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	ws := top + "/ws"
	for _, d := range []string{top + "/.git", ws + "/hooks", top + "/home"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := func(k string) string {
		if k == "HOME" {
			return top + "/home"
		}
		return ""
	}
	bind := func() (*landlock.Spec, error) {
		b, err := landlock.DefaultBindings(ws, env)
		if err != nil {
			t.Fatal(err)
		}
		spec, _, err := plan.Bind(b, landlock.BindOptions{KernelABI: 7, Supervise: true, Getenv: env})
		return spec, err
	}
	readOnly := func(spec *landlock.Spec, p string) bool {
		for _, op := range spec.Mounts {
			if op.Kind == landlock.MountReadOnly && op.Path == p {
				return true
			}
		}
		return false
	}
	if err := os.WriteFile(top+"/.git/config", []byte("[core]\n\thooksPath = ws/hooks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if spec, err := bind(); err != nil || !readOnly(spec, ws+"/hooks") {
		t.Errorf("hooks of the repository above: %v, read-only %v", err, err == nil && readOnly(spec, ws+"/hooks"))
	}
	os.Remove(ws + "/hooks")
	if _, err := bind(); err == nil || !strings.Contains(err.Error(), "core.hooksPath = ws/hooks") {
		t.Errorf("missing hooks of the repository above: %v, want a refusal", err)
	}
	// The workspace's own repository is the one git uses there.
	os.Mkdir(ws+"/.git", 0o755)
	if _, err := bind(); err != nil {
		t.Errorf("a workspace with its own .git: %v", err)
	}
}

// TestGitHookManagers: where a protected repository's hook was written by
// a hook manager, the files it takes the commands from at the top of the
// working tree are read-only when they exist and cannot be created when
// they are missing (the pre-commit framework's --config file; lefthook's
// configuration under each of its names, the local one, and its script
// directories); a hook of no known manager, a sample, or a repository
// without hooks adds nothing.
func TestGitHookManagers(t *testing.T) {
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() + "/ws"
	home := t.TempDir()
	if err := os.MkdirAll(dir+"/.git/hooks", 0o755); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	bind := func() *landlock.Spec {
		t.Helper()
		spec, err := bindWorkspaceIn(t, plan, dir, env)
		if err != nil {
			t.Fatal(err)
		}
		return spec
	}
	held := func(spec *landlock.Spec) map[string]string {
		m := map[string]string{}
		for _, op := range spec.Mounts {
			if op.Kind == landlock.MountReadOnly && strings.HasPrefix(op.Path, dir+"/") {
				m[strings.TrimPrefix(op.Path, dir+"/")] = "read-only"
			}
		}
		for _, g := range spec.Guarded {
			if strings.HasPrefix(g, dir+"/") {
				m[strings.TrimPrefix(g, dir+"/")] = "guarded"
			}
		}
		return m
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(dir+"/.git/hooks/pre-commit.sample", landlock.LefthookHook)
	write(dir+"/.git/hooks/pre-push", "#!/bin/sh\nexec make lint\n")
	base := held(bind())
	for _, p := range []string{".pre-commit-config.yaml", "lefthook.yml", "lefthook-local.yml", ".lefthook"} {
		if base[p] != "" {
			t.Errorf("no hook manager: %s is %s", p, base[p])
		}
	}

	// The pre-commit framework: its config read-only, or guarded missing.
	write(dir+"/.git/hooks/pre-commit", fmt.Sprintf(landlock.PreCommitHook, "--config=.pre-commit-config.yaml"))
	if got := held(bind())[".pre-commit-config.yaml"]; got != "guarded" {
		t.Errorf("missing .pre-commit-config.yaml: %q, want guarded", got)
	}
	write(dir+"/.pre-commit-config.yaml", "repos: []\n")
	if got := held(bind())[".pre-commit-config.yaml"]; got != "read-only" {
		t.Errorf(".pre-commit-config.yaml: %q, want read-only", got)
	}
	// Another file, in a directory of the workspace.
	os.MkdirAll(dir+"/ci", 0o755)
	write(dir+"/ci/hooks.yaml", "repos: []\n")
	write(dir+"/.git/hooks/pre-commit", fmt.Sprintf(landlock.PreCommitHook, "--config=ci/hooks.yaml"))
	if got := held(bind()); got["ci/hooks.yaml"] != "read-only" || got["ci"] != "" {
		t.Errorf("ci/hooks.yaml: %q, ci: %q, want the file alone read-only", got["ci/hooks.yaml"], got["ci"])
	}

	// lefthook, in the hooks directory core.hooksPath names: the existing
	// main file read-only, the missing names guarded, .config (missing)
	// guarded rather than each file below it.
	os.Remove(dir + "/.git/hooks/pre-commit")
	os.MkdirAll(dir+"/.githooks", 0o755)
	write(dir+"/.git/config", "[core]\n\thooksPath = .githooks\n")
	write(dir+"/.githooks/commit-msg", landlock.LefthookHook)
	write(dir+"/lefthook.yml", "pre-commit:\n  jobs: []\n")
	got := held(bind())
	for p, want := range map[string]string{
		".githooks": "read-only", "lefthook.yml": "read-only", "lefthook-local.yml": "guarded", ".lefthook.yaml": "guarded",
		".lefthook-local.jsonc": "guarded", ".lefthook": "guarded", ".lefthook-local": "guarded", ".config": "guarded",
	} {
		if got[p] != want {
			t.Errorf("lefthook: %s is %q, want %s", p, got[p], want)
		}
	}
	// An existing .config: its lefthook files are held below it.
	os.MkdirAll(dir+"/.config", 0o755)
	write(dir+"/.config/lefthook-local.yml", "")
	os.MkdirAll(dir+"/.lefthook/pre-commit", 0o755)
	got = held(bind())
	for p, want := range map[string]string{".config/lefthook-local.yml": "read-only", ".lefthook": "read-only", ".config": ""} {
		if got[p] != want {
			t.Errorf("lefthook with .config: %s is %q, want %q", p, got[p], want)
		}
	}
	// A missing file in the existing .config: .config takes no new
	// entries (restrictive), so it cannot be created.
	os.Remove(dir + "/.config/lefthook-local.yml")
	spec := bind()
	if !slices.Contains(spec.Absent, dir+"/.config/lefthook-local.yml") || !slices.Contains(spec.Absent, dir+"/.config/lefthook.toml") {
		t.Errorf("missing lefthook files in .config: not held (absent %q)", spec.Absent)
	}
}

// TestHgConfigTargets: what a protected Mercurial or Sapling repository's
// configuration makes hg or sl run on the host is read-only where it lies
// in a writable root: a hook's script (relative to the repository's root),
// the Python file of a "python:FILE:func" hook and of an extension, an
// included file and what it sets; a hook whose program is missing there
// is refused; nothing is read without a repository.
func TestHgConfigTargets(t *testing.T) {
	plan, err := builtin.Plan("workspace")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() + "/ws"
	home := t.TempDir()
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	for _, d := range []string{dir + "/.hg", dir + "/tools"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"tools/lint.sh", "tools/check.py", "tools/ext.py", "tools/shared.rc", "tools/fmt.sh", "tools/notify"} {
		write(dir+"/"+f, "")
	}
	bind := func() (*landlock.Spec, error) { return bindWorkspaceIn(t, plan, dir, env) }
	readOnly := func(spec *landlock.Spec) map[string]bool { return readOnlyBelow(spec, dir) }
	write(dir+"/.hg/hgrc", `[hooks]
precommit.lint = sh tools/lint.sh
pretxncommit.py = python:tools/check.py:run
[extensions]
local = tools/ext.py
%include ../tools/shared.rc
`)
	write(dir+"/tools/shared.rc", "[hooks]\nchangegroup = tools/notify --all\n")
	write(home+"/.hgrc", "[ui]\neditor = tools/fmt.sh\n")
	spec, err := bind()
	if err != nil {
		t.Fatal(err)
	}
	ro := readOnly(spec)
	for _, want := range []string{".hg", "tools/lint.sh", "tools/check.py", "tools/ext.py", "tools/shared.rc", "tools/notify", "tools/fmt.sh"} {
		if !ro[want] {
			t.Errorf("%s is not read-only (read-only: %v)", want, ro)
		}
	}
	if ro["tools"] {
		t.Error("tools itself is read-only: only what hg runs should be")
	}

	// A hook whose script is missing: the command could create it.
	write(dir+"/.hg/hgrc", "[hooks]\nprecommit = sh tools/missing.sh\n")
	if _, err := bind(); err == nil || !strings.Contains(err.Error(), "tools/missing.sh") || !strings.Contains(err.Error(), "[hooks] precommit = sh tools/missing.sh") {
		t.Errorf("missing hook script: %v, want a refusal naming it", err)
	}
	// A missing include in the working tree, likewise (hg skips it until
	// it exists); one inside the read-only .hg cannot be created.
	write(dir+"/.hg/hgrc", "%include ../more.rc\n")
	if _, err := bind(); err == nil || !strings.Contains(err.Error(), "%include ../more.rc") {
		t.Errorf("missing include: %v, want a refusal naming it", err)
	}
	write(dir+"/.hg/hgrc", "%include more.rc\n")
	if _, err := bind(); err != nil {
		t.Errorf("missing include inside .hg: %v", err)
	}

	// Sapling: .sl/config.
	os.RemoveAll(dir + "/.hg")
	os.Remove(home + "/.hgrc")
	os.MkdirAll(dir+"/.sl", 0o755)
	write(dir+"/.sl/config", "[hooks]\nprecommit = tools/lint.sh\n")
	spec, err = bind()
	if err != nil {
		t.Fatal(err)
	}
	if ro := readOnly(spec); !ro["tools/lint.sh"] || !ro[".sl"] || ro["tools/check.py"] {
		t.Errorf("sapling: read-only %v, want .sl and tools/lint.sh alone", ro)
	}

	// No repository: nothing read, even with hooks in the user's file.
	os.RemoveAll(dir + "/.sl")
	write(home+"/.hgrc", "[hooks]\nprecommit = tools/lint.sh\n")
	spec, err = bind()
	if err != nil {
		t.Fatal(err)
	}
	if ro := readOnly(spec); ro["tools/lint.sh"] {
		t.Error("no repository: tools/lint.sh made read-only")
	}
}

// bindWorkspaceIn binds plan with the working directory dir and the
// environment env, as sbx run would with the supervisor.
func bindWorkspaceIn(t *testing.T, plan *landlock.Plan, dir string, env func(string) string) (*landlock.Spec, error) {
	t.Helper()
	b, err := landlock.DefaultBindings(dir, env)
	if err != nil {
		t.Fatal(err)
	}
	spec, _, err := plan.Bind(b, landlock.BindOptions{KernelABI: 7, Supervise: true, Getenv: env})
	return spec, err
}

// readOnlyBelow returns the paths spec mounts read-only, relative to dir
// where they lie below it.
func readOnlyBelow(spec *landlock.Spec, dir string) map[string]bool {
	m := map[string]bool{}
	for _, op := range spec.Mounts {
		if op.Kind == landlock.MountReadOnly {
			m[strings.TrimPrefix(op.Path, dir+"/")] = true
		}
	}
	return m
}
