package launch

import (
	"strconv"
	"strings"
)

// listedSocket is a listed Unix socket as the supervisor checks it.
type listedSocket struct {
	path     string
	fixed    bool
	dev, ino uint64
}

// parseSocketArg reverses socketArg.
func parseSocketArg(a string) (listedSocket, bool) {
	rest, fixed := strings.CutPrefix(a, "@")
	if !fixed {
		return listedSocket{path: a}, strings.HasPrefix(a, "/")
	}
	d, rest, ok1 := strings.Cut(rest, ":")
	i, p, ok2 := strings.Cut(rest, ":")
	dev, err1 := strconv.ParseUint(d, 10, 64)
	ino, err2 := strconv.ParseUint(i, 10, 64)
	if !ok1 || !ok2 || err1 != nil || err2 != nil || !strings.HasPrefix(p, "/") {
		return listedSocket{}, false
	}
	return listedSocket{path: p, fixed: true, dev: dev, ino: ino}, true
}
