package traces

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("traces: writer closed")

// Writer streams events as JSON Lines. Each event goes out in one Write call
// on the underlying writer, so a trace being recorded when its process dies
// ends on a whole line. Wrap the destination in a bufio.Writer for speed if
// losing the tail is acceptable. A Writer is not safe for concurrent use.
type Writer struct {
	w      io.Writer
	last   int // seq of the last event written
	buf    bytes.Buffer
	enc    *json.Encoder
	err    error // sticky I/O error
	closed bool
}

// NewWriter returns a Writer whose first event must have seq 1.
func NewWriter(w io.Writer) *Writer {
	tw := &Writer{w: w}
	tw.enc = json.NewEncoder(&tw.buf)
	tw.enc.SetEscapeHTML(false) // keep "->" and "<none>" readable in files
	return tw
}

// Write validates e and writes it as one line. It assigns nothing: a wrong
// seq or version is an error wrapping ErrInvalidEvent, and nothing is written.
// After an I/O error every Write returns that error.
func (tw *Writer) Write(e TraceEvent) error {
	if tw.closed {
		return ErrClosed
	}
	if tw.err != nil {
		return tw.err
	}
	if e.Seq != tw.last+1 {
		return fmt.Errorf("%w: seq %d follows %d", ErrInvalidEvent, e.Seq, tw.last)
	}
	if err := e.Validate(); err != nil {
		return err
	}
	line, err := encodeLine(&tw.buf, tw.enc, e)
	if err != nil {
		return err
	}
	if _, err := tw.w.Write(line); err != nil {
		tw.err = fmt.Errorf("traces: write seq %d: %w", e.Seq, err)
		return tw.err
	}
	tw.last = e.Seq
	return nil
}

// Last returns the seq of the last event written, 0 before the first.
func (tw *Writer) Last() int { return tw.last }

// Close makes later writes fail with ErrClosed. It does not close the
// underlying writer, which the caller owns. It returns any earlier I/O error.
func (tw *Writer) Close() error {
	tw.closed = true
	return tw.err
}

// encodeLine encodes e with its trailing newline into buf and returns the
// bytes, which stay valid until the next call.
func encodeLine(buf *bytes.Buffer, enc *json.Encoder, e TraceEvent) ([]byte, error) {
	buf.Reset()
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("%w: seq %d: %v", ErrInvalidEvent, e.Seq, err)
	}
	if buf.Len()-1 > MaxLineBytes {
		return nil, fmt.Errorf("%w: seq %d: line of %d bytes exceeds %d", ErrInvalidEvent, e.Seq, buf.Len()-1, MaxLineBytes)
	}
	return buf.Bytes(), nil
}

// Marshal encodes e exactly as a Writer writes it, without the newline and
// without validation. Two equal events give equal bytes.
func Marshal(e TraceEvent) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(e) // TraceEvent has only strings, ints and slices: it always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
