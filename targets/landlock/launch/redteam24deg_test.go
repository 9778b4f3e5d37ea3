//go:build linux && amd64

package launch_test

// Red team 24: is degraded mode honest? For Landlock ABI caps 1..6 and the
// built-in and example profiles (testdata/profiles/*.hcl), run with
// --allow-degraded --json and check, differentially:
//
//   - the result's sandbox.not_enforced names exactly the rules and
//     features the strict refusal at the same cap names (and with the same
//     ABIs), abi is the cap, degraded says whether anything is listed;
//   - every restriction not listed really holds, probed by real system
//     calls: writes, creations and truncation outside the writable roots,
//     .git protection, denied reads, TCP connect and bind, abstract Unix
//     sockets, signals to a process outside, links and renames across the
//     roots;
//   - what the listed entries' fallbacks say is what happens (truncation
//     EROFS, cross-directory renames EXDEV, TCP denied altogether, Unix
//     socket creation denied, other processes hidden);
//   - --dry-run under the same cap reports the same sandbox as the run.
//
// Strict mode's refusal is checked in every output mode, and absurd caps.
//
// Findings (session 24): everything not listed held for all 11 profiles,
// caps 1..6, as root and nobody; not_enforced matched the strict refusal
// exactly; dry runs matched the runs. Defects, all in the report:
//   - git-ssh (ports + listed Unix sockets), caps 1..5: the fallback of
//     scope_abstract_unix_socket says "Unix socket creation is denied by
//     seccomp", but socket(AF_UNIX) succeeds (the supervisor refuses
//     abstract connects instead): TestRedTeam24DegMatrix/*/git-ssh/capN;
//   - fidelity levels stay "exact" below the rule's min_abi:
//     TestRedTeam24DegFidelityLevel;
//   - terminal-mode refusals print the rule list on one line, sbx's own
//     newlines shown as U+FFFD: TestRedTeam24DegStrictOutputModes;
//   - below the ABI, without the supervisor, the refusal omits the partial
//     `ports` rule: TestRedTeam24DegStrictNamesPartial.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/compiler/target"
	"github.com/sbx-dev/sbx/targets/landlock"
	"github.com/sbx-dev/sbx/targets/landlock/launch"
)

// rt24dProf is one profile of the matrix and what it promises.
type rt24dProf struct {
	name      string
	profile   string // built-in name, or "" for an artifact
	artifact  string // testdata/profiles file and profile name: "team.hcl:agent"
	writesAll bool   // network-off: write /
	writesCwd bool
	hgFails   bool     // creating .hg in {cwd} must fail (protected or not writable)
	gitRO     bool     // {cwd}/.git is read-only
	denied    []string // paths relative to the fixture's base that must be unreadable
	netFull   bool
	listedTCP int // a connect_tcp port listed by the profile (0: none)
}

var rt24dProfiles = []rt24dProf{
	{name: "workspace", profile: "workspace", writesCwd: true, hgFails: true, gitRO: true},
	{name: "read-only", profile: "read-only", hgFails: true, gitRO: true},
	{name: "network-off", profile: "network-off", writesAll: true, writesCwd: true},
	{name: "workspace-net", profile: "workspace-net", writesCwd: true, hgFails: true, gitRO: true, netFull: true},
	{name: "monorepo", artifact: "carveouts.hcl:monorepo", writesCwd: true, gitRO: true, denied: []string{"home/.netrc"}},
	{name: "dev", artifact: "dev.hcl:dev", writesCwd: true, hgFails: true, gitRO: true, denied: []string{"home/.ssh/id_rsa", "ws/.env", "ws/key.pem"}},
	{name: "web-dev", artifact: "ports.hcl:web-dev", writesCwd: true, hgFails: true, gitRO: true, listedTCP: 443},
	{name: "git-ssh", artifact: "sockets.hcl:git-ssh", writesCwd: true, hgFails: true, gitRO: true, listedTCP: 22},
	{name: "local-build", artifact: "sockets.hcl:local-build", writesCwd: true, hgFails: true, gitRO: true},
	{name: "ci", artifact: "team.hcl:ci", writesCwd: true, gitRO: true},
	{name: "agent", artifact: "team.hcl:agent", writesCwd: true, hgFails: true, gitRO: true, denied: []string{"home/.ssh/id_rsa", "ws/.env", "ws/key.pem"}, listedTCP: 443},
}

// rt24dArtifact compiles testdata/profiles/FILE's profile NAME to an
// artifact in bin (outside every writable root of the profiles) once.
var rt24dArtifacts = map[string]string{}

func rt24dArtifact(t *testing.T, spec string) string {
	t.Helper()
	if p, ok := rt24dArtifacts[spec]; ok {
		return p
	}
	file, name, _ := strings.Cut(spec, ":")
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "profiles", file))
	if err != nil {
		t.Fatal(err)
	}
	res, ds := compiler.CompileSources([]compiler.Source{{Name: "testdata/profiles/" + file, Data: data}})
	if ds.HasErrors() {
		t.Fatalf("compiling %s: %v", file, ds)
	}
	for _, p := range res.Profiles {
		if p.Name != name {
			continue
		}
		a, ds := target.Build(p, "test", []target.Target{landlock.Target{}})
		if ds.HasErrors() {
			t.Fatalf("artifact %s: %v", spec, ds)
		}
		enc, err := a.Encode()
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(bin, "rt24d-"+name+".json")
		if err := os.WriteFile(out, enc, 0o644); err != nil {
			t.Fatal(err)
		}
		rt24dArtifacts[spec] = out
		return out
	}
	t.Fatalf("%s: no profile %s", file, name)
	return ""
}

func (p rt24dProf) args(t *testing.T) []string {
	if p.profile != "" {
		return []string{"--profile", p.profile}
	}
	return []string{"--artifact", rt24dArtifact(t, p.artifact)}
}

// rt24dScript probes every restriction with raw-enough calls and prints
// one JSON object: name -> "ok" or the errno name.
const rt24dScript = `
import os, sys, json, socket, errno
a = json.loads(sys.argv[1])
r = {}
def t(n, f):
    try:
        f(); r[n] = "ok"
    except OSError as e:
        r[n] = errno.errorcode.get(e.errno, str(e.errno))
def app(p):
    with open(p, "a") as fh: fh.write("x")
def rd(p):
    with open(p) as fh: fh.read()
def creat(p):
    os.close(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
def conn(port):
    s = socket.socket()
    try: s.connect(("127.0.0.1", port))
    finally: s.close()
def bnd(port):
    s = socket.socket()
    try: s.bind(("127.0.0.1", port))
    finally: s.close()
def absconn():
    s = socket.socket(socket.AF_UNIX)
    try: s.connect("\0" + a["abstract"])
    finally: s.close()
def unixsock():
    socket.socket(socket.AF_UNIX).close()
def mvback(src, dst):
    os.rename(src, dst); os.rename(dst, src)
ws, out = a["ws"], a["outside"]
t("ws_write", lambda: app(ws + "/file"))
t("out_write", lambda: app(out + "/file"))
t("out_create", lambda: creat(out + "/new"))
t("out_trunc", lambda: os.truncate(out + "/file", 0))
t("git_write", lambda: app(ws + "/.git/config"))
t("git_trunc", lambda: os.truncate(ws + "/.git/config", 0))
t("git_rename", lambda: mvback(ws + "/.git", ws + "/gitmoved"))
t("hg_create", lambda: os.mkdir(ws + "/.hg"))
t("link_in", lambda: os.link(out + "/file", ws + "/linked"))
t("rename_out", lambda: mvback(ws + "/file", out + "/moved"))
t("rename_in", lambda: mvback(out + "/file", ws + "/movedin"))
t("refer", lambda: mvback(ws + "/ra/f", ws + "/rb/f"))
if a["hostport"]:
    t("tcp_conn_unlisted", lambda: conn(a["hostport"]))
t("tcp_bind_unlisted", lambda: bnd(a["bindport"]))
if a["listed"]:
    t("tcp_conn_listed", lambda: conn(a["listed"]))
t("unix_socket", unixsock)
t("abs_conn", absconn)
t("kill_outside", lambda: os.kill(a["pid"], 0))
for p in a["denied"] or []:
    t("deny:" + p, lambda p=p: rd(p))
print(json.dumps(r))
`

// rt24dRequirement is one entry of sandbox.not_enforced.
type rt24dRequirement struct {
	Feature  string `json:"feature"`
	ABI      int    `json:"abi"`
	Rule     string `json:"rule"`
	Fallback string `json:"fallback"`
	Lost     bool   `json:"lost"`
}

type rt24dSandbox struct {
	ABI         int                `json:"abi"`
	KernelABI   int                `json:"kernel_abi"`
	Degraded    bool               `json:"degraded"`
	NotEnforced []rt24dRequirement `json:"not_enforced"`
	Fidelity    []struct {
		Rule   string `json:"rule"`
		Level  string `json:"level"`
		MinABI int    `json:"min_abi"`
	} `json:"fidelity"`
}

type rt24dResult struct {
	ExitCode int             `json:"exit_code"`
	Stdout   string          `json:"stdout"`
	Stderr   string          `json:"stderr"`
	SbxError string          `json:"sbx_error"`
	Sandbox  json.RawMessage `json:"sandbox"`
}

// rt24dSbx runs sbx ARGS as u (HOME at home) and returns stdout, stderr
// and the exit status.
func rt24dSbx(t *testing.T, u user, home string, args ...string) (string, string, int) {
	t.Helper()
	if len(args) > 0 && args[0] == "run" {
		args = args[1:] // rt6Cmd says run
	}
	cmd := rt6Cmd(u, []string{"HOME=" + home}, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("sbx run %v hung", args)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

func rt24dJSON(t *testing.T, what, out string) rt24dResult {
	t.Helper()
	var r rt24dResult
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("%s: not one JSON object: %v\n%.2000s", what, err, out)
	}
	if dec.More() {
		t.Fatalf("%s: more than one JSON object on stdout:\n%.2000s", what, out)
	}
	return r
}

// rt24dNormalize drops what parallel subtests change between a dry run
// and the run: array elements naming another fixture or a shared /tmp entry (deny_glob "**/*.pem"
// matches every fixture's key.pem) and the detail of glob rules (it names
// and counts them).
func rt24dNormalize(v any, base string) any {
	switch x := v.(type) {
	case []any:
		var out []any
		for _, e := range x {
			b, _ := json.Marshal(e)
			if bytes.Contains(b, []byte("/var/tmp/sbxfx")) && !bytes.Contains(b, []byte(base)) || rt24dSharedTmp.Match(b) {
				continue
			}
			out = append(out, rt24dNormalize(e, base))
		}
		return out
	case map[string]any:
		for k, e := range x {
			x[k] = rt24dNormalize(e, base)
		}
		if r, _ := x["rule"].(string); strings.HasPrefix(r, "deny_glob") {
			x["detail"] = "(names every fixture's matches)"
		}
		return x
	}
	return v
}

// rt24dSharedTmp matches a path in /tmp other than /tmp/.NAME: other
// processes on the machine create and remove them (go-build*) between the
// dry run and the run.
var rt24dSharedTmp = regexp.MustCompile(`"/tmp/[^."]`)

// rt24dDiff names the first places where a and b differ.
func rt24dDiff(path string, a, b any) string {
	if reflect.DeepEqual(a, b) {
		return ""
	}
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			var d []string
			for k := range x {
				if s := rt24dDiff(path+"."+k, x[k], y[k]); s != "" {
					d = append(d, s)
				}
			}
			for k := range y {
				if _, ok := x[k]; !ok {
					d = append(d, fmt.Sprintf("%s.%s: only in the run", path, k))
				}
			}
			sort.Strings(d)
			return strings.Join(d, "; ")
		}
	case []any:
		if y, ok := b.([]any); ok && len(x) == len(y) {
			var d []string
			for i := range x {
				if s := rt24dDiff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); s != "" {
					d = append(d, s)
				}
			}
			return strings.Join(d, "; ")
		}
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return fmt.Sprintf("%s: dry run %.600s, run %.600s", path, ja, jb)
}

// rt24dStrictLine is one rule of the strict refusal.
var rt24dStrictLine = regexp.MustCompile(`(?m)^  (.+) \([^()]*\) needs Landlock ABI (\d+) \(Linux [0-9.]+\) for (\S+)$`)

// rt24dNamed returns "rule|feature|abi" for each rule the refusal names.
func rt24dNamed(msg string) []string {
	var s []string
	for _, m := range rt24dStrictLine.FindAllStringSubmatch(msg, -1) {
		s = append(s, m[1]+"|"+m[3]+"|"+m[2])
	}
	sort.Strings(s)
	return s
}

// rt24dListeners starts a TCP listener and an abstract Unix listener on
// the host; hit counts the connections either accepts.
func rt24dListeners(t *testing.T) (port int, abstract string, hit *atomic.Int32) {
	t.Helper()
	hit = new(atomic.Int32)
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	abstract = fmt.Sprintf("sbx-rt24deg-%d", os.Getpid())
	ul, err := net.Listen("unix", "@"+abstract)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(); ul.Close() })
	for _, ln := range []net.Listener{l, ul} {
		go func(ln net.Listener) {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				hit.Add(1)
				c.Close()
			}
		}(ln)
	}
	return l.Addr().(*net.TCPAddr).Port, abstract, hit
}

// rt24dFreePort returns a TCP port nobody listens on and no profile lists.
func rt24dFreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// rt24dFixture is newFixture plus the files the matrix probes.
func rt24dFixture(t *testing.T, u user) *fixture {
	f := newFixture(t, u)
	for p, c := range map[string]string{"home/.netrc": "machine x password y", "ws/.env": "TOKEN=1", "ws/key.pem": "KEY", "ws/ra/f": "r"} {
		full := filepath.Join(f.base, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(f.ws+"/rb", 0o755)
	filepath.Walk(f.base, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, u.uid, u.uid) })
	return f
}

// TestRedTeam24DegMatrix: profiles x caps 1..6 with --allow-degraded.
func TestRedTeam24DegMatrix(t *testing.T) {
	hostport, abstract, hit := rt24dListeners(t)
	bindport := rt24dFreePort(t)
	for _, p := range rt24dProfiles {
		p.args(t) // compile artifacts before the parallel subtests
	}
	asUser(t, func(t *testing.T, u user) {
		for _, p := range rt24dProfiles {
			for abiCap := 1; abiCap <= 6; abiCap++ {
				p, abiCap := p, abiCap
				t.Run(fmt.Sprintf("%s/cap%d", p.name, abiCap), func(t *testing.T) {
					t.Parallel()
					rt24dMatrixCase(t, u, p, abiCap, hostport, bindport, abstract)
				})
			}
		}
	})
	if n := hit.Load(); n != 0 {
		t.Errorf("a host listener (TCP 127.0.0.1:%d or @%s) accepted %d connections from sandboxed commands", hostport, abstract, n)
	}
}

func rt24dIf(c bool, a, b int) int {
	if c {
		return a
	}
	return b
}

func rt24dMatrixCase(t *testing.T, u user, p rt24dProf, abiCap, hostport, bindport int, abstract string) {
	f := rt24dFixture(t, u)
	var denied []string
	for _, d := range p.denied {
		denied = append(denied, filepath.Join(f.base, d))
	}
	probeArgs, _ := json.Marshal(map[string]any{
		"ws": f.ws, "outside": f.outside, "hostport": rt24dIf(p.netFull, 0, hostport), "bindport": bindport,
		"listed": p.listedTCP, "abstract": abstract, "pid": os.Getpid(), "denied": denied,
	})
	capArgs := append([]string{"--landlock-abi-cap", strconv.Itoa(abiCap)}, p.args(t)...)
	capArgs = append(capArgs, "--cwd", f.ws)
	cmdArgs := []string{"--", rt11Python, "-c", rt24dScript, string(probeArgs)}

	// Strict refusal at this cap: the rules it names.
	out, _, code := rt24dSbx(t, u, f.home, append(append([]string{"run", "--json"}, capArgs...), cmdArgs...)...)
	strict := rt24dJSON(t, "strict", out)
	var named []string
	if strict.SbxError != "" {
		if code != 125 || strict.ExitCode != 125 {
			t.Errorf("strict refusal: sbx exit %d, result exit_code %d (want 125)", code, strict.ExitCode)
		}
		named = rt24dNamed(strict.SbxError)
		if len(named) == 0 || !strings.Contains(strict.SbxError, "--allow-degraded") {
			t.Errorf("strict refusal names no rule or no way out: %q", strict.SbxError)
		}
	}

	// Dry run, then the degraded run.
	dout, _, dcode := rt24dSbx(t, u, f.home, append(append([]string{"run", "--dry-run", "--json", "--allow-degraded"}, capArgs...), cmdArgs...)...)
	dry := rt24dJSON(t, "dry run", dout)
	out, _, code = rt24dSbx(t, u, f.home, append(append([]string{"run", "--json", "--allow-degraded"}, capArgs...), cmdArgs...)...)
	r := rt24dJSON(t, "degraded run", out)
	if r.SbxError != "" || code != 0 || dcode != 0 {
		t.Fatalf("degraded run: sbx exit %d (dry run %d), error %q, stderr %q", code, dcode, r.SbxError, r.Stderr)
	}
	var dm, rm any
	json.Unmarshal(dry.Sandbox, &dm)
	json.Unmarshal(r.Sandbox, &rm)
	dm, rm = rt24dNormalize(dm, f.base), rt24dNormalize(rm, f.base)
	if !reflect.DeepEqual(dm, rm) {
		// /tmp is shared: CI's other go test process (random profiles)
		// creates and removes names there, which both bindings read. A
		// dry run right after the run that agrees with it shows that the
		// difference was /tmp changing in between, not the dry run; one
		// that disagrees too fails.
		aout, _, _ := rt24dSbx(t, u, f.home, append(append([]string{"run", "--dry-run", "--json", "--allow-degraded"}, capArgs...), cmdArgs...)...)
		var am any
		json.Unmarshal(rt24dJSON(t, "dry run after", aout).Sandbox, &am)
		if am = rt24dNormalize(am, f.base); !reflect.DeepEqual(am, rm) {
			t.Errorf("--dry-run under cap %d reports another sandbox than the run, before it and after it: %s", abiCap, rt24dDiff("sandbox", dm, rm))
		}
	}
	var sb rt24dSandbox
	if err := json.Unmarshal(r.Sandbox, &sb); err != nil {
		t.Fatal(err)
	}

	// The report: abi, degraded, and not_enforced == what strict names.
	var listed []string
	has := map[string]rt24dRequirement{} // feature|rule
	for _, n := range sb.NotEnforced {
		listed = append(listed, n.Rule+"|"+n.Feature+"|"+strconv.Itoa(n.ABI))
		has[n.Feature+"|"+n.Rule] = n
		if n.ABI <= abiCap {
			t.Errorf("not_enforced lists %s %s as needing ABI %d, which the cap %d provides", n.Rule, n.Feature, n.ABI, abiCap)
		}
		if n.Fallback == "" {
			t.Errorf("not_enforced %s %s gives no fallback", n.Rule, n.Feature)
		}
	}
	sort.Strings(listed)
	if !reflect.DeepEqual(listed, named) {
		t.Errorf("not_enforced differs from what strict mode refuses at cap %d:\n not_enforced: %q\n strict names: %q", abiCap, listed, named)
	}
	if sb.ABI != abiCap || sb.Degraded != (len(listed) > 0) {
		t.Errorf("report: abi %d (cap %d), degraded %v with %d entries not enforced", sb.ABI, abiCap, sb.Degraded, len(listed))
	}

	var res map[string]string
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), &res); err != nil {
		t.Fatalf("probe output: %v: %q (stderr %q)", err, r.Stdout, tail(r.Stderr))
	}
	fail := func(op, why string) {
		t.Helper()
		if v, ok := res[op]; !ok || v == "ok" {
			t.Errorf("%s: %s must be denied, got %q", op, why, v)
		}
	}
	allowed := func(op, why string, also ...string) {
		t.Helper()
		v := res[op]
		if v == "ok" {
			return
		}
		for _, a := range also {
			if v == a {
				return
			}
		}
		t.Errorf("%s: %s must be allowed, got %q", op, why, v)
	}

	// (2) What is not listed holds.
	if !p.writesAll {
		fail("out_write", "writing a file outside the writable roots")
		fail("out_create", "creating a file outside the writable roots")
		fail("out_trunc", "truncating a read-only file")
		fail("link_in", "linking a read-only file into a writable root")
		fail("rename_out", "renaming a file out of a writable root")
		fail("rename_in", "renaming a read-only file into a writable root")
	}
	if p.writesCwd {
		allowed("ws_write", "writing in {cwd}")
	} else {
		fail("ws_write", "writing in a read-only {cwd}")
	}
	if p.gitRO {
		fail("git_write", "writing .git/config")
		fail("git_trunc", "truncating .git/config")
		fail("git_rename", "renaming .git")
	}
	if p.hgFails {
		fail("hg_create", "creating the protected .hg")
	}
	for _, d := range denied {
		fail("deny:"+d, "reading a denied file")
	}
	if !p.netFull {
		fail("tcp_conn_unlisted", "a TCP connection to an unlisted port")
		fail("tcp_bind_unlisted", "binding an unlisted TCP port")
	}
	fail("abs_conn", "connecting to a host's abstract Unix socket")
	fail("kill_outside", "signalling a process outside the sandbox")

	// (1) What is listed behaves as its fallback says; what is not listed
	// is enforced as written.
	referLost, tcpLost := false, false
	for _, n := range sb.NotEnforced {
		switch {
		case n.Feature == "truncate" && n.Rule == "read /":
			if strings.Contains(n.Fallback, "EROFS") && res["out_trunc"] != "EROFS" {
				t.Errorf("fallback %q, but truncating a read-only file gave %q", n.Fallback, res["out_trunc"])
			}
		case n.Feature == "refer" && (n.Rule == "write {cwd}" || n.Rule == "write /"):
			referLost = true
			if strings.Contains(n.Fallback, "always denied") && res["refer"] != "EXDEV" {
				t.Errorf("fallback %q, but a rename across directories of {cwd} gave %q", n.Fallback, res["refer"])
			}
		case n.Feature == "tcp" && p.listedTCP != 0 && strings.Contains(n.Rule, "connect_tcp "+strconv.Itoa(p.listedTCP)):
			tcpLost = true
			if strings.Contains(n.Fallback, "denied by seccomp") && res["tcp_conn_listed"] != "EACCES" {
				t.Errorf("fallback %q, but a connection to the listed port gave %q", n.Fallback, res["tcp_conn_listed"])
			}
		case n.Feature == "scope_signal":
			if strings.Contains(n.Fallback, "PID namespace") && res["kill_outside"] != "ESRCH" {
				t.Errorf("fallback %q, but kill(outside, 0) gave %q", n.Fallback, res["kill_outside"])
			}
		}
		if strings.Contains(n.Fallback, "Unix socket creation is denied") && res["unix_socket"] == "ok" {
			t.Errorf("not_enforced %s %s: fallback %q, but socket(AF_UNIX) succeeded (the report misstates what enforces the rule)", n.Rule, n.Feature, n.Fallback)
		}
	}
	if !referLost && p.writesCwd {
		allowed("refer", "a rename across directories of {cwd} (refer is not listed)")
	}
	if !tcpLost && p.listedTCP != 0 {
		allowed("tcp_conn_listed", "a connection to a listed port (nobody listens: ECONNREFUSED)", "ECONNREFUSED")
	}
	if t.Failed() {
		t.Logf("probe: %s", r.Stdout)
	}
}

// TestRedTeam24DegFidelityLevel: below a rule's min_abi (degraded), its
// fidelity must not read "exact" ("Landlock alone", README Fidelity): at
// ABI 1 `read /` is enforced for truncation by the read-only mount view
// (supplementary), `write {cwd}` more strictly than written (refer:
// restrictive). The fidelity array is the per-rule report a caller reads.
//
//	sbx run --json --allow-degraded --landlock-abi-cap 1 --profile workspace -- true
//	# fidelity: {"rule":"read /","level":"exact","min_abi":3,...}
func TestRedTeam24DegFidelityLevel(t *testing.T) {
	u := users[0]
	f := rt24dFixture(t, u)
	for _, profile := range []string{"workspace", "read-only"} {
		for abiCap := 1; abiCap <= 2; abiCap++ {
			out, _, _ := rt24dSbx(t, u, f.home, "run", "--json", "--allow-degraded", "--landlock-abi-cap", strconv.Itoa(abiCap), "--profile", profile, "--cwd", f.ws, "--", "/bin/true")
			r := rt24dJSON(t, "run", out)
			var sb rt24dSandbox
			if err := json.Unmarshal(r.Sandbox, &sb); err != nil {
				t.Fatalf("%s: %v %q", profile, err, r.SbxError)
			}
			for _, fi := range sb.Fidelity {
				if fi.Level == "exact" && fi.MinABI > sb.ABI {
					t.Errorf("%s at ABI %d: rule %q reported exact though it needs ABI %d", profile, sb.ABI, fi.Rule, fi.MinABI)
				}
			}
		}
	}
}

// TestRedTeam24DegStrictOutputModes: strict refusal below the profile's
// ABI in every output mode: exit 125; the message names each rule, the
// feature, the ABI and the way out; --json prints one JSON object, --events
// one error event; --dry-run (text and JSON) refuses alike; in terminal
// mode the message keeps its lines (one rule per line, as in the JSON
// message), not sbx's own newlines turned into U+FFFD.
func TestRedTeam24DegStrictOutputModes(t *testing.T) {
	u := users[0]
	f := rt24dFixture(t, u)
	web := rt24dArtifact(t, "ports.hcl:web-dev")
	for _, c := range []struct {
		abiCap string
		prof   []string
		want   []string
	}{
		{"5", []string{"--profile", "workspace"}, []string{"needs Landlock ABI 6 (Linux 6.12) for scope_signal", "needs Landlock ABI 6 (Linux 6.12) for scope_abstract_unix_socket"}},
		{"3", []string{"--artifact", web}, []string{"connect_tcp 443", "bind_tcp 3000", "needs Landlock ABI 4 (Linux 6.7) for tcp", "needs Landlock ABI 5 (Linux 6.10) for ioctl_dev"}},
		{"1", []string{"--profile", "read-only"}, []string{"read / (builtin:read-only.hcl", "needs Landlock ABI 3 (Linux 6.2) for truncate"}},
	} {
		want := append(c.want, "capped to "+c.abiCap, "--allow-degraded")
		base := append([]string{"--landlock-abi-cap", c.abiCap}, c.prof...)
		base = append(base, "--cwd", f.ws, "--", "/bin/echo", "RAN")
		check := func(mode, msg string, code int) {
			t.Helper()
			if code != 125 {
				t.Errorf("cap %s %v %s: exit %d, want 125", c.abiCap, c.prof, mode, code)
			}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("cap %s %v %s: message lacks %q: %q", c.abiCap, c.prof, mode, w, msg)
				}
			}
		}
		// --json
		out, _, code := rt24dSbx(t, u, f.home, append([]string{"run", "--json"}, base...)...)
		r := rt24dJSON(t, "--json", out)
		check("--json", r.SbxError, code)
		if r.ExitCode != 125 || strings.Contains(r.Stdout, "RAN") {
			t.Errorf("--json: result exit_code %d stdout %q", r.ExitCode, r.Stdout)
		}
		// --events
		out, _, code = rt24dSbx(t, u, f.home, append([]string{"run", "--events"}, base...)...)
		var errs []string
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev struct {
				Type     string `json:"type"`
				Message  string `json:"message"`
				ExitCode int    `json:"exit_code"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Errorf("--events: a line is not JSON: %q", sc.Text())
				continue
			}
			if ev.Type == "start" {
				t.Errorf("--events: the command started: %q", out)
			}
			if ev.Type == "error" {
				errs = append(errs, ev.Message)
				if ev.ExitCode != 125 {
					t.Errorf("--events: error event exit_code %d", ev.ExitCode)
				}
			}
		}
		if len(errs) != 1 {
			t.Errorf("--events: %d error events, want 1: %q", len(errs), out)
		} else {
			check("--events", errs[0], code)
		}
		// terminal mode
		out, stderr, code := rt24dSbx(t, u, f.home, append([]string{"run"}, base...)...)
		check("text", stderr, code)
		if strings.Contains(out, "RAN") {
			t.Errorf("text: the command ran")
		}
		if strings.Contains(stderr, "\uFFFD") || !strings.Contains(stderr, "\n  ") {
			t.Errorf("text: the refusal's own line breaks are shown as U+FFFD (one line per rule expected): %q", stderr)
		}
		// --dry-run, text and JSON
		_, stderr, code = rt24dSbx(t, u, f.home, append([]string{"run", "--dry-run"}, base...)...)
		check("--dry-run", stderr, code)
		out, _, code = rt24dSbx(t, u, f.home, append([]string{"run", "--dry-run", "--json"}, base...)...)
		r = rt24dJSON(t, "--dry-run --json", out)
		check("--dry-run --json", r.SbxError, code)
	}
}

// TestRedTeam24DegAbsurdCap: a cap at or above the kernel's ABI changes
// nothing (the kernel's ABI is used, not degraded, still enforced); a cap
// beyond 32 bits is not truncated into a small one; negative and
// non-numeric values are usage errors (125) before anything runs.
func TestRedTeam24DegAbsurdCap(t *testing.T) {
	u := users[0]
	f := rt24dFixture(t, u)
	kabi := launch.KernelABI()
	for _, c := range []string{strconv.Itoa(kabi), strconv.Itoa(kabi + 1), "100", "4294967297", "4294967299", "9223372036854775807"} {
		out, _, code := rt24dSbx(t, u, f.home, "run", "--json", "--landlock-abi-cap", c, "--profile", "workspace", "--cwd", f.ws, "--", "/bin/sh", "-c", "echo x > "+f.outside+"/file && echo WROTE; exit 0")
		r := rt24dJSON(t, "cap "+c, out)
		var sb rt24dSandbox
		json.Unmarshal(r.Sandbox, &sb)
		if code != 0 || r.SbxError != "" || sb.ABI != kabi || sb.Degraded || len(sb.NotEnforced) != 0 || strings.Contains(r.Stdout, "WROTE") {
			t.Errorf("cap %s: exit %d error %q abi %d degraded %v not_enforced %d stdout %q", c, code, r.SbxError, sb.ABI, sb.Degraded, len(sb.NotEnforced), r.Stdout)
		}
	}
	for _, c := range []string{"-1", "-7", "abc", "", "3.5", "9223372036854775808"} {
		out, _, code := rt24dSbx(t, u, f.home, "run", "--json", "--landlock-abi-cap", c, "--allow-degraded", "--profile", "workspace", "--cwd", f.ws, "--", "/bin/echo", "RAN")
		r := rt24dJSON(t, "cap "+c, out)
		if code != 125 || !strings.Contains(r.SbxError, "landlock-abi-cap") || strings.Contains(r.Stdout, "RAN") {
			t.Errorf("cap %q: exit %d error %q stdout %q (want a usage error, 125)", c, code, r.SbxError, r.Stdout)
		}
	}
}

// TestRedTeam24DegStrictNamesPartial: strict mode refuses a partial rule
// "whatever the ABI ... naming the rule and the way out" (README, Strict
// and degraded). Without the supervisor, `ports` with bind_tcp is partial
// (listen() on an unbound socket picks an unchecked ephemeral port): at the
// kernel's ABI the refusal names it; below the profile's ABI the refusal
// must name it too, next to the ABI rules, not only those (a user who then
// fixes the kernel, or passes --allow-degraded expecting the ABI losses
// alone, meets a rule the refusal never named).
//
//	SBX_LANDLOCK_NO_SUPERVISOR=1 sbx run --landlock-abi-cap 5 --artifact web-dev.json -- true
//	# names scope_signal and scope_abstract_unix_socket only; no "partial", no listen()
func TestRedTeam24DegStrictNamesPartial(t *testing.T) {
	u := users[0]
	f := rt24dFixture(t, u)
	web := rt24dArtifact(t, "ports.hcl:web-dev")
	for _, abiCap := range []string{"0", "5", "4"} {
		cmd := rt6Cmd(u, []string{"HOME=" + f.home, "SBX_LANDLOCK_NO_SUPERVISOR=1"}, "--json", "--landlock-abi-cap", abiCap, "--artifact", web, "--cwd", f.ws, "--", "/bin/echo", "RAN")
		out, _ := cmd.Output()
		r := rt24dJSON(t, "cap "+abiCap, string(out))
		if r.ExitCode != 125 || !strings.Contains(r.SbxError, "network ports") || !strings.Contains(r.SbxError, "partial") || !strings.Contains(r.SbxError, "listen()") {
			t.Errorf("cap %s without the supervisor: the refusal does not name the partial network ports rule (listen): exit %d %q", abiCap, r.ExitCode, r.SbxError)
		}
	}
}
