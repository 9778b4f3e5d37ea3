package compiler

import (
	"fmt"
	"strings"
	"testing"
)

// profile50 is a profile with 50 read, write and deny rules in every path
// form, plus deny globs, protected names, a network and a process block: a
// large hand-written profile.
func profile50() []byte {
	var b strings.Builder
	b.WriteString("profile \"big\" {\n  description = \"fifty rules\"\n  filesystem {\n    read = [root")
	for i := range 16 {
		fmt.Fprintf(&b, ", \"/opt/tool%d/share\"", i)
	}
	b.WriteString("]\n    write = [cwd, tmpdir")
	for i := range 15 {
		fmt.Fprintf(&b, ", path(cwd, \"build/out%d\")", i)
	}
	b.WriteString("]\n    deny = [\"~/.ssh\"")
	for i := range 15 {
		fmt.Fprintf(&b, ", \"{home}/.config/app%d/token\"", i)
	}
	b.WriteString("]\n    deny_glob = [\"**/*.pem\", { pattern = \"*.key\", max_depth = 4 }]\n    protect = [\".git\", \".agents\"]\n  }\n")
	b.WriteString("  network {\n    mode = \"ports\"\n    connect_tcp = [443, \"8000-8100\"]\n    unix_sockets = [\"/run/user/1000/ssh-agent.sock\"]\n  }\n")
	b.WriteString("  process {\n    timeout = \"30s\"\n    output_cap = \"1MiB\"\n    env {\n      inherit = \"core\"\n      set = { CI = \"1\" }\n      unset = [\"AWS_*\"]\n    }\n  }\n}\n")
	return []byte(b.String())
}

// BenchmarkCompile50Rules measures compiling one 50-rule profile from source
// to its (canonical, validated) IR, warm. Target: under 1 ms per profile.
func BenchmarkCompile50Rules(b *testing.B) {
	src := []Source{{Name: "big.hcl", Data: profile50()}}
	res, ds := CompileSources(src)
	if ds.HasErrors() || len(res.Profiles) != 1 {
		b.Fatal(ds)
	}
	if n := len(res.Profiles[0].Filesystem.Rules); n != 50 {
		b.Fatalf("%d path rules, want 50", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		if res, _ := CompileSources(src); len(res.Profiles) != 1 {
			b.Fatal("no profile")
		}
	}
}

// BenchmarkCompile50RulesArtifact is BenchmarkCompile50Rules plus building
// and encoding the artifact, which is what `sbc compile` does per profile
// (without targets).
func BenchmarkCompile50RulesArtifact(b *testing.B) {
	src := []Source{{Name: "big.hcl", Data: profile50()}}
	b.ReportAllocs()
	for b.Loop() {
		res, _ := CompileSources(src)
		a, ds := Artifact(res.Profiles[0], nil)
		if ds.HasErrors() {
			b.Fatal(ds)
		}
		if _, err := a.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileExtends measures a small profile that extends a built-in,
// which loads and parses the built-in's embedded source.
func BenchmarkCompileExtends(b *testing.B) {
	src := []Source{{Name: "dev.hcl", Data: []byte("profile \"dev\" {\n  extends = \"workspace-net\"\n  filesystem {\n    deny = [\"~/.ssh\"]\n  }\n}\n")}}
	b.ReportAllocs()
	for b.Loop() {
		res, ds := CompileSources(src)
		if ds.HasErrors() || len(res.Profiles) != 1 {
			b.Fatal(ds)
		}
	}
}
