package executor

import "bytes"

// deniedKeywords are matched case-insensitively against stdout, stderr and
// the aggregated output.
var deniedKeywords = [...]string{
	"operation not permitted",
	"permission denied",
	"read-only file system",
	"seccomp",
	"sandbox",
	"landlock",
	"failed to write file",
}

// sigsysExitCode is 128+SIGSYS on Linux, the status of a command killed by a
// seccomp filter.
const sigsysExitCode = 128 + 31

// deniedLikely is the modelled "likely denied by the sandbox" heuristic.
// It only applies when a sandbox was applied (sb is not nil and, if it is an
// Enforcer, enforcing) and the exit code is non-zero.
// A keyword in the output means yes; otherwise exit codes 2, 126 and 127
// mean no, and 159 (SIGSYS) means yes under a seccomp filter.
//
// Known weakness kept for compatibility: a command whose output merely
// contains one of the words (for example a path with "sandbox" in it) is
// flagged.
//
// texts are the command's stdout, stderr and aggregated output (and, in
// head+tail retention, the retained tails).
func deniedLikely(sb Sandbox, exitCode int, texts ...[]byte) bool {
	if sb == nil || exitCode == 0 {
		return false
	}
	if e, ok := sb.(Enforcer); ok && !e.Enforcing() {
		return false
	}
	for _, text := range texts {
		if containsKeyword(text) {
			return true
		}
	}
	switch exitCode {
	case 2, 126, 127:
		return false
	}
	if s, ok := sb.(SeccompSandbox); ok && s.UsesSeccomp() && exitCode == sigsysExitCode {
		return true
	}
	return false
}

// containsKeyword reports whether text contains one of deniedKeywords,
// ignoring ASCII case, without allocating.
func containsKeyword(text []byte) bool {
	for _, k := range deniedKeywords {
		if indexFold(text, k) >= 0 {
			return true
		}
	}
	return false
}

// indexFold returns the index of the first ASCII-case-insensitive match of
// the lower-case needle in text, or -1. Each byte of text is scanned at most
// twice, whatever the input.
func indexFold(text []byte, needle string) int {
	if len(needle) == 0 {
		return 0
	}
	if len(text) < len(needle) {
		return -1
	}
	lo := needle[0]
	up := lo
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	candidates := text[:len(text)-len(needle)+1]
	next := func(from int, c byte) int {
		if k := bytes.IndexByte(candidates[from:], c); k >= 0 {
			return from + k
		}
		return -1
	}
	nextLo, nextUp := next(0, lo), -1
	if up != lo {
		nextUp = next(0, up)
	}
	for {
		j := nextLo
		if j < 0 || (nextUp >= 0 && nextUp < j) {
			j = nextUp
		}
		if j < 0 {
			return -1
		}
		if equalFoldASCII(text[j:j+len(needle)], needle) {
			return j
		}
		if j == nextLo {
			nextLo = next(j+1, lo)
		} else {
			nextUp = next(j+1, up)
		}
	}
}

func equalFoldASCII(b []byte, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
