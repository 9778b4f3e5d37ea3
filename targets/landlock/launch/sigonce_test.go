//go:build linux && amd64

package launch_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sigCountSource is a command that writes one line per SIGTERM it is
// delivered (from the handler: every delivery counts, none is merged with
// a later one), then reports that it is ready and waits to be killed.
const sigCountSource = `
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
static void onterm(int s) { (void)s; write(1, "TERM\n", 5); }
int main(int argc, char **argv) {
	struct sigaction sa = {0};
	sa.sa_handler = onterm;
	sigaction(SIGTERM, &sa, 0);
	close(open(argv[1], O_CREAT | O_WRONLY, 0644));
	for (;;) pause();
}
`

// TestCancelSignalsOnce: cancellation's SIGTERM reaches the command once.
// The executor signalled the init's process group, which holds the
// command, and the init passed the signal on to every process of the
// namespace: a command still in the group got it twice, which a command
// that counts them (a second SIGTERM or Ctrl-C meaning "stop now") takes
// for an impatient second request. The executor now signals the init alone
// (executor.SignalForwarder). The command here never exits on SIGTERM, so
// the grace ends with SIGKILL, after every delivery has been written.
func TestCancelSignalsOnce(t *testing.T) {
	helper := cHelper(t, "sigcount", sigCountSource)
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		marker := filepath.Join(f.nogit, "ready")
		cmd := rtCmd(rtOpts{u: u, env: []string{"HOME=" + f.home},
			args: []string{"--profile", "workspace", "--cwd", f.nogit, "--", helper, marker}})
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !fileExists(marker); {
			time.Sleep(10 * time.Millisecond)
		}
		if !fileExists(marker) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the command never became ready")
		}
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		var r rtResult
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("%v: %q", err, out.Bytes())
		}
		if n := strings.Count(r.Stdout, "TERM\n"); n != 1 || r.Signal != "SIGKILL" {
			t.Errorf("the command got %d SIGTERMs (stdout %q), then %q; want exactly 1, then SIGKILL after the grace", n, r.Stdout, r.Signal)
		}
	})
}
