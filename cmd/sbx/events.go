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
// events as the command writes (at most executor.DefaultMaxOutputEvents per
// stream), and one "exit" event carrying the result; or one "error" event
// when sbx failed. Each event is written with a single Write.
type eventWriter struct {
	mu  sync.Mutex
	w   io.Writer
	seq [2]int
}

func newEventWriter(w io.Writer) *eventWriter { return &eventWriter{w: w} }

func newJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

func (e *eventWriter) write(v any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	// Encoding into a buffer first makes each event one Write.
	var b jsonLine
	newJSONEncoder(&b).Encode(v)
	e.w.Write(b)
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

// output writes an output event: the chunk as "text" when it is valid UTF-8,
// otherwise base64-encoded as "data_b64", so that no byte is lost.
func (e *eventWriter) output(s executor.Stream, chunk []byte) {
	ev := outputEvent{Type: "output", Stream: s.String()}
	if utf8.Valid(chunk) {
		t := string(chunk)
		ev.Text = &t
	} else {
		ev.Data = chunk
	}
	e.mu.Lock()
	e.seq[s]++
	ev.Seq = e.seq[s]
	e.mu.Unlock()
	e.write(ev)
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
