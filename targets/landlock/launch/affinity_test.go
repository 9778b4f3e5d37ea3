//go:build linux && amd64

package launch_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// cpusAllowed returns the Cpus_allowed_list lines of a /proc/PID/status
// text, in order.
func cpusAllowed(status string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^Cpus_allowed_list:\s*(\S+)$`).FindAllStringSubmatch(status, -1) {
		out = append(out, cpuList(m[1]))
	}
	return out
}

// cpuList writes a CPU list ("0-2,5" as /proc prints it, "0,1,2,5" as
// taskset does) in /proc's form.
func cpuList(l string) string {
	var cpus []int
	for _, part := range strings.Split(l, ",") {
		lo, hi, ok := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if ok {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil {
			return l
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	var out []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			out = append(out, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			out = append(out, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(out, ",")
}

// TestInitRestoresAffinity: sbx steers the sandbox's init off its own CPU
// right after the clone (steerInit), and the init restores the mask it
// inherited before it starts the command's process. The command and the
// init (PID 1 of the sandbox) end with sbx's mask: the whole mask when
// sbx may use every CPU, and the one CPU it was pinned to (taskset), where
// there is nothing to steer to. Without the restore the command would run
// on every CPU but the one sbx was on.
func TestInitRestoresAffinity(t *testing.T) {
	self, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	own := cpusAllowed(string(self))
	if len(own) != 1 {
		t.Fatalf("no Cpus_allowed_list in /proc/self/status")
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("taskset is missing")
	}
	// The init's mask through sched_getaffinity (taskset -p): the
	// sandbox's /proc hides the init (hidepid=invisible), printed as a
	// status line.
	script := `cat /proc/self/status; taskset -pc 1 | sed 's/.*: /Cpus_allowed_list:	/'`
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		r := rtShell(t, f, "workspace", f.ws, script)
		if got := cpusAllowed(r.Stdout); len(got) != 2 || got[0] != own[0] || got[1] != own[0] {
			t.Errorf("command and init: Cpus_allowed_list %q, want sbx's %q for both\n%s", got, own[0], r.Stderr)
		}
		// Pinned to one CPU (the first sbx may use): sbx has nowhere to
		// steer the init, and both keep the pin.
		first := regexp.MustCompile(`^\d+`).FindString(own[0])
		o := rtOpts{u: u, args: []string{"--cwd", f.ws, "--profile", "workspace", "--", "/bin/sh", "-c", script}, env: []string{"HOME=" + f.home}}
		cmd := rtCmd(o)
		cmd.Args = append([]string{"taskset", "-c", first}, cmd.Args...)
		cmd.Path, err = exec.LookPath("taskset")
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("taskset -c %s sbx: %v\n%s", first, err, out)
		}
		var pr rtResult
		if err := json.Unmarshal(out, &pr); err != nil || pr.SbxError != "" {
			t.Fatalf("taskset -c %s sbx: %v %s\n%s", first, err, pr.SbxError, out)
		}
		if got := cpusAllowed(pr.Stdout); len(got) != 2 || got[0] != first || got[1] != first {
			t.Errorf("pinned to CPU %s: command and init Cpus_allowed_list %q, want %q for both\n%s", first, got, first, out)
		}
	})
}
