package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// LineError is a problem on one line of a trace. It wraps ErrBadTrace.
type LineError struct {
	Path string // file name, when read by ReadFile
	Line int    // 1-based
	Msg  string
}

func (e *LineError) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("traces: %s: line %d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("traces: line %d: %s", e.Line, e.Msg)
}

func (e *LineError) Unwrap() error { return ErrBadTrace }

// Reader reads and validates a trace one event at a time.
type Reader struct {
	path string // for messages, when read by ReadFile
	sc   *bufio.Scanner
	line int
	last int   // seq of the last event returned
	err  error // sticky: io.EOF or the first error
}

// NewReader returns a Reader that expects the first event to have seq 1.
func NewReader(r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	// +2 so that a line one byte too long still fits and gets a clear error
	// below rather than bufio.ErrTooLong.
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes+2)
	return &Reader{sc: sc}
}

// Next returns the next event, io.EOF after the last one, or an error. Errors
// about the content are *LineError; an error is returned again by every
// later call.
func (r *Reader) Next() (TraceEvent, error) {
	if r.err != nil {
		return TraceEvent{}, r.err
	}
	e, err := r.next()
	if err != nil {
		r.err = err
	}
	return e, err
}

func (r *Reader) next() (TraceEvent, error) {
	if !r.sc.Scan() {
		err := r.sc.Err()
		switch {
		case err == nil:
			return TraceEvent{}, io.EOF
		case errors.Is(err, bufio.ErrTooLong):
			return TraceEvent{}, r.fail(r.line+1, "line longer than %d bytes", MaxLineBytes)
		default:
			if r.path != "" {
				return TraceEvent{}, fmt.Errorf("traces: %s: reading line %d: %w", r.path, r.line+1, err)
			}
			return TraceEvent{}, fmt.Errorf("traces: reading line %d: %w", r.line+1, err)
		}
	}
	r.line++
	line := r.sc.Bytes()
	if len(line) > MaxLineBytes {
		return TraceEvent{}, r.fail(r.line, "line longer than %d bytes", MaxLineBytes)
	}
	e, msg := decodeLine(line)
	if msg != "" {
		return TraceEvent{}, r.fail(r.line, "%s", msg)
	}
	if e.V != Version {
		return TraceEvent{}, r.fail(r.line, "v %d, want %d", e.V, Version)
	}
	if e.Seq != r.last+1 {
		if r.last == 0 {
			return TraceEvent{}, r.fail(r.line, "seq %d, want 1 for the first event", e.Seq)
		}
		return TraceEvent{}, r.fail(r.line, "seq %d follows %d", e.Seq, r.last)
	}
	if p := e.problem(); p != "" {
		return TraceEvent{}, r.fail(r.line, "%s", p)
	}
	r.last = e.Seq
	return e, nil
}

func (r *Reader) fail(line int, format string, args ...any) error {
	return &LineError{Path: r.path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// decodeLine parses one JSON object strictly: no unknown fields, nothing
// after the object. It returns a message instead of an error so the caller
// can attach the line number.
func decodeLine(line []byte) (TraceEvent, string) {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return TraceEvent{}, "empty line"
	}
	if trimmed[0] != '{' {
		return TraceEvent{}, "not a JSON object"
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	var e TraceEvent
	if err := dec.Decode(&e); err != nil {
		return TraceEvent{}, jsonMessage(err)
	}
	if dec.More() {
		return TraceEvent{}, "data after the JSON object"
	}
	if _, err := dec.Token(); err != io.EOF {
		return TraceEvent{}, "data after the JSON object"
	}
	return e, ""
}

// jsonMessage shortens encoding/json's messages, which name Go types.
func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Type != nil {
		return fmt.Sprintf("field %q: %s is not a %s", te.Field, te.Value, te.Type.Kind())
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return "truncated JSON"
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if strings.HasPrefix(msg, "unknown field") {
		return msg
	}
	return "invalid JSON: " + msg
}

// ReadAll reads a whole trace. On error it returns the events before the bad
// line as well.
func ReadAll(r io.Reader) ([]TraceEvent, error) { return NewReader(r).readAll() }

// ReadFile reads the trace at path; errors name the path.
func ReadFile(path string) ([]TraceEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("traces: %w", err)
	}
	defer f.Close()
	tr := NewReader(f)
	tr.path = path
	return tr.readAll()
}

func (r *Reader) readAll() ([]TraceEvent, error) {
	var events []TraceEvent
	for {
		e, err := r.Next()
		if err == io.EOF {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, e)
	}
}
