//go:build linux

package main

// Red team pass 17: sbc on hostile or odd input, for what testscript
// cannot express (hangs that need a deadline, memory limits, crafted
// artifacts). Each test asserts the correct behaviour, so a bug is a
// failing test. Run: go test ./cmd/sbc -run 'TestRT17' -v

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/compiler"
)

// rt17Bin returns the path of an "sbc" that runs this test binary as sbc
// (testscript.Main dispatches on the program's base name).
func rt17Bin(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "sbc")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

type rt17Result struct {
	code           int
	stdout, stderr string
	hung           bool
	took           time.Duration
}

// rt17Run runs argv (argv[0] a program) in dir with a deadline; a run that
// does not end by then is killed and reported as hung.
func rt17Run(t *testing.T, dir string, limit time.Duration, env []string, argv ...string) rt17Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, env...), os.Environ()...)
	cmd.Stdin = nil // /dev/null
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	start := time.Now()
	err := cmd.Run()
	r := rt17Result{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ctx.Err() != nil {
		r.hung = true
		return r
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", argv, err)
	}
	return r
}

// rt17Crashed reports Go runtime crash output.
func rt17Crashed(s string) bool {
	for _, w := range []string{"goroutine ", "panic:", "fatal error:", "SIGSEGV"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

const rt17Profile = `profile "a" {
  filesystem {
    read  = [root]
    write = [home]
  }
}
`

func rt17Write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rt17Mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRT17StrayFIFOInWalkedDir: a FIFO whose name matches what a directory
// walk collects (*.hcl for check and fmt; *.rego, *_test.rego, data.json
// for --policy and test) must not hang sbc: nobody will ever write to it.
// (sbx's --artifact opens without blocking; sbc check's artifacts too.)
func TestRT17StrayFIFOInWalkedDir(t *testing.T) {
	t.Parallel()
	sbc := rt17Bin(t)
	dir := t.TempDir()
	rt17Write(t, filepath.Join(dir, "profiles", "ok.hcl"), rt17Profile)
	rt17Mkfifo(t, filepath.Join(dir, "profiles", "stray.hcl"))
	rt17Write(t, filepath.Join(dir, "p.hcl"), rt17Profile)
	rt17Write(t, filepath.Join(dir, "pol", "p.rego"), "package main\n\nwarn contains \"x\" if true\n")
	rt17Mkfifo(t, filepath.Join(dir, "pol", "stray.rego"))
	rt17Write(t, filepath.Join(dir, "dat", "p.rego"), "package main\n\nwarn contains \"x\" if true\n")
	rt17Mkfifo(t, filepath.Join(dir, "dat", "data.json"))
	rt17Write(t, filepath.Join(dir, "tests", "p_test.rego"), "package main_test\n\ntest_ok if true\n")
	rt17Mkfifo(t, filepath.Join(dir, "tests", "stray_test.rego"))

	for _, args := range [][]string{
		{"check", "profiles"},
		{"fmt", "-check", "profiles"},
		{"fmt", "profiles"},
		{"check", "--policy", "pol", "p.hcl"},
		{"check", "--policy", "dat", "p.hcl"},
		{"compile", "--policy", "pol", "p.hcl", "-o", "-"},
		{"test", "tests"},
	} {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			t.Parallel()
			r := rt17Run(t, dir, 4*time.Second, nil, append([]string{sbc}, args...)...)
			if r.hung {
				t.Errorf("sbc %s: still running after %v (blocked opening a FIFO found by the directory walk); stderr: %q",
					strings.Join(args, " "), r.took.Round(time.Millisecond), r.stderr)
				return
			}
			if rt17Crashed(r.stderr) {
				t.Errorf("sbc %s crashed: %s", strings.Join(args, " "), r.stderr)
			}
		})
	}
}

// TestRT17ArtifactSourceNotRegular: `sbc check X.sbx.json` reads the HCL
// file the artifact was compiled from to show snippets. When that name is
// now a FIFO or a device (or a symlink to one), check must neither hang
// nor read without bound: the artifact is what is checked.
func TestRT17ArtifactSourceNotRegular(t *testing.T) {
	t.Parallel()
	sbc := rt17Bin(t)

	setup := func(t *testing.T) string {
		dir := t.TempDir()
		rt17Write(t, filepath.Join(dir, "src.hcl"), rt17Profile)
		r := rt17Run(t, dir, 20*time.Second, nil, sbc, "compile", "--no-builtin", "src.hcl", "-o", "a.sbx.json")
		if r.code != 0 {
			t.Fatalf("compile: %d %s", r.code, r.stderr)
		}
		if err := os.Remove(filepath.Join(dir, "src.hcl")); err != nil {
			t.Fatal(err)
		}
		return dir
	}

	t.Run("fifo", func(t *testing.T) {
		t.Parallel()
		dir := setup(t)
		rt17Mkfifo(t, filepath.Join(dir, "src.hcl"))
		r := rt17Run(t, dir, 4*time.Second, nil, sbc, "check", "a.sbx.json")
		if r.hung {
			t.Errorf("sbc check a.sbx.json (its source src.hcl now a FIFO): still running after %v; stderr: %q", r.took.Round(time.Millisecond), r.stderr)
		}
	})

	t.Run("dev-zero", func(t *testing.T) {
		t.Parallel()
		dir := setup(t)
		if err := os.Symlink("/dev/zero", filepath.Join(dir, "src.hcl")); err != nil {
			t.Fatal(err)
		}
		// Reading /dev/zero without bound never ends (or exhausts
		// memory): the check must end at once, as the control does. (An
		// address-space limit made the test binary itself, OPA included,
		// fail its own allocations now and then: not used.)
		ctl := t.TempDir()
		rt17Write(t, filepath.Join(ctl, "src.hcl"), rt17Profile)
		data, err := os.ReadFile(filepath.Join(dir, "a.sbx.json"))
		if err != nil {
			t.Fatal(err)
		}
		rt17Write(t, filepath.Join(ctl, "a.sbx.json"), string(data))
		if r := rt17Run(t, ctl, 20*time.Second, nil, sbc, "check", "a.sbx.json"); r.code != 1 {
			t.Fatalf("control (src.hcl a regular file): exit %d, want 1: %s", r.code, r.stderr)
		}
		r := rt17Run(t, dir, 20*time.Second, nil, sbc, "check", "a.sbx.json")
		switch {
		case r.hung:
			t.Errorf("sbc check a.sbx.json (src.hcl -> /dev/zero): still running after %v", r.took.Round(time.Millisecond))
		case rt17Crashed(r.stderr):
			first := r.stderr
			if i := strings.Index(first, "\n\n"); i > 0 {
				first = first[:i]
			}
			t.Errorf("sbc check a.sbx.json (src.hcl -> /dev/zero) crashed after %v, exit %d: %s", r.took.Round(time.Millisecond), r.code, first)
		case r.code != 1:
			t.Errorf("exit %d, want 1 (the SBX002 failure); stderr: %s", r.code, r.stderr)
		}
	})
}

// TestRT17ArtifactSourceDisclosure: an artifact names its source file, and
// anyone can write an artifact (digests are integrity, not authenticity:
// README, Known limits). `sbc check` on an artifact from an untrusted
// change (a pull request in CI) must not print the contents of whatever
// file it names: sbc's own environment (/proc/self/environ, with the CI's
// secrets), or a private key by absolute path, line after line.
func TestRT17ArtifactSourceDisclosure(t *testing.T) {
	t.Parallel()
	sbc := rt17Bin(t)
	dir := t.TempDir()
	artifact := func(file, name, src string) {
		t.Helper()
		res, ds := compiler.CompileSources([]compiler.Source{{Name: name, Data: []byte(src)}})
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		a, ds := compiler.Artifact(res.Profiles[0], targets())
		if ds.HasErrors() || a == nil {
			t.Fatal(ds)
		}
		data, err := a.Encode()
		if err != nil {
			t.Fatal(err)
		}
		rt17Write(t, filepath.Join(dir, "pr", file), string(data))
	}
	// The organisation's policy flags the profile and every read rule (any
	// finding will do: the built-in rules' findings show snippets the same
	// way).
	rt17Write(t, filepath.Join(dir, "org", "p.rego"), "package main\n\nwarn contains {\"msg\": \"read rule\", \"node\": r} if {\n\tsome r in input.profile.filesystem.rules\n\tr.access == \"read\"\n}\n\nwarn contains {\"msg\": \"no description\", \"node\": input.profile} if input.profile.description == \"\"\n")

	// 1. /proc/self/environ: the findings at line 1 show it.
	artifact("env.sbx.json", "/proc/self/environ", rt17Profile)
	// 2. A key outside the checked tree, by absolute path: one rule on each
	// of its lines.
	key := filepath.Join(t.TempDir(), "id_ed25519")
	keyLines := []string{
		"-----BEGIN OPENSSH PRIVATE KEY-----",
		"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
		"QyNTUxOQAAACBSVDE3LXByaXZhdGUta2V5LW1hdGVyaWFsLXJ0MTctcnQxNwAAAJgAAAAA",
		"UlQxNyBzZWNyZXQga2V5IG1hdGVyaWFsIGZvciByZWQgdGVhbSBwYXNzIDE3AAAAAAAAAA",
		"-----END OPENSSH PRIVATE KEY-----",
	}
	// The rules are on lines 4-8 of the profile source (HCL needs three
	// lines to open the block), so the key file is padded by three lines.
	lines := []string{}
	for i := range keyLines {
		lines = append(lines, "      \"/r"+string(rune('a'+i))+"\",")
	}
	padded := append([]string{"x", "x", "x"}, keyLines...)
	rt17Write(t, key, strings.Join(padded, "\n")+"\n")
	artifact("key.sbx.json", key, "profile \"a\" {\n  filesystem {\n    read = [\n"+strings.Join(lines, "\n")+"\n    ]\n  }\n}\n")

	const secret = "RT17_CI_TOKEN=ghp_rt17SecretValue"
	for _, format := range []string{"text", "json", "sarif", "junit", "github"} {
		r := rt17Run(t, dir, 20*time.Second, []string{secret}, sbc, "check", "--format", format, "--policy", "org", "pr/env.sbx.json", "pr/key.sbx.json")
		if r.hung {
			t.Fatalf("--format %s: hung", format)
		}
		all := r.stdout + r.stderr
		if strings.Contains(all, "ghp_rt17SecretValue") {
			i := strings.Index(all, "RT17_CI_TOKEN")
			lo, hi := max(0, i-60), min(len(all), i+60)
			t.Errorf("sbc check --format %s pr/env.sbx.json (source \"/proc/self/environ\") printed sbc's environment: ...%q...", format, all[lo:hi])
		}
		leaked := 0
		for _, l := range keyLines {
			if strings.Contains(all, l) {
				leaked++
			}
		}
		if leaked > 0 {
			t.Errorf("sbc check --format %s pr/key.sbx.json (source %s) printed %d of the key's %d lines", format, key, leaked, len(keyLines))
		}
	}
}

// TestRT17CheckPolicyBounded: sbc test bounds each test (--timeout, 5 s by
// default), but sbc check and sbc compile --policy evaluate organisation
// policy with no bound: a rule that loops for hours hangs a CI job. The
// check must end (an evaluation error, exit 2) within a bounded time.
func TestRT17CheckPolicyBounded(t *testing.T) {
	t.Parallel()
	sbc := rt17Bin(t)
	dir := t.TempDir()
	rt17Write(t, filepath.Join(dir, "p.hcl"), rt17Profile)
	// 10^10 iterations, no allocation: hours.
	rt17Write(t, filepath.Join(dir, "slow", "p.rego"), `package main

deny contains "slow" if {
	count([1 | some i in numbers.range(1, 100000); some j in numbers.range(1, 100000); i == 0 - j]) == 0
}
`)
	// sbc test with the same body is stopped by its --timeout.
	rt17Write(t, filepath.Join(dir, "slowtest", "p_test.rego"), `package main_test

test_slow if {
	count([1 | some i in numbers.range(1, 100000); some j in numbers.range(1, 100000); i == 0 - j]) == 0
}
`)
	r := rt17Run(t, dir, 10*time.Second, nil, sbc, "test", "--timeout", "1s", "slowtest")
	if r.hung || r.code != 1 {
		t.Errorf("control: sbc test --timeout 1s: hung %v, exit %d, want 1 (the test errors out)", r.hung, r.code)
	}
	r = rt17Run(t, dir, 10*time.Second, nil, sbc, "check", "--no-builtin", "--policy", "slow", "p.hcl")
	if r.hung {
		t.Errorf("sbc check --policy slow p.hcl: still evaluating after %v (no evaluation bound, no --timeout flag)", r.took.Round(time.Millisecond))
	}
}

// TestRT17RewriteKeepsOwner: sbc fmt rewrites a file "in place,
// atomically" by renaming a new file over it, which keeps the mode but
// not the owner. Run as root (sudo, a root CI container over a mounted
// checkout) on another user's 0600 profile, it leaves a root-owned 0600
// file: its owner can no longer read or edit their own profile. gofmt
// rewrites in place and keeps the owner. Likewise sbc compile -o over an
// artifact another user owns.
func TestRT17RewriteKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (chown)")
	}
	t.Parallel()
	sbc := rt17Bin(t)
	dir := t.TempDir()
	const uid, gid = 65534, 65534
	owner := func(name string) (int, int) {
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join(dir, name), &st); err != nil {
			t.Fatal(err)
		}
		return int(st.Uid), int(st.Gid)
	}
	give := func(name string, mode os.FileMode) {
		p := filepath.Join(dir, name)
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}

	rt17Write(t, filepath.Join(dir, "mine.hcl"), "profile \"a\" {\nfilesystem {\nread = [root]\n}\n}\n")
	give("mine.hcl", 0o600)
	r := rt17Run(t, dir, 20*time.Second, nil, sbc, "fmt", "mine.hcl")
	if r.code != 0 {
		t.Fatalf("sbc fmt: exit %d: %s", r.code, r.stderr)
	}
	if u, g := owner("mine.hcl"); u != uid || g != gid {
		t.Errorf("sbc fmt mine.hcl (owned by %d:%d, mode 0600) as root: now owned by %d:%d; its owner can no longer read it", uid, gid, u, g)
	}

	r = rt17Run(t, dir, 20*time.Second, nil, sbc, "compile", "-p", "workspace", "-o", "ws.sbx.json")
	if r.code != 0 {
		t.Fatalf("sbc compile: exit %d: %s", r.code, r.stderr)
	}
	give("ws.sbx.json", 0o600)
	r = rt17Run(t, dir, 20*time.Second, nil, sbc, "compile", "-p", "read-only", "-o", "ws.sbx.json")
	if r.code != 0 {
		t.Fatalf("sbc compile: exit %d: %s", r.code, r.stderr)
	}
	if u, g := owner("ws.sbx.json"); u != uid || g != gid {
		t.Errorf("sbc compile -o ws.sbx.json (an artifact owned by %d:%d, mode 0600) as root: now owned by %d:%d", uid, gid, u, g)
	}
}

// TestRT17StdoutWriteErrors: sbc's exit status is 2 for an I/O error
// (README, sbc reference), and sbc check does report a report it could not
// write ("sbc check: writing the report: ... no space left on device",
// exit 2). Other commands ignore a failed write to standard output and
// exit 0: `sbc fmt - < dev.hcl > dev.fmt.hcl` on a full disk leaves an
// empty or partial file with status 0, which a script then moves over the
// profile.
func TestRT17StdoutWriteErrors(t *testing.T) {
	t.Parallel()
	sbc := rt17Bin(t)
	dir := t.TempDir()
	rt17Write(t, filepath.Join(dir, "p.hcl"), "profile \"a\" {\nfilesystem {\nread = [root]\n}\n}\n")
	for _, args := range [][]string{
		{"check", "p.hcl"}, // control: reports it, exit 2
		{"fmt", "-"},
		{"fmt", "-diff", "p.hcl"},
		{"profiles", "workspace"},
		{"profiles", "--json"},
		{"version"},
		{"test"},
	} {
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skip(err)
		}
		in, err := os.Open(filepath.Join(dir, "p.hcl"))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(sbc, args...)
		cmd.Dir = dir
		cmd.Stdin, cmd.Stdout = in, full
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err = cmd.Run()
		full.Close()
		in.Close()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != 2 {
			t.Errorf("sbc %s > /dev/full: exit %d, want 2 (an I/O error); stderr %q", strings.Join(args, " "), code, errb.String())
		}
	}
}

// TestRT17PolicyReadsLocalFiles: "Hermetic evaluation ... the same profile
// and policy give the same findings on every machine, offline" (README).
// http.send, net.lookup_ip_addr and opa.runtime are refused, and JSON
// Schema references to http:// URLs are disabled ("remote reference
// loading disabled"), but file:// references in json.match_schema and
// json.verify_schema are followed: policy reads any local file, its
// findings depend on the machine, and the content ends up in a message.
func TestRT17PolicyReadsLocalFiles(t *testing.T) {
	t.Parallel()
	sbc := rt17Bin(t)
	dir := t.TempDir()
	cred := filepath.Join(t.TempDir(), "credentials.json")
	rt17Write(t, cred, `{"enum": ["TOKEN-rt17-from-a-local-file"]}`)
	rt17Write(t, filepath.Join(dir, "p.hcl"), rt17Profile)
	rt17Write(t, filepath.Join(dir, "pol", "p.rego"), `package main

warn contains sprintf("%v", [errs]) if {
	[_, errs] := json.match_schema({"v": "x"}, {"type": "object", "properties": {"v": {"$ref": "file://`+cred+`"}}})
}
`)
	r := rt17Run(t, dir, 20*time.Second, nil, sbc, "check", "--no-builtin", "--policy", "pol", "p.hcl")
	if r.hung {
		t.Fatal("hung")
	}
	if strings.Contains(r.stdout+r.stderr, "TOKEN-rt17-from-a-local-file") {
		t.Errorf("sbc check: policy read %s through a JSON Schema file:// reference, exit %d: %s", cred, r.code, strings.TrimSpace(strings.SplitN(r.stdout, "\n", 2)[0]))
	}
}
