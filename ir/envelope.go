package ir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxJSONDepth bounds the nesting of the values jsonScanner reads (an
// artifact, an IR document), as encoding/json bounds its decoder's
// (10,000), so that a hostile file cannot exhaust the stack.
const maxJSONDepth = 10000

// parseEnvelope decodes an artifact file's outer object: its four string
// fields, the IR and each target's data as compact raw values (see
// compactValue), validating the whole document's JSON syntax as it goes.
//
// It replaces encoding/json for this one shape because sbx reads an
// artifact at every start: the reflecting decoder's cold caches and its
// scanner, which calls a function for every byte of a file that is mostly
// indentation, made the envelope the largest single cost of starting from
// an artifact file. It is stricter than encoding/json: field names match
// exactly (not case-insensitively), a name given twice is an error (two
// "ir" values would otherwise be read differently by different tools),
// the string fields must be strings and "targets" an object (not null).
// sbc writes none of these.
func parseEnvelope(data []byte) (*Artifact, error) {
	s := jsonScanner{data: data, artifact: true}
	s.ws()
	if start := s.i; start < len(data) && data[start] != '{' {
		// Not an object: say whether it is JSON at all.
		if err := s.skipValue(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: the file holds a JSON %s, not an artifact object", ErrCorrupt, jsonKind(data[start]))
	}
	var a Artifact
	err := s.fields("the artifact", envelopeFields, func(i int) error {
		var err error
		switch i {
		case 0:
			a.Format, err = s.stringField("format")
		case 1:
			a.Compiler, err = s.stringField("compiler")
		case 2:
			a.Digest, err = s.stringField("ir_digest")
		case 3:
			a.IR, err = s.compactValue()
		default:
			a.Targets, err = s.targets()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	s.ws()
	if s.i < len(data) {
		return nil, s.invalidf(s.i, "trailing data after the artifact")
	}
	return &a, nil
}

// The field names of an artifact and of a target's output.
var (
	envelopeFields = []string{"format", "compiler", "ir_digest", "ir", "targets"}
	targetFields   = []string{"format", "digest", "data"}
)

// targets decodes the "targets" object: name to {format, digest, data}.
func (s *jsonScanner) targets() (map[string]TargetOutput, error) {
	if s.i < len(s.data) && s.data[s.i] != '{' {
		return nil, s.kindError("targets", "an object")
	}
	m := map[string]TargetOutput{}
	s.depth++
	defer func() { s.depth-- }()
	err := s.object(func(name string) error {
		if _, dup := m[name]; dup {
			return s.invalidf(s.key, "target %q appears twice in the artifact", name)
		}
		if s.i < len(s.data) && s.data[s.i] != '{' {
			return s.kindError("targets."+name, "an object")
		}
		var t TargetOutput
		err := s.fields("target "+strconv.Quote(name), targetFields, func(i int) error {
			var err error
			switch i {
			case 0:
				t.Format, err = s.stringField("targets." + name + ".format")
			case 1:
				t.Digest, err = s.stringField("targets." + name + ".digest")
			default:
				t.Data, err = s.compactValue()
			}
			return err
		})
		m[name] = t
		return err
	})
	return m, err
}

// jsonScanner reads JSON from data at i: the artifact's envelope here, the
// IR document in decode.go.
type jsonScanner struct {
	data  []byte
	i     int
	depth int
	// While compacting (compactValue), out receives the value's bytes but
	// the whitespace ws skips: data[mark:i] is the part not yet copied.
	compacting bool
	out        []byte
	mark       int
	// key is where the name of the member object is reading began.
	key int
	// artifact: errors wrap ErrCorrupt (see fail).
	artifact bool
}

// jsonKind names the kind of value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// fail makes an error of msg: one that wraps ErrCorrupt when reading an
// artifact file's envelope (the IR's decoder leaves that to its caller).
func (s *jsonScanner) fail(msg string) error {
	if s.artifact {
		return fmt.Errorf("%w: %s", ErrCorrupt, msg)
	}
	return errors.New(msg)
}

// errorf reports a syntax error at the current byte.
func (s *jsonScanner) errorf(format string, args ...any) error {
	return s.fail("not valid JSON at " + s.where(s.i) + ": " + fmt.Sprintf(format, args...))
}

// invalidf reports valid JSON that is not what an artifact holds there
// (a field unknown or given twice, a value of the wrong kind) at byte at.
func (s *jsonScanner) invalidf(at int, format string, args ...any) error {
	return s.fail("at " + s.where(at) + ": " + fmt.Sprintf(format, args...))
}

// where names byte offset at as a line and column (1-based, the column in
// characters, as editors count them) and the byte (1-based, as
// encoding/json's errors gave it).
func (s *jsonScanner) where(at int) string {
	at = min(at, len(s.data))
	line, start := 1, 0
	for i, c := range s.data[:at] {
		if c == '\n' {
			line, start = line+1, i+1
		}
	}
	return fmt.Sprintf("line %d, column %d (byte %d)", line, utf8.RuneCount(s.data[start:at])+1, at+1)
}

func (s *jsonScanner) truncated() error {
	return s.fail(fmt.Sprintf("truncated: the JSON ends after %d bytes", len(s.data)))
}

// unexpected reports the byte at i (or the end) where what was expected.
func (s *jsonScanner) unexpected(what string) error {
	if s.i >= len(s.data) {
		return s.truncated()
	}
	return s.errorf("invalid character %s %s", quoteChar(s.data[s.i]), what)
}

// kindError reports a field whose value has the wrong kind (after checking
// that it is JSON at all).
func (s *jsonScanner) kindError(field, want string) error {
	at := s.i
	if err := s.skipValue(); err != nil {
		return err
	}
	return s.invalidf(at, "field %q must be %s, not a JSON %s", field, want, jsonKind(s.data[at]))
}

func quoteChar(c byte) string {
	switch {
	case c == '\'':
		return `'\''`
	case c == '"':
		return `'"'`
	case c < 0x20 || c >= 0x7f:
		return fmt.Sprintf("%q", string(rune(c)))
	}
	return "'" + string(c) + "'"
}

// ws skips whitespace (and leaves it out of a compacted value).
func (s *jsonScanner) ws() {
	j := s.i
	for j < len(s.data) && (s.data[j] == ' ' || s.data[j] == '\n' || s.data[j] == '\t' || s.data[j] == '\r') {
		j++
	}
	if j > s.i && s.compacting {
		s.out = append(s.out, s.data[s.mark:s.i]...)
		s.mark = j
	}
	s.i = j
}

// object reads an object at i (which is '{'), calling field with each
// name once the scanner is at its value; field must consume the value.
func (s *jsonScanner) object(field func(name string) error) error {
	s.i++ // '{'
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		if s.i >= len(s.data) || s.data[s.i] != '"' {
			return s.unexpected("looking for the beginning of an object key string")
		}
		s.key = s.i
		name, err := s.str()
		if err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.data) || s.data[s.i] != ':' {
			return s.unexpected("after an object key")
		}
		s.i++
		s.ws()
		if err := field(name); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.data) {
			return s.truncated()
		}
		switch s.data[s.i] {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			return nil
		default:
			return s.unexpected("after an object key:value pair")
		}
	}
}

// stringField reads a string value for field.
func (s *jsonScanner) stringField(field string) (string, error) {
	if s.i < len(s.data) && s.data[s.i] != '"' {
		return "", s.kindError(field, "a string")
	}
	return s.str()
}

// str reads a string at i (which is '"') and returns its value.
func (s *jsonScanner) str() (string, error) {
	start := s.i
	if err := s.skipString(); err != nil {
		return "", err
	}
	raw := s.data[start:s.i]
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), nil
	}
	// Escapes, or bytes that are not UTF-8 (which encoding/json replaces
	// with U+FFFD): rare in an artifact, so decoded the standard way.
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", s.errorf("%v", err)
	}
	return v, nil
}

// compactValue reads any value and returns its compact form: without
// insignificant whitespace, as json.Compact writes it (the digests are
// over that form, so an artifact may be re-indented).
func (s *jsonScanner) compactValue() ([]byte, error) {
	s.compacting, s.mark, s.out = true, s.i, nil
	err := s.skipValue()
	out := append(s.out, s.data[s.mark:s.i]...)
	s.compacting, s.out = false, nil
	if err != nil {
		return nil, err
	}
	return out, nil
}

// skipValue validates the value at i and moves past it.
func (s *jsonScanner) skipValue() error {
	if s.i >= len(s.data) {
		return s.truncated()
	}
	switch c := s.data[s.i]; {
	case c == '{' || c == '[':
		return s.skipContainer()
	case c == '"':
		return s.skipString()
	case c == '-' || c >= '0' && c <= '9':
		return s.skipNumber()
	case c == 't':
		return s.skipLiteral("true")
	case c == 'f':
		return s.skipLiteral("false")
	case c == 'n':
		return s.skipLiteral("null")
	}
	return s.unexpected("looking for the beginning of a value")
}

func (s *jsonScanner) skipContainer() error {
	s.depth++
	if s.depth > maxJSONDepth {
		return s.errorf("exceeded max depth")
	}
	obj := s.data[s.i] == '{'
	closer := byte(']')
	if obj {
		closer = '}'
	}
	s.i++
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == closer {
		s.i++
		s.depth--
		return nil
	}
	for {
		if obj {
			// A key, as object reads one, but validated only: skipping
			// decodes no name and calls no closure (nothing to allocate).
			if s.i >= len(s.data) || s.data[s.i] != '"' {
				return s.unexpected("looking for the beginning of an object key string")
			}
			if err := s.skipString(); err != nil {
				return err
			}
			s.ws()
			if s.i >= len(s.data) || s.data[s.i] != ':' {
				return s.unexpected("after an object key")
			}
			s.i++
			s.ws()
		}
		if err := s.skipValue(); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.data) {
			return s.truncated()
		}
		switch s.data[s.i] {
		case ',':
			s.i++
			s.ws()
		case closer:
			s.i++
			s.depth--
			return nil
		default:
			if obj {
				return s.unexpected("after an object key:value pair")
			}
			return s.unexpected("after an array element")
		}
	}
}

// skipString moves past the string at i (which is '"'): control
// characters must be escaped, escapes must be JSON's; other bytes pass
// unchecked, as in encoding/json's scanner.
func (s *jsonScanner) skipString() error {
	d := s.data
	i := s.i + 1
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			s.i = i + 1
			return nil
		case c == '\\':
			i++
			if i >= len(d) {
				s.i = i
				return s.truncated()
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for k := 0; k < 4; k++ {
					if i >= len(d) {
						s.i = i
						return s.truncated()
					}
					if !isHex(d[i]) {
						s.i = i
						return s.unexpected("in \\u hexadecimal character escape")
					}
					i++
				}
			default:
				s.i = i
				return s.unexpected("in string escape code")
			}
		case c < 0x20:
			s.i = i
			return s.unexpected("in string literal")
		default:
			i++
		}
	}
	s.i = i
	return s.truncated()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skipNumber moves past a number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonScanner) skipNumber() error {
	d := s.data
	if d[s.i] == '-' {
		s.i++
	}
	digits := func(what string) error {
		if s.i >= len(d) {
			return s.truncated()
		}
		if d[s.i] < '0' || d[s.i] > '9' {
			return s.unexpected(what)
		}
		for s.i < len(d) && d[s.i] >= '0' && d[s.i] <= '9' {
			s.i++
		}
		return nil
	}
	if s.i < len(d) && d[s.i] == '0' {
		s.i++
	} else if err := digits("in numeric literal"); err != nil {
		return err
	}
	if s.i < len(d) && d[s.i] == '.' {
		s.i++
		if err := digits("after decimal point in numeric literal"); err != nil {
			return err
		}
	}
	if s.i < len(d) && (d[s.i] == 'e' || d[s.i] == 'E') {
		s.i++
		if s.i < len(d) && (d[s.i] == '+' || d[s.i] == '-') {
			s.i++
		}
		if err := digits("in exponent of numeric literal"); err != nil {
			return err
		}
	}
	return nil
}

func (s *jsonScanner) skipLiteral(lit string) error {
	for k := 0; k < len(lit); k++ {
		if s.i >= len(s.data) {
			return s.truncated()
		}
		if s.data[s.i] != lit[k] {
			return s.unexpected("in literal " + lit + " (expecting " + quoteChar(lit[k]) + ")")
		}
		s.i++
	}
	return nil
}
