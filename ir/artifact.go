package ir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"syscall"
)

// ArtifactFormat identifies this version of the artifact file format.
const ArtifactFormat = "sbx.artifact/v1"

// MaxArtifactSize bounds what ReadArtifact accepts, so a wrong file (a disk
// image, /dev/zero) is rejected without reading it all into memory.
const MaxArtifactSize = 64 << 20

// Artifact is the file `sbc compile` writes and sbx reads: the canonical IR,
// its digest, the compiler that produced it, and per-target outputs.
//
// The IR is kept as raw bytes so that its digest is checked over exactly the
// bytes that were written: the digest covers the compact form of the "ir"
// value (insignificant whitespace does not count, so the file may be
// re-indented without invalidating it).
type Artifact struct {
	Format   string          `json:"format"`
	Compiler string          `json:"compiler"`
	Digest   string          `json:"ir_digest"`
	IR       json.RawMessage `json:"ir"`
	// Targets maps a target name ("landlock", "seatbelt", "windows") to its
	// output.
	Targets map[string]TargetOutput `json:"targets,omitempty"`
}

// TargetOutput is one target's compiled form of the IR.
type TargetOutput struct {
	// Format names the target output's own format and version.
	Format string `json:"format"`
	// Digest is "sha256:HEX" over the compact form of Data.
	Digest string          `json:"digest"`
	Data   json.RawMessage `json:"data"`
}

// NewArtifact encodes p canonically into a new artifact.
func NewArtifact(p *Profile, compiler string) (*Artifact, error) {
	data, digest, err := Encode(p)
	if err != nil {
		return nil, err
	}
	return &Artifact{Format: ArtifactFormat, Compiler: compiler, Digest: digest, IR: data}, nil
}

// SetTarget stores v (encoded as JSON) as the output of target name.
func (a *Artifact) SetTarget(name, format string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s target: %w", name, err)
	}
	if a.Targets == nil {
		a.Targets = map[string]TargetOutput{}
	}
	a.Targets[name] = TargetOutput{Format: format, Digest: Digest(data), Data: data}
	return nil
}

// Target decodes the output of target name into v. It reports false when the
// artifact has no output for that target.
func (a *Artifact) Target(name string, v any) (bool, error) {
	t, ok := a.Targets[name]
	if !ok {
		return false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(t.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return true, fmt.Errorf("artifact target %q: %w", name, err)
	}
	return true, nil
}

// TargetNames returns the names of the targets present, sorted.
func (a *Artifact) TargetNames() []string {
	names := make([]string, 0, len(a.Targets))
	for n := range a.Targets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Encode returns the artifact file's bytes: indented JSON with a trailing
// newline. The output is byte-identical for equal artifacts.
func (a *Artifact) Encode() ([]byte, error) {
	// Without HTML escaping: the digests are over the bytes as compiled,
	// and escaping '<', '>' or '&' in the IR or a target's data (a path
	// such as "R&D") would write bytes that no longer hash to them (found
	// by FuzzDecodeArtifact).
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(a); err != nil {
		return nil, fmt.Errorf("encoding artifact: %w", err)
	}
	return buf.Bytes(), nil
}

// ErrCorrupt is wrapped by every error that reports a damaged or tampered
// artifact (as opposed to one from a different format version).
var ErrCorrupt = errors.New("corrupt artifact")

// DecodeArtifact parses and verifies an artifact: known format version, IR
// digest and every target digest matching, IR valid. It returns the artifact
// and its decoded profile.
func DecodeArtifact(data []byte) (*Artifact, *Profile, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, fmt.Errorf("%w: the file is empty", ErrCorrupt)
	}
	a, err := parseEnvelope(data)
	if err != nil {
		return nil, nil, err
	}
	if a.Format != ArtifactFormat {
		if a.Format == "" {
			return nil, nil, fmt.Errorf("%w: no \"format\" field: this is not an sbx artifact", ErrCorrupt)
		}
		return nil, nil, fmt.Errorf("artifact format %q is not supported (this sbx reads %q): recompile the profile with a matching sbc, or upgrade sbx", a.Format, ArtifactFormat)
	}
	if len(a.IR) == 0 {
		return nil, nil, fmt.Errorf("%w: no \"ir\" field", ErrCorrupt)
	}
	// parseEnvelope has compacted the raw values.
	if got := Digest(a.IR); got != a.Digest {
		return nil, nil, fmt.Errorf("%w: IR digest mismatch: the file says %q but its IR hashes to %q; the artifact was modified or damaged after compilation: recompile it", ErrCorrupt, a.Digest, got)
	}
	for _, name := range a.TargetNames() {
		t := a.Targets[name]
		if len(t.Data) == 0 {
			return nil, nil, fmt.Errorf("%w: target %q has no \"data\" field", ErrCorrupt, name)
		}
		if got := Digest(t.Data); got != t.Digest {
			return nil, nil, fmt.Errorf("%w: target %q digest mismatch: the file says %q but its data hashes to %q: recompile it", ErrCorrupt, name, t.Digest, got)
		}
	}
	p, err := Decode(a.IR)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return a, p, nil
}

// ReadArtifact reads and verifies the artifact file at path ("-" reads
// standard input is not supported here; callers handle it). path must be a
// regular file or a pipe (a FIFO, or /dev/fd/N from a shell's process
// substitution). The open never blocks: a FIFO nobody writes to reads as
// empty instead of waiting for a writer for ever.
func ReadArtifact(path string) (*Artifact, *Profile, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("reading artifact: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("reading artifact: %w", err)
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
	case m&fs.ModeNamedPipe != 0:
		return ReadArtifactFrom(f, path+" (a pipe)")
	default:
		return nil, nil, fmt.Errorf("reading artifact %s: not a regular file (%s): an artifact is a file sbc wrote", path, fileKind(m))
	}
	return readArtifact(f, path, fi.Size())
}

// fileKind names the type of a file mode, for errors.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "type " + m.Type().String()
}

// ReadArtifactFrom reads and verifies an artifact from r; name is used in
// errors.
func ReadArtifactFrom(r io.Reader, name string) (*Artifact, *Profile, error) {
	return readArtifact(r, name, 0)
}

// readArtifact is ReadArtifactFrom with the expected size of the data, when
// known (a regular file's), so that it is read into one buffer of that
// size instead of one that doubles from 512 bytes (a fresh page of heap
// for each step, at sbx's start). The data may still differ in size.
func readArtifact(r io.Reader, name string, size int64) (*Artifact, *Profile, error) {
	var b bytes.Buffer
	b.Grow(int(min(max(size, 0), MaxArtifactSize)) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(r, MaxArtifactSize+1)); err != nil {
		return nil, nil, fmt.Errorf("reading artifact %s: %w", name, err)
	}
	data := b.Bytes()
	if len(data) > MaxArtifactSize {
		return nil, nil, fmt.Errorf("artifact %s: %w: larger than %d bytes", name, ErrCorrupt, MaxArtifactSize)
	}
	a, p, err := DecodeArtifact(data)
	if err != nil {
		return nil, nil, fmt.Errorf("artifact %s: %w", name, err)
	}
	return a, p, nil
}
