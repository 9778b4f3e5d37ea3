// Command sbx runs commands under a sandbox profile and reports what
// happened, live on the terminal or as a bounded, structured result.
package main

import (
	"os"

	"github.com/sbx-dev/sbx/internal/starttrace"
	"github.com/sbx-dev/sbx/targets/landlock/launch"
)

func main() {
	starttrace.Mark("main")
	// The sandbox helper (sbx re-executed by itself as PID 1 of the
	// command's namespaces) is dispatched before anything else: it must stay
	// cheap, and must never parse sbx's flags.
	if len(os.Args) > 1 && os.Args[1] == launch.HelperArg {
		launch.RunHelper(os.Args[2:])
	}
	closeInheritedOnExec()
	exitsAfterRun = true
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	starttrace.Mark("exit")
	starttrace.Flush()
	os.Exit(code)
}
