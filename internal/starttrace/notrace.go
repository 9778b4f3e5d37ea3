//go:build !sbxtrace

// Package starttrace records start-up checkpoints of sbx for bench/timeline:
// built with -tags sbxtrace, Mark notes the CLOCK_MONOTONIC time of each
// named point and Flush writes them to the descriptor SBX_TRACE_FD names.
// Without the tag every call is empty and compiled away.
package starttrace

// Enabled reports whether checkpoints are recorded (built with -tags sbxtrace).
const Enabled = false

// Mark records a checkpoint (nothing without -tags sbxtrace).
func Mark(string) {}

// Flush writes the checkpoints (nothing without -tags sbxtrace).
func Flush() {}

// Slot returns a time another process sharing sbx's memory writes (nil
// without -tags sbxtrace).
func Slot(string) *Time { return nil }

// Time is a time another process writes with clock_gettime: laid out as
// the kernel's struct timespec on 64-bit systems.
type Time struct{ Sec, Nsec int64 }
