package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sbx-dev/sbx/executor"
	"github.com/sbx-dev/sbx/internal/starttrace"
	"github.com/sbx-dev/sbx/ir"
	"github.com/sbx-dev/sbx/targets/landlock/launch"
)

const runUsage = `Usage: sbx run [flags] [--] CMD [ARG...]

Runs CMD under a sandbox profile. Output streams live to the terminal as the
command writes it; sbx adds one status line on stderr only when the command
timed out, was cancelled, could not be started, or sbx itself failed. With
--json or --events the result is structured instead (see the README).

Flags:
  --profile NAME       built-in profile: workspace (default), workspace-net,
                       read-only, network-off, danger-full-access (no sandbox)
  --artifact FILE      compiled policy artifact (sbc compile)
  --dry-run            print the bound rules, mounts, Landlock rules, seccomp
                       filter and fidelity instead of running (--json: as JSON)
  --emit landlockconfig  with --dry-run: print the bound Landlock ruleset in
                       the landlockconfig JSON format (what it cannot express
                       is listed on stderr)
  --cwd DIR            working directory of the command (default: the current one)
  --timeout DUR        expiration, e.g. 30s, 2m; 0 disables it (default 10s)
  --output-cap SIZE    bytes retained per stream, e.g. 1MiB, 512KiB, 10MB (default 1MiB)
  --retain MODE        head (default) or head-tail: keep the start and the end
  --capture POLICY     shell (default) or full-buffer: no cap, no expiration
  --json               print one JSON result object when the command ends
  --events             print JSON lines as the command runs: start, output, exit
  --allow-degraded     accept process-group containment when neither a PID
                       namespace nor a cgroup can be used, and run a profile
                       with best effort when the kernel's Landlock ABI is too
                       old (the result's sandbox field lists what is not
                       enforced)
  --containment MECH   force auto, pid-namespace, cgroup or process-group
  --glob-scan-limit N  directory entries the start-up scan for a deny_glob's
                       matches may visit per pattern (default 1000000); a
                       scan that reaches it is refused unless --allow-degraded

Examples:
  sbx run -- make test
  sbx run --timeout 2m --retain head-tail -- go build ./...
  sbx run --json --output-cap 64KiB -- ls -la /etc
  sbx run --events -- sh -c 'echo start; sleep 1; echo done'

Exit status: the command's own; 124 when it timed out; 128+N when it died of
signal N, or when sbx was interrupted by signal N (the command is then
terminated); 125 when sbx failed; 126 not executable; 127 not found.
`

// runOptions are the flags of "sbx run".
type runOptions struct {
	// mounts is the host's mount table being read since sbx run began
	// (earlyMounts), for the sandbox's binding; nil elsewhere.
	mounts            *mountListing
	profile, artifact string
	// cwd is --cwd with the symbolic links before each ".." resolved
	// (physicalDotDot); cwdGiven is --cwd as given, which the result and
	// the start event report ("the command as requested").
	cwd, cwdGiven string
	timeout       time.Duration
	timeoutSet    bool
	outputCap     sizeFlag
	retain        string
	capture       string
	json, events  bool
	allowDegraded bool
	containment   string
	// The enumerated flags, parsed (parseRunFlags).
	retention   executor.Retention
	capturePol  executor.CapturePolicy
	containMech executor.Containment
	argv        []string
	dryRun      bool
	// emit selects another dry-run output: "landlockconfig" prints the
	// bound Landlock layer in the landlockconfig JSON format.
	emit string
	// abiCap caps the Landlock ABI (hidden, for tests of the refusal and
	// degraded paths).
	abiCap int
	// globScanLimit bounds the deny_glob scan (0: the launcher's default).
	globScanLimit int
	// early is the sandbox's init, started before the profile is bound
	// (prestart).
	//lint:ignore U1000 set and used on Linux (sandbox_linux.go)
	early *launch.Early
}

// durationFlag is a time.Duration flag whose errors say why a value is
// refused (flag's own says "parse error" whatever the reason).
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }

// wellFormedDuration reports whether v is what time.ParseDuration reads
// as a duration (signed decimal numbers, each with a unit), whatever its
// size: such a value that ParseDuration refuses is out of range. Written
// out rather than as a regular expression: package regexp would be linked
// into sbx, and a compiled pattern built at every start, for an error
// message.
func wellFormedDuration(v string) bool {
	v = strings.TrimLeft(v[:min(len(v), 1)], "+-") + v[min(len(v), 1):]
	if v == "" {
		return false
	}
	for v != "" {
		i := 0
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		digits := i
		if i < len(v) && v[i] == '.' {
			i++
			for i < len(v) && v[i] >= '0' && v[i] <= '9' {
				i++
				digits++
			}
		}
		if digits == 0 {
			return false
		}
		v = v[i:]
		unit := 0
		for _, u := range []string{"ns", "us", "µs", "μs", "ms", "s", "m", "h"} {
			if strings.HasPrefix(v, u) && len(u) > unit {
				unit = len(u)
			}
		}
		if unit == 0 {
			return false
		}
		v = v[unit:]
	}
	return true
}

func (d *durationFlag) Set(v string) error {
	t, err := time.ParseDuration(v)
	if err != nil {
		// ParseDuration says which part is wrong (an unknown unit, a
		// missing one), but for a well-formed value beyond what a
		// duration holds only "invalid duration" (red team 28: the
		// README promised the why, and 9999999h said none).
		why := strings.TrimPrefix(err.Error(), "time: ")
		if wellFormedDuration(v) {
			why = fmt.Sprintf("%q is out of range: a timeout is at most %v (about 292 years)", v, time.Duration(math.MaxInt64))
		}
		return fmt.Errorf("%v; want a duration such as 500ms, 30s or 2m", why)
	}
	if t == 0 && strings.ContainsAny(v, "123456789") {
		// ParseDuration drops fractions of a nanosecond: a positive
		// value must not become 0, which disables the timeout.
		return fmt.Errorf("%s is shorter than 1ns, the shortest timeout (0 disables it)", v)
	}
	*d = durationFlag(t)
	return nil
}

func parseRunFlags(args []string) (*runOptions, error) {
	o := &runOptions{}
	fs := flag.NewFlagSet("sbx run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.profile, "profile", defaultProfile, "")
	fs.StringVar(&o.artifact, "artifact", "", "")
	fs.StringVar(&o.cwd, "cwd", "", "")
	fs.Var((*durationFlag)(&o.timeout), "timeout", "")
	fs.Var(&o.outputCap, "output-cap", "")
	fs.StringVar(&o.retain, "retain", "head", "")
	fs.StringVar(&o.capture, "capture", "shell", "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.BoolVar(&o.events, "events", false, "")
	fs.BoolVar(&o.allowDegraded, "allow-degraded", false, "")
	fs.StringVar(&o.containment, "containment", "auto", "")
	fs.BoolVar(&o.dryRun, "dry-run", false, "")
	fs.StringVar(&o.emit, "emit", "", "")
	fs.IntVar(&o.abiCap, "landlock-abi-cap", 0, "")
	fs.IntVar(&o.globScanLimit, "glob-scan-limit", 0, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		// The parser stops at the bad flag: the output mode is read from
		// all the flags, so that the failure is still reported in it.
		o.json, o.events = outputModes(fs, args)
		return o, usagef("%v", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	o.timeoutSet = set["timeout"]
	profileSet := set["profile"]
	retention, retainOK := parseRetain(o.retain)
	capturePol, captureOK := parseCapture(o.capture)
	containMech, containOK := parseContainment(o.containment)
	o.retention, o.capturePol, o.containMech = retention, capturePol, containMech
	fullBuffer := capturePol == executor.CaptureFullBuffer
	o.argv = fs.Args()
	// Usage errors come with the options parsed so far (the output mode
	// in which to report them).
	switch {
	case o.json && o.events:
		o.json, o.events = false, false // neither format was chosen
		return o, usagef("--json and --events cannot be combined")
	case len(o.argv) == 0:
		return o, usagef("no command given")
	case o.argv[0] == "":
		// `sbx run -- "$CMD"` with CMD unset: no command either.
		return o, usagef("the command is empty (an unset variable?)")
	case profileSet && o.artifact != "":
		return o, usagef("--profile and --artifact cannot be combined")
	case profileSet && o.profile == "":
		return o, usagef("--profile needs a name (sbx doctor lists the built-in profiles)")
	// An empty value (an unset variable in --artifact "$ART") is not the
	// flag left out: that would run the default profile, or in sbx's own
	// directory.
	case set["artifact"] && o.artifact == "":
		return o, usagef("--artifact needs a file")
	case set["cwd"] && o.cwd == "":
		return o, usagef("--cwd needs a directory")
	case o.dryRun && o.events:
		// The dry run's report is text or one JSON object; the refusal is
		// an error event, as --events asks.
		return o, usagef("--dry-run reports as text or with --json, not --events")
	case set["emit"] && !o.dryRun:
		return o, usagef("--emit needs --dry-run")
	case set["emit"] && o.emit != "landlockconfig":
		return o, usagef("--emit must be landlockconfig, not %q", o.emit)
	case o.abiCap < 0:
		return o, usagef("--landlock-abi-cap must not be negative")
	case set["glob-scan-limit"] && o.globScanLimit <= 0:
		return o, usagef("--glob-scan-limit must be a positive number of entries, not %d", o.globScanLimit)
	// The enumerated flags are checked here, with the others, so that a
	// bad value is a usage error whatever else the command line says: not
	// accepted by --dry-run (which never builds the request), and not
	// reported only after the profile was loaded (an unknown profile's
	// error instead, or the warning that no sandbox applies).
	case !retainOK:
		return o, usagef("--retain must be head or head-tail, not %q", o.retain)
	case !captureOK:
		return o, usagef("--capture must be shell or full-buffer, not %q", o.capture)
	case !containOK:
		return o, usagef("--containment must be auto, pid-namespace, cgroup or process-group, not %q", o.containment)
	// full-buffer keeps everything for as long as it takes: a cap, a
	// retention or an expiration given with it would be dropped.
	case fullBuffer && (set["output-cap"] || set["timeout"] || set["retain"]):
		return o, usagef("--capture full-buffer has no cap and no expiration: it cannot be combined with --output-cap, --retain or --timeout")
	case o.timeout < 0:
		return o, usagef("--timeout must not be negative")
	case o.outputCap.set && o.outputCap.n <= 0:
		return o, usagef("--output-cap must be positive")
	case o.outputCap.n > 1<<40:
		return o, usagef("--output-cap %d is too large", o.outputCap.n)
	}
	o.cwdGiven = o.cwd
	o.cwd = physicalDotDot(o.cwd)
	return o, nil
}

// parseRetain reads --retain (the JSON spelling head_tail too).
func parseRetain(s string) (executor.Retention, bool) {
	switch s {
	case "head":
		return executor.RetainHead, true
	case "head-tail", "head_tail":
		return executor.RetainHeadTail, true
	}
	return 0, false
}

// parseCapture reads --capture (the JSON spelling full_buffer too).
func parseCapture(s string) (executor.CapturePolicy, bool) {
	switch s {
	case "shell":
		return executor.CaptureShell, true
	case "full-buffer", "full_buffer":
		return executor.CaptureFullBuffer, true
	}
	return 0, false
}

// parseContainment reads --containment ("auto": executor.ContainmentAuto).
func parseContainment(s string) (executor.Containment, bool) {
	switch c := executor.Containment(s); c {
	case "auto":
		return executor.ContainmentAuto, true
	case executor.ContainmentPIDNamespace, executor.ContainmentCgroup, executor.ContainmentProcessGroup:
		return c, true
	}
	return "", false
}

// outputModes reports whether args ask for --json and --events, reading
// the flags the way fs parses them (a flag that takes a value consumes the
// next argument unless it has "=value") up to the command or "--",
// whatever else is wrong with them.
func outputModes(fs *flag.FlagSet, args []string) (json, events bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			return json, events
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			continue // an unknown flag (the error): no value known to skip
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			on := true
			if hasValue {
				on, _ = strconv.ParseBool(value)
			}
			switch name {
			case "json":
				json = on
			case "events":
				events = on
			}
			continue
		}
		if !hasValue {
			i++ // the flag's value
		}
	}
	return json, events
}

// physicalDotDot resolves the symbolic links before each ".." of dir, as
// the kernel's chdir does ("link/.." is the parent of link's target, not
// the directory that holds link), so that the working directory the
// profile binds and the one the command gets are the same directory as
// without a sandbox; filepath.Abs and Clean would drop "link/.." as text.
// A dir without ".." is returned as it is; one that does not resolve too
// (the executor reports it).
func physicalDotDot(dir string) string {
	if !slices.Contains(strings.Split(filepath.ToSlash(dir), "/"), "..") {
		return dir
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}

// request builds the executor request from the options and the profile.
func (o *runOptions) request(p *profile, sandbox executor.Sandbox) executor.Request {
	req := executor.Request{
		ExitsAfter:  exitsAfterRun,
		Argv:        o.argv,
		Dir:         o.cwd,
		Env:         p.env(os.Environ()),
		Timeout:     p.timeout,
		OutputCap:   p.outputCap,
		Sandbox:     sandbox,
		Retention:   o.retention,
		Capture:     o.capturePol,
		Containment: o.containMech,
		// process-group containment, forced, implies accepting it.
		AllowDegraded: o.allowDegraded || o.containMech == executor.ContainmentProcessGroup,
	}
	if o.timeoutSet {
		req.Timeout = o.timeout
		if o.timeout == 0 {
			req.Timeout = -1 // --timeout 0: no expiration
		}
	}
	if o.outputCap.set {
		req.OutputCap = int(o.outputCap.n)
	}
	return req
}

// exitsAfterRun is set by main: the process exits as soon as run returns,
// so runCommand need not remove its signal handlers.
var exitsAfterRun bool

// runCommand implements "sbx run". Output that cannot be written (a full
// disk, a closed descriptor) is never lost silently: the first error on
// either stream ends sbx with 125 and, where stderr still works, a message.
func runCommand(args []string, stdout, stderr io.Writer) int {
	out, errOut := &checkedWriter{w: stdout}, &checkedWriter{w: stderr}
	code := runCommandTo(args, out, errOut)
	if err := out.failed(); err != nil {
		fmt.Fprintf(stderr, "sbx: writing to standard output: %v (the command's output or sbx's result is incomplete)\n", err)
		return exitFailure
	}
	if errOut.failed() != nil {
		return exitFailure
	}
	return code
}

// checkedWriter records the first error of its writer; later writes are
// dropped (a stream that failed once is not written again). onFail, when
// set, is called once, at that first error: during the run it ends the
// command, whose output can no longer be written and whose result sbx
// will not report as its own (it exits 125).
type checkedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	err    error
	onFail func()
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.setErr(err)
	return n, err
}

// fail records err as the stream's failure unless one is recorded.
func (c *checkedWriter) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.setErr(err)
	}
}

// setErr records err (c.mu held, no error recorded before).
func (c *checkedWriter) setErr(err error) {
	c.err = err
	if err != nil && c.onFail != nil {
		c.onFail()
	}
}

// setOnFail sets the callback of the first error.
func (c *checkedWriter) setOnFail(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onFail = f
}

func (c *checkedWriter) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func runCommandTo(args []string, stdout, stderr *checkedWriter) int {
	// SIGINT, SIGTERM, SIGHUP and SIGQUIT cancel the command (below),
	// except one sbx was started with ignored (nohup, a shell's background
	// job), which stays ignored. sbx's main
	// catches them with a signal pipe where it can (sigpipe_linux_amd64.go):
	// the executor polls it. Otherwise (and in tests, which go on after a
	// run) signal.Notify does, which costs a synchronous round trip to a
	// runtime thread per signal: it starts first and runs concurrently
	// with parsing the flags, loading the profile, building the request
	// and starting the command (see OnStart below).
	//
	// The signal pipe is installed only right before the run: until then
	// (and again once the run has ended without a signal, see
	// restoreDefaults) the signals keep their default action, so that sbx blocked elsewhere (reading an
	// artifact from a pipe, writing its result to a reader that stopped
	// reading) still ends on SIGTERM or SIGINT; nothing needs cleaning up
	// then (an early init follows sbx's exit).
	sigs := make(chan os.Signal, 1)
	sigReady := make(chan struct{})
	var sp *sigpipe
	if exitsAfterRun {
		// The Go runtime's own action for SIGQUIT is a dump of every
		// goroutine and status 2; until the run, sbx ends by the kernel's
		// (131), as SIGTERM and SIGINT end it.
		quitByDefault()
	}
	if !exitsAfterRun {
		go func() {
			notifyCancelSignals(sigs)
			close(sigReady)
		}()
	}
	// Removing the handlers is another round trip per signal: sbx's main
	// skips it, as the process exits right after (a signal that arrives
	// after the command ended then exits with 128+N, below); callers that
	// go on (tests) get them removed.
	if !exitsAfterRun {
		defer func() {
			<-sigReady
			signal.Stop(sigs)
			close(sigs) // ends the watcher (Stop guarantees no more sends)
		}()
	}
	// Read while the flags are parsed and the profile is loaded: most
	// runs are sandboxed, and their binding needs it.
	mounts := earlyMounts()
	o, err := parseRunFlags(args)
	if o != nil {
		o.mounts = mounts
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, runUsage)
		return exitOK
	}
	// The command's output is written live through these (see
	// liveOutput), bounded from its start to the end of the run.
	outLive, errLive := newLiveOutput(stdout, -1), newLiveOutput(stderr, -1)
	defer outLive.release()
	defer errLive.release()
	var ev *eventWriter
	if o.events {
		ev = newEventWriter(outLive)
		ev.lw = outLive
	}
	// An sbx failure is reported in the output mode asked for (one JSON
	// object, or an error event), usage errors included.
	// (Through the live writers: unbounded until the run, bounded after
	// a signal, as every report then is.)
	fail := func(err error) int {
		if o.json {
			writeJSONError(outLive, err)
		}
		if ev != nil {
			ev.error(err)
		}
		return reportFailure(errLive, runUsage, err)
	}
	if err != nil {
		return fail(err)
	}

	starttrace.Mark("flags")
	p, err := loadProfile(o.profile, o.artifact)
	if err != nil {
		return fail(err)
	}
	// The sandbox's init starts now, so that the kernel creates its
	// namespaces while the profile is bound (launch.Prestart).
	starttrace.Mark("profile")
	defer prestart(p, o)()
	starttrace.Mark("prestart")
	// The sandbox is chosen here, from the profile, by the platform launcher.
	sandbox, err := newSandbox(p, o)
	if err != nil {
		return fail(err)
	}
	starttrace.Mark("sandbox")
	if o.dryRun {
		return dryRun(p, sandbox, o, stdout, stderr, fail)
	}
	if p.allowsNoSandbox && !o.json && ev == nil {
		// The name is an --artifact's path: an escape sequence in it
		// (ESC[8m, conceal) hid the rest of the warning (red team 27).
		io.WriteString(stderr, "sbx: WARNING: profile "+ir.PrintableLines(p.name)+" applies NO sandbox: the command runs with all of your rights\n")
	}
	req := o.request(p, sandbox)
	if req.Capture != executor.CaptureFullBuffer {
		c := int64(req.OutputCap)
		if c == 0 {
			c = executor.DefaultOutputCap
		}
		if err := checkCapMemory(c, req.OutputCap != 0); err != nil {
			return fail(err)
		}
	}
	starttrace.Mark("request")

	// A stream that already failed (the warning above, on a full disk)
	// makes the run's outcome 125 whatever the command does: it is not
	// started.
	if stdout.failed() != nil || stderr.failed() != nil {
		return exitFailure
	}

	// SIGINT, SIGTERM, SIGHUP and SIGQUIT cancel the command: SIGTERM to
	// its process group (under a Landlock sandbox to the init, which
	// passes it on), a short grace, then SIGKILL to whatever remains.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// So does a failed write of sbx's output (a reader that went away, a
	// full disk): the run's outcome is then 125 whatever the command does,
	// and it does not run on unseen until its timeout.
	var outputFailed atomic.Bool
	onFail := func() {
		outputFailed.Store(true)
		cancel()
	}
	stdout.setOnFail(onFail)
	stderr.setOnFail(onFail)
	if exitsAfterRun {
		if sp, _ = fastSignals(cancelSignals()); sp == nil {
			notifyCancelSignals(sigs)
		}
		close(sigReady)
	}
	if sp != nil {
		req.CancelFD = sp.r
		outLive.intr, errLive.intr = sp.r, sp.r
	}
	// The watcher records the first signal and cancels; Run's end is
	// published without waiting for the watcher (a goroutine hand-off on
	// the way out costs a thread wake-up).
	var got atomic.Int32
	var finished atomic.Bool
	if sp == nil {
		// The live writers wait on a pipe the watcher writes to.
		intr, notify, closeIntr := interruptPipe()
		defer closeIntr()
		outLive.intr, errLive.intr = intr, intr
		go watchSignals(sigs, &got, &finished, func() {
			cancel()
			notify()
		})
	}

	switch {
	case o.json:
	case ev != nil:
		shown := req
		shown.Dir = o.cwdGiven
		req.OnStart = ev.start(shown)
		req.OnOutput = ev.output
	default:
		req.MaxOutputEvents = -1 // the terminal gets everything
		req.OnOutput = func(s executor.Stream, b []byte) {
			if s == executor.Stderr {
				errLive.Write(b)
			} else {
				outLive.Write(b)
			}
		}
	}

	// The handlers are awaited once the command has started, so that their
	// set-up overlaps with the command's own start instead of delaying it:
	// the start event (--events) is only written, and output only read,
	// once they are in place. A signal that arrives in the first fraction
	// of a millisecond, before that, ends sbx as it would without handlers
	// (128+N); the command then dies with it (parent-death signal).
	onStart := req.OnStart
	// ^Z stops the command with sbx (not in tests, which run sbx in their
	// own process).
	var jc *jobControl
	if exitsAfterRun {
		jc = newJobControl()
	}
	req.OnStart = func(si executor.StartInfo) {
		<-sigReady
		f, ok := sandbox.(executor.SignalForwarder)
		// Job control signals the process the executor started (a
		// sandbox's init passes them on), not the command's own.
		pid := si.Pid
		if si.LauncherPid > 0 {
			pid = si.LauncherPid
		}
		jc.started(pid, ok && f.ForwardsSignals(), si.Containment == executor.ContainmentCgroup)
		outLive.start(req)
		errLive.start(req)
		if onStart != nil {
			onStart(si)
		}
	}
	starttrace.Mark("run")
	res, runErr := executor.Run(ctx, req)
	jc.end()
	outLive.end()
	errLive.end()
	starttrace.Mark("ran")
	finished.Store(true)
	if res != nil {
		res.Dir = o.cwdGiven
	}
	received := syscall.Signal(got.Load())
	if sp != nil {
		// A signal already received (it cancelled the run) keeps the
		// handlers: a second one close behind it (Ctrl-C twice, TERM then
		// INT from a supervisor) must not end sbx by its default action
		// before the cancelled result is written, and the writes are
		// bounded from here on (interruptedWriteBound). Without one, the
		// default actions come back (see above), and the pipe is read
		// again for a signal that arrived before they did.
		if received = sp.caught(); received == 0 {
			sp.restoreDefaults()
			received = sp.caught()
		}
	}
	if received != 0 {
		// Interrupted: the result is written if the reader takes it soon,
		// but sbx does not wait for a reader that has stopped reading.
		outLive.boundFor(interruptedWriteBound)
		errLive.boundFor(interruptedWriteBound)
	}
	if res == nil {
		if received != 0 && errors.Is(runErr, context.Canceled) {
			// Interrupted after the handlers were in place but before the
			// command started: nothing ran, and sbx ends as cancelled. The
			// report goes through the live writers, bounded above as any
			// result after a signal (red team 29: written to a reader that
			// had stopped reading, the --json object held sbx for ever,
			// the handlers ignoring every further signal).
			return interruptedBeforeStart(o, ev, outLive, errLive, received)
		}
		return fail(withResourceHint(runErr))
	}

	if runErr != nil && (o.json || ev != nil) {
		// The command ran, but sbx could not confirm that nothing it
		// started survives (ErrCleanup): sbx exits 125, and the result
		// says so, as for any failure of sbx's (the command's own end
		// stays in timed_out, cancelled and signal).
		res.ExitCode = exitFailure
		if res.SandboxError != "" {
			res.SandboxError += "; "
		}
		res.SandboxError += runErr.Error()
	}
	switch {
	case o.json:
		if err := res.WriteJSON(outLive); err != nil {
			// A write error is reported by runCommand; an encoding error
			// here.
			if stdout.failed() == nil {
				fmt.Fprintf(stderr, "sbx: %v\n", err)
			}
			return exitFailure
		}
	case ev != nil:
		ev.exit(res)
		if outLive.wasCut {
			// Bounded after a signal, as the exit event is (red team
			// 29: to a stderr nobody read, sbx waited for ever here,
			// every further signal ignored).
			fmt.Fprintln(errLive, outputCutNotice)
		}
	default:
		if received == 0 && (errLive.wasCut || outLive.wasCut && sameStream(stdout.w, stderr.w)) {
			// stderr's reader stopped reading (its output was cut when
			// the deadline passed): the notice and the status line are
			// offered to it for a bounded time, as after a signal, instead
			// of blocking sbx for ever on a stream nobody reads (red team
			// 23). So too where stderr is stdout (2>&1) and stdout's
			// output was cut: the same reader (red team 29: sbx waited
			// for ever to write the notice, its command long gone).
			errLive.boundFor(interruptedWriteBound)
		}
		if outLive.wasCut || errLive.wasCut {
			fmt.Fprintln(errLive, outputCutNotice)
		}
		// The line names the command, a path or the sandbox's error, any
		// of which may carry control characters (a name with an escape
		// sequence, a stray CR): printed as U+FFFD, so that what the
		// terminal shows is the name refused (red team 23).
		if line := statusLine(res, received, outputFailed.Load()); line != "" {
			fmt.Fprintln(errLive, ir.PrintableLines(line))
		}
	}
	if runErr != nil {
		// The command ran, but sbx could not confirm that nothing it started
		// survives.
		fmt.Fprintf(errLive, "sbx: %s\n", ir.PrintableLines(runErr.Error()))
		return exitFailure
	}
	// A signal that arrived after the command ended (the signal pipe holds
	// it) ends sbx with 128+N too, as it would without a handler.
	if received != 0 && (res.Cancelled || sp != nil) {
		return 128 + int(received)
	}
	return res.ExitCode
}

// outputCutNotice is what sbx says on stderr when it stopped writing the
// command's output live because its reader had stopped reading.
const outputCutNotice = "sbx: the command's output was cut short: sbx's standard output or error was not being read"

// cancelSignals are the signals that cancel a run: the three that ask a
// program to end, and SIGQUIT (Ctrl-\ at a terminal), whose default action
// in a Go program is a dump of every goroutine and status 2 instead of a
// result.
func cancelSignals() []syscall.Signal {
	return []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
}

// notifyCancelSignals sends the cancel signals to sigs, except those sbx
// was started with ignored: nohup ignores SIGHUP, and a shell SIGINT (and
// SIGQUIT) for a background job, so that they outlive a closed terminal
// or a Ctrl-C meant for the foreground. (The Go runtime keeps an
// inherited SIG_IGN only for SIGHUP and SIGINT.)
func notifyCancelSignals(sigs chan<- os.Signal) {
	for _, s := range cancelSignals() {
		if !signal.Ignored(s) {
			signal.Notify(sigs, s)
		}
	}
}

// watchSignals records the first signal sbx gets and cancels the run.
// Once the run has finished (and sbx exits after it), a signal ends sbx
// as it would without handlers (status 128+N).
func watchSignals(sigs <-chan os.Signal, got *atomic.Int32, finished *atomic.Bool, cancel func()) {
	for s := range sigs {
		// After the run, a signal ends sbx at once, unless one came before
		// it: then the result is being written, bounded
		// (interruptedWriteBound), and sbx ends with the first one.
		if finished.Load() && exitsAfterRun && got.Load() == 0 {
			os.Exit(128 + int(s.(syscall.Signal)))
		}
		got.CompareAndSwap(0, int32(s.(syscall.Signal)))
		cancel()
	}
}

// statusLine is the one line sbx prints on stderr in terminal mode, or "".
func statusLine(res *executor.Result, received syscall.Signal, outputFailed bool) string {
	switch {
	case res.SandboxError != "":
		return "sbx: " + res.SandboxError
	case res.Error != "":
		return "sbx: " + res.Error
	case res.TimedOut:
		return fmt.Sprintf("sbx: timed out after %v; the command and everything it started were killed", res.Timeout)
	case res.Cancelled:
		by := "cancelled"
		switch {
		case received != 0:
			by = "interrupted by " + signalName(received)
		case outputFailed:
			by = "sbx's output could not be written"
		}
		return fmt.Sprintf("sbx: %s; the command was terminated (exit status %d)", by, res.ExitCode)
	}
	return ""
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return fmt.Sprintf("signal %d", int(s))
}

// writeJSONError prints an sbx failure as a JSON object, so that a program
// reading --json output always gets one object.
func writeJSONError(w io.Writer, err error) {
	var b bytes.Buffer
	b.WriteString(`{"exit_code":125,"sbx_error":`)
	b.WriteString(quoteJSON(err.Error()))
	b.WriteString("}\n")
	w.Write(b.Bytes())
}

// quoteJSON returns s as a JSON string.
func quoteJSON(s string) string {
	var b strings.Builder
	enc := newJSONEncoder(&b)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// interruptedBeforeStart reports a cancellation that came before the
// command was started and returns 128+N.
func interruptedBeforeStart(o *runOptions, ev *eventWriter, stdout, stderr io.Writer, sig syscall.Signal) int {
	code := 128 + int(sig)
	msg := fmt.Sprintf("interrupted by %s before the command started", signalName(sig))
	switch {
	case o.json:
		fmt.Fprintf(stdout, "{\"exit_code\":%d,\"signal\":%s,\"cancelled\":true,\"error\":%s}\n", code, quoteJSON(signalName(sig)), quoteJSON(msg))
	case ev != nil:
		ev.write(errorEvent{Type: "error", Message: msg, ExitCode: code})
	default:
		fmt.Fprintln(stderr, "sbx: "+msg)
	}
	return code
}

// withResourceHint adds to a failed start that ran out of a resource which
// one it was and the way out: the bare errno ("resource temporarily
// unavailable") named neither (red team 23).
func withResourceHint(err error) error {
	switch {
	case errors.Is(err, syscall.EAGAIN):
		return fmt.Errorf("%w (processes ran out: the user's process limit, RLIMIT_NPROC, or the system's; raise it with ulimit -u, or end other processes)", err)
	case errors.Is(err, syscall.EMFILE):
		return fmt.Errorf("%w (descriptors ran out: raise the open-files limit with ulimit -n)", err)
	case errors.Is(err, syscall.ENFILE):
		return fmt.Errorf("%w (the system's open-file table is full)", err)
	case errors.Is(err, syscall.ENOMEM):
		return fmt.Errorf("%w (memory ran out)", err)
	}
	return err
}
