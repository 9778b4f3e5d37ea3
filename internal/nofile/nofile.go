package nofile

// Limit is a struct rlimit: the soft (Cur) and hard (Max) limits.
type Limit struct {
	Cur, Max uint64
}

// start is the limit at the process's start, recorded by init where it
// could be read; ok tells whether it was.
var start struct {
	lim Limit
	ok  bool
}

// Start returns the open-files limit the process started with, and
// whether it could be read before package syscall raised it.
func Start() (Limit, bool) { return start.lim, start.ok }

// Child returns the open-files limit a command started now should get, as
// os/exec gives it, and whether it differs from cur, the current limit:
// the soft limit the process started with, where Go's raise is still in
// place (the soft limit is the hard limit less one, and the hard limit is
// unchanged since the start). Where the process changed its limit itself
// (setrlimit, prlimit) its current limit stands, as os/exec leaves it.
func Child(cur Limit) (Limit, bool) {
	s, ok := Start()
	if !ok || cur.Max == 0 || cur.Cur != cur.Max-1 || cur.Max != s.Max || s.Cur >= cur.Cur {
		return cur, false
	}
	return Limit{Cur: s.Cur, Max: cur.Max}, true
}

// ForChild returns the open-files limit a command started now should get,
// and whether it differs from the current one: Child of the current
// limit, read here.
func ForChild() (Limit, bool) {
	cur, ok := current()
	if !ok {
		return Limit{}, false
	}
	return Child(cur)
}
