# METADATA
# title: Filesystem write rules
# description: |
#   Built-in rules about what a profile lets the sandboxed command modify.
#   Each finding points at the path rule that grants the access.
package sbx.builtin.filesystem

import data.sbx.lib

_rules := lib.rules

# _writes are the indices of the write rules.
_writes := [i | some i, r in _rules; r.access == "write"]

_system_dirs := {
	"bin", "boot", "etc", "lib", "lib32", "lib64", "libx32", "sbin", "usr", "System", "Library", "private/etc",
	# Red team 28: what the host runs from /var (crontabs, package managers'
	# databases and maintainer scripts), which sbx itself refuses as a
	# writable working directory (runDirs in targets/landlock/bind.go).
	"var/spool", "var/lib/dpkg", "var/lib/apt", "var/lib/ucf", "var/cache/debconf",
	"var/lib/rpm", "var/lib/dnf", "var/lib/yum", "var/lib/pacman", "var/lib/apk",
	"var/lib/systemd", "var/lib/polkit-1", "var/lib/dbus", "var/lib/pam", "var/lib/sudo",
	"var/lib/AccountsService",
	# Red team 29: the rest of what sbx refuses as a writable working
	# directory (runDirs and kernelDirs in targets/landlock/bind.go):
	# /run's counterparts of /etc (systemd units, udev rules, modprobe.d's
	# install commands, all run as root), and the kernel's interfaces
	# (/proc/sys/kernel/core_pattern names a program the kernel runs as
	# root).
	"run/systemd", "run/udev", "run/modprobe.d", "run/tmpfiles.d", "run/sysctl.d", "run/binfmt.d",
	"run/environment.d", "proc", "sys",
}

# _host_dirs hold system directories or other users' and services' files:
# writing one whole is writing the system (sbx refuses each as a writable
# working directory too: hostDirs in targets/landlock/bind.go; /home is
# SBX002's).
_host_dirs := {"var", "run", "opt", "srv"}

# _dev_harmless are the device files every program writes (and /dev/shm,
# a tmpfs of its own); any other path in /dev is the host's devices
# (a disk, a terminal, the kernel's memory).
_dev_harmless := {
	"dev/null", "dev/zero", "dev/full", "dev/random", "dev/urandom", "dev/tty", "dev/pts", "dev/ptmx",
	"dev/shm", "dev/fd", "dev/stdin", "dev/stdout", "dev/stderr",
}

# METADATA
# title: write-root
# description: |
#   A profile that can write "/" (or the platform's system directories) can
#   modify the operating system itself: programs on PATH, libraries, system
#   configuration. Anything it changes runs later outside the sandbox, so
#   such a profile is not a sandbox. Grant write access to the workspace and
#   temporary directories instead.
# custom:
#   code: SBX001
#   severity: failure
deny_write_root contains {
	"code": "SBX001",
	"msg": sprintf("%s is writable: the sandbox could modify the operating system, and what it changes runs outside the sandbox later", [lib.path_string(r.path)]),
	"node": r,
} if {
	lib.sandboxed
	some i in _writes
	r := _rules[i]
	_system_path(r.path)
}

# Red team 29: a write rule above a system directory (/var holds
# /var/spool/cron, /run holds /run/systemd) makes it writable as much as a
# rule on it does, unless a more specific rule narrows it again.
deny_write_root contains {
	"code": "SBX001",
	"msg": sprintf("%s makes system directories writable: %s; the sandbox could modify the operating system, and what it changes runs outside the sandbox later", [lib.path_string(_rules[i].path), concat(", ", sort(dirs))]),
	"node": _rules[i],
} if {
	lib.sandboxed
	some i, dirs in _writes_above_system
}

_writes_above_system := {i: dirs |
	some [i, _] in _above_system
	dirs := {d | some [j, d] in _above_system; j == i}
}

# _above_system are [rule index, directory] pairs: a system directory and
# the write rule above it that decides it, as a write (asked once per
# system directory, not per rule: profiles have thousands of rules).
_above_system contains [a.rule, concat("", ["/", d])] if {
	some d in _system_dirs
	a := sbx.access(lib.fs, "root", d)
	a.access == "write"
	r := _rules[a.rule]
	r.path.anchor == "root"
	r.path.rel != ""
	r.path.rel != d
	not _system_path(r.path)
}

_system_path(p) if {
	p.anchor == "root"
	p.rel == ""
}

_system_path(p) if p.anchor == "platform_defaults"

_system_path(p) if {
	p.anchor == "root"
	p.rel != ""
	count(lib.ancestors(p.rel) & _system_dirs) > 0
}

_system_path(p) if {
	p.anchor == "root"
	p.rel in _host_dirs
}

_system_path(p) if {
	p.anchor == "root"
	lib.within(p.rel, "dev")
	count(lib.ancestors(p.rel) & _dev_harmless) == 0
}

# A user's runtime directory ($XDG_RUNTIME_DIR): its systemd/ and dbus-1/
# hold units and services the user's manager runs outside the sandbox.
_system_path(p) if {
	p.anchor == "root"
	regex.match(`^run/user(/[^/]+(/(systemd|dbus-1)(/.*)?)?)?$`, p.rel)
}

# METADATA
# title: write-home
# description: |
#   Write access to the whole home directory lets the sandboxed command plant
#   code that runs outside the sandbox (shell start-up files, git hooks and
#   configuration, editor plugins, autostart entries) and tamper with
#   credentials. Grant write access to the project and to the few
#   directories the tool needs (a cache under {home}/.cache/TOOL) instead.
# custom:
#   code: SBX002
#   severity: failure
deny_write_home contains {
	"code": "SBX002",
	"msg": sprintf("%s is writable: the sandbox could modify every file in your home directory, including shell start-up files and credentials", [lib.path_string(r.path)]),
	"node": r,
} if {
	lib.sandboxed
	some i in _writes
	r := _rules[i]
	_home_path(r.path)
}

_home_path(p) if {
	p.anchor == "home"
	p.rel == ""
}

# /home and /Users hold every user's home directory.
_home_path(p) if {
	p.anchor == "root"
	p.rel in {"home", "Users"}
}

# Red team 28: a user's home by its absolute path (root's, or one below
# /home or /Users) is a home too, as SBX007 reads /root.
_home_path(p) if {
	p.anchor == "root"
	_user_home(p.rel) == p.rel
}

# _user_home(rel) is the user's home directory, relative to /, that rel is
# or lies in: "root", "home/NAME" or "Users/NAME".
_user_home(rel) := "root" if lib.within(rel, "root")

_user_home(rel) := h if {
	parts := split(rel, "/")
	count(parts) >= 2
	parts[0] in {"home", "Users"}
	h := concat("/", array.slice(parts, 0, 2))
}

# Files and directories below $HOME that run code when a shell or a desktop
# session starts.
startup_files := {
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
	".cshrc", ".tcshrc", ".kshrc", ".mkshrc",
	".config/fish", ".config/nushell", ".config/autostart", ".config/systemd/user",
	".config/environment.d", ".pam_environment", ".xprofile", ".xsessionrc",
	# Red team 28: what runs at the next login or command without being a
	# shell's start-up file: sshd runs ~/.ssh/rc at every login and
	# honours any key in authorized_keys, ssh runs ~/.ssh/config's
	# ProxyCommand and LocalCommand, and ~/.local/bin and ~/bin are on
	# PATH (before /usr/bin) in the distributions' default .profile.
	".ssh/rc", ".ssh/config", ".ssh/authorized_keys", ".local/bin", "bin",
	# Red team 29: what the distributions' default start-up files source
	# (Debian's and Ubuntu's .bashrc reads ~/.bash_aliases, Fedora's every
	# file in ~/.bashrc.d; bash-completion sources ~/.bash_completion and
	# loads ~/.local/share/bash-completion's completions when a command is
	# completed), what X sessions run (startx runs .xinitrc, display
	# managers .xsession; KDE Plasma runs .config/autostart-scripts and
	# .config/plasma-workspace/env and shutdown), the user's systemd units
	# in ~/.local/share/systemd/user, and PowerShell's profile.
	".bash_aliases", ".bashrc.d", ".bash_completion", ".local/share/bash-completion",
	".xinitrc", ".xsession", ".config/autostart-scripts", ".config/plasma-workspace/env",
	".config/plasma-workspace/shutdown", ".local/share/systemd/user", ".config/powershell",
}

# METADATA
# title: write-startup-files
# description: |
#   Shell start-up files (.bashrc, .profile, .zshrc, ...) and session
#   autostart entries run every time you open a terminal or log in, outside
#   any sandbox. A profile that can write them lets the sandboxed command
#   escape at your next shell. Keep them read-only: narrow the write rule, or
#   add a deny or read rule for the file.
# custom:
#   code: SBX003
#   severity: failure
deny_write_startup_files contains {
	"code": "SBX003",
	"msg": sprintf("%s makes shell and session start-up files writable: %s; they run outside the sandbox at your next shell or login", [lib.path_string(_rules[i].path), _home_list(files)]),
	"node": _rules[i],
} if {
	lib.sandboxed
	some i, files in _writable_below_home(startup_files)
}

# _writable_below_home(names) maps the index of each write rule below
# {home} to the entries of names it makes writable. Writing all of {home}
# or "/" is reported once, by SBX002 and SBX001.
_writable_below_home(names) := {i: files |
	hits := _home_hits(names)
	some [i, _] in hits
	files := {f | some [j, f] in hits; j == i}
}

# _home_hits are [rule index, file] pairs: a write rule below a home
# directory that makes one of names writable, the file as a path string.
# Red team 28: a write rule inside one of the names (git's own
# "{home}/.config/git/config", "{home}/.config/fish/config.fish") counts
# as well as one on or above it, and so do rules below a home directory
# written as an absolute path ("/root/.bashrc", "/home/alice/.gitconfig").
_home_hits(names) := (_anchored_hits(names) | _below_hits(names)) | _absolute_hits(names)

_anchored_hits(names) := {[a.rule, sprintf("{home}/%s", [f])] |
	_writes_below_home
	some f in names
	a := sbx.access(lib.fs, "home", f)
	a.access == "write"
	r := lib.xrules[a.rule]
	r.path.anchor == "home"
	r.path.rel != ""
}

_below_hits(names) := {[i, lib.path_string(_rules[i].path)] |
	some [i, _, rel] in _home_writes
	some f in lib.ancestors(rel)
	f != rel
	f in names
	sbx.access(lib.fs, _rules[i].path.anchor, _rules[i].path.rel).access == "write"
}

_absolute_hits(names) := {[a.rule, sprintf("/%s", [p])] |
	some f in names
	some rel in lib.ancestors(f) # the rule is on or above the file
	some [i, h] in _home_writes_at[rel]
	h != ""
	p := concat("/", [h, f])
	a := sbx.access(lib.fs, "root", p)
	a.access == "write"
	a.rule == i
}

# _home_writes are [rule index, home, rel] for the write rules strictly
# below a home directory: home "" for {home}/REL, else "root", "home/NAME"
# or "Users/NAME" for /root/REL, /home/NAME/REL, /Users/NAME/REL.
# _home_writes_at groups them by rel (computed once: profiles have
# thousands of rules, and the hit sets above are asked for two lists).
_home_writes contains [i, "", r.path.rel] if {
	some i in _writes
	r := _rules[i]
	r.path.anchor == "home"
	r.path.rel != ""
}

_home_writes contains [i, h, rel] if {
	some i in _writes
	r := _rules[i]
	r.path.anchor == "root"
	h := _user_home(r.path.rel)
	r.path.rel != h
	rel := substring(r.path.rel, count(h) + 1, -1)
}

_home_writes_at[rel] contains [i, h] if some [i, h, rel] in _home_writes

_writes_below_home if {
	some i in _writes
	_rules[i].path.anchor == "home"
	_rules[i].path.rel != ""
}

_home_list(files) := concat(", ", sort(files))

# Git configuration that can name programs git runs (core.hooksPath,
# core.fsmonitor, core.sshCommand, aliases).
git_config_files := {".gitconfig", ".config/git"}

# METADATA
# title: write-git-hooks
# description: |
#   Git runs hooks from .git/hooks and programs named in its configuration
#   (core.hooksPath, core.fsmonitor, core.sshCommand) with your full
#   privileges the next time you run git outside the sandbox. A profile that
#   writes inside a .git directory or to the global git configuration lets
#   the sandboxed command escape that way. Protect .git (protect = [".git"])
#   and keep ~/.gitconfig read-only.
# custom:
#   code: SBX004
#   severity: failure
deny_write_git_hooks contains {
	"code": "SBX004",
	"msg": sprintf("%s is writable and lies inside a .git directory: git hooks and configuration written there run outside the sandbox", [lib.path_string(r.path)]),
	"node": r,
} if {
	lib.sandboxed
	some i in _writes
	r := _rules[i]
	contains(concat("", ["/", r.path.rel, "/"]), "/.git/")
}

deny_write_git_hooks contains {
	"code": "SBX004",
	"msg": sprintf("%s makes git configuration writable: %s; it can name programs (core.hooksPath, core.fsmonitor) that git runs outside the sandbox", [lib.path_string(_rules[i].path), _home_list(files)]),
	"node": _rules[i],
} if {
	lib.sandboxed
	some i, files in _writable_below_home(git_config_files)
}

# _self_files are the profile's own source file and its compiled artifact,
# as paths relative to the workspace ({cwd}), assuming sbx runs in the
# directory sbc was run from (the usual case for profiles kept in a
# repository).
_self_files contains ["source file", f] if f := _workspace_path(input.file)

_self_files contains ["artifact", f] if f := _workspace_path(object.get(input, "artifact", ""))

# _workspace_path returns p as a clean path relative to the workspace, when
# it is one. Red team 28: "src//p.hcl" and "src/./p.hcl" name a file in
# the workspace too (empty and "." components are dropped; sbc compile
# passes its -o path relative to the current directory, cleaned).
_workspace_path(p) := f if {
	not p in {"-", "<stdin>"} # standard output or input: no file
	not startswith(p, "/")
	not contains(p, ":")
	not contains(p, "\\")
	parts := [c | some c in split(p, "/"); not c in {"", "."}]
	count(parts) > 0
	every c in parts {
		c != ".."
	}
	f := concat("/", parts)
}

# _writable_self_files maps the index of a rule to the profile's own files
# it makes writable.
_writable_self_files := {i: files |
	some [i, _] in _self_hits
	files := {x | some [j, x] in _self_hits; j == i}
}

_self_hits := {[a.rule, sprintf("%s %s", [what, f])] |
	some [what, f] in _self_files
	a := sbx.access(lib.fs, "cwd", f)
	a.access == "write"
}

# METADATA
# title: write-sandbox-config
# description: |
#   A sandbox that can rewrite its own profile or compiled artifact can
#   grant itself any access the next time it is started: sbx enforces
#   whatever the artifact says. A write rule that names the directory
#   holding them (such as {cwd}/build when artifacts are compiled there)
#   is such an escape. Compile artifacts outside the directories the
#   sandbox writes, or deny them (deny_glob = ["*.sbx.json"]).
# custom:
#   code: SBX005
#   severity: failure
deny_write_sandbox_config contains {
	"code": "SBX005",
	"msg": sprintf("%s makes this profile's %s writable: the sandbox could rewrite what sbx enforces and lift its restrictions", [lib.path_string(_rules[i].path), concat(" and ", sort(files))]),
	"node": _rules[i],
} if {
	lib.sandboxed
	some i, files in _writable_self_files
	_rules[i].path.anchor == "cwd"
	_rules[i].path.rel != ""
}

# METADATA
# title: writable-profile-files
# description: |
#   When sbx runs in the directory sbc checks from (the usual case for a
#   profile kept in a repository), a writable workspace makes the profile's
#   own source file and its artifact (NAME.sbx.json) writable too. A
#   sandboxed command could then edit them, and the next run would enforce
#   its edit. Protect the directory that holds them (protect = ["profiles"]
#   for profiles/ in the workspace), deny the artifacts (deny_glob =
#   ["*.sbx.json"]), or keep them outside the workspace.
# custom:
#   code: SBX016
#   severity: warning
warn_writable_profile_files contains {
	"code": "SBX016",
	"msg": sprintf("%s makes this profile's %s writable when sbx runs in this directory: the sandbox could rewrite what sbx enforces", [lib.path_string(_rules[i].path), concat(" and ", sort(files))]),
	"node": _rules[i],
} if {
	lib.sandboxed
	some i, files in _writable_self_files
	_rules[i].path.anchor == "cwd"
	_rules[i].path.rel == ""
}

# METADATA
# title: denied-and-writable
# description: |
#   A path that is both denied and writable is a contradiction: the deny
#   wins (a deny rule beats a write rule on the same path, and nothing
#   reopens a path a deny_glob matches), so the write rule does not do what
#   its author meant. Remove one of them.
# custom:
#   code: SBX006
#   severity: failure
deny_denied_writable contains {
	"code": "SBX006",
	"msg": sprintf("%s is both writable and denied (deny rule at line %d): the deny wins, so this write rule has no effect", [lib.path_string(w.path), lib.line(d)]),
	"node": w,
} if {
	lib.sandboxed
	some i in _writes
	w := _rules[i]
	_denied_paths[w.path]
	some d in _rules
	d.access == "deny"
	d.path == w.path
}

_denied_paths := {r.path | some r in _rules; r.access == "deny"}

deny_denied_writable contains {
	"code": "SBX006",
	"msg": sprintf("%s is writable but deny_glob %q (line %d) matches it: the glob wins, so this write rule has no effect", [lib.path_string(w.path), g.pattern, lib.line(g)]),
	"node": w,
} if {
	lib.sandboxed
	count(lib.globs) > 0
	some i in _writes
	w := _rules[i]
	g := lib.denying_glob(w.path.anchor, w.path.rel)
}

# METADATA
# title: unprotected-git
# description: |
#   A writable root that may hold a git repository (the workspace above all)
#   also makes its .git directory writable unless .git is protected, and
#   .git/hooks and .git/config name programs git runs outside the sandbox.
#   Add protect = [".git"] to the profile. The finding is reported once, at
#   the first such root, and lists them all; dot-directories such as
#   {home}/.cache are not taken for repositories.
# custom:
#   code: SBX009
#   severity: failure
deny_unprotected_git contains {
	"code": "SBX009",
	"msg": sprintf("%s %s writable but .git below %s is not protected: git hooks written there run outside the sandbox; add protect = [\".git\"]", [concat(", ", roots), verb, pron]),
	"node": _rules[first],
} if {
	lib.sandboxed
	not _git_name_denied
	idx := [i | some i in _writes; _git_exposed(_rules[i])]
	count(idx) > 0
	first := idx[0]
	roots := sort({lib.path_string(_rules[i].path) | some i in idx})
	verb := {true: "is", false: "are"}[count(roots) == 1]
	pron := {true: "it", false: "them"}[count(roots) == 1]
}

_git_exposed(r) if {
	sbx.access(lib.fs, r.path.anchor, lib.join(r.path.rel, ".git")).access == "write"
	not contains(concat("", ["/", r.path.rel, "/"]), "/.git/")
	not _home_path(r.path)
	not _system_path(r.path)
	not _dot_entry(r.path)
}

# Dot-files and dot-directories and what lies below them ({home}/.bashrc,
# {home}/.cache/go-build) are not repositories.
_dot_entry(p) if {
	some c in split(p.rel, "/")
	startswith(c, ".")
}

_git_name_denied if lib.name_glob_denied(".git")
