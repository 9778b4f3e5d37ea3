package executor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
)

// StreamResult is what was captured from one output stream.
type StreamResult struct {
	// Head is the retained start of the stream; it is the whole stream when
	// nothing was dropped.
	Head []byte
	// Tail is the retained end of the stream. It is set only in head+tail
	// retention when bytes between Head and Tail were dropped.
	Tail []byte
	// Bytes is the number of bytes the command wrote to the stream and the
	// executor read, retained or not.
	Bytes int64
	// Omitted is the number of bytes read but not retained (after Head in
	// head retention, between Head and Tail in head+tail retention).
	Omitted int64
	// Truncated reports that Omitted > 0.
	Truncated bool
	// CutShort reports that draining stopped at the drain bound because
	// something outside the command still held the pipe open; the bytes read
	// until then are kept.
	CutShort bool
}

// Result is the outcome of Run.
type Result struct {
	// Argv and Dir are the command as requested.
	Argv []string
	Dir  string
	// Path is the resolved executable, empty when it could not be resolved.
	Path string
	// Pid is the process id of the command as seen by the executor (0 if it
	// did not start).
	Pid int

	// ExitCode is the command's exit status; 128+N when it died of signal N;
	// TimeoutExitCode when the expiration fired; 127 when the command was not
	// found and 126 when it was found but could not be executed.
	ExitCode int
	// Signal is the number of the signal the command died of, 0 if none.
	Signal int
	// TimedOut reports that the expiration fired and the command was killed.
	TimedOut bool
	// Cancelled reports that the context was cancelled and the command was
	// terminated, or, where it had already exited while something outside
	// its containment held its pipes, that the draining of them was cut
	// short (ExitCode is then the command's own).
	Cancelled bool
	// Duration is the wall time from start to the end of draining.
	Duration time.Duration
	// Error explains why the command could not be started (exit codes 126
	// and 127); empty otherwise.
	Error string
	// SandboxError is why the sandbox failed after the command started
	// (FailureReporter; exit code SandboxFailureExitCode); empty otherwise.
	SandboxError string

	// Stdout and Stderr are the captured streams.
	Stdout, Stderr StreamResult

	// Capture, Retention, OutputCap (-1 when unlimited) and Timeout (0 when
	// none) are the effective capture settings.
	Capture   CapturePolicy
	Retention Retention
	OutputCap int
	Timeout   time.Duration

	// Containment is the mechanism that was used (empty when the command
	// could not be resolved); ContainmentNote states its limits when it is
	// not the strongest.
	Containment     Containment
	ContainmentNote string
	// Sandbox is the sandbox's Report, nil when no sandbox was applied.
	Sandbox any
	// DeniedLikely is the heuristic guess that a non-zero exit was caused by
	// the sandbox; always false without a sandbox.
	DeniedLikely bool
}

// SignalName returns the name of Signal ("SIGKILL"), or "" if none.
func (r *Result) SignalName() string {
	if r.Signal == 0 {
		return ""
	}
	return signalName(r.Signal)
}

// omissionMarker is inserted in the aggregate between the head and the tail
// of a stream in head+tail retention. It is never inserted in Head or Tail.
func omissionMarker(s Stream, n int64) []byte {
	return fmt.Appendf(nil, "\n[sbx: %d bytes of %s omitted]\n", n, s)
}

// aggregatePieces returns the pieces of the aggregated output in order.
func (r *Result) aggregatePieces() [][]byte {
	limit := r.OutputCap
	so, se := &r.Stdout, &r.Stderr
	outBudget, errBudget := aggregateBudgets(limit, len(so.Head)+len(so.Tail), len(se.Head)+len(se.Tail))
	var pieces [][]byte
	add := func(s Stream, sr *StreamResult, budget int) {
		headTail := r.Retention == RetainHeadTail
		h, t := portion(sr.Head, sr.Tail, budget, headTail)
		pieces = append(pieces, h)
		// In head+tail retention every omission is marked, also where the
		// portion is too small to keep an end (a budget of one byte).
		if gap := sr.Bytes - int64(len(h)) - int64(len(t)); gap > 0 && (len(t) > 0 || headTail) {
			pieces = append(pieces, omissionMarker(s, gap))
		}
		if len(t) > 0 {
			pieces = append(pieces, t)
		}
	}
	add(Stdout, so, outBudget)
	add(Stderr, se, errBudget)
	return pieces
}

// portion chooses the retained bytes of a stream that go into an aggregate
// portion of budget bytes: the first budget bytes in head retention; in
// head+tail retention the first budget-budget/2 and the last budget/2 bytes
// of what is retained (head and tail are both used when the stream has a
// tail).
func portion(head, tail []byte, budget int, headTail bool) (h, t []byte) {
	if len(head)+len(tail) <= budget {
		return head, tail
	}
	if !headTail {
		return head[:budget], nil
	}
	b := budget / 2
	if len(tail) == 0 {
		return head[:budget-b], head[len(head)-b:]
	}
	b = min(b, len(tail))
	a := min(len(head), budget-b)
	b = min(len(tail), budget-a)
	return head[:a], tail[len(tail)-b:]
}

// Aggregated returns stdout then stderr, never interleaved. Within the cap
// both are whole; over it stdout gets at most cap/3, stderr what it needs
// from the rest, and room stderr leaves goes back to stdout. In head+tail
// retention a stream's portion keeps its start and end, joined by the line
// "[sbx: N bytes of STREAM omitted]" between newlines.
func (r *Result) Aggregated() []byte {
	return bytes.Join(r.aggregatePieces(), nil)
}

// MarshalJSON encodes the result in the documented schema (see WriteJSON).
func (r *Result) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// WriteJSON writes the result as one JSON object followed by a newline,
// streaming the captured text without copying it. Output text has invalid
// UTF-8 replaced by U+FFFD (one per invalid byte); the *_lossy fields tell
// whether that happened.
func (r *Result) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	r.writeJSON(bw)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing result: %w", err)
	}
	return nil
}

type objectWriter struct {
	w     *bufio.Writer
	first bool
}

func (o *objectWriter) key(k string) {
	if !o.first {
		o.w.WriteByte(',')
	}
	o.first = false
	o.w.WriteByte('"')
	o.w.WriteString(k)
	o.w.WriteString(`":`)
}

func (o *objectWriter) int(k string, v int64) {
	o.key(k)
	var b [20]byte
	o.w.Write(strconv.AppendInt(b[:0], v, 10))
}

func (o *objectWriter) bool(k string, v bool) {
	o.key(k)
	o.w.WriteString(strconv.FormatBool(v))
}

func (o *objectWriter) str(k, v string) {
	o.key(k)
	writeJSONString(o.w, []byte(v))
}

func (o *objectWriter) text(k string, v []byte) bool {
	o.key(k)
	return writeJSONString(o.w, v)
}

func (o *objectWriter) value(k string, v any) {
	o.key(k)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b.Reset()
		enc.Encode(map[string]string{"error": fmt.Sprintf("cannot encode: %v", err)})
	}
	o.w.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func (r *Result) writeJSON(w *bufio.Writer) {
	o := &objectWriter{w: w, first: true}
	w.WriteByte('{')
	o.value("argv", r.Argv)
	o.str("cwd", r.Dir)
	o.str("path", r.Path)
	o.int("pid", int64(r.Pid))
	o.int("exit_code", int64(r.ExitCode))
	if r.Signal != 0 {
		o.str("signal", r.SignalName())
	} else {
		o.key("signal")
		w.WriteString("null")
	}
	o.bool("timed_out", r.TimedOut)
	o.bool("cancelled", r.Cancelled)
	o.int("duration_ms", r.Duration.Milliseconds())
	if r.Error != "" {
		o.str("error", r.Error)
	} else {
		o.key("error")
		w.WriteString("null")
	}
	if r.SandboxError != "" {
		o.str("sbx_error", r.SandboxError)
	}
	outLossy := o.text("stdout", r.Stdout.Head)
	errLossy := o.text("stderr", r.Stderr.Head)
	if r.Retention == RetainHeadTail {
		outLossy = o.text("stdout_tail", r.Stdout.Tail) || outLossy
		errLossy = o.text("stderr_tail", r.Stderr.Tail) || errLossy
	}
	o.key("aggregated_output")
	w.WriteByte('"')
	aggLossy := false
	for _, p := range r.aggregatePieces() {
		aggLossy = writeJSONText(w, p) || aggLossy
	}
	w.WriteByte('"')
	o.int("stdout_bytes", r.Stdout.Bytes)
	o.int("stderr_bytes", r.Stderr.Bytes)
	o.bool("stdout_truncated", r.Stdout.Truncated)
	o.bool("stderr_truncated", r.Stderr.Truncated)
	o.int("stdout_omitted_bytes", r.Stdout.Omitted)
	o.int("stderr_omitted_bytes", r.Stderr.Omitted)
	o.bool("stdout_cut_short", r.Stdout.CutShort)
	o.bool("stderr_cut_short", r.Stderr.CutShort)
	o.bool("stdout_lossy", outLossy)
	o.bool("stderr_lossy", errLossy)
	o.bool("aggregated_lossy", aggLossy)
	o.str("capture", r.Capture.String())
	o.str("retention", r.Retention.String())
	if r.OutputCap >= 0 {
		o.int("output_cap", int64(r.OutputCap))
	} else {
		o.key("output_cap")
		w.WriteString("null")
	}
	if r.Timeout > 0 {
		// Rounded up: a timeout below a millisecond is not 0 (none).
		o.int("timeout_ms", ceilMillis(r.Timeout))
	} else {
		o.key("timeout_ms")
		w.WriteString("null")
	}
	o.str("containment", string(r.Containment))
	if r.ContainmentNote != "" {
		o.str("containment_note", r.ContainmentNote)
	}
	o.value("sandbox", r.Sandbox)
	o.bool("denied_likely", r.DeniedLikely)
	w.WriteString("}\n")
}

// ceilMillis is d in milliseconds, rounded up, without overflowing where
// d is within a millisecond of the largest Duration.
func ceilMillis(d time.Duration) int64 {
	ms := int64(d / time.Millisecond)
	if d%time.Millisecond > 0 {
		ms++
	}
	return ms
}
