package compiler

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/sbx-dev/sbx/compiler/diag"
)

// Format returns src rewritten in the canonical HCL layout (hclwrite's:
// aligned equals signs, two-space indentation, normalised spacing), which
// is what `sbc fmt` writes. Input that is not valid HCL syntax (or is
// oversized, not UTF-8, or absurdly nested) is reported and not formatted,
// since reformatting broken input can garble it further. Format checks
// syntax only: a well-formed file with unknown attributes is formatted.
func Format(name string, src []byte) ([]byte, diag.Diagnostics) {
	// A byte order mark is kept as it was, outside what is formatted
	// (hclwrite dropped it: red team 27).
	if rest, ok := bytes.CutPrefix(src, utf8BOM); ok {
		out, ds := Format(name, rest)
		if out != nil {
			out = append(append([]byte{}, utf8BOM...), out...)
		}
		return out, ds
	}
	c := newCompilation()
	c.srcs.Add(name, src)
	if !c.checkBytes(name, src) {
		return nil, c.ds
	}
	if _, hds := hclwrite.ParseConfig(src, name, hcl.InitialPos); c.addHCL(hds, "syntax") {
		return nil, c.ds
	}
	return hclwrite.Format(src), c.ds
}
