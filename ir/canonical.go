package ir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Canonicalize sorts every list of p into its canonical order, in place, so
// that equal profiles encode to identical bytes. Duplicates are kept (a
// linter reports them; dropping them would lose their source ranges).
func (p *Profile) Canonicalize() {
	fs := &p.Filesystem
	sort.SliceStable(fs.Rules, func(i, j int) bool {
		a, b := fs.Rules[i], fs.Rules[j]
		if c := comparePath(a.Path, b.Path); c != 0 {
			return c < 0
		}
		if a.Access != b.Access {
			return a.Access < b.Access
		}
		return rangeLess(a.Source, b.Source)
	})
	sort.SliceStable(fs.DenyGlobs, func(i, j int) bool {
		a, b := fs.DenyGlobs[i], fs.DenyGlobs[j]
		if a.Pattern != b.Pattern {
			return a.Pattern < b.Pattern
		}
		return rangeLess(a.Source, b.Source)
	})
	sort.SliceStable(fs.Protect, func(i, j int) bool {
		a, b := fs.Protect[i], fs.Protect[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return rangeLess(a.Source, b.Source)
	})
	n := &p.Network
	for _, ports := range [][]PortRange{n.ConnectTCP, n.BindTCP} {
		sort.SliceStable(ports, func(i, j int) bool {
			a, b := ports[i], ports[j]
			if a.From != b.From {
				return a.From < b.From
			}
			if a.To != b.To {
				return a.To < b.To
			}
			return rangeLess(a.Source, b.Source)
		})
	}
	sort.SliceStable(n.UnixSockets, func(i, j int) bool {
		a, b := n.UnixSockets[i], n.UnixSockets[j]
		if c := comparePath(a.Path, b.Path); c != 0 {
			return c < 0
		}
		return rangeLess(a.Source, b.Source)
	})
	env := &p.Process.Env
	sort.SliceStable(env.Set, func(i, j int) bool { return env.Set[i].Name < env.Set[j].Name })
	sort.Strings(env.Unset)
}

func comparePath(a, b Path) int {
	if c := strings.Compare(a.Anchor, b.Anchor); c != 0 {
		return c
	}
	return strings.Compare(a.Rel, b.Rel)
}

func rangeLess(a, b Range) bool {
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	return a.Start.Byte < b.Start.Byte
}

// Document is the canonical IR encoding: the format version and one profile.
type Document struct {
	Format  string   `json:"format"`
	Profile *Profile `json:"profile"`
}

// Encode canonicalises p and returns its canonical compact JSON encoding (a
// Document) and the SHA-256 digest over exactly those bytes, as
// "sha256:HEX".
func Encode(p *Profile) (data []byte, digest string, err error) {
	p.Canonicalize()
	data, err = json.Marshal(Document{Format: Format, Profile: p})
	if err != nil {
		return nil, "", fmt.Errorf("encoding IR: %w", err)
	}
	return data, Digest(data), nil
}

// Digest returns "sha256:HEX" over data.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Decode parses a canonical IR document, rejecting unknown format versions,
// unknown fields, fields given twice or named in another case, and trailing
// data, and validates the profile.
func Decode(data []byte) (*Profile, error) {
	doc, err := decodeDocument(data)
	if err != nil {
		// The reflecting decoder's messages, which name the Go field and
		// type, are the ones users and tests know; it refuses everything
		// decodeDocument does but a name given twice or in another case.
		if _, rerr := decodeReflect(data); rerr != nil {
			return nil, rerr
		}
		return nil, decodeError(data, fmt.Errorf("decoding IR: %w", err))
	}
	if doc.Format != Format {
		return nil, decodeError(data, nil)
	}
	if doc.Profile == nil {
		return nil, fmt.Errorf("IR has no profile")
	}
	if err := doc.Profile.Validate(); err != nil {
		return nil, err
	}
	return doc.Profile, nil
}

// decodeReflect decodes data with encoding/json (unknown fields refused,
// trailing data refused): the reference decodeDocument is tested against,
// and the source of Decode's error messages.
func decodeReflect(data []byte) (*Document, error) {
	// The head-only pass that tells a format mismatch from a malformed
	// document runs only when this one fails, so the errors are the same
	// as checking the head first.
	var doc Document
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, decodeError(data, fmt.Errorf("decoding IR: %w", err))
	}
	// Not dec.More(), which is false before a stray ']' or '}'.
	if _, err := dec.Token(); err != io.EOF {
		return nil, decodeError(data, errors.New("decoding IR: trailing data after the document"))
	}
	return &doc, nil
}

// decodeError reports why data is not a decodable IR document: not JSON,
// or another format version (checked first, whatever else is wrong), else
// err.
func decodeError(data []byte, err error) error {
	var head struct {
		Format string `json:"format"`
	}
	if herr := json.Unmarshal(data, &head); herr != nil {
		return fmt.Errorf("IR is not valid JSON: %w", herr)
	}
	if head.Format != Format {
		return fmt.Errorf("IR format %q is not supported (this sbx reads %q): recompile the profile with a matching sbc, or upgrade sbx", head.Format, Format)
	}
	return err
}

// Validate checks the structural invariants the front end guarantees, so
// that a hand-edited or corrupted IR is rejected rather than enforced in some
// unintended way.
func (p *Profile) Validate() error {
	// The message names what the IR holds (paths, file names), which a
	// hand-edited artifact chooses: made printable, it cannot print a line
	// of its own or rewrite the terminal where sbx reports it.
	bad := func(r Range, format string, args ...any) error {
		return fmt.Errorf("invalid IR: %s: %s", Printable(r.String()), Printable(fmt.Sprintf(format, args...)))
	}
	if p.Name == "" {
		return bad(p.Source, "profile has no name")
	}
	if !ValidName(p.Name) {
		return bad(p.Source, "profile name %q is not 1 to 64 letters, digits, '-', '_' or '.' starting with a letter or digit", p.Name)
	}
	checkPath := func(pt Path, r Range) error {
		if pt.Anchor == "" {
			return bad(r, "path %q has no anchor", pt.Rel)
		}
		if strings.ContainsAny(pt.Anchor, "{}/") {
			return bad(r, "malformed anchor %q", pt.Anchor)
		}
		clean, err := CleanRel(pt.Rel)
		if err != nil || clean != pt.Rel {
			return bad(r, "path %s is not clean", pt)
		}
		if pt.Anchor == AnchorPlatform && pt.Rel != "" {
			return bad(r, "platform_defaults takes no sub-path")
		}
		return nil
	}
	for _, r := range p.Filesystem.Rules {
		if r.Access < Deny || r.Access > Write {
			return bad(r.Source, "invalid access %d", r.Access)
		}
		if err := checkPath(r.Path, r.Source); err != nil {
			return err
		}
		// A rule takes a literal path (the compiler refuses patterns):
		// "*" in a deny would deny a name nobody uses.
		if strings.ContainsAny(r.Path.Rel, "*?[") {
			return bad(r.Source, "path %s: a rule takes a literal path, not a pattern (deny_glob does)", r.Path)
		}
	}
	for _, g := range p.Filesystem.DenyGlobs {
		if g.Pattern == "" {
			return bad(g.Source, "empty deny glob")
		}
		if err := validGlob(g.Pattern); err != nil {
			return bad(g.Source, "%v", err)
		}
		if g.MaxDepth < 1 || g.MaxDepth > MaxGlobDepth {
			return bad(g.Source, "max_depth %d is not from 1 to %d", g.MaxDepth, MaxGlobDepth)
		}
	}
	for _, pr := range p.Filesystem.Protect {
		if pr.Name == "" || strings.ContainsAny(pr.Name, "/\x00") || pr.Name == "." || pr.Name == ".." {
			return bad(pr.Source, "protect name %q must be a single path component", pr.Name)
		}
	}
	n := p.Network
	if !n.Mode.Valid() {
		return bad(n.Source, "unknown network mode %q", n.Mode)
	}
	for _, ports := range [][]PortRange{n.ConnectTCP, n.BindTCP} {
		for _, pr := range ports {
			if pr.From == 0 || pr.From > pr.To {
				return bad(pr.Source, "invalid port range %d-%d", pr.From, pr.To)
			}
		}
	}
	if n.Mode != NetworkPorts && (len(n.ConnectTCP) > 0 || len(n.BindTCP) > 0) {
		return bad(n.Source, "port rules need network mode %q", NetworkPorts)
	}
	for _, s := range n.UnixSockets {
		if err := checkPath(s.Path, s.Source); err != nil {
			return err
		}
	}
	pr := p.Process
	if pr.TimeoutMS < 0 {
		return bad(pr.Source, "negative timeout")
	}
	if pr.OutputCap < 0 {
		return bad(pr.Source, "negative output cap")
	}
	if pr.Env.Inherit != "" && !pr.Env.Inherit.Valid() {
		return bad(pr.Source, "unknown env inherit mode %q", pr.Env.Inherit)
	}
	for _, v := range pr.Env.Set {
		if err := ValidEnvName(v.Name, false); err != nil {
			return bad(pr.Source, "env set: %v", err)
		}
		if strings.IndexByte(v.Value, 0) >= 0 {
			return bad(pr.Source, "env set %s: value contains a NUL byte", v.Name)
		}
	}
	for _, u := range pr.Env.Unset {
		if err := ValidEnvName(u, true); err != nil {
			return bad(pr.Source, "env unset: %v", err)
		}
	}
	return nil
}
