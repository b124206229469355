package fuzz

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/converge-dev/converge/traces"
)

// traceSeedLines bounds the golden traces used as seeds: a few events
// cover every field, and short inputs keep the fuzzer fast.
const traceSeedLines = 6

// FuzzTraceRead checks the trace reader on any bytes, and the diff and
// writers on every trace it accepts: the writer takes every event the reader
// accepted, and what it writes reads back to the same events, field for
// field (volatile ones too). It is the module's one trace-reader target
// (it absorbed traces' FuzzReadAll and its seeds).
func FuzzTraceRead(f *testing.F) {
	for _, p := range []string{"seed-pod.jsonl", "container-crash.jsonl", "node-failure.jsonl"} {
		data, err := os.ReadFile("../traces/testdata/traces/" + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(firstLines(data, traceSeedLines))
	}
	f.Add([]byte(`{"v":1,"seq":1,"actor":"a","action":"b","digest":"d","writes":[{"verb":"X","resource":"r","name":"n"}]}`))
	f.Add([]byte("{\"v\":1,\"seq\":1}\n\n{"))
	f.Add([]byte(`{"v":1,"seq":1,"actor":"\u0000","action":"x","digest":"\ud800"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		events, err := traces.ReadAll(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, traces.ErrBadTrace) {
				t.Fatalf("error does not wrap traces.ErrBadTrace: %v", err)
			}
			var le *traces.LineError
			if !errors.As(err, &le) || le.Line < 1 {
				t.Fatalf("error does not name a line: %v", err)
			}
			return
		}
		res := traces.Diff(events, events, traces.DiffOptions{})
		if !res.Equal {
			t.Fatalf("a trace differs from itself: %+v", res.FirstDivergence)
		}
		if err := traces.WriteText(io.Discard, res, true, -1); err != nil {
			t.Fatalf("WriteText: %v", err)
		}
		if err := traces.WriteJSON(io.Discard, res); err != nil {
			t.Fatalf("WriteJSON: %v", err)
		}
		back := writeAll(t, events)
		again, err := traces.ReadAll(bytes.NewReader(back))
		if err != nil {
			t.Fatalf("a trace written back does not read: %v", err)
		}
		if d := traces.Diff(events, again, traces.DiffOptions{}); !d.Equal || len(again) != len(events) {
			t.Fatalf("a trace written back reads differently: %+v", d.FirstDivergence)
		}
		for i := range events {
			if a, b := traces.Marshal(events[i]), traces.Marshal(again[i]); !bytes.Equal(a, b) {
				t.Fatalf("event %d written back reads differently:\n%s\n%s", i+1, a, b)
			}
		}
		if twice := writeAll(t, again); !bytes.Equal(back, twice) {
			t.Fatalf("a trace written, read and written again changed:\n%s\n%s", back, twice)
		}
	})
}

// firstLines is data cut after n lines.
func firstLines(data []byte, n int) []byte {
	end := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(data[end:], '\n')
		if j < 0 {
			return data
		}
		end += j + 1
	}
	return data[:end]
}

// writeAll writes events with a traces.Writer, which must accept every
// event ReadAll accepted.
func writeAll(t *testing.T, events []traces.TraceEvent) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := traces.NewWriter(&buf)
	for _, e := range events {
		if err := w.Write(e); err != nil {
			t.Fatalf("writing back event %d: %v", e.Seq, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("closing writer: %v", err)
	}
	return buf.Bytes()
}
