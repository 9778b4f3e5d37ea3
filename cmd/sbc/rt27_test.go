//go:build linux

package main

// Red team pass 27: sbc compile's policy gate. Run:
// go test -count=1 ./cmd/sbc -run 'TestRT27' -v

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRT27CompilePolicyTimeout: sbc compile accepts --timeout (it shares
// check's policy flags) but ignored it: the policy it validates with ran
// without a bound, so an organisation policy that never finishes hung sbc
// compile for good (sbc check stops the same policy after its --timeout).
func TestRT27CompilePolicyTimeout(t *testing.T) {
	t.Parallel()
	sbc := rt17Bin(t)
	dir := t.TempDir()
	rt17Write(t, filepath.Join(dir, "p.hcl"), rt17Profile)
	rt17Write(t, filepath.Join(dir, "slow", "p.rego"), `package main

deny contains "slow" if {
	count([1 | some i in numbers.range(1, 100000); some j in numbers.range(1, 100000); i == 0 - j]) == 0
}
`)
	r := rt17Run(t, dir, 20*time.Second, nil, sbc, "compile", "--no-builtin", "--policy", "slow", "--timeout", "1s", "-o", "p.sbx.json", "p.hcl")
	if r.hung {
		t.Fatalf("sbc compile --timeout 1s --policy slow: still evaluating after %v", r.took.Round(time.Millisecond))
	}
	if r.code != exitUsage || !strings.Contains(r.stderr, "--timeout") {
		t.Errorf("exit %d, want %d with the timeout reported; stderr:\n%s", r.code, exitUsage, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "p.sbx.json")); err == nil {
		t.Errorf("an artifact was written although its policy did not finish")
	}
}

// TestRT27CompileBuiltinPrefixFile: sbc compile skips the built-in rules
// for built-in profiles (their choices are deliberate), and told them
// apart by the file name alone ("builtin:NAME.hcl"). A user's file of
// that name is legal: its profile writing "/" (SBX001, a failure) was
// compiled into an artifact that sbc check fails.
func TestRT27CompileBuiltinPrefixFile(t *testing.T) {
	t.Parallel()
	sbc := rt17Bin(t)
	dir := t.TempDir()
	const evil = "profile \"evil\" {\n  filesystem {\n    write = [root]\n  }\n}\n"
	rt17Write(t, filepath.Join(dir, "builtin:evil.hcl"), evil)
	rt17Write(t, filepath.Join(dir, "evil.hcl"), evil)
	// Control: under an ordinary name the policy refuses it.
	r := rt17Run(t, dir, time.Minute, nil, sbc, "compile", "-o", "a.sbx.json", "evil.hcl")
	if r.code != exitInvalid || !strings.Contains(r.stderr, "SBX001") {
		t.Fatalf("control: exit %d, want %d with SBX001; stderr:\n%s", r.code, exitInvalid, r.stderr)
	}
	r = rt17Run(t, dir, time.Minute, nil, sbc, "compile", "-o", "b.sbx.json", "builtin:evil.hcl")
	if r.code != exitInvalid || !strings.Contains(r.stderr, "SBX001") {
		t.Errorf("builtin:evil.hcl: exit %d, want %d with SBX001; stderr:\n%s", r.code, exitInvalid, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.sbx.json")); err == nil {
		t.Errorf("builtin:evil.hcl: an artifact writing / was written past the built-in rules")
	}
	// Control: a real built-in still skips them (network-off writes /).
	r = rt17Run(t, dir, time.Minute, nil, sbc, "compile", "-p", "network-off", "-o", "c.sbx.json")
	if r.code != exitOK {
		t.Errorf("control: -p network-off: exit %d; stderr:\n%s", r.code, r.stderr)
	}
}
