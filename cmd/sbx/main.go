// Command sbx runs commands under a sandbox profile and reports what
// happened, live on the terminal or as a bounded, structured result.
package main

import (
	"os"

	// Its init runs before the other packages': it populates the heap that
	// they and the run touch next, and grows the stack once.
	_ "github.com/sbx-dev/sbx/internal/prefault"
	"github.com/sbx-dev/sbx/internal/starttrace"
)

func main() {
	starttrace.Mark("main")
	// The sandbox helper (sbx re-executed by itself as the command's
	// supervisor) never reaches here: package launch's init dispatches it
	// before anything else, so that it stays cheap and never parses sbx's
	// flags.
	closeInheritedOnExec()
	if err := checkOpenFiles(); err != nil {
		os.Exit(refuseEarly(os.Args[1:], err))
	}
	if len(os.Args) > 1 && os.Args[1] == "run" {
		if err := checkProcs(); err != nil {
			os.Exit(refuseEarly(os.Args[1:], err))
		}
	}
	exitsAfterRun = true
	code := run(os.Args[1:], stdStream{os.Stdout}, stdStream{os.Stderr})
	starttrace.Mark("exit")
	starttrace.Flush()
	os.Exit(code)
}

// refuseEarly reports an sbx failure found before any command runs: on
// stderr, and for sbx run in the output mode its flags ask for (the JSON
// failure object, or an error event), read as the flag parser reads them
// (flags end at the first non-flag argument; --json=true counts).
func refuseEarly(args []string, err error) int {
	if len(args) > 0 && args[0] == "run" {
		if o, _ := parseRunFlags(args[1:]); o != nil {
			switch {
			case o.json:
				writeJSONError(stdStream{os.Stdout}, err)
			case o.events:
				newEventWriter(stdStream{os.Stdout}).error(err)
			}
		}
	}
	stdStream{os.Stderr}.Write([]byte("sbx: " + err.Error() + "\n"))
	return exitFailure
}
