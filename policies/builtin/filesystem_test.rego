package sbx.builtin.filesystem_test

import data.sbx.builtin.filesystem
import data.sbx.fixtures as f

test_write_root if {
	f.codes(filesystem.deny_write_root) == {"SBX001"} with input as f.fs_input([["write", "/"]])
	f.codes(filesystem.deny_write_root) == {"SBX001"} with input as f.fs_input([["write", "/usr/local/bin"]])
	f.codes(filesystem.deny_write_root) == {"SBX001"} with input as f.fs_input([["write", "{platform_defaults}"]])
}

test_read_root_is_fine if {
	count(filesystem.deny_write_root) == 0 with input as f.fs_input([["read", "/"], ["write", "/tmp"]])
}

test_unsandboxed_profiles_are_not_linted if {
	inp := f.doc(object.union(f.profile({"rules": f.rules([["write", "/"]])}), {"unsandboxed": true}))
	count(filesystem.deny_write_root) == 0 with input as inp
}

test_write_home if {
	findings := filesystem.deny_write_home with input as f.fs_input([["read", "/"], ["write", "{home}"]])
	f.codes(findings) == {"SBX002"}
	f.lines(findings) == {3}
	f.codes(filesystem.deny_write_home) == {"SBX002"} with input as f.fs_input([["write", "/home"]])
}

test_write_home_subdirectory_is_not_write_home if {
	count(filesystem.deny_write_home) == 0 with input as f.fs_input([["write", "{home}/.cache/go-build"]])
}

test_write_startup_file_directly if {
	findings := filesystem.deny_write_startup_files with input as f.fs_input([["read", "/"], ["write", "{home}/.bashrc"]])
	f.codes(findings) == {"SBX003"}
	f.lines(findings) == {3}
}

test_write_startup_files_through_config_dir_reported_once if {
	findings := filesystem.deny_write_startup_files with input as f.fs_input([["write", "{home}/.config"]])
	count(findings) == 1
	some x in findings
	contains(x.msg, "{home}/.config/fish")
	contains(x.msg, "{home}/.config/autostart")
}

test_startup_files_kept_read_only_are_fine if {
	count(filesystem.deny_write_startup_files) == 0 with input as f.fs_input([["write", "{home}/.config"], ["read", "{home}/.config/fish"], ["read", "{home}/.config/autostart"], ["deny", "{home}/.config/systemd"], ["read", "{home}/.config/nushell"], ["read", "{home}/.config/environment.d"], ["read", "{home}/.config/autostart-scripts"], ["read", "{home}/.config/plasma-workspace"], ["read", "{home}/.config/powershell"]])
}

test_write_home_is_not_also_reported_as_startup_files if {
	count(filesystem.deny_write_startup_files) == 0 with input as f.fs_input([["write", "{home}"]])
}

test_write_git_dir if {
	f.codes(filesystem.deny_write_git_hooks) == {"SBX004"} with input as f.fs_input([["write", "{cwd}/.git/hooks"]])
	f.codes(filesystem.deny_write_git_hooks) == {"SBX004"} with input as f.fs_input([["write", "{home}/src/app/.git"]])
}

test_write_global_git_config if {
	f.codes(filesystem.deny_write_git_hooks) == {"SBX004"} with input as f.fs_input([["write", "{home}/.gitconfig"]])
	f.codes(filesystem.deny_write_git_hooks) == {"SBX004"} with input as f.fs_input([["write", "{home}/.config"]])
	count(filesystem.deny_write_git_hooks) == 0 with input as f.fs_input([["write", "{home}/.config"], ["read", "{home}/.config/git"]])
}

test_write_directory_holding_artifact if {
	findings := filesystem.deny_write_sandbox_config with input as f.fs_input([["read", "/"], ["write", "{cwd}/build"]])
	f.codes(findings) == {"SBX005"}
	some x in findings
	contains(x.msg, "artifact build/t.sbx.json")
}

test_write_directory_holding_profile if {
	f.codes(filesystem.deny_write_sandbox_config) == {"SBX005"} with input as f.fs_input([["write", "{cwd}/profiles"]])
}

test_profile_outside_workspace_is_fine if {
	inp := object.union(f.fs_input([["write", "{cwd}/build"]]), {"file": "/etc/sbx/t.hcl", "artifact": "/var/lib/sbx/t.sbx.json"})
	count(filesystem.deny_write_sandbox_config) == 0 with input as inp
	count(filesystem.warn_writable_profile_files) == 0 with input as inp
}

test_writable_workspace_warns_about_own_files if {
	findings := filesystem.warn_writable_profile_files with input as f.fs_input([["write", "{cwd}"]])
	f.codes(findings) == {"SBX016"}
	some x in findings
	contains(x.msg, "source file profiles/t.hcl")
	contains(x.msg, "artifact build/t.sbx.json")
	count(filesystem.deny_write_sandbox_config) == 0 with input as f.fs_input([["write", "{cwd}"]])
}

test_protected_profile_directory_is_fine if {
	inp := f.fs_input_with([["write", "{cwd}"]], {"protect": [f.protect("profiles", 9), f.protect("build", 10)]})
	count(filesystem.warn_writable_profile_files) == 0 with input as inp
}

test_denied_artifacts_are_fine if {
	inp := f.fs_input_with([["write", "{cwd}/build"]], {"deny_globs": [f.glob("*.sbx.json", 9)]})
	count(filesystem.deny_write_sandbox_config) == 0 with input as inp
}

test_denied_and_writable_same_path if {
	findings := filesystem.deny_denied_writable with input as f.fs_input([["write", "{cwd}/out"], ["deny", "{cwd}/out"]])
	f.codes(findings) == {"SBX006"}
	f.lines(findings) == {2}
}

test_writable_path_under_deny_glob if {
	findings := filesystem.deny_denied_writable with input as f.fs_input_with([["write", "{cwd}/node_modules/.cache"]], {"deny_globs": [f.glob("node_modules", 9)]})
	f.codes(findings) == {"SBX006"}
}

test_deny_inside_writable_root_is_a_carve_out if {
	count(filesystem.deny_denied_writable) == 0 with input as f.fs_input([["write", "{cwd}"], ["deny", "{cwd}/secrets"]])
}

test_unprotected_git if {
	findings := filesystem.deny_unprotected_git with input as f.fs_input([["read", "/"], ["write", "{cwd}"], ["write", "{tmpdir}"]])
	count(findings) == 1
	f.lines(findings) == {3}
	some x in findings
	contains(x.msg, "{cwd}, {tmpdir} are writable")
}

test_protected_git if {
	count(filesystem.deny_unprotected_git) == 0 with input as f.fs_input_with([["write", "{cwd}"]], {"protect": [f.protect(".git", 9)]})
	count(filesystem.deny_unprotected_git) == 0 with input as f.fs_input_with([["write", "{cwd}"]], {"deny_globs": [f.glob("**/.git", 9)]})
	count(filesystem.deny_unprotected_git) == 0 with input as f.fs_input([["write", "{cwd}"], ["read", "{cwd}/.git"]])
}

test_builtin_profile_files_are_not_workspace_files if {
	inp := object.union(f.fs_input([["write", "{cwd}"]]), {"file": "builtin:workspace.hcl", "artifact": "C:/x/t.sbx.json"})
	count(filesystem.warn_writable_profile_files) == 0 with input as inp
}

test_dot_directories_are_not_repositories if {
	count(filesystem.deny_unprotected_git) == 0 with input as f.fs_input([["write", "{home}/.cache/go-build"], ["write", "{home}/.npm"]])
}
