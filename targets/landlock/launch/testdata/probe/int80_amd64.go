package main

import "syscall"

// int80Socket calls socket(domain, typ, 0) through the 32-bit int 0x80
// entry (i386 system call 359) and returns the raw result.
func int80Socket(domain, typ int32) int32

func int80UDP() error {
	r := int80Socket(2, 2) // AF_INET, SOCK_DGRAM
	if r < 0 {
		return syscall.Errno(-r)
	}
	return nil
}
