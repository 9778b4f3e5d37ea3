package main

import (
	"fmt"
	"math"
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
		f, ferr := strconv.ParseFloat(t, 64)
		if ferr != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("invalid size %q (want bytes, or a number with KiB, MiB, GiB, KB, MB or GB)", s)
		}
		v := f * float64(factor)
		if v < 0 || v > 1<<53 {
			return 0, fmt.Errorf("size %q out of range", s)
		}
		return int64(v), nil
	}
	if n < 0 || n > math.MaxInt64/factor {
		return 0, fmt.Errorf("size %q out of range", s)
	}
	return n * factor, nil
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
