package landlock

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/sbx-dev/sbx/ir"
)

// AppendJSON appends the plan's JSON encoding to b: byte for byte what
// json.Marshal(p) produces (field order, omitempty, null for nil slices,
// HTML-safe string escapes), which is what sbc stores in artifacts.
//
// sbx recompiles the plan of every artifact file it runs and compares the
// encoding's digest with the file's. encoding/json builds its encoders by
// reflection on first use, and a fresh sbx pays that for every type of the
// plan at each start; this writes them directly. TestPlanAppendJSON keeps
// it equal to json.Marshal, for every field of every type (a field added to
// the plan and not here fails it).
func (p *Plan) AppendJSON(b []byte) ([]byte, error) {
	w := jsonWriter{b: b}
	w.open('{')
	w.str("format", p.Format)
	w.str("profile", p.Profile)
	if p.Unsandboxed {
		w.boolean("unsandboxed", true)
	}
	w.int("min_abi", int64(p.MinABI))
	w.str("min_kernel", p.MinKernel)
	objects(&w, "requirements", p.Requirements, omitEmpty, func(r *Requirement) {
		w.str("feature", r.Feature)
		w.int("abi", int64(r.ABI))
		w.str("kernel", r.Kernel)
		w.str("rule", r.Rule)
		w.rng("source", &r.Source)
		w.str("fallback", r.Fallback)
		if r.Lost {
			w.boolean("lost", true)
		}
	})
	w.key("handled")
	w.open('{')
	w.names("fs", p.Handled.FS.Names())
	w.names("net", p.Handled.Net.Names())
	w.names("scoped", p.Handled.Scoped.Names())
	w.close('}')
	objects(&w, "rules", p.Rules, omitEmpty, func(r *PlanRule) {
		w.path("path", r.Path)
		w.access("access", r.Access)
		w.names("rights", r.Rights.Names())
		w.rng("source", &r.Source)
	})
	objects(&w, "protect", p.Protect, omitEmpty, func(r *ir.ProtectRule) {
		w.str("name", r.Name)
		w.rng("source", &r.Source)
	})
	objects(&w, "deny_globs", p.DenyGlobs, omitEmpty, func(r *ir.GlobRule) {
		w.str("pattern", r.Pattern)
		w.int("max_depth", int64(r.MaxDepth))
		w.rng("source", &r.Source)
	})
	n := &p.Network
	w.key("network")
	w.open('{')
	w.str("mode", string(n.Mode))
	w.boolean("namespace", n.Namespace)
	w.ports("connect_tcp", n.ConnectTCP)
	w.ports("bind_tcp", n.BindTCP)
	objects(&w, "unix_sockets", n.UnixSockets, omitEmpty, func(r *ir.SocketRule) {
		w.path("path", r.Path)
		w.rng("source", &r.Source)
	})
	w.rng("source", &n.Source)
	w.close('}')
	w.key("symbolic")
	w.open('{')
	objects(&w, "grants", p.Symbolic.Grants, nullIfNil, func(g *Grant) {
		w.str("path", g.Path)
		w.names("rights", g.Rights.Names())
		if g.NoFollow {
			w.boolean("no_follow", true)
		}
		if g.Why != "" {
			w.str("why", g.Why)
		}
	})
	objects(&w, "mounts", p.Symbolic.Mounts, nullIfNil, func(m *MountOp) {
		w.str("kind", string(m.Kind))
		w.str("path", m.Path)
		if m.Dir {
			w.boolean("dir", true)
		}
		objects(&w, "keep", m.Keep, omitEmpty, func(k *Keep) {
			w.str("rel", k.Rel)
			w.boolean("dir", k.Dir)
		})
		if m.Why != "" {
			w.str("why", m.Why)
		}
		if m.Vanishing {
			w.boolean("vanishing", true)
		}
		if m.Mounted {
			w.boolean("mounted", true)
		}
	})
	w.close('}')
	if len(p.Base) > 0 {
		w.names("base", p.Base)
	}
	if len(p.Seccomp) > 0 {
		w.names("seccomp", p.Seccomp)
	}
	objects(&w, "fidelity", p.Fidelity, nullIfNil, func(f *Fidelity) {
		w.str("rule", f.Rule)
		w.rng("source", &f.Source)
		w.str("level", string(f.Level))
		if f.Mechanism != "" {
			w.str("mechanism", f.Mechanism)
		}
		if f.Detail != "" {
			w.str("detail", f.Detail)
		}
		w.int("min_abi", int64(f.MinABI))
	})
	w.close('}')
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

// How objects writes an empty slice field: left out (omitempty), or as
// null when nil and [] when empty.
const (
	omitEmpty = true
	nullIfNil = false
)

// objects writes the slice field k, each element an object whose members
// fields writes.
func objects[T any](w *jsonWriter, k string, v []T, omit bool, fields func(*T)) {
	if omit && len(v) == 0 {
		return
	}
	w.key(k)
	if v == nil {
		w.null()
		return
	}
	w.open('[')
	for i := range v {
		w.elem()
		w.open('{')
		fields(&v[i])
		w.close('}')
	}
	w.close(']')
}

// jsonWriter appends compact JSON. Inside an object or array, first tells
// whether a comma must come before the next member.
type jsonWriter struct {
	b     []byte
	first bool
	err   error
}

func (w *jsonWriter) open(c byte) {
	w.b = append(w.b, c)
	w.first = true
}

func (w *jsonWriter) close(c byte) {
	w.b = append(w.b, c)
	w.first = false
}

// elem starts an array element.
func (w *jsonWriter) elem() {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
}

// key starts an object member.
func (w *jsonWriter) key(k string) {
	w.elem()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...) // keys are plain ASCII
	w.b = append(w.b, '"', ':')
}

func (w *jsonWriter) null() { w.b = append(w.b, "null"...) }

func (w *jsonWriter) str(k, v string) {
	w.key(k)
	w.b = appendJSONString(w.b, v)
}

func (w *jsonWriter) int(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *jsonWriter) boolean(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
}

// names writes a list of strings, [] when empty: a rights set as its
// MarshalJSON writes it (never null), or a string slice the caller writes
// only when it is not empty (omitempty).
func (w *jsonWriter) names(k string, v []string) {
	w.key(k)
	w.open('[')
	for _, s := range v {
		w.elem()
		w.b = appendJSONString(w.b, s)
	}
	w.close(']')
}

func (w *jsonWriter) path(k string, p ir.Path) {
	w.key(k)
	w.open('{')
	w.str("anchor", p.Anchor)
	if p.Rel != "" {
		w.str("rel", p.Rel)
	}
	w.close('}')
}

// access writes ir.Access as its MarshalText does; an invalid value is an
// error, as it is for json.Marshal.
func (w *jsonWriter) access(k string, a ir.Access) {
	if a < ir.Deny || a > ir.Write {
		if w.err == nil {
			w.err = fmt.Errorf("json: error calling MarshalText for type ir.Access: invalid access %d", int(a))
		}
		return
	}
	w.str(k, a.String())
}

func (w *jsonWriter) pos(k string, p ir.Pos) {
	w.key(k)
	w.open('{')
	w.int("line", int64(p.Line))
	w.int("column", int64(p.Column))
	w.int("byte", int64(p.Byte))
	w.close('}')
}

func (w *jsonWriter) rng(k string, r *ir.Range) {
	w.key(k)
	w.open('{')
	w.str("filename", r.Filename)
	w.pos("start", r.Start)
	w.pos("end", r.End)
	w.close('}')
}

// ports writes an omitempty list of port ranges.
func (w *jsonWriter) ports(k string, v []ir.PortRange) {
	objects(w, k, v, omitEmpty, func(r *ir.PortRange) {
		w.int("from", int64(r.From))
		w.int("to", int64(r.To))
		w.rng("source", &r.Source)
	})
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as encoding/json quotes strings for
// json.Marshal: '"' and '\\' escaped, \b \f \n \r \t by name, other
// control characters and '<', '>', '&' as \u00XX, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 as \u2028 and \u2029.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
