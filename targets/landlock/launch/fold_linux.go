//go:build linux && (amd64 || arm64)

package launch

import (
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
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
	for _, r := range norm.NFD.String(name) {
		if ignorable(r) {
			continue
		}
		if s, ok := fullFold(r); ok {
			for _, r := range s {
				b.WriteRune(simpleFold(r))
			}
			continue
		}
		b.WriteRune(simpleFold(r))
	}
	// Folding can produce a composable or reorderable sequence again.
	return norm.NFD.String(b.String())
}

// simpleFold maps r to one member of its simple case-folding orbit (the
// runes unicode.SimpleFold cycles through: k, K and KELVIN SIGN; s, S and
// LONG S), the same for every member: the least of their lower cases.
func simpleFold(r rune) rune {
	if r < 0x80 {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	best := unicode.ToLower(r)
	for x := unicode.SimpleFold(r); x != r; x = unicode.SimpleFold(x) {
		if l := unicode.ToLower(x); l < best {
			best = l
		}
	}
	return best
}

// ignorable reports default-ignorable code points, generously: every
// format character (Cf), variation selector and Other_Default_Ignorable
// code point.
func ignorable(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// fullFold returns the multi-rune full case folding of r (status F in
// Unicode's CaseFolding.txt), if it has one.
func fullFold(r rune) (string, bool) {
	i := sort.Search(len(fullFolds), func(i int) bool { return fullFolds[i].r >= r })
	if i < len(fullFolds) && fullFolds[i].r == r {
		return fullFolds[i].s, true
	}
	return "", false
}

// fullFolds lists the full case foldings that expand a rune (CaseFolding.txt
// status F, Unicode 14), sorted by rune; simple foldings come from the
// unicode package. A composite literal of constants: the linker lays it out,
// no code runs at start-up.
var fullFolds = [...]struct {
	r rune
	s string
}{
	{0x00DF, "ss"},                 // LATIN SMALL LETTER SHARP S
	{0x0130, "i\u0307"},            // LATIN CAPITAL LETTER I WITH DOT ABOVE
	{0x0149, "\u02BCn"},            // LATIN SMALL LETTER N PRECEDED BY APOSTROPHE
	{0x01F0, "j\u030C"},            // LATIN SMALL LETTER J WITH CARON
	{0x0390, "\u03B9\u0308\u0301"}, // GREEK SMALL LETTER IOTA WITH DIALYTIKA AND TONOS
	{0x03B0, "\u03C5\u0308\u0301"}, // GREEK SMALL LETTER UPSILON WITH DIALYTIKA AND TONOS
	{0x0587, "\u0565\u0582"},       // ARMENIAN SMALL LIGATURE ECH YIWN
	{0x1E96, "h\u0331"},            // LATIN SMALL LETTER H WITH LINE BELOW
	{0x1E97, "t\u0308"},            // LATIN SMALL LETTER T WITH DIAERESIS
	{0x1E98, "w\u030A"},            // LATIN SMALL LETTER W WITH RING ABOVE
	{0x1E99, "y\u030A"},            // LATIN SMALL LETTER Y WITH RING ABOVE
	{0x1E9A, "a\u02BE"},            // LATIN SMALL LETTER A WITH RIGHT HALF RING
	{0x1E9E, "ss"},                 // LATIN CAPITAL LETTER SHARP S
	{0x1F50, "\u03C5\u0313"},       // GREEK SMALL LETTER UPSILON WITH PSILI
	{0x1F52, "\u03C5\u0313\u0300"}, // GREEK SMALL LETTER UPSILON WITH PSILI AND VARIA
	{0x1F54, "\u03C5\u0313\u0301"}, // GREEK SMALL LETTER UPSILON WITH PSILI AND OXIA
	{0x1F56, "\u03C5\u0313\u0342"}, // GREEK SMALL LETTER UPSILON WITH PSILI AND PERISPOMENI
	{0x1F80, "\u1F00\u03B9"},       // GREEK SMALL LETTER ALPHA WITH PSILI AND YPOGEGRAMMENI
	{0x1F81, "\u1F01\u03B9"},       // GREEK SMALL LETTER ALPHA WITH DASIA AND YPOGEGRAMMENI
	{0x1F82, "\u1F02\u03B9"},       // GREEK SMALL LETTER ALPHA WITH PSILI AND VARIA AND YPOGEGRAMMENI
	{0x1F83, "\u1F03\u03B9"},       // GREEK SMALL LETTER ALPHA WITH DASIA AND VARIA AND YPOGEGRAMMENI
	{0x1F84, "\u1F04\u03B9"},       // GREEK SMALL LETTER ALPHA WITH PSILI AND OXIA AND YPOGEGRAMMENI
	{0x1F85, "\u1F05\u03B9"},       // GREEK SMALL LETTER ALPHA WITH DASIA AND OXIA AND YPOGEGRAMMENI
	{0x1F86, "\u1F06\u03B9"},       // GREEK SMALL LETTER ALPHA WITH PSILI AND PERISPOMENI AND YPOGEGRAMMENI
	{0x1F87, "\u1F07\u03B9"},       // GREEK SMALL LETTER ALPHA WITH DASIA AND PERISPOMENI AND YPOGEGRAMMENI
	{0x1F88, "\u1F00\u03B9"},       // GREEK CAPITAL LETTER ALPHA WITH PSILI AND PROSGEGRAMMENI
	{0x1F89, "\u1F01\u03B9"},       // GREEK CAPITAL LETTER ALPHA WITH DASIA AND PROSGEGRAMMENI
	{0x1F8A, "\u1F02\u03B9"},       // GREEK CAPITAL LETTER ALPHA WITH PSILI AND VARIA AND PROSGEGRAMMENI
	{0x1F8B, "\u1F03\u03B9"},       // GREEK CAPITAL LETTER ALPHA WITH DASIA AND VARIA AND PROSGEGRAMMENI
	{0x1F8C, "\u1F04\u03B9"},       // GREEK CAPITAL LETTER ALPHA WITH PSILI AND OXIA AND PROSGEGRAMMENI
	{0x1F8D, "\u1F05\u03B9"},       // GREEK CAPITAL LETTER ALPHA WITH DASIA AND OXIA AND PROSGEGRAMMENI
	{0x1F8E, "\u1F06\u03B9"},       // GREEK CAPITAL LETTER ALPHA WITH PSILI AND PERISPOMENI AND PROSGEGRAMMENI
	{0x1F8F, "\u1F07\u03B9"},       // GREEK CAPITAL LETTER ALPHA WITH DASIA AND PERISPOMENI AND PROSGEGRAMMENI
	{0x1F90, "\u1F20\u03B9"},       // GREEK SMALL LETTER ETA WITH PSILI AND YPOGEGRAMMENI
	{0x1F91, "\u1F21\u03B9"},       // GREEK SMALL LETTER ETA WITH DASIA AND YPOGEGRAMMENI
	{0x1F92, "\u1F22\u03B9"},       // GREEK SMALL LETTER ETA WITH PSILI AND VARIA AND YPOGEGRAMMENI
	{0x1F93, "\u1F23\u03B9"},       // GREEK SMALL LETTER ETA WITH DASIA AND VARIA AND YPOGEGRAMMENI
	{0x1F94, "\u1F24\u03B9"},       // GREEK SMALL LETTER ETA WITH PSILI AND OXIA AND YPOGEGRAMMENI
	{0x1F95, "\u1F25\u03B9"},       // GREEK SMALL LETTER ETA WITH DASIA AND OXIA AND YPOGEGRAMMENI
	{0x1F96, "\u1F26\u03B9"},       // GREEK SMALL LETTER ETA WITH PSILI AND PERISPOMENI AND YPOGEGRAMMENI
	{0x1F97, "\u1F27\u03B9"},       // GREEK SMALL LETTER ETA WITH DASIA AND PERISPOMENI AND YPOGEGRAMMENI
	{0x1F98, "\u1F20\u03B9"},       // GREEK CAPITAL LETTER ETA WITH PSILI AND PROSGEGRAMMENI
	{0x1F99, "\u1F21\u03B9"},       // GREEK CAPITAL LETTER ETA WITH DASIA AND PROSGEGRAMMENI
	{0x1F9A, "\u1F22\u03B9"},       // GREEK CAPITAL LETTER ETA WITH PSILI AND VARIA AND PROSGEGRAMMENI
	{0x1F9B, "\u1F23\u03B9"},       // GREEK CAPITAL LETTER ETA WITH DASIA AND VARIA AND PROSGEGRAMMENI
	{0x1F9C, "\u1F24\u03B9"},       // GREEK CAPITAL LETTER ETA WITH PSILI AND OXIA AND PROSGEGRAMMENI
	{0x1F9D, "\u1F25\u03B9"},       // GREEK CAPITAL LETTER ETA WITH DASIA AND OXIA AND PROSGEGRAMMENI
	{0x1F9E, "\u1F26\u03B9"},       // GREEK CAPITAL LETTER ETA WITH PSILI AND PERISPOMENI AND PROSGEGRAMMENI
	{0x1F9F, "\u1F27\u03B9"},       // GREEK CAPITAL LETTER ETA WITH DASIA AND PERISPOMENI AND PROSGEGRAMMENI
	{0x1FA0, "\u1F60\u03B9"},       // GREEK SMALL LETTER OMEGA WITH PSILI AND YPOGEGRAMMENI
	{0x1FA1, "\u1F61\u03B9"},       // GREEK SMALL LETTER OMEGA WITH DASIA AND YPOGEGRAMMENI
	{0x1FA2, "\u1F62\u03B9"},       // GREEK SMALL LETTER OMEGA WITH PSILI AND VARIA AND YPOGEGRAMMENI
	{0x1FA3, "\u1F63\u03B9"},       // GREEK SMALL LETTER OMEGA WITH DASIA AND VARIA AND YPOGEGRAMMENI
	{0x1FA4, "\u1F64\u03B9"},       // GREEK SMALL LETTER OMEGA WITH PSILI AND OXIA AND YPOGEGRAMMENI
	{0x1FA5, "\u1F65\u03B9"},       // GREEK SMALL LETTER OMEGA WITH DASIA AND OXIA AND YPOGEGRAMMENI
	{0x1FA6, "\u1F66\u03B9"},       // GREEK SMALL LETTER OMEGA WITH PSILI AND PERISPOMENI AND YPOGEGRAMMENI
	{0x1FA7, "\u1F67\u03B9"},       // GREEK SMALL LETTER OMEGA WITH DASIA AND PERISPOMENI AND YPOGEGRAMMENI
	{0x1FA8, "\u1F60\u03B9"},       // GREEK CAPITAL LETTER OMEGA WITH PSILI AND PROSGEGRAMMENI
	{0x1FA9, "\u1F61\u03B9"},       // GREEK CAPITAL LETTER OMEGA WITH DASIA AND PROSGEGRAMMENI
	{0x1FAA, "\u1F62\u03B9"},       // GREEK CAPITAL LETTER OMEGA WITH PSILI AND VARIA AND PROSGEGRAMMENI
	{0x1FAB, "\u1F63\u03B9"},       // GREEK CAPITAL LETTER OMEGA WITH DASIA AND VARIA AND PROSGEGRAMMENI
	{0x1FAC, "\u1F64\u03B9"},       // GREEK CAPITAL LETTER OMEGA WITH PSILI AND OXIA AND PROSGEGRAMMENI
	{0x1FAD, "\u1F65\u03B9"},       // GREEK CAPITAL LETTER OMEGA WITH DASIA AND OXIA AND PROSGEGRAMMENI
	{0x1FAE, "\u1F66\u03B9"},       // GREEK CAPITAL LETTER OMEGA WITH PSILI AND PERISPOMENI AND PROSGEGRAMMENI
	{0x1FAF, "\u1F67\u03B9"},       // GREEK CAPITAL LETTER OMEGA WITH DASIA AND PERISPOMENI AND PROSGEGRAMMENI
	{0x1FB2, "\u1F70\u03B9"},       // GREEK SMALL LETTER ALPHA WITH VARIA AND YPOGEGRAMMENI
	{0x1FB3, "\u03B1\u03B9"},       // GREEK SMALL LETTER ALPHA WITH YPOGEGRAMMENI
	{0x1FB4, "\u03AC\u03B9"},       // GREEK SMALL LETTER ALPHA WITH OXIA AND YPOGEGRAMMENI
	{0x1FB6, "\u03B1\u0342"},       // GREEK SMALL LETTER ALPHA WITH PERISPOMENI
	{0x1FB7, "\u03B1\u0342\u03B9"}, // GREEK SMALL LETTER ALPHA WITH PERISPOMENI AND YPOGEGRAMMENI
	{0x1FBC, "\u03B1\u03B9"},       // GREEK CAPITAL LETTER ALPHA WITH PROSGEGRAMMENI
	{0x1FC2, "\u1F74\u03B9"},       // GREEK SMALL LETTER ETA WITH VARIA AND YPOGEGRAMMENI
	{0x1FC3, "\u03B7\u03B9"},       // GREEK SMALL LETTER ETA WITH YPOGEGRAMMENI
	{0x1FC4, "\u03AE\u03B9"},       // GREEK SMALL LETTER ETA WITH OXIA AND YPOGEGRAMMENI
	{0x1FC6, "\u03B7\u0342"},       // GREEK SMALL LETTER ETA WITH PERISPOMENI
	{0x1FC7, "\u03B7\u0342\u03B9"}, // GREEK SMALL LETTER ETA WITH PERISPOMENI AND YPOGEGRAMMENI
	{0x1FCC, "\u03B7\u03B9"},       // GREEK CAPITAL LETTER ETA WITH PROSGEGRAMMENI
	{0x1FD2, "\u03B9\u0308\u0300"}, // GREEK SMALL LETTER IOTA WITH DIALYTIKA AND VARIA
	{0x1FD3, "\u03B9\u0308\u0301"}, // GREEK SMALL LETTER IOTA WITH DIALYTIKA AND OXIA
	{0x1FD6, "\u03B9\u0342"},       // GREEK SMALL LETTER IOTA WITH PERISPOMENI
	{0x1FD7, "\u03B9\u0308\u0342"}, // GREEK SMALL LETTER IOTA WITH DIALYTIKA AND PERISPOMENI
	{0x1FE2, "\u03C5\u0308\u0300"}, // GREEK SMALL LETTER UPSILON WITH DIALYTIKA AND VARIA
	{0x1FE3, "\u03C5\u0308\u0301"}, // GREEK SMALL LETTER UPSILON WITH DIALYTIKA AND OXIA
	{0x1FE4, "\u03C1\u0313"},       // GREEK SMALL LETTER RHO WITH PSILI
	{0x1FE6, "\u03C5\u0342"},       // GREEK SMALL LETTER UPSILON WITH PERISPOMENI
	{0x1FE7, "\u03C5\u0308\u0342"}, // GREEK SMALL LETTER UPSILON WITH DIALYTIKA AND PERISPOMENI
	{0x1FF2, "\u1F7C\u03B9"},       // GREEK SMALL LETTER OMEGA WITH VARIA AND YPOGEGRAMMENI
	{0x1FF3, "\u03C9\u03B9"},       // GREEK SMALL LETTER OMEGA WITH YPOGEGRAMMENI
	{0x1FF4, "\u03CE\u03B9"},       // GREEK SMALL LETTER OMEGA WITH OXIA AND YPOGEGRAMMENI
	{0x1FF6, "\u03C9\u0342"},       // GREEK SMALL LETTER OMEGA WITH PERISPOMENI
	{0x1FF7, "\u03C9\u0342\u03B9"}, // GREEK SMALL LETTER OMEGA WITH PERISPOMENI AND YPOGEGRAMMENI
	{0x1FFC, "\u03C9\u03B9"},       // GREEK CAPITAL LETTER OMEGA WITH PROSGEGRAMMENI
	{0xFB00, "ff"},                 // LATIN SMALL LIGATURE FF
	{0xFB01, "fi"},                 // LATIN SMALL LIGATURE FI
	{0xFB02, "fl"},                 // LATIN SMALL LIGATURE FL
	{0xFB03, "ffi"},                // LATIN SMALL LIGATURE FFI
	{0xFB04, "ffl"},                // LATIN SMALL LIGATURE FFL
	{0xFB05, "st"},                 // LATIN SMALL LIGATURE LONG S T
	{0xFB06, "st"},                 // LATIN SMALL LIGATURE ST
	{0xFB13, "\u0574\u0576"},       // ARMENIAN SMALL LIGATURE MEN NOW
	{0xFB14, "\u0574\u0565"},       // ARMENIAN SMALL LIGATURE MEN ECH
	{0xFB15, "\u0574\u056B"},       // ARMENIAN SMALL LIGATURE MEN INI
	{0xFB16, "\u057E\u0576"},       // ARMENIAN SMALL LIGATURE VEW NOW
	{0xFB17, "\u0574\u056D"},       // ARMENIAN SMALL LIGATURE MEN XEH
}
