package main_test

import data.main
import data.sbx.fixtures as f

test_home_write_denied if {
	some x in main.deny_home_write with input as f.fs_input([["write", "{home}/.cache"]])
	x.code == "ACME001"
}

test_workspace_write_allowed if {
	count(main.deny_home_write) == 0 with input as f.fs_input([["write", "{cwd}"]])
}

test_network_needs_reason if {
	count(main.deny_network) == 1 with input as f.network_input({"mode": "full"})
	count(main.deny_network) == 0 with input as f.network_input({"mode": "full", "reason": "npm"})
}

test_secrets_denied if {
	count(main.deny_secrets) == 2 with input as f.fs_input([["read", "/"]])
	count(main.deny_secrets) == 0 with input as f.fs_input([["read", "/"], ["deny", "{home}/.ssh"], ["deny", "{home}/.aws"]])
}

test_legacy_exception if {
	main.exception == {["network"]} with input as object.union(f.fs_input([]), {"name": "legacy-ci"})
}
