//go:build sbxtrace

package starttrace

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Enabled reports whether checkpoints are recorded (built with -tags sbxtrace).
const Enabled = true

var (
	fd  = -1
	buf []byte
)

func init() {
	if s := os.Getenv("SBX_TRACE_FD"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			fd = n
			buf = make([]byte, 0, 4096)
		}
	}
}

// Mark records checkpoint name with the CLOCK_MONOTONIC time. It is not
// safe for concurrent use: checkpoints are marked on the run's goroutine.
func Mark(name string) {
	if fd < 0 {
		return
	}
	var t unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &t)
	buf = append(buf, name...)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, t.Nano(), 10)
	buf = append(buf, '\n')
}

// Flush writes the checkpoints to the descriptor named by SBX_TRACE_FD.
func Flush() {
	flushSlots()
	if fd >= 0 && len(buf) > 0 {
		unix.Write(fd, buf)
		buf = buf[:0]
	}
}

// slots are the times written by processes that share sbx's memory (the
// sandbox's init and command's process), flushed as checkpoints.
var slots []slot

type slot struct {
	name string
	ts   *Time
}

// Time is a time another process writes with clock_gettime: laid out as
// the kernel's struct timespec on 64-bit systems.
type Time struct{ Sec, Nsec int64 }

// Slot returns a time that another process sharing sbx's memory writes
// (clock_gettime(CLOCK_MONOTONIC)); Flush records it as checkpoint name if
// it was written. Without -tags sbxtrace it returns nil.
func Slot(name string) *Time {
	ts := new(Time)
	slots = append(slots, slot{name, ts})
	return ts
}

func flushSlots() {
	for _, s := range slots {
		if s.ts.Sec != 0 || s.ts.Nsec != 0 {
			buf = append(buf, s.name...)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, s.ts.Sec*1e9+s.ts.Nsec, 10)
			buf = append(buf, '\n')
		}
	}
	slots = nil
}
