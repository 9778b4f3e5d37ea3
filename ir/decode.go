package ir

import (
	"strconv"
)

// decodeDocument decodes an IR document without reflection: the values
// encoding/json's decoder (unknown fields refused) gives, null leaving a
// field at its zero value as there, for the documents it accepts, except
// that field names must match exactly and at most once (see
// parseEnvelope). It does not validate the profile.
//
// sbx decodes an artifact's IR at every start, and encoding/json's cold
// start (a decoder built by reflection for each of the IR's fifteen
// types) was most of the cost of doing so. FuzzDecodeDocument keeps the
// two equal.
func decodeDocument(data []byte) (*Document, error) {
	s := jsonScanner{data: data}
	s.ws()
	var doc Document
	if err := s.fields("the IR document", docFields, func(i int) error {
		if i == 0 {
			return s.string(&doc.Format)
		}
		if s.null() {
			doc.Profile = nil
			return nil
		}
		doc.Profile = new(Profile)
		return s.profile(doc.Profile)
	}); err != nil {
		return nil, err
	}
	s.ws()
	if s.i < len(data) {
		return nil, s.invalidf(s.i, "trailing data after the IR document")
	}
	return &doc, nil
}

var (
	docFields        = []string{"format", "profile"}
	profileFields    = []string{"name", "description", "extends", "unsandboxed", "filesystem", "network", "process", "source"}
	filesystemFields = []string{"rules", "deny_globs", "protect"}
	pathRuleFields   = []string{"path", "access", "source"}
	pathFields       = []string{"anchor", "rel"}
	globFields       = []string{"pattern", "max_depth", "source"}
	protectFields    = []string{"name", "source"}
	networkFields    = []string{"mode", "reason", "connect_tcp", "bind_tcp", "unix_sockets", "source"}
	portFields       = []string{"from", "to", "source"}
	socketFields     = []string{"path", "source"}
	processFields    = []string{"timeout_ms", "output_cap", "env", "source"}
	envFields        = []string{"inherit", "set", "unset"}
	envVarFields     = []string{"name", "value"}
	rangeFields      = []string{"filename", "start", "end"}
	posFields        = []string{"line", "column", "byte"}
)

// fields reads an object (or null, which leaves the value as it is) whose
// members must be among names, each at most once, calling field with the
// index of each name once the scanner is at its value.
func (s *jsonScanner) fields(what string, names []string, field func(i int) error) error {
	if s.null() {
		return nil
	}
	if s.i >= len(s.data) {
		return s.truncated()
	}
	if s.data[s.i] != '{' {
		return s.kindError(what, "an object")
	}
	s.depth++
	defer func() { s.depth-- }()
	var seen uint32
	return s.object(func(key string) error {
		for i, n := range names {
			if n == key {
				if seen&(1<<i) != 0 {
					return s.invalidf(s.key, "field %q appears twice in %s", key, what)
				}
				seen |= 1 << i
				return field(i)
			}
		}
		return s.invalidf(s.key, "unknown field %q in %s", key, what)
	})
}

// array reads an array (or null, which makes the slice nil: the caller
// gets n = -1), calling elem for each element once the scanner is at it.
func (s *jsonScanner) array(what string, elem func(i int) error) (n int, err error) {
	if s.null() {
		return -1, nil
	}
	if s.i >= len(s.data) {
		return 0, s.truncated()
	}
	if s.data[s.i] != '[' {
		return 0, s.kindError(what, "an array")
	}
	s.i++
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		return 0, nil
	}
	for {
		if err := elem(n); err != nil {
			return n, err
		}
		n++
		s.ws()
		if s.i >= len(s.data) {
			return n, s.truncated()
		}
		switch s.data[s.i] {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			return n, nil
		default:
			return n, s.unexpected("after an array element")
		}
	}
}

// null consumes a null literal, if that is what comes next.
func (s *jsonScanner) null() bool {
	if s.i+4 <= len(s.data) && string(s.data[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// string reads a string into dst (null leaves it).
func (s *jsonScanner) string(dst *string) error {
	if s.null() {
		return nil
	}
	if s.i < len(s.data) && s.data[s.i] != '"' {
		return s.kindError("a string field", "a string")
	}
	v, err := s.str()
	*dst = v
	return err
}

// number reads an integer of bits bits (null leaves dst), as encoding/json
// stores a JSON number into an integer field: a literal with a fraction or
// an exponent, or out of range, is an error.
func (s *jsonScanner) number(bits int, signed bool, store func(int64, uint64)) error {
	if s.null() {
		return nil
	}
	start := s.i
	if s.i < len(s.data) && (s.data[s.i] == '-' || s.data[s.i] >= '0' && s.data[s.i] <= '9') {
		if err := s.skipNumber(); err != nil {
			return err
		}
		lit := string(s.data[start:s.i])
		if signed {
			if v, err := strconv.ParseInt(lit, 10, bits); err == nil {
				store(v, 0)
				return nil
			}
		} else if v, err := strconv.ParseUint(lit, 10, bits); err == nil {
			store(0, v)
			return nil
		}
		return s.invalidf(start, "the number %s is not an integer of %d bits", lit, bits)
	}
	s.i = start
	return s.kindError("a number field", "a number")
}

func (s *jsonScanner) integer(dst *int) error {
	return s.number(strconv.IntSize, true, func(v int64, _ uint64) { *dst = int(v) })
}

func (s *jsonScanner) int64(dst *int64) error {
	return s.number(64, true, func(v int64, _ uint64) { *dst = v })
}

func (s *jsonScanner) port(dst *uint16) error {
	return s.number(16, false, func(_ int64, v uint64) { *dst = uint16(v) })
}

// boolean reads true or false (null leaves dst).
func (s *jsonScanner) boolean(dst *bool) error {
	switch {
	case s.null():
	case s.i+4 <= len(s.data) && string(s.data[s.i:s.i+4]) == "true":
		s.i += 4
		*dst = true
	case s.i+5 <= len(s.data) && string(s.data[s.i:s.i+5]) == "false":
		s.i += 5
		*dst = false
	default:
		return s.kindError("a boolean field", "true or false")
	}
	return nil
}

func (s *jsonScanner) strings(dst *[]string) error {
	return list(s, "a list of strings", dst, s.string)
}

// list reads an array (or null) into dst, each element with elem, as
// encoding/json fills a slice field.
func list[T any](s *jsonScanner, what string, dst *[]T, elem func(*T) error) error {
	var out []T
	n, err := s.array(what, func(int) error {
		var zero T
		out = append(out, zero)
		return elem(&out[len(out)-1])
	})
	*dst = sliceOf(out, n)
	return err
}

// sliceOf is what encoding/json leaves in a slice field: nil for null, an
// empty slice for [].
func sliceOf[T any](v []T, n int) []T {
	switch {
	case n < 0:
		return nil
	case v == nil:
		return []T{}
	}
	return v
}

func (s *jsonScanner) profile(p *Profile) error {
	return s.fields("the profile", profileFields, func(i int) error {
		switch i {
		case 0:
			return s.string(&p.Name)
		case 1:
			return s.string(&p.Description)
		case 2:
			return s.strings(&p.Extends)
		case 3:
			return s.boolean(&p.Unsandboxed)
		case 4:
			return s.filesystem(&p.Filesystem)
		case 5:
			return s.network(&p.Network)
		case 6:
			return s.process(&p.Process)
		}
		return s.rng(&p.Source)
	})
}

func (s *jsonScanner) filesystem(f *Filesystem) error {
	return s.fields("filesystem", filesystemFields, func(i int) error {
		switch i {
		case 0:
			return list(s, "rules", &f.Rules, func(r *PathRule) error {
				return s.fields("a path rule", pathRuleFields, func(i int) error {
					switch i {
					case 0:
						return s.path(&r.Path)
					case 1:
						return s.access(&r.Access)
					}
					return s.rng(&r.Source)
				})
			})
		case 1:
			return list(s, "deny_globs", &f.DenyGlobs, func(g *GlobRule) error {
				return s.fields("a deny glob", globFields, func(i int) error {
					switch i {
					case 0:
						return s.string(&g.Pattern)
					case 1:
						return s.integer(&g.MaxDepth)
					}
					return s.rng(&g.Source)
				})
			})
		}
		return list(s, "protect", &f.Protect, func(r *ProtectRule) error {
			return s.fields("a protect rule", protectFields, func(i int) error {
				if i == 0 {
					return s.string(&r.Name)
				}
				return s.rng(&r.Source)
			})
		})
	})
}

// access reads an access name as Access.UnmarshalText does (null leaves
// it).
func (s *jsonScanner) access(dst *Access) error {
	if s.null() {
		return nil
	}
	at := s.i
	var name string
	if err := s.string(&name); err != nil {
		return err
	}
	a, err := ParseAccess(name)
	if err != nil {
		return s.invalidf(at, "%v", err)
	}
	*dst = a
	return nil
}

func (s *jsonScanner) path(p *Path) error {
	return s.fields("a path", pathFields, func(i int) error {
		if i == 0 {
			return s.string(&p.Anchor)
		}
		return s.string(&p.Rel)
	})
}

func (s *jsonScanner) network(n *Network) error {
	return s.fields("network", networkFields, func(i int) error {
		switch i {
		case 0:
			var mode string
			err := s.string(&mode)
			n.Mode = NetworkMode(mode)
			return err
		case 1:
			return s.string(&n.Reason)
		case 2:
			return s.ports(&n.ConnectTCP)
		case 3:
			return s.ports(&n.BindTCP)
		case 4:
			return list(s, "unix_sockets", &n.UnixSockets, func(r *SocketRule) error {
				return s.fields("a Unix socket rule", socketFields, func(i int) error {
					if i == 0 {
						return s.path(&r.Path)
					}
					return s.rng(&r.Source)
				})
			})
		}
		return s.rng(&n.Source)
	})
}

func (s *jsonScanner) ports(dst *[]PortRange) error {
	return list(s, "a list of port ranges", dst, func(r *PortRange) error {
		return s.fields("a port range", portFields, func(i int) error {
			switch i {
			case 0:
				return s.port(&r.From)
			case 1:
				return s.port(&r.To)
			}
			return s.rng(&r.Source)
		})
	})
}

func (s *jsonScanner) process(p *Process) error {
	return s.fields("process", processFields, func(i int) error {
		switch i {
		case 0:
			return s.int64(&p.TimeoutMS)
		case 1:
			return s.int64(&p.OutputCap)
		case 2:
			return s.fields("env", envFields, func(i int) error {
				switch i {
				case 0:
					var inherit string
					err := s.string(&inherit)
					p.Env.Inherit = EnvInherit(inherit)
					return err
				case 1:
					return list(s, "env.set", &p.Env.Set, func(v *EnvVar) error {
						return s.fields("an environment variable", envVarFields, func(i int) error {
							if i == 0 {
								return s.string(&v.Name)
							}
							return s.string(&v.Value)
						})
					})
				}
				return s.strings(&p.Env.Unset)
			})
		}
		return s.rng(&p.Source)
	})
}

func (s *jsonScanner) rng(r *Range) error {
	return s.fields("a source range", rangeFields, func(i int) error {
		switch i {
		case 0:
			return s.string(&r.Filename)
		case 1:
			return s.pos(&r.Start)
		}
		return s.pos(&r.End)
	})
}

func (s *jsonScanner) pos(p *Pos) error {
	return s.fields("a source position", posFields, func(i int) error {
		switch i {
		case 0:
			return s.integer(&p.Line)
		case 1:
			return s.integer(&p.Column)
		}
		return s.integer(&p.Byte)
	})
}
