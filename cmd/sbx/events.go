package main

import (
	"encoding/json"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/sbx-dev/sbx/executor"
)

// eventWriter writes the JSON lines of --events: one "start" event, "output"
// events as the command writes (at most executor.DefaultMaxOutputEvents
// chunks per stream, each split into lines of at most maxEventLine bytes),
// and one "exit" event carrying the result; or one "error" event when sbx
// failed. Each event is written with a single Write.
type eventWriter struct {
	mu  sync.Mutex
	w   io.Writer
	seq [2]int
	// lw is w when it is the live writer, which may cut a line short
	// (a reader that stopped reading): the next event then starts on a
	// line of its own.
	lw *liveOutput
}

// maxEventLine bounds an output event's line, newline included: PIPE_BUF
// on Linux, so that on a pipe each such event goes out in one atomic
// write, and output cut because the reader stopped reading is cut between
// events, never inside one (see liveOutput).
const maxEventLine = 4096

// maxOutputEvents bounds the output events of a stream (lines, after any
// split).
const maxOutputEvents = executor.DefaultMaxOutputEvents

func newEventWriter(w io.Writer) *eventWriter { return &eventWriter{w: w} }

func newJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

func (e *eventWriter) write(v any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.writeLine(encodeEvent(v))
}

// writeLine writes one encoded event; e.mu is held.
func (e *eventWriter) writeLine(b []byte) {
	if e.lw != nil && e.lw.takePartial() {
		// The line before was cut short: this event starts a new one.
		b = append([]byte{'\n'}, b...)
	}
	e.w.Write(b)
}

// encodeEvent is v's JSON line. Encoding into a buffer first makes each
// event one Write.
func encodeEvent(v any) []byte {
	var b jsonLine
	newJSONEncoder(&b).Encode(v)
	return b
}

type jsonLine []byte

func (l *jsonLine) Write(p []byte) (int, error) {
	*l = append(*l, p...)
	return len(p), nil
}

type startEvent struct {
	Type        string   `json:"type"`
	Time        string   `json:"time"`
	Pid         int      `json:"pid"`
	Argv        []string `json:"argv"`
	Cwd         string   `json:"cwd"`
	Path        string   `json:"path"`
	Containment string   `json:"containment"`
}

// start returns the OnStart hook writing the start event.
func (e *eventWriter) start(req executor.Request) func(executor.StartInfo) {
	return func(si executor.StartInfo) {
		e.write(startEvent{
			Type:        "start",
			Time:        time.Now().UTC().Format(time.RFC3339Nano),
			Pid:         si.Pid,
			Argv:        req.Argv,
			Cwd:         req.Dir,
			Path:        si.Path,
			Containment: string(si.Containment),
		})
	}
}

type outputEvent struct {
	Type   string  `json:"type"`
	Stream string  `json:"stream"`
	Seq    int     `json:"seq"`
	Text   *string `json:"text,omitempty"`
	Data   []byte  `json:"data_b64,omitempty"`
}

// output writes the output events of a chunk: as "text" when it is valid
// UTF-8, otherwise base64-encoded as "data_b64", so that no byte is lost;
// a chunk whose line would pass maxEventLine goes out as consecutive
// events (each its own seq), split between characters.
func (e *eventWriter) output(s executor.Stream, chunk []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.outputLocked(s, chunk, utf8.Valid(chunk))
}

func (e *eventWriter) outputLocked(s executor.Stream, chunk []byte, text bool) {
	if e.seq[s] >= maxOutputEvents {
		return // retention and counting go on; the exit event tells
	}
	ev := outputEvent{Type: "output", Stream: s.String(), Seq: e.seq[s] + 1}
	if text {
		t := string(chunk)
		ev.Text = &t
	} else {
		ev.Data = chunk
	}
	line := encodeEvent(ev)
	if len(line) <= maxEventLine || len(chunk) < 2 {
		e.seq[s]++
		e.writeLine(line)
		return
	}
	// Split in proportion to the overshoot, at a character boundary for
	// text; each half is checked again.
	cut := len(chunk) / 2
	if n := len(chunk) * (maxEventLine - 128) / len(line); n > 0 && n < cut {
		cut = n
	}
	if text {
		// Valid UTF-8 longer than one character has a boundary inside.
		for c := cut; c > 0; c-- {
			if utf8.RuneStart(chunk[c]) {
				cut = c
				break
			}
		}
		for !utf8.RuneStart(chunk[cut]) {
			cut++
		}
	}
	e.outputLocked(s, chunk[:cut], text)
	e.outputLocked(s, chunk[cut:], text)
}

type exitEvent struct {
	Type   string           `json:"type"`
	Result *executor.Result `json:"result"`
}

// exit writes the final event.
func (e *eventWriter) exit(res *executor.Result) {
	e.write(exitEvent{Type: "exit", Result: res})
}

type errorEvent struct {
	Type     string `json:"type"`
	Message  string `json:"message"`
	ExitCode int    `json:"exit_code"`
}

// error writes the event of an sbx failure.
func (e *eventWriter) error(err error) {
	e.write(errorEvent{Type: "error", Message: err.Error(), ExitCode: exitFailure})
}
