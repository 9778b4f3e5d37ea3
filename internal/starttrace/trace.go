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
	if fd >= 0 && len(buf) > 0 {
		unix.Write(fd, buf)
		buf = buf[:0]
	}
}
