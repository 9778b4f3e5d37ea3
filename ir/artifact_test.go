package ir

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func sampleProfile() *Profile {
	src := Range{Filename: "p.hcl", Start: Pos{Line: 1, Column: 1}, End: Pos{Line: 1, Column: 5, Byte: 4}}
	return &Profile{
		Name: "sample",
		Filesystem: Filesystem{Rules: []PathRule{
			{Path: Path{Anchor: AnchorCwd}, Access: Write, Source: src},
			{Path: Path{Anchor: AnchorRoot}, Access: Read, Source: src},
		}},
		Network: Network{Mode: NetworkPorts, ConnectTCP: []PortRange{{From: 443, To: 443}, {From: 80, To: 80}}},
		Process: Process{Env: Env{Set: []EnvVar{{"B", "2"}, {"A", "1"}}}},
		Source:  src,
	}
}

func encodeSample(t *testing.T) []byte {
	t.Helper()
	a, err := NewArtifact(sampleProfile(), "sbc test")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetTarget("landlock", "test/v1", map[string]int{"abi": 4}); err != nil {
		t.Fatal(err)
	}
	data, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestArtifactRoundTripIsCanonical(t *testing.T) {
	a := encodeSample(t)
	b := encodeSample(t)
	if !bytes.Equal(a, b) {
		t.Fatal("two encodings of the same profile differ")
	}
	art, p, err := DecodeArtifact(a)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "sample" || p.Filesystem.Rules[0].Path.Anchor != AnchorCwd {
		t.Fatalf("decoded %+v", p)
	}
	var tgt map[string]int
	if ok, err := art.Target("landlock", &tgt); !ok || err != nil || tgt["abi"] != 4 {
		t.Fatalf("target = %v %v %v", tgt, ok, err)
	}
	// Re-encoding a decoded artifact reproduces the same bytes.
	again, err := art.Encode()
	if err != nil || !bytes.Equal(again, a) {
		t.Fatalf("re-encoded artifact differs: %v", err)
	}
}

func TestDecodeArtifactRejects(t *testing.T) {
	good := encodeSample(t)
	cases := []struct {
		name    string
		data    []byte
		corrupt bool
		want    string
	}{
		{"empty", nil, true, "empty"},
		{"truncated", good[:len(good)/2], true, "truncated"},
		{"not json", []byte("hello"), true, "not valid JSON"},
		{"other format", bytes.Replace(good, []byte(ArtifactFormat), []byte("sbx.artifact/v9"), 1), false, "not supported"},
		{"no format", []byte(`{"ir":{}}`), true, "not an sbx artifact"},
		{"ir tampered", bytes.Replace(good, []byte(`"write"`), []byte(`"read"`), 1), true, "IR digest mismatch"},
		{"target tampered", bytes.Replace(good, []byte(`"abi": 4`), []byte(`"abi": 5`), 1), true, "target \"landlock\" digest mismatch"},
		{"trailing", append(append([]byte{}, good...), []byte("{}")...), true, "trailing"},
		{"unknown field", bytes.Replace(good, []byte(`"format"`), []byte(`"extra": 1, "format"`), 1), true, "unknown field"},
	}
	for _, c := range cases {
		_, _, err := DecodeArtifact(c.data)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
		if errors.Is(err, ErrCorrupt) != c.corrupt {
			t.Errorf("%s: errors.Is(ErrCorrupt) = %v, want %v", c.name, !c.corrupt, c.corrupt)
		}
	}
}

func TestDecodeRejectsInvalidIR(t *testing.T) {
	bad := []func(p *Profile){
		func(p *Profile) { p.Name = "" },
		func(p *Profile) { p.Network.Mode = "wifi" },
		func(p *Profile) { p.Network.ConnectTCP[0] = PortRange{From: 9, To: 1} },
		func(p *Profile) { p.Filesystem.Rules[0].Path.Rel = "a/../b" },
		func(p *Profile) { p.Filesystem.Rules[0].Access = 7 },
		func(p *Profile) { p.Filesystem.Protect = []ProtectRule{{Name: "a/b"}} },
		func(p *Profile) { p.Process.Env.Set = []EnvVar{{"A=B", "x"}} },
		func(p *Profile) { p.Network.Mode = NetworkNone },
	}
	for i, mutate := range bad {
		p := sampleProfile()
		mutate(p)
		if err := p.Validate(); err == nil {
			t.Errorf("case %d: invalid profile accepted", i)
		}
	}
}

// TestArtifactHTMLCharacters: '<', '>' and '&' written as they are in a
// target's data (a hand-edited artifact, re-digested) survive encoding
// byte for byte, so the digest still matches (json's HTML escaping
// rewrote them: FuzzDecodeArtifact).
func TestArtifactHTMLCharacters(t *testing.T) {
	a, err := NewArtifact(sampleProfile(), "sbc test")
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte(`{"path":"/home/u/R&D/<x>"}`)
	a.Targets = map[string]TargetOutput{"landlock": {Format: "test/v1", Digest: Digest(raw), Data: raw}}
	data, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("R&D/<x>")) {
		t.Errorf("escaped: %s", data)
	}
	if _, _, err := DecodeArtifact(data); err != nil {
		t.Fatalf("the encoded artifact does not decode: %v", err)
	}
}
