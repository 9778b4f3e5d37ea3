//go:build linux && (amd64 || arm64)

package launch

//go:generate go run gen_fold.go

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// foldName maps a name to the key under which a case-insensitive directory
// (ext4 or tmpfs with casefolding, set with chattr +F, on a kernel with
// CONFIG_UNICODE) looks it up: the kernel compares names by their
// canonical decomposition (NFD) with full Unicode case folding, so ".GIT",
// ".\u017Fvn" (LONG S), "Make\uFB01le" (the fi ligature), ".\u00DFh" (sharp
// s) and a decomposed "Re\u0301sume\u0301" name the same entry as ".git",
// ".svn", "makefile", ".ssh" and "R\u00E9sum\u00E9". Two names with the same
// key may be one entry there; elsewhere, refusing a guarded name's other
// spellings costs nothing anyone needs. The key is deliberately coarser
// than any kernel's: default-ignorable code points (zero-width joiners,
// variation selectors), which kernels 5.2 to 6.11 skipped in the
// comparison, are dropped too.
func foldName(name string) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		// The common case, without the tables: only A-Z fold.
		if strings.IndexFunc(name, func(r rune) bool { return 'A' <= r && r <= 'Z' }) < 0 {
			return name
		}
		return strings.Map(func(r rune) rune {
			if 'A' <= r && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}, name)
	}
	var b strings.Builder
	for _, r := range nfd(name) {
		switch f, ok := caseFold(r); {
		case ignorable(r):
		case ok:
			b.WriteString(f)
		default:
			b.WriteRune(r)
		}
	}
	// Folding can produce a decomposable or reorderable sequence again.
	return nfd(b.String())
}

// ignorable reports default-ignorable code points, generously: every
// format character (Cf), variation selector and Other_Default_Ignorable
// code point.
func ignorable(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// lookup finds r in table, a string of 6-byte entries sorted by rune
// (the rune in 3 bytes, the offset in 2 and the length in 1 of what it
// maps to in data; big-endian; see gen_fold.go), and returns what it maps
// to.
func lookup(table, data string, r rune) (string, bool) {
	n := len(table) / 6
	i := sort.Search(n, func(i int) bool { return entryRune(table, i*6) >= r })
	if i < n && entryRune(table, i*6) == r {
		e := table[i*6:]
		off := int(e[3])<<8 | int(e[4])
		return data[off : off+int(e[5])], true
	}
	return "", false
}

// entryRune decodes the 3-byte rune at table[at:].
func entryRune(table string, at int) rune {
	return rune(table[at])<<16 | rune(table[at+1])<<8 | rune(table[at+2])
}

// caseFold returns r's full case folding, if folding changes it.
func caseFold(r rune) (string, bool) { return lookup(caseFolds, caseFoldData, r) }

// nfd returns s in Unicode's canonical decomposition (NFD): every rune
// fully decomposed (the tables of fold_tables_linux.go; Hangul syllables
// by their algorithm), and each run of combining marks in the canonical
// order of their combining classes. Invalid UTF-8 stays as it is (the
// kernel refuses such names in a case-insensitive directory).
func nfd(s string) string {
	if !utf8.ValidString(s) {
		return s
	}
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch {
		case r >= hangulBase && r < hangulBase+hangulCount:
			i := r - hangulBase
			out = append(out, hangulL+i/(hangulV*hangulT), hangulVBase+i%(hangulV*hangulT)/hangulT)
			if t := i % hangulT; t != 0 {
				out = append(out, hangulTBase+t)
			}
		default:
			if d, ok := decomposition(r); ok {
				out = append(out, []rune(d)...)
			} else {
				out = append(out, r)
			}
		}
	}
	// Canonical ordering: a stable sort of each run of non-starters by
	// combining class (insertion sort: runs are a few marks long).
	for i := 1; i < len(out); i++ {
		c := combiningClass(out[i])
		if c == 0 {
			continue
		}
		for j := i; j > 0; j-- {
			p := combiningClass(out[j-1])
			if p == 0 || p <= c {
				break
			}
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
	return string(out)
}

// Hangul syllables decompose by arithmetic (Unicode 3.12).
const (
	hangulBase  = 0xAC00
	hangulL     = 0x1100
	hangulVBase = 0x1161
	hangulTBase = 0x11A7
	hangulV     = 21
	hangulT     = 28
	hangulCount = 19 * hangulV * hangulT
)

// decomposition returns r's full canonical decomposition, if it has one.
func decomposition(r rune) (string, bool) { return lookup(decompositions, decompositionData, r) }

// combiningClass returns r's canonical combining class (0: a starter),
// from combiningClasses: 7-byte entries sorted by rune, the first and last
// rune of a run (3 bytes each, big-endian) and their class.
func combiningClass(r rune) uint8 {
	if r < 0x300 {
		return 0
	}
	n := len(combiningClasses) / 7
	i := sort.Search(n, func(i int) bool { return entryRune(combiningClasses, i*7+3) >= r })
	if i < n && entryRune(combiningClasses, i*7) <= r {
		return combiningClasses[i*7+6]
	}
	return 0
}
