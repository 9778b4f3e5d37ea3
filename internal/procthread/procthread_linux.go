// Package procthread finds a live thread of a process whose main thread
// has ended.
//
// /proc/PID/stat shows the state of a process's main thread. A process
// whose main thread ended (pthread_exit) while its other threads run on
// therefore shows Z there, as a zombie does, though it runs; some of its
// files (environ) can then be read only through a live thread's
// /proc/PID/task/TID entry.
package procthread

import (
	"bytes"
	"os"
	"strconv"
)

// Live returns a thread of process pid other than its main thread that is
// neither a zombie nor dead, or 0 if there is none (the process is a
// zombie, or gone).
func Live(pid int) int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	d, err := os.Open(dir)
	if err != nil {
		return 0
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		tid, err := strconv.Atoi(n)
		if err != nil || tid == pid {
			continue
		}
		b, err := os.ReadFile(dir + n + "/stat")
		// The state follows the command name's closing parenthesis (the
		// name may hold parentheses itself).
		if i := bytes.LastIndexByte(b, ')'); err == nil && i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X' {
			return tid
		}
	}
	return 0
}
