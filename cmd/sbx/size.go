package main

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// sizeUnits are the accepted suffixes of sizes, longest first.
var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000},
	{"b", 1},
}

// parseSize parses a byte count: plain bytes ("65536") or a number with a
// unit, binary (KiB, MiB, GiB) or decimal (KB, MB, GB), case-insensitive.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	factor := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, factor = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		// A decimal fraction, digits only ("1.5KiB"): not Go's whole float
		// syntax, which took "0x1p4" and "1_000" (red team 27).
		whole, frac, ok := strings.Cut(t, ".")
		if !ok || !decimalDigits(whole, true) || !decimalDigits(frac, false) {
			return 0, fmt.Errorf("invalid size %q (want bytes, or a number with KiB, MiB, GiB, KB, MB or GB)", s)
		}
		r, _ := new(big.Rat).SetString(whole + "." + frac)
		r.Mul(r, new(big.Rat).SetInt64(factor))
		if !r.IsInt() {
			// 1.5 bytes was kept as 1 without a word.
			return 0, fmt.Errorf("size %q is not a whole number of bytes", s)
		}
		if !r.Num().IsInt64() || r.Num().Int64() > 1<<53 {
			return 0, fmt.Errorf("size %q out of range", s)
		}
		return r.Num().Int64(), nil
	}
	if n < 0 || n > math.MaxInt64/factor {
		return 0, fmt.Errorf("size %q out of range", s)
	}
	return n * factor, nil
}

// decimalDigits reports whether s is ASCII digits only (and not empty,
// unless empty is allowed: ".5KiB").
func decimalDigits(s string, empty bool) bool {
	if s == "" {
		return empty
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// sizeFlag is a flag.Value holding a size.
type sizeFlag struct {
	n   int64
	set bool
}

func (f *sizeFlag) String() string { return strconv.FormatInt(f.n, 10) }

func (f *sizeFlag) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	f.n, f.set = n, true
	return nil
}
