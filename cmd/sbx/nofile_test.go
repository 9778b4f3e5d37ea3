//go:build linux

package main

import (
	"bytes"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestCommandGetsStartNofile: the command gets the open-files limit sbx
// was started with, as os/exec gives it back, not the soft limit Go
// raised for sbx itself (to the hard limit less one): sbx started with a
// soft limit of 1,024 under a hard limit of 4,096 runs a command that
// sees 1,024 and 4,096, under every profile and containment that starts
// the command with a fork of sbx's own, as root and as uid 65534.
func TestCommandGetsStartNofile(t *testing.T) {
	sbx := rt20Sbx(t)
	cases := []struct {
		name string
		args []string
		root bool // root only (cgroup containment needs a writable hierarchy)
	}{
		{"workspace", []string{"--profile", "workspace"}, false},
		{"read-only", []string{"--profile", "read-only"}, false},
		{"danger-full-access", []string{"--profile", "danger-full-access"}, false},
		{"danger-full-access/process-group", []string{"--profile", "danger-full-access", "--containment", "process-group"}, false},
		{"danger-full-access/pid-namespace", []string{"--profile", "danger-full-access", "--containment", "pid-namespace"}, false},
		{"danger-full-access/cgroup", []string{"--profile", "danger-full-access", "--containment", "cgroup"}, true},
	}
	run := func(t *testing.T, sbx, dir string, attr *syscall.SysProcAttr, args []string) {
		t.Helper()
		argv := append(append([]string{"run"}, args...), "--", "sh", "-c", "ulimit -Sn; ulimit -Hn")
		cmd := exec.Command("sh", append([]string{"-c", `ulimit -Sn 1024 && ulimit -Hn 4096 && exec "$@"`, "sh", sbx}, argv...)...)
		cmd.Dir = dir
		cmd.SysProcAttr = attr
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			if strings.Contains(stderr.String(), "cgroup") && strings.Contains(strings.Join(args, " "), "cgroup") {
				t.Skipf("no cgroup containment here: %s", stderr.String())
			}
			t.Fatalf("%v: %v\n%s", argv, err, stderr.String())
		}
		if got := strings.Fields(stdout.String()); strings.Join(got, " ") != "1024 4096" {
			t.Errorf("the command's soft and hard open-files limits: %q, want 1024 4096", got)
		}
	}
	for _, c := range cases {
		t.Run("root/"+c.name, func(t *testing.T) {
			run(t, sbx, t.TempDir(), nil, c.args)
		})
		if c.root {
			continue
		}
		t.Run("uid 65534/"+c.name, func(t *testing.T) {
			nsbx, dir, attr := rt22Nobody(t)
			run(t, nsbx, dir, attr, c.args)
		})
	}
}
