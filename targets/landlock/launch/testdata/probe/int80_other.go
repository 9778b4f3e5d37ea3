//go:build !amd64

package main

import "syscall"

func int80UDP() error { return syscall.ENOSYS }
