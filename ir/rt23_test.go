package ir

// Red team pass 23: the artifact reader on hand-edited artifacts. An
// artifact is anyone's to write (README, "Artifacts' sources"), and
// Validate exists "so that a hand-edited or corrupted IR is rejected
// rather than enforced in some unintended way". Run:
// go test ./ir -run 'TestRT23' -v

import (
	"strings"
	"testing"
)

// rt23Artifact encodes p (unvalidated: NewArtifact does not validate) into
// an artifact whose digests match, as a hand-edited, re-digested file has.
func rt23Artifact(t *testing.T, p *Profile) []byte {
	t.Helper()
	a, err := NewArtifact(p, "sbc rt23")
	if err != nil {
		t.Fatal(err)
	}
	data, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRT23DecodeArtifactRejectsInvalidProfileName: the language defines a
// profile NAME as "1 to 64 letters, digits, -, _ or ., starting with a
// letter or digit (it becomes the file name NAME.sbx.json)". The reader
// accepts any non-empty name, so a re-digested artifact can carry control
// characters that sbx --dry-run ("profile NAME: Landlock ABI ...") and
// sbc check's text report ("FAIL - FILE - NAME - ...") print raw: an ESC
// sequence rewrites the terminal, a newline forges a report line.
func TestRT23DecodeArtifactRejectsInvalidProfileName(t *testing.T) {
	for _, name := range []string{
		"x\x1b]0;pwned\a",
		"x\nFAIL - forged.hcl:1:1 - y - ACME001: forged",
		"../../etc/x",
		"-leading-dash",
		strings.Repeat("a", 65),
		"a b",
	} {
		p := sampleProfile()
		p.Name = name
		if _, _, err := DecodeArtifact(rt23Artifact(t, p)); err == nil {
			t.Errorf("artifact with profile name %q accepted; want it refused as an invalid IR", name)
		}
	}
}

// TestRT23InvalidIRErrorQuotesControlChars: the reader's error for an
// invalid IR is printed by sbx ("sbx: artifact F: corrupt artifact:
// invalid IR: FILE:L:C: path /a\x00b is not clean") with the path and the
// source file name of the hostile artifact as they are. Quoted (as
// --dry-run quotes them), they cannot print a line of their own.
func TestRT23InvalidIRErrorQuotesControlChars(t *testing.T) {
	p := sampleProfile()
	p.Filesystem.Rules[0].Path.Rel = "a\x00b\x1b[2J\nsbx: forged line"
	p.Filesystem.Rules[0].Source.Filename = "p.hcl\x1b]0;pwned\a\nforged"
	_, _, err := DecodeArtifact(rt23Artifact(t, p))
	if err == nil {
		t.Fatal("artifact with a NUL in a path accepted")
	}
	msg := err.Error()
	for _, c := range msg {
		if c < 0x20 || c == 0x7f {
			t.Fatalf("error message holds control character %U: %q", c, msg)
		}
	}
}
