package ir

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// referenceEnvelope is how artifacts were read before parseEnvelope: the
// reflecting decoder, unknown fields refused, raw values compacted.
func referenceEnvelope(data []byte) (*Artifact, error) {
	var a Artifact
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	// (dec.More() is false before a stray ']' or '}': the decoder this
	// replaced accepted "{...}]", which parseEnvelope refuses.)
	if a.IR != nil {
		a.IR = compact(a.IR)
	}
	for name, t := range a.Targets {
		if t.Data != nil {
			t.Data = compact(t.Data)
		}
		a.Targets[name] = t
	}
	return &a, nil
}

// compact is json.Compact's result for valid JSON.
func compact(v []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func TestParseEnvelope(t *testing.T) {
	good := encodeSample(t)
	cases := []struct {
		name string
		data string
		want string // "" accepts
	}{
		{"good", string(good), ""},
		{"escaped strings", `{"format":"sbx.artifact\/v1","compiler":"sbc \u00e9\ud83d\ude00","ir_digest":"d","ir":{"a":[1,-0.5e+7,true,false,null,"x\"y"]},"targets":{"l\u0061ndlock":{"format":"f","digest":"g","data":{ }}}}`, ""},
		{"not utf-8", "{\"compiler\":\"a\xffb\"}", ""},
		{"empty object", `{}`, ""},
		{"empty targets", `{"targets":{}}`, ""},
		{"whitespace", " \t\r\n{ \"ir\" : [ 1 , { } ] }\n\n", ""},
		{"array", `[1]`, "holds a JSON array, not an artifact object"},
		{"null", `null`, "holds a JSON null"},
		{"hello", `hello`, "not valid JSON at line 1, column 1 (byte 1): invalid character 'h' looking for the beginning of a value"},
		{"duplicate", `{"ir":1,"ir":2}`, `field "ir" appears twice`},
		{"other case", `{"Format":"x"}`, `unknown field "Format"`},
		{"unknown", `{"extra":1}`, `unknown field "extra"`},
		{"where", "{\n  \"ir\": 1,\n  \"\u00e9\u00e9\": 2}", `at line 3, column 3 (byte 16): unknown field "éé" in the artifact`},
		{"where in a string", "{\n\"ir\": \"\u00e9\\x\"}", `not valid JSON at line 2, column 10 (byte 13): invalid character 'x' in string escape code`},
		{"null string", `{"compiler":null}`, `at line 1, column 13 (byte 13): field "compiler" must be a string, not a JSON null`},
		{"number string", `{"format":1}`, `must be a string, not a JSON number`},
		{"null targets", `{"targets":null}`, `at line 1, column 12 (byte 12): field "targets" must be an object`},
		{"null target", `{"targets":{"l":null}}`, `at line 1, column 17 (byte 17): field "targets.l" must be an object`},
		{"target unknown", `{"targets":{"l":{"Data":1}}}`, `unknown field "Data" in target "l"`},
		{"target duplicate", `{"targets":{"l":{},"l":{}}}`, `target "l" appears twice`},
		{"target field twice", `{"targets":{"l":{"data":1,"data":2}}}`, `field "data" appears twice in target "l"`},
		{"trailing", `{} {}`, "at line 1, column 4 (byte 4): trailing data after the artifact"},
		{"truncated string", `{"ir":"abc`, "truncated: the JSON ends after 10 bytes"},
		{"truncated object", `{"ir":{"a":1`, "truncated"},
		{"truncated literal", `{"ir":tru`, "truncated"},
		{"truncated escape", `{"ir":"\u00`, "truncated"},
		{"bad escape", `{"ir":"\x"}`, "in string escape code"},
		{"bad hex", `{"ir":"\u00g0"}`, "in \\u hexadecimal character escape"},
		{"control", "{\"ir\":\"a\nb\"}", "in string literal"},
		{"leading zero", `{"ir":01}`, "after an object key:value pair"},
		{"bare minus", `{"ir":-}`, "in numeric literal"},
		{"bare point", `{"ir":1.}`, "after decimal point"},
		{"bare exponent", `{"ir":1e}`, "in exponent"},
		{"bad literal", `{"ir":nul}`, "in literal null"},
		{"trailing comma", `{"ir":[1,]}`, "looking for the beginning of a value"},
		{"missing colon", `{"ir" 1}`, "after an object key"},
		{"key not string", `{ir:1}`, "looking for the beginning of an object key string"},
		{"too deep", `{"ir":` + strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth) + `}`, "exceeded max depth"},
		{"deep enough", `{"ir":` + strings.Repeat("[", maxJSONDepth-1) + strings.Repeat("]", maxJSONDepth-1) + `}`, ""},
		{"too deep in a target", `{"targets":{"l":{"data":` + strings.Repeat("[", maxJSONDepth-2) + strings.Repeat("]", maxJSONDepth-2) + `}}}`, "exceeded max depth"},
		{"deep enough in a target", `{"targets":{"l":{"data":` + strings.Repeat("[", maxJSONDepth-3) + strings.Repeat("]", maxJSONDepth-3) + `}}}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := parseEnvelope([]byte(c.data))
			ref, rerr := referenceEnvelope([]byte(c.data))
			if c.want == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				if rerr != nil {
					t.Fatalf("encoding/json rejects what the test accepts: %v", rerr)
				}
				if !reflect.DeepEqual(a, ref) {
					t.Fatalf("got %.300v, encoding/json %.300v", a, ref)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted (IR of %d bytes)", len(a.IR))
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("error does not wrap ErrCorrupt: %v", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
}

// FuzzEnvelopeSyntax: the scanner accepts exactly the documents
// json.Valid does, and compacts a value as json.Compact does (the
// artifact's digests are over that form).
//
//	go test ./ir -run '^$' -fuzz '^FuzzEnvelopeSyntax$' -fuzztime 100000x
func FuzzEnvelopeSyntax(f *testing.F) {
	irSeeds(f)
	for _, a := range artifactFiles(f) {
		f.Add(a)
	}
	for _, s := range []string{
		`{}`, `[]`, ` [ 1 , 2 ] `, `"\u12aB\n"`, `-0`, `-0.0e-0`, `1E+2`, `01`, `1.`, `.5`, `+1`, `-`, `tru`, `nulll`,
		`[1,]`, `{"a":}`, `{"a" 1}`, `{,}`, "\"a\x01\"", "\"\xff\"", `"\q"`, `{"a":1}}`, `[[[]]]`, "\ufeff{}",
		"{\n\t\"a\" : \"b c\\\" d\" ,\r\n \"e\":[ ]}", `"\\"`, `"\\\" "`, `" \u0020 \t "`, "\"\xe2\x80\xa8 \"",
		`{"k":"v\\\\"  ,  "x" : "y"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := jsonScanner{data: data}
		s.ws()
		got, err := s.compactValue()
		s.ws()
		ok := err == nil && s.i == len(data)
		if ok != json.Valid(data) {
			t.Fatalf("scanner accepts %.200q: %v (%v), json.Valid: %v", data, ok, err, !ok)
		}
		if !ok {
			return
		}
		if want := compact(data); !bytes.Equal(got, want) {
			t.Fatalf("compacted %.200q to %.200q, json.Compact %.200q", data, got, want)
		}
	})
}

// FuzzParseEnvelope: whatever parseEnvelope accepts, encoding/json's
// decoder (DisallowUnknownFields) accepts with the same values; what only
// encoding/json accepts is one of parseEnvelope's documented refusals: a
// name given twice, a name in another case, a null where a string or an
// object belongs.
//
//	go test ./ir -run '^$' -fuzz '^FuzzParseEnvelope$' -fuzztime 100000x
func FuzzParseEnvelope(f *testing.F) {
	for _, a := range artifactFiles(f) {
		f.Add(a)
	}
	for _, s := range []string{
		`{}`, `{"format":"a","compiler":"b","ir_digest":"c","ir":[],"targets":{"x":{"format":"f","digest":"d","data":0}}}`,
		`{"ir":1,"ir":2}`, `{"FORMAT":"x"}`, `{"compiler":null}`, `{"targets":null}`, `{"targets":{"a":null}}`,
		`{"targets":{"a":{},"a":{}}}`, `{"format":"\u0041"}`, "{\"format\":\"\xc3\"}", `{"ir":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := parseEnvelope(data)
		ref, rerr := referenceEnvelope(data)
		switch {
		case err == nil && rerr != nil:
			t.Fatalf("parseEnvelope accepts %.300q, encoding/json refuses it: %v", data, rerr)
		case err == nil:
			if !reflect.DeepEqual(a, ref) {
				t.Fatalf("%.300q: parseEnvelope %.300v, encoding/json %.300v", data, a, ref)
			}
		case !errors.Is(err, ErrCorrupt):
			t.Fatalf("error does not wrap ErrCorrupt: %v", err)
		case rerr == nil:
			msg := err.Error()
			if strings.Contains(msg, "appears twice") || strings.Contains(msg, "not a JSON null") || otherCase(msg, envelopeNames) || strayCloser(data) {
				return
			}
			t.Fatalf("parseEnvelope refuses %.300q, which encoding/json accepts, for no documented reason: %v", data, err)
		}
	})
}

// otherCase reports whether msg refuses an unknown field whose name is
// one of names in another case (which encoding/json matches).
func otherCase(msg string, names []string) bool {
	_, rest, ok := strings.Cut(msg, "unknown field ")
	if !ok {
		return false
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return false
	}
	name, _ := strconv.Unquote(q)
	for _, known := range names {
		if name != known && strings.EqualFold(name, known) {
			return true
		}
	}
	return false
}

// envelopeNames are the field names of the artifact and its targets.
var envelopeNames = append(append([]string{}, envelopeFields...), targetFields...)

// strayCloser reports whether data is one JSON value followed by
// whitespace and a ']' or '}' (which the replaced decoder accepted).
func strayCloser(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v any
	if dec.Decode(&v) != nil {
		return false
	}
	rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")
	return len(rest) > 0 && (rest[0] == ']' || rest[0] == '}')
}

// TestDecodeTrailingCloser: a stray ']' or '}' after an IR document or an
// artifact is trailing data (encoding/json's Decoder.More, used before,
// reported no more input there).
func TestDecodeTrailingCloser(t *testing.T) {
	ir, _, err := Encode(sampleProfile())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"]", "}", " ]"} {
		if _, err := Decode(append(append([]byte{}, ir...), c...)); err == nil || !strings.Contains(err.Error(), "after top-level value") {
			t.Errorf("IR followed by %q: %v", c, err)
		}
		art := encodeSample(t)
		if _, _, err := DecodeArtifact(append(art, c...)); err == nil || !strings.Contains(err.Error(), "trailing data") {
			t.Errorf("artifact followed by %q: %v", c, err)
		}
	}
	if _, err := Decode(append(append([]byte{}, ir...), " \n"...)); err != nil {
		t.Errorf("IR followed by whitespace: %v", err)
	}
}

// BenchmarkDecodeArtifact: a built-in artifact, read as sbx reads an
// artifact file (warm: a fresh sbx also pays its first use's faults).
func BenchmarkDecodeArtifact(b *testing.B) {
	data, err := os.ReadFile("../builtin/artifacts/workspace.json")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("envelope", func(b *testing.B) {
		for b.Loop() {
			if _, err := parseEnvelope(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("envelope-reflect", func(b *testing.B) {
		for b.Loop() {
			if _, err := referenceEnvelope(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	a, err := parseEnvelope(data)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ir", func(b *testing.B) {
		for b.Loop() {
			if _, err := decodeDocument(a.IR); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ir-reflect", func(b *testing.B) {
		for b.Loop() {
			if _, err := decodeReflect(a.IR); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := DecodeArtifact(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
