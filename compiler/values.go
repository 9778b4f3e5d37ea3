package compiler

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/sbx-dev/sbx/ir"
)

// ports decodes a list of TCP ports: numbers (443) or strings ("443",
// "8000-8100").
func (c *compilation) ports(a *hcl.Attribute) []ir.PortRange {
	var out []ir.PortRange
	for _, e := range c.elems(a, nil, a.Name, "a list of ports, such as [443, \"8000-8100\"]") {
		var pr ir.PortRange
		var msg string
		switch {
		case e.val.Type().Equals(cty.Number):
			n, ok := wholeNumber(e.val)
			if !ok || n < 1 || n > 65535 {
				msg = fmt.Sprintf("%s is not a port: ports are whole numbers from 1 to 65535.", valueString(e.val))
				break
			}
			pr.From, pr.To = uint16(n), uint16(n)
		case e.val.Type().Equals(cty.String):
			pr, msg = parsePortRange(e.val.AsString())
		default:
			msg = fmt.Sprintf("Each element of %s must be a port number (443) or a range string (\"8000-8100\"), not %s.", a.Name, typeName(e.val))
		}
		if msg != "" {
			c.errorf("invalid-port", e.rng, fmt.Sprintf("Invalid port in %s", a.Name), "%s", msg)
			continue
		}
		pr.Source = rng(e.rng)
		out = append(out, pr)
	}
	return out
}

// parsePortRange parses "443" or "8000-8100". It returns a message saying
// what is wrong, or "".
func parsePortRange(s string) (ir.PortRange, string) {
	from, to, isRange := strings.Cut(s, "-")
	port := func(p string) (uint16, string) {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" || len(p) > 5 {
			return 0, fmt.Sprintf("%q is not a port or port range: write a port number (443) or a range (\"8000-8100\").", s)
		}
		n, _ := strconv.Atoi(p)
		if n < 1 || n > 65535 {
			return 0, fmt.Sprintf("In %q, %d is not a port: ports are 1 to 65535.", s, n)
		}
		return uint16(n), ""
	}
	f, msg := port(from)
	if msg != "" {
		return ir.PortRange{}, msg
	}
	if !isRange {
		return ir.PortRange{From: f, To: f}, ""
	}
	t, msg := port(to)
	if msg != "" {
		return ir.PortRange{}, msg
	}
	if f > t {
		return ir.PortRange{}, fmt.Sprintf("In %q the first port is larger than the last: write \"%d-%d\".", s, t, f)
	}
	return ir.PortRange{From: f, To: t}, ""
}

// duration decodes a Go duration string ("10s", "1m30s") into milliseconds.
func (c *compilation) duration(a *hcl.Attribute) (int64, bool) {
	v, ok := c.value(a.Expr)
	if !ok || v.IsNull() {
		return 0, false
	}
	bad := func(format string, args ...any) (int64, bool) {
		c.errorf("invalid-duration", a.Expr.Range(), fmt.Sprintf("Invalid duration for %s", a.Name), format, args...)
		return 0, false
	}
	if !v.Type().Equals(cty.String) {
		return bad("%s must be a duration string such as \"10s\", \"1m30s\" or \"500ms\", not %s (a bare number has no unit).", a.Name, valueString(v))
	}
	s := v.AsString()
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return bad("%q is not a duration: write a number with a unit, such as \"10s\", \"1m30s\" or \"500ms\" (units: ms, s, m, h).", s)
	case d < time.Millisecond:
		return bad("%q is too short: the smallest %s is 1ms.", s, a.Name)
	case d%time.Millisecond != 0:
		return bad("%q has a fraction of a millisecond, which sbx cannot honour; round it to whole milliseconds.", s)
	}
	return d.Milliseconds(), true
}

// sizeUnits are the units accepted by size, in bytes.
var sizeUnits = []struct {
	name string
	mult int64
}{
	{"B", 1},
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"kB", 1000}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
}

// maxSize bounds sizes so that arithmetic on them cannot overflow anywhere.
const maxSize = 1 << 40

// size decodes a byte size: a number of bytes, or a string with an optional
// unit ("1048576", "512KiB", "1MiB", "10MB").
func (c *compilation) size(a *hcl.Attribute) (int64, bool) {
	v, ok := c.value(a.Expr)
	if !ok || v.IsNull() {
		return 0, false
	}
	bad := func(format string, args ...any) (int64, bool) {
		c.errorf("invalid-size", a.Expr.Range(), fmt.Sprintf("Invalid size for %s", a.Name), format, args...)
		return 0, false
	}
	var n int64
	switch {
	case v.Type().Equals(cty.Number):
		x, ok := wholeNumber(v)
		if !ok {
			return bad("%s is not a whole number of bytes.", valueString(v))
		}
		n = x
	case v.Type().Equals(cty.String):
		s := strings.TrimSpace(v.AsString())
		num := strings.TrimRight(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ")
		unit := strings.TrimSpace(s[len(num):])
		mult := int64(0)
		if unit == "" {
			mult = 1
		}
		for _, u := range sizeUnits {
			if u.name == unit {
				mult = u.mult
			}
		}
		if mult == 0 || num == "" || strings.TrimLeft(num, "0123456789") != "" || len(num) > 15 {
			return bad("%q is not a size: write a whole number of bytes with an optional unit, such as \"1MiB\", \"512KiB\", \"10MB\" or \"1048576\" (units: B, KiB, MiB, GiB, kB, MB, GB).", v.AsString())
		}
		x, _ := strconv.ParseInt(num, 10, 64)
		if x > maxSize/mult {
			return bad("%q is larger than the maximum of 1TiB.", v.AsString())
		}
		n = x * mult
	default:
		return bad("%s must be a size such as \"1MiB\" or a number of bytes, not %s.", a.Name, typeName(v))
	}
	if n < 1 {
		return bad("%s must be at least 1 byte; leave it out for the default.", a.Name)
	}
	if n > maxSize {
		return bad("%d bytes is larger than the maximum of 1TiB.", n)
	}
	return n, true
}
