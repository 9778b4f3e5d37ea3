package compiler

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
)

// decl is one profile block as written, before extends is resolved.
type decl struct {
	name        string
	builtin     bool
	def         hcl.Range // `profile "NAME"`
	description string

	extends      string
	extendsRange hcl.Range // the extends expression; valid when extends != ""

	own settings

	// Ranges of port attributes written in this block, for the warning when
	// the effective network mode makes them meaningless.
	connectRange, bindRange *hcl.Range
	failed                  bool // the block had errors; nothing extends it
}

// settings are the mergeable contents of a profile. Pointer fields are nil
// when not set, so a child can tell "not set" from "set to the zero value".
type settings struct {
	unsandboxed *bool

	rules   []ir.PathRule
	globs   []ir.GlobRule
	protect []ir.ProtectRule

	netSource           *ir.Range
	mode                *ir.NetworkMode
	reason              *string
	connect, bind       []ir.PortRange
	connectSet, bindSet bool
	sockets             []ir.SocketRule

	procSource *ir.Range
	timeoutMS  *int64
	outputCap  *int64
	inherit    *ir.EnvInherit
	envSet     []ir.EnvVar
	unset      []string
}

// Schemas, like rootSchema, are read-only.
var (
	profileSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "description"}, {Name: "extends"}, {Name: "unsandboxed"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "filesystem"}, {Type: "network"}, {Type: "process"}},
	}
	filesystemSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "read"}, {Name: "write"}, {Name: "deny"}, {Name: "deny_glob"}, {Name: "protect"}},
	}
	networkSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "mode"}, {Name: "reason"}, {Name: "connect_tcp"}, {Name: "bind_tcp"}, {Name: "unix_sockets"}},
	}
	processSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "timeout"}, {Name: "output_cap"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "env"}},
	}
	envSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "inherit"}, {Name: "set"}, {Name: "unset"}},
	}
)

// decodeProfile decodes one profile block. It returns nil when the block is
// unusable (no valid name); a decl with failed set when it had other errors.
func (c *compilation) decodeProfile(b *hcl.Block, isBuiltin bool) *decl {
	name := b.Labels[0]
	if !ir.ValidName(name) {
		c.errorf("invalid-name", b.LabelRanges[0], "Invalid profile name",
			"%q cannot name a profile: use 1 to 64 letters, digits, '-', '_' or '.', starting with a letter or digit (the name becomes the file name NAME.sbx.json).", name)
		return nil
	}
	before := len(c.ds)
	d := &decl{name: name, builtin: isBuiltin, def: hcl.RangeBetween(b.TypeRange, b.LabelRanges[0])}
	content, hds := b.Body.Content(profileSchema)
	c.addHCL(hds, "schema")
	if a := content.Attributes["description"]; a != nil {
		if s, ok := c.str(a); ok {
			d.description = s
		}
	}
	if a := content.Attributes["extends"]; a != nil {
		if s, ok := c.str(a); ok {
			if s == "" {
				c.errorf("unknown-profile", a.Expr.Range(), "Empty extends", "Name the profile to extend, such as extends = \"workspace\", or remove the attribute.")
			} else {
				d.extends, d.extendsRange = s, a.Expr.Range()
			}
		}
	}
	if a := content.Attributes["unsandboxed"]; a != nil {
		if v, ok := c.boolean(a); ok {
			d.own.unsandboxed = &v
		}
	}
	seen := map[string]hcl.Range{}
	for _, blk := range content.Blocks {
		if prev, dup := seen[blk.Type]; dup {
			c.errorf("schema", blk.DefRange, fmt.Sprintf("Duplicate %s block", blk.Type),
				"A profile has at most one %s block; the first one is at %s. Merge them.", blk.Type, where(prev))
			continue
		}
		seen[blk.Type] = blk.DefRange
		switch blk.Type {
		case "filesystem":
			c.decodeFilesystem(blk, d)
		case "network":
			c.decodeNetwork(blk, d)
		case "process":
			c.decodeProcess(blk, d)
		}
	}
	for _, x := range c.ds[before:] {
		if x.Severity == diag.Error {
			d.failed = true
		}
	}
	if c.dropped[b.DefRange.Filename] > 0 {
		d.failed = true
	}
	return d
}

func (c *compilation) decodeFilesystem(b *hcl.Block, d *decl) {
	content, hds := b.Body.Content(filesystemSchema)
	c.addHCL(hds, "schema")
	for _, kind := range []struct {
		attr   string
		access ir.Access
	}{{"read", ir.Read}, {"write", ir.Write}, {"deny", ir.Deny}} {
		a := content.Attributes[kind.attr]
		if a == nil {
			continue
		}
		for _, e := range c.pathElems(a) {
			p, ok := c.path(e, kind.attr, kind.access == ir.Deny)
			if ok {
				d.own.rules = append(d.own.rules, ir.PathRule{Path: p, Access: kind.access, Source: rng(e.rng)})
			}
		}
	}
	if a := content.Attributes["deny_glob"]; a != nil {
		for _, e := range c.pathElems(a) {
			if g, ok := c.glob(e); ok {
				d.own.globs = append(d.own.globs, g)
			}
		}
	}
	if a := content.Attributes["protect"]; a != nil {
		for _, e := range c.elems(a, nil, "protect", "a list of names, such as [\".git\"]") {
			if name, ok := c.protectName(e); ok {
				d.own.protect = append(d.own.protect, ir.ProtectRule{Name: name, Source: rng(e.rng)})
			}
		}
	}
}

func (c *compilation) decodeNetwork(b *hcl.Block, d *decl) {
	content, hds := b.Body.Content(networkSchema)
	c.addHCL(hds, "schema")
	src := rng(b.DefRange)
	d.own.netSource = &src
	if a := content.Attributes["mode"]; a != nil {
		if s, ok := c.str(a); ok {
			m := ir.NetworkMode(s)
			if m.Valid() {
				d.own.mode = &m
			} else {
				c.errorf("invalid-network-mode", a.Expr.Range(), "Invalid network mode",
					"%q is not a network mode. Use \"none\" (no network), \"ports\" (TCP on the ports in connect_tcp and bind_tcp) or \"full\" (no restriction).%s", s, suggest(s, []string{"none", "ports", "full"}))
			}
		}
	}
	if a := content.Attributes["reason"]; a != nil {
		if s, ok := c.str(a); ok {
			d.own.reason = &s
		}
	}
	// Red team 29: a port list set to null is not set, as the README
	// says of every attribute; it counted as set and empty, so that
	// connect_tcp = null in a child cleared the list it inherits.
	if a := content.Attributes["connect_tcp"]; a != nil && !nullAttr(a) {
		d.own.connect, d.own.connectSet = c.ports(a), true
		if len(d.own.connect) > 0 {
			r := a.NameRange
			d.connectRange = &r
		}
	}
	if a := content.Attributes["bind_tcp"]; a != nil && !nullAttr(a) {
		d.own.bind, d.own.bindSet = c.ports(a), true
		if len(d.own.bind) > 0 {
			r := a.NameRange
			d.bindRange = &r
		}
	}
	if a := content.Attributes["unix_sockets"]; a != nil {
		for _, e := range c.pathElems(a) {
			if p, ok := c.path(e, "unix_sockets", false); ok {
				if p.Anchor == ir.AnchorPlatform {
					c.errorf("invalid-path", e.rng, "platform_defaults is not a socket", "unix_sockets takes the paths of sockets, such as \"/run/user/1000/ssh-agent.sock\".")
					continue
				}
				d.own.sockets = append(d.own.sockets, ir.SocketRule{Path: p, Source: rng(e.rng)})
			}
		}
	}
}

func (c *compilation) decodeProcess(b *hcl.Block, d *decl) {
	content, hds := b.Body.Content(processSchema)
	c.addHCL(hds, "schema")
	src := rng(b.DefRange)
	d.own.procSource = &src
	if a := content.Attributes["timeout"]; a != nil {
		if ms, ok := c.duration(a); ok {
			d.own.timeoutMS = &ms
		}
	}
	if a := content.Attributes["output_cap"]; a != nil {
		if n, ok := c.size(a); ok {
			d.own.outputCap = &n
		}
	}
	var first *hcl.Range
	for _, blk := range content.Blocks {
		if first != nil {
			c.errorf("schema", blk.DefRange, "Duplicate env block", "A process block has at most one env block; the first one is at %s. Merge them.", where(*first))
			continue
		}
		first = &blk.DefRange
		c.decodeEnv(blk, d)
	}
}

func (c *compilation) decodeEnv(b *hcl.Block, d *decl) {
	content, hds := b.Body.Content(envSchema)
	c.addHCL(hds, "schema")
	if a := content.Attributes["inherit"]; a != nil {
		if s, ok := c.str(a); ok {
			m := ir.EnvInherit(s)
			if m.Valid() {
				d.own.inherit = &m
			} else {
				c.errorf("invalid-env", a.Expr.Range(), "Invalid env inherit mode",
					"%q is not an inherit mode. Use \"core\" (PATH, HOME, locale, terminal: %s and LC_*), \"all\" (the whole environment) or \"none\".%s",
					s, strings.Join(ir.CoreEnv, ", "), suggest(s, []string{"core", "all", "none"}))
			}
		}
	}
	if a := content.Attributes["set"]; a != nil {
		d.own.envSet = c.envSet(a)
	}
	if a := content.Attributes["unset"]; a != nil {
		for _, e := range c.elems(a, nil, "unset", "a list of variable names, such as [\"AWS_SECRET_ACCESS_KEY\", \"AWS_*\"]") {
			s, ok := c.elemString(e, "unset", "a variable name")
			if !ok {
				continue
			}
			if err := ir.ValidEnvName(s, true); err != nil {
				c.errorf("invalid-env", e.rng, "Invalid variable name in unset", "%v. A name may end in * to unset every variable with that prefix (\"AWS_*\").", err)
				continue
			}
			d.own.unset = append(d.own.unset, s)
		}
	}
}

// envSet decodes `set = { NAME = "value" }`.
func (c *compilation) envSet(a *hcl.Attribute) []ir.EnvVar {
	pairs, hds := hcl.ExprMap(a.Expr)
	if hds.HasErrors() {
		v, ok := c.value(a.Expr)
		if !ok || v.IsNull() {
			return nil
		}
		if t := v.Type(); t.IsObjectType() || t.IsMapType() {
			// Red team 29: a computed object ({ for k in [...] : k => "1" })
			// was refused as "must be an object ..., not an object". Its
			// variables share the range of the whole expression.
			return c.envSetValue(a.Expr.Range(), v)
		}
		c.errorf("type", a.Expr.Range(), "Incorrect value type for set",
			"set must be an object of variable names to string values, such as set = { CI = \"1\" }, not %s.", typeName(v))
		return nil
	}
	var out []ir.EnvVar
	seen := map[string]hcl.Range{}
	for _, kv := range pairs {
		kr := kv.Key.Range()
		kval, hds := kv.Key.Value(nil)
		if c.addHCL(hds, "expression") {
			continue
		}
		if kval.IsNull() || !kval.Type().Equals(cty.String) {
			c.errorf("type", kr, "Incorrect variable name in set", "Variable names are strings, not %s.", typeName(kval))
			continue
		}
		name := kval.AsString()
		if err := ir.ValidEnvName(name, false); err != nil {
			c.errorf("invalid-env", kr, "Invalid variable name in set", "%v.", err)
			continue
		}
		if prev, dup := seen[name]; dup {
			c.errorf("invalid-env", kr, fmt.Sprintf("Duplicate variable %s in set", name), "%s is already set at %s.", name, where(prev))
			continue
		}
		seen[name] = kr
		v, hds := kv.Value.Value(nil)
		if c.addHCL(hds, "expression") {
			continue
		}
		sv, err := convert.Convert(v, cty.String)
		if err != nil || sv.IsNull() {
			c.errorf("type", kv.Value.Range(), fmt.Sprintf("Incorrect value for %s in set", name), "Environment values are strings, not %s.", typeName(v))
			continue
		}
		if strings.IndexByte(sv.AsString(), 0) >= 0 {
			c.errorf("invalid-env", kv.Value.Range(), fmt.Sprintf("Invalid value for %s in set", name), "Environment values cannot contain a NUL character.")
			continue
		}
		out = append(out, ir.EnvVar{Name: name, Value: sv.AsString()})
	}
	return out
}

// nullAttr reports whether a evaluates to null, which counts as not set.
// An expression that fails to evaluate is not null: decoding reports it.
func nullAttr(a *hcl.Attribute) bool {
	v, hds := a.Expr.Value(nil)
	return !hds.HasErrors() && v.IsNull()
}

// envSetValue decodes a computed set object, whose variables are all at r.
func (c *compilation) envSetValue(r hcl.Range, v cty.Value) []ir.EnvVar {
	var out []ir.EnvVar
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		name := k.AsString()
		if err := ir.ValidEnvName(name, false); err != nil {
			c.errorf("invalid-env", r, "Invalid variable name in set", "%v.", err)
			continue
		}
		sv, err := convert.Convert(ev, cty.String)
		if err != nil || sv.IsNull() {
			c.errorf("type", r, fmt.Sprintf("Incorrect value for %s in set", name), "Environment values are strings, not %s.", typeName(ev))
			continue
		}
		if strings.IndexByte(sv.AsString(), 0) >= 0 {
			c.errorf("invalid-env", r, fmt.Sprintf("Invalid value for %s in set", name), "Environment values cannot contain a NUL character.")
			continue
		}
		out = append(out, ir.EnvVar{Name: name, Value: sv.AsString()})
	}
	return out
}

// value evaluates a non-path expression, where variables are not allowed.
// A bare word there (mode = none) gets a message saying to quote it, rather
// than HCL's "Variables not allowed". ok is false after an error.
func (c *compilation) value(e hcl.Expression) (cty.Value, bool) {
	v, hds := e.Value(nil)
	if !hds.HasErrors() {
		return v, true
	}
	if t, tds := hcl.AbsTraversalForExpr(e); !tds.HasErrors() && len(t) == 1 {
		name := t.RootName()
		c.errorf("expression", e.Range(), "Unquoted word", "%s is a bare word here: write %q in quotes. Bare words are anchors, allowed only in path lists (read, write, deny, deny_glob, unix_sockets).", name, name)
		return cty.NilVal, false
	}
	c.addHCL(hds, "expression")
	return cty.NilVal, false
}

// str decodes a string attribute. Null counts as not set.
func (c *compilation) str(a *hcl.Attribute) (string, bool) {
	v, ok := c.value(a.Expr)
	if !ok || v.IsNull() {
		return "", false
	}
	if !v.Type().Equals(cty.String) {
		c.errorf("type", a.Expr.Range(), fmt.Sprintf("Incorrect value type for %s", a.Name), "%s must be a string, not %s.", a.Name, typeName(v))
		return "", false
	}
	return v.AsString(), true
}

// boolean decodes a bool attribute. Null counts as not set.
func (c *compilation) boolean(a *hcl.Attribute) (bool, bool) {
	v, ok := c.value(a.Expr)
	if !ok || v.IsNull() {
		return false, false
	}
	if !v.Type().Equals(cty.Bool) {
		c.errorf("type", a.Expr.Range(), fmt.Sprintf("Incorrect value type for %s", a.Name), "%s must be true or false, not %s.", a.Name, typeName(v))
		return false, false
	}
	return v.True(), true
}

// elem is one element of a list attribute, evaluated.
type elem struct {
	val cty.Value
	rng hcl.Range
}

// elems evaluates the elements of a list attribute one by one, so that each
// keeps its own source range. want describes the expected value in the
// error for a non-list.
func (c *compilation) elems(a *hcl.Attribute, ctx *hcl.EvalContext, name, want string) []elem {
	exprs, hds := hcl.ExprList(a.Expr)
	if hds.HasErrors() {
		v, hds := a.Expr.Value(ctx)
		if c.addHCL(hds, "expression") || v.IsNull() {
			return nil
		}
		if t := v.Type(); t.IsTupleType() || t.IsListType() || t.IsSetType() {
			// A computed list (a for expression): its elements share the
			// range of the whole expression.
			var out []elem
			for it := v.ElementIterator(); it.Next(); {
				_, ev := it.Element()
				if ev.IsNull() {
					c.errorf("type", a.Expr.Range(), fmt.Sprintf("Null element in %s", name), "Remove the null element.")
					continue
				}
				out = append(out, elem{val: ev, rng: a.Expr.Range()})
			}
			return out
		}
		c.errorf("type", a.Expr.Range(), fmt.Sprintf("Incorrect value type for %s", name),
			"%s must be %s, not %s. Put the value in brackets: %s = [ ... ].", name, want, typeName(v), name)
		return nil
	}
	out := make([]elem, 0, len(exprs))
	for _, e := range exprs {
		var v cty.Value
		if ctx == nil {
			var ok bool
			if v, ok = c.value(e); !ok {
				continue
			}
		} else {
			var hds hcl.Diagnostics
			if v, hds = e.Value(ctx); c.addHCL(hds, "expression") {
				continue
			}
		}
		if v.IsNull() {
			c.errorf("type", e.Range(), fmt.Sprintf("Null element in %s", name), "Remove the null element.")
			continue
		}
		out = append(out, elem{val: v, rng: e.Range()})
	}
	return out
}

// elemString returns the string value of e, or reports a type error.
func (c *compilation) elemString(e elem, name, want string) (string, bool) {
	if !e.val.Type().Equals(cty.String) {
		c.errorf("type", e.rng, fmt.Sprintf("Incorrect element type in %s", name), "Each element of %s must be %s, not %s.", name, want, typeName(e.val))
		return "", false
	}
	return e.val.AsString(), true
}

// typeName describes a value's type for messages.
func typeName(v cty.Value) string {
	t := v.Type()
	switch {
	case v.IsNull():
		return "null"
	case t.Equals(cty.String):
		return "a string"
	case t.Equals(cty.Number):
		return "a number"
	case t.Equals(cty.Bool):
		return "a bool"
	case t.IsTupleType() || t.IsListType() || t.IsSetType():
		return "a list"
	case t.IsObjectType() || t.IsMapType():
		return "an object"
	}
	return t.FriendlyName()
}
