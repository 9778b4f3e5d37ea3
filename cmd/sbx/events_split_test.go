package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sbx-dev/sbx/executor"
)

// TestOutputEventsSplit: a chunk whose event line would pass maxEventLine
// is written as consecutive events, each line at most maxEventLine bytes
// and valid JSON, text split between characters, so that the stream is
// the concatenation of the events in seq order.
func TestOutputEventsSplit(t *testing.T) {
	text := strings.Repeat("héllo, wörld \x01\x02 \"quoted\" ✓ ", 700) // escapes grow it
	bin := bytes.Repeat([]byte{0xff, 0xfe, 'a', 0}, 3000)
	for _, c := range []struct {
		name  string
		chunk []byte
	}{{"text", []byte(text)}, {"binary", bin}, {"small", []byte("ok\n")}} {
		var out bytes.Buffer
		e := newEventWriter(&out)
		e.output(executor.Stdout, c.chunk)
		e.output(executor.Stdout, []byte("next"))
		var got []byte
		seq := 0
		for _, line := range strings.SplitAfter(out.String(), "\n") {
			if line == "" {
				continue
			}
			if len(line) > maxEventLine || !strings.HasSuffix(line, "\n") {
				t.Fatalf("%s: a line of %d bytes", c.name, len(line))
			}
			var ev struct {
				Seq  int     `json:"seq"`
				Text *string `json:"text"`
				Data []byte  `json:"data_b64"`
			}
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("%s: %v: %q", c.name, err, line)
			}
			if seq++; ev.Seq != seq {
				t.Fatalf("%s: seq %d, want %d", c.name, ev.Seq, seq)
			}
			if c.name == "text" && ev.Text == nil {
				t.Fatalf("%s: a piece of the text came as data_b64 (split inside a character)", c.name)
			}
			if ev.Text != nil {
				got = append(got, *ev.Text...)
			} else {
				got = append(got, ev.Data...)
			}
		}
		if want := append(append([]byte{}, c.chunk...), "next"...); !bytes.Equal(got, want) {
			t.Errorf("%s: the events carry %d bytes that differ from the %d written", c.name, len(got), len(want))
		}
		if c.name != "small" && seq < 3 {
			t.Errorf("%s: %d events, want the chunk split", c.name, seq)
		}
	}
}
