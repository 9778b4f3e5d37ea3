package main

import (
	"flag"
	"fmt"

	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/ir"
)

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "Print the compiler version and the formats it writes",
		usage:   "Usage: sbc version\n\nPrint the compiler version (as recorded in artifacts) and the IR and artifact format versions.\n",
		setup: func(e *env, fs *flag.FlagSet) func([]string) int {
			return func(args []string) int {
				if len(args) > 0 {
					return usageError(e, "version", "unexpected arguments")
				}
				fmt.Fprintf(e.stdout, "%s (IR %s, artifact %s)\n", compiler.Version, ir.Format, ir.ArtifactFormat)
				return exitOK
			}
		},
	}
}
