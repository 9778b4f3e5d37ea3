package sbx.builtin.process_test

import data.sbx.builtin.process
import data.sbx.fixtures as f

test_unsandboxed if {
	inp := f.doc(object.union(f.profile({"rules": f.rules([["write", "/"]])}), {"unsandboxed": true}))
	findings := process.warn_unsandboxed with input as inp
	f.codes(findings) == {"SBX013"}
	f.lines(findings) == {1}
}

test_sandboxed if {
	count(process.warn_unsandboxed) == 0 with input as f.fs_input([["read", "/"]])
}

test_inherit_all_env if {
	inp := f.doc(object.union(f.profile({}), {"process": {"timeout_ms": 0, "output_cap": 0, "env": {"inherit": "all", "set": [], "unset": []}, "source": f.src(50)}}))
	findings := process.warn_inherit_all_env with input as inp
	f.codes(findings) == {"SBX014"}
	f.lines(findings) == {50}
}

test_inherit_all_env_with_unset if {
	inp := f.doc(object.union(f.profile({}), {"process": {"timeout_ms": 0, "output_cap": 0, "env": {"inherit": "all", "set": [], "unset": ["AWS_*"]}, "source": f.src(50)}}))
	count(process.warn_inherit_all_env) == 0 with input as inp
}

test_inherit_core_env if {
	count(process.warn_inherit_all_env) == 0 with input as f.fs_input([])
}
