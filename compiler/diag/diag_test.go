package diag

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/ir"
)

func rng(file string, l1, c1, b1, l2, c2, b2 int) *ir.Range {
	return &ir.Range{Filename: file, Start: ir.Pos{Line: l1, Column: c1, Byte: b1}, End: ir.Pos{Line: l2, Column: c2, Byte: b2}}
}

const src = "# header\nprofile \"dev\" {\n  filesystem {\n\twrite = [cwd, \"build\"]\n  }\n}\n"

func sources() *Sources {
	s := NewSources()
	s.Add("dev.hcl", []byte(src))
	return s
}

func TestWriteText(t *testing.T) {
	// "build" (with quotes) on line 4, after a tab.
	start := strings.Index(src, `"build"`)
	ds := Diagnostics{}.Errorf("relative-path", rng("dev.hcl", 4, 16, start, 4, 23, start+7), "Relative path", "Write an absolute path.")
	ds = ds.Warnf("", nil, "No range", "")
	var b bytes.Buffer
	if err := WriteText(&b, ds, sources()); err != nil {
		t.Fatal(err)
	}
	want := "Error: Relative path\n\n" +
		"  on dev.hcl:4:16, in profile \"dev\":\n" +
		"  4: \twrite = [cwd, \"build\"]\n" +
		"     \t              ^^^^^^^\n\n" +
		"Write an absolute path.\n\n" +
		"Warning: No range\n\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteTextEdgeCases(t *testing.T) {
	srcs := sources()
	srcs.Add("long.hcl", []byte("x = \""+strings.Repeat("a", 1000)+"é"+strings.Repeat("b", 1000)+"\"\n"))
	srcs.Add("bin.hcl", []byte("a\xff\xfeb\n"))
	cases := []struct {
		name string
		r    *ir.Range
		want []string
	}{
		{"multi-line span", rng("dev.hcl", 3, 3, 27, 5, 4, 67), []string{"  3:   filesystem {\n", "  5:   }\n", "in profile \"dev\""}},
		{"long line windowed", rng("long.hcl", 1, 1006, 1005, 1, 1007, 1007), []string{"…", "é"}},
		{"invalid utf-8 replaced", rng("bin.hcl", 1, 2, 1, 1, 3, 2), []string{"a\uFFFD"}},
		{"past the end", rng("dev.hcl", 99, 1, 9999, 99, 2, 10000), []string{"  on dev.hcl:99:1:\n\n"}},
		{"unknown file", rng("other.hcl", 1, 1, 0, 1, 2, 1), []string{"  on other.hcl:1:1:\n\n"}},
		{"bogus bytes, good columns", rng("dev.hcl", 2, 9, -5, 2, 14, -1), []string{"  2: profile \"dev\" {\n             ^^^^^\n"}},
		{"header line has no context from above", rng("dev.hcl", 1, 1, 0, 1, 2, 1), []string{"  on dev.hcl:1:1:\n"}},
	}
	for _, c := range cases {
		var b bytes.Buffer
		if err := WriteText(&b, Diagnostics{{Summary: c.name, Range: c.r}}, srcs); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, w, b.String())
			}
		}
		if len(b.String()) > 1000 {
			t.Errorf("%s: output too long (%d bytes)", c.name, b.Len())
		}
	}
}

func TestWriteJSON(t *testing.T) {
	start := strings.Index(src, `"build"`)
	ds := Diagnostics{}.Errorf("relative-path", rng("dev.hcl", 4, 16, start, 4, 23, start+7), "Relative path", "Detail.")
	ds = ds.Warnf("empty-profile", rng("dev.hcl", 2, 1, 9, 2, 14, 22), "Denies everything", "")
	ds = append(ds, Diagnostic{Severity: Error, Code: CodeIO, Summary: "File not found"})
	var b bytes.Buffer
	if err := WriteJSON(&b, ds, sources()); err != nil {
		t.Fatal(err)
	}
	var rep JSONReport
	if err := json.Unmarshal(b.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Valid || rep.ErrorCount != 2 || rep.WarningCount != 1 || rep.FormatVersion != "1.0" || len(rep.Diagnostics) != 3 {
		t.Fatalf("report %+v", rep)
	}
	d := rep.Diagnostics[0]
	sn := d.Snippet
	if d.Severity != Error || d.Code != "relative-path" || sn == nil || sn.StartLine != 4 || *sn.Context != `profile "dev"` {
		t.Fatalf("diagnostic %+v snippet %+v", d, sn)
	}
	if got := sn.Code[sn.HighlightStartOffset:sn.HighlightEndOffset]; got != `"build"` {
		t.Errorf("highlight %q", got)
	}
	if rep.Diagnostics[2].Snippet != nil || rep.Diagnostics[2].Range != nil {
		t.Errorf("rangeless diagnostic got a snippet")
	}
	// The field names are those of terraform validate -json.
	for _, key := range []string{`"format_version"`, `"error_count"`, `"highlight_start_offset"`, `"start_line"`, `"values": []`, `"filename"`} {
		if !bytes.Contains(b.Bytes(), []byte(key)) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

func TestDiagnostics(t *testing.T) {
	var ds Diagnostics
	if ds.HasErrors() || ds.Err() != nil {
		t.Error("empty diagnostics report errors")
	}
	ds = ds.Warnf("w", nil, "careful", "")
	if ds.HasErrors() || ds.Err() != nil {
		t.Error("a warning is an error")
	}
	ds = ds.Errorf(CodeIO, rng("f", 1, 2, 1, 1, 3, 2), "bad", "really %s", "bad")
	if !ds.HasErrors() || !ds.HasCode(CodeIO) || ds.HasCode("w") || ds.Err() == nil {
		t.Error("error not reported")
	}
	if got := ds.Error(); got != "warning: careful\nf:1:2: error: bad: really bad" {
		t.Errorf("Error() = %q", got)
	}
	var s Severity
	if err := s.UnmarshalText([]byte("warning")); err != nil || s != Warning {
		t.Error("UnmarshalText")
	}
	if err := s.UnmarshalText([]byte("fatal")); err == nil {
		t.Error("UnmarshalText accepted fatal")
	}
}
