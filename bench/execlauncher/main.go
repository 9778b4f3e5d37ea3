// Command execlauncher runs its arguments through executor.Run, with live
// output and nothing else: bench/ uses it to separate the executor's
// start-up cost from the rest of sbx run (flags, profile loading, sandbox).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/sbx-dev/sbx/executor"
)

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	res, err := executor.Run(context.Background(), executor.Request{
		Argv:            os.Args[1:],
		Env:             os.Environ(),
		MaxOutputEvents: -1,
		OnOutput: func(s executor.Stream, b []byte) {
			if s == executor.Stderr {
				os.Stderr.Write(b)
			} else {
				os.Stdout.Write(b)
			}
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "execlauncher:", err)
		os.Exit(125)
	}
	os.Exit(res.ExitCode)
}
