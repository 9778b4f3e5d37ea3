//go:build !unix

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "goforkexec: Unix only (syscall.ForkExec)")
	os.Exit(2)
}
