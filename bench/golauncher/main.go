// Command golauncher is the floor for any Go launcher: it only spawns its
// arguments as a command, with the standard streams, and exits with the
// command's status. bench/ compares sbx run against it.
package main

import (
	"errors"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			os.Exit(ee.ExitCode())
		}
		os.Exit(127)
	}
}
