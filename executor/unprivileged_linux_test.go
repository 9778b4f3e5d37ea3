package executor

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// unprivilegedEnv marks the re-run of the tests as an unprivileged user.
const unprivilegedEnv = "SBX_EXECUTOR_UNPRIVILEGED"

// unprivilegedTests are re-run as nobody by TestUnprivileged: everything
// that depends on the containment mechanism.
var unprivilegedTests = []string{
	"TestCapAndDrain", "TestTimeout", "TestNoSurvivors", "TestGrandchildHoldsPipe",
	"TestDrainBound", "TestCancellation", "TestExitCodes", "TestDeathBySignal",
	"TestKilledExecutor", "TestFallbackChain", "TestEnvironmentIsExact",
	"TestOwnSession", "TestPIDOneSignals", "TestHugeArgvAndEnv", "TestKillPoints", "TestNSForkFallback",
}

// TestUnprivileged re-runs the containment tests as uid/gid 65534 when the
// suite runs as root, so that both the privileged path (PID namespace
// alone) and the unprivileged one (user and PID namespaces) are covered.
func TestUnprivileged(t *testing.T) {
	if os.Getenv(unprivilegedEnv) != "" {
		t.Skip("already unprivileged")
	}
	if os.Geteuid() != 0 {
		t.Skip("runs as root only; the other tests already run unprivileged")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv (util-linux) is missing: the unprivileged path is not covered")
	}
	// The test binary must be reachable by nobody: copy it to a fresh
	// world-readable directory.
	dir, err := os.MkdirTemp("", "sbx-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "executor.test")
	if err := copyFile(self, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin,
		"-test.run=^("+strings.Join(unprivilegedTests, "|")+")$", "-test.v", "-test.count=1")
	if testing.Short() {
		cmd.Args = append(cmd.Args, "-test.short")
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), unprivilegedEnv+"=1", "TMPDIR=/tmp", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("unprivileged run failed: %v\n%s", err, out)
	}
	// The run must have exercised the namespaces, not skipped everything.
	for _, want := range []string{"--- PASS: TestNoSurvivors/", "--- PASS: TestKilledExecutor/pid-namespace", "--- PASS: TestFallbackChain/auto_prefers_pid_namespace"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("unprivileged run lacks %q:\n%s", want, out)
		}
	}
	if testing.Verbose() {
		t.Logf("unprivileged run:\n%s", out)
	}
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
