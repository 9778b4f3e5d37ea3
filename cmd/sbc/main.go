// Command sbc compiles sandbox profiles written in HCL into artifacts that
// sbx runs, and formats profile files. Run `sbc help` for usage.
//
// main only wires the process to run, the testable entry point; each
// subcommand lives in its own file and is listed once in commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sbx-dev/sbx/compiler/diag"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// Exit codes, shared by every command.
const (
	exitOK      = 0 // success
	exitInvalid = 1 // a profile is invalid or violates policy (or, for fmt -check, needs formatting)
	exitUsage   = 2 // usage or I/O error
)

// env is what a command may touch of the process: its standard streams.
// Commands never use os.Stdout and friends directly, so tests can run them.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one subcommand.
type command struct {
	name    string
	summary string // one line, for the command list
	usage   string // synopsis and description, with examples; flags are appended
	// setup declares the command's flags and returns the function that runs
	// it with the positional arguments.
	setup func(e *env, fs *flag.FlagSet) func(args []string) int
}

// commands lists the subcommands in the order `sbc help` shows them. To add
// one, write NAME.go with a function returning its *command and add a line
// here.
func commands() []*command {
	return []*command{
		compileCommand(),
		checkCommand(),
		testCommand(),
		fmtCommand(),
		profilesCommand(),
		explainCommand(),
		versionCommand(),
	}
}

const mainUsage = `sbc compiles sandbox profiles written in HCL into artifacts that sbx runs.

Usage:
  sbc <command> [flags] [arguments]

Commands:
%s
Examples:
  sbc compile dev.hcl                        # writes dev.sbx.json
  sbc compile profiles/*.hcl -p ci -o ci.sbx.json
  sbc compile -p workspace -o -              # a built-in profile, to stdout
  sbc fmt -check profiles/                   # in CI: fail if not formatted
  sbc profiles                               # list the built-in profiles

Run 'sbc help <command>' or 'sbc <command> --help' for details.

Exit status: 0 success; 1 a profile is invalid (or fmt -check found files
to format); 2 usage or I/O error.
`

func usageText() string {
	var b strings.Builder
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(&b, "  %-10s %s\n", "help", "Show help for a command")
	return fmt.Sprintf(mainUsage, b.String())
}

// run is the testable entry point: it runs sbc with args (without the
// program name) and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &checkedWriter{w: stdout}
	code := runWith(args, stdin, out, stderr)
	if out.err != nil {
		// Output that did not reach its reader (a full disk, a closed
		// pipe) is an I/O error, whatever the command concluded:
		// `sbc fmt - < a.hcl > b.hcl` must not leave an empty b.hcl with
		// status 0.
		if code != exitUsage {
			// (A command that failed already said why.)
			fmt.Fprintf(stderr, "sbc: writing the output: %v\n", out.err)
		}
		return exitUsage
	}
	return code
}

// checkedWriter remembers the first error of the writes to w (and makes
// the later ones fail with it, so a command stops writing).
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
	return n, err
}

func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText())
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText())
		return exitOK
	case "-version", "--version":
		name = "version"
	case "help":
		if len(rest) == 0 {
			fmt.Fprint(stdout, usageText())
			return exitOK
		}
		c := lookup(rest[0])
		if c == nil {
			fmt.Fprintf(stderr, "sbc help: unknown command %q\nRun 'sbc help' for the list of commands.\n", rest[0])
			return exitUsage
		}
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.setup(e, fs)
		printUsage(stdout, c, fs)
		return exitOK
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "sbc: unknown command %q\nRun 'sbc help' for the list of commands.\n", name)
		return exitUsage
	}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported below, in one format
	runFn := c.setup(e, fs)
	pos, err := parseInterspersed(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout, c, fs)
		return exitOK
	}
	if err != nil {
		return usageError(e, c.name, "%v", err)
	}
	if name := emptyFlag(fs); name != "" {
		return usageError(e, c.name, "flag -%s: empty value (leave the flag out, or give it a value)", name)
	}
	return runFn(pos)
}

// emptyFlag returns the name of a flag given an empty value, "" if none:
// `-o "$OUT"` with OUT unset must not mean "no -o" (which writes next to
// the input, perhaps over an artifact there), nor `-p "$NAME"` "every
// profile". -run "" matches every test, as go test's does.
func emptyFlag(fs *flag.FlagSet) string {
	var name string
	fs.Visit(func(f *flag.Flag) {
		if name != "" || f.Name == "run" {
			return
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			return
		}
		if f.Value.String() == "" {
			name = f.Name
		}
	})
	return name
}

func lookup(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// parseInterspersed parses flags anywhere among the arguments, so that
// `sbc compile dev.hcl -p dev` works as well as `sbc compile -p dev
// dev.hcl`. "--" ends the flags; "-" alone is a positional argument.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if endedByTerminator(fs, args[:len(args)-len(rest)]) {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// endedByTerminator reports whether the flags fs.Parse consumed end with
// the "--" that ends the flags, rather than with "--" as a flag's value
// (`-o --` names a file "--"): it walks them as the flag package did.
func endedByTerminator(fs *flag.FlagSet, consumed []string) bool {
	for i := 0; i < len(consumed); i++ {
		tok := consumed[i]
		if tok == "--" {
			return i == len(consumed)-1
		}
		name := strings.TrimPrefix(strings.TrimPrefix(tok, "-"), "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				continue
			}
			i++ // the next token is the value
		}
	}
	return false
}

func printUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprint(w, strings.TrimRight(c.usage, "\n"), "\n")
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprint(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

// usageError reports a command-line mistake and returns exitUsage.
func usageError(e *env, cmd, format string, args ...any) int {
	fmt.Fprintf(e.stderr, "sbc %s: %s\nRun 'sbc %s --help' for usage.\n", cmd, fmt.Sprintf(format, args...), cmd)
	return exitUsage
}

// formatFlag declares the --format flag of commands that report
// diagnostics.
func formatFlag(fs *flag.FlagSet) *string {
	return fs.String("format", "text", "diagnostics format: text, or json (like terraform validate -json)")
}

// checkFormat validates a --format value.
func checkFormat(e *env, cmd, format string) bool {
	if format == "text" || format == "json" {
		return true
	}
	usageError(e, cmd, "unknown --format %q (want text or json)", format)
	return false
}

// report writes diagnostics to stderr in the chosen format; stdout stays
// free for output such as `compile -o -`. In text form nothing is written
// when there are no diagnostics; in JSON form a document is always written.
func (e *env) report(ds diag.Diagnostics, srcs *diag.Sources, format string) {
	if format == "json" {
		if err := diag.WriteJSON(e.stderr, ds, srcs); err != nil {
			fmt.Fprintf(e.stderr, "sbc: writing diagnostics: %v\n", err)
		}
		return
	}
	if err := diag.WriteText(e.stderr, ds, srcs); err != nil {
		fmt.Fprintf(e.stderr, "sbc: writing diagnostics: %v\n", err)
	}
}

// exitCode maps diagnostics to an exit code: 2 when a file could not be
// read or written or the command was misused, 1 for any other error, else 0.
func exitCode(ds diag.Diagnostics) int {
	switch {
	case ds.HasCode(diag.CodeIO) || ds.HasCode(diag.CodeUsage):
		return exitUsage
	case ds.HasErrors():
		return exitInvalid
	}
	return exitOK
}
