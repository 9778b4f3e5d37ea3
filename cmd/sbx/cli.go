package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/sbx-dev/sbx/ir"
)

// Exit codes of sbx itself; the others are the command's.
const (
	exitOK      = 0
	exitFailure = 125 // sbx failed: bad flags, unreadable artifact, no sandbox or containment
)

const mainUsage = `sbx runs one command under a sandbox profile and reports what happened.

Usage:
  sbx run [flags] [--] CMD [ARG...]   run a command (see "sbx run --help")
  sbx doctor [--json]                 what this machine can enforce
  sbx help [COMMAND]                  show help

Exit status: the command's own; 124 when it timed out; 128+N when it died of
signal N or sbx was interrupted by signal N; 125 when sbx itself failed;
126 when the command is not executable; 127 when it was not found.
`

// usageError is an error in the command line: sbx prints it with the usage
// and exits 125.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// run is sbx's entry point: it runs the subcommand in args and returns the
// exit status. It is called by main and by the tests.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage)
		return exitFailure
	}
	switch args[0] {
	case "run":
		return runCommand(args[1:], stdout, stderr)
	case "doctor":
		return doctorCommand(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[0] == "help" {
			switch args[1] {
			case "run":
				fmt.Fprint(stdout, runUsage)
				return exitOK
			case "doctor":
				fmt.Fprint(stdout, doctorUsage)
				return exitOK
			}
			fmt.Fprintf(stderr, "sbx: unknown help topic %q\n\n%s", args[1], mainUsage)
			return exitFailure
		}
		fmt.Fprint(stdout, mainUsage)
		return exitOK
	}
	fmt.Fprintf(stderr, "sbx: unknown command %q\n\n%s", args[0], mainUsage)
	return exitFailure
}

// reportFailure prints an sbx failure and returns the exit status.
func reportFailure(stderr io.Writer, usage string, err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "sbx: %s\n\n%s", ir.PrintableLines(err.Error()), usage)
		return exitFailure
	}
	fmt.Fprintf(stderr, "sbx: %s\n", ir.PrintableLines(err.Error()))
	return exitFailure
}
