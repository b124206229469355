package traces

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeAll(t *testing.T, events []TraceEvent) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, e := range events {
		require.NoError(t, w.Write(e))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func TestRoundTripIsExactAndBytesAreStable(t *testing.T) {
	events := seedFlow(3).done()
	data := writeAll(t, events)
	require.Equal(t, len(events), bytes.Count(data, []byte("\n")))

	back, err := ReadAll(bytes.NewReader(data))
	require.NoError(t, err)
	require.Equal(t, events, back)
	require.Equal(t, data, writeAll(t, back), "re-encoding changed the bytes")
	require.Equal(t, data, writeAll(t, seedFlow(3).done()), "same events, different bytes")
}

func TestWriterLineHasSchemaFieldOrder(t *testing.T) {
	e := TraceEvent{V: 1, Seq: 1, Actor: "user", Action: "apply", Key: "myapp", Detail: "a->b <x>", Seen: 0,
		Writes: []Write{{Verb: "CREATE", Resource: "deployments", Name: "myapp", Fields: []string{"spec"}, Rev: 4, UID: "u"}},
		Digest: "sha256:0011223344556677", Rev: 4, Time: "t"}
	data := writeAll(t, []TraceEvent{e})
	require.Equal(t, `{"v":1,"seq":1,"actor":"user","action":"apply","key":"myapp","detail":"a->b <x>","seen":0,`+
		`"writes":[{"verb":"CREATE","resource":"deployments","name":"myapp","fields":["spec"],"rev":4,"uid":"u"}],`+
		`"digest":"sha256:0011223344556677","rev":4,"time":"t"}`+"\n", string(data))
	require.Equal(t, strings.TrimSuffix(string(data), "\n"), string(Marshal(e)))
}

func TestWriterRejectsBadEventsAndWritesNothing(t *testing.T) {
	good := seedFlow(0).done()
	cases := map[string]TraceEvent{
		"seq gap":      func() TraceEvent { e := good[1]; e.Seq = 3; return e }(),
		"seq repeat":   good[0],
		"version":      func() TraceEvent { e := good[1]; e.V = 0; return e }(),
		"no digest":    func() TraceEvent { e := good[1]; e.Digest = ""; return e }(),
		"bad action":   func() TraceEvent { e := good[1]; e.Action = "Add Node"; return e }(),
		"invalid utf8": func() TraceEvent { e := good[1]; e.Key = "\xc3"; return e }(),
		"too long":     func() TraceEvent { e := good[1]; e.Detail = strings.Repeat("x", MaxLineBytes); return e }(),
	}
	for name, e := range cases {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		require.NoError(t, w.Write(good[0]))
		before := buf.Len()
		err := w.Write(e)
		require.ErrorIs(t, err, ErrInvalidEvent, name)
		require.Equal(t, before, buf.Len(), "%s: wrote a bad line", name)
		require.NoError(t, w.Write(good[1]), "%s: writer unusable after a rejected event", name)
		require.Equal(t, 2, w.Last())
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriterIOErrorIsSticky(t *testing.T) {
	events := seedFlow(0).done()
	w := NewWriter(&failingWriter{n: 1})
	require.NoError(t, w.Write(events[0]))
	err := w.Write(events[1])
	require.ErrorContains(t, err, "disk full")
	require.Equal(t, err, w.Write(events[1]))
	require.Equal(t, err, w.Close())
	require.ErrorIs(t, w.Write(events[1]), ErrClosed)
}

func TestReaderErrorsNameTheLine(t *testing.T) {
	valid := strings.Split(strings.TrimSuffix(string(writeAll(t, seedFlow(0).done()[:3])), "\n"), "\n")
	line4 := func(e TraceEvent) string { return string(Marshal(e)) }
	next := seedFlow(0).done()[3]
	cases := []struct {
		name, bad, want string
	}{
		{"not json", "hello", "line 4: not a JSON object"},
		{"array", "[1,2]", "line 4: not a JSON object"},
		{"null", "null", "line 4: not a JSON object"},
		{"broken json", `{"v":1,"seq":4,`, "line 4: truncated JSON"},
		{"syntax", `{"v":1 "seq":4}`, "line 4: invalid JSON: invalid character"},
		{"unknown field", strings.Replace(line4(next), `"v":1,`, `"v":1,"colour":"red",`, 1), `line 4: unknown field "colour"`},
		{"wrong type", strings.Replace(line4(next), `"seq":4`, `"seq":"4"`, 1), `line 4: field "seq": string is not a int`},
		{"version 2", strings.Replace(line4(next), `"v":1`, `"v":2`, 1), "line 4: v 2, want 1"},
		{"seq gap", strings.Replace(line4(next), `"seq":4`, `"seq":9`, 1), "line 4: seq 9 follows 3"},
		{"seq repeat", valid[2], "line 4: seq 3 follows 3"},
		{"no actor", strings.Replace(line4(next), `"actor":"deployment-controller",`, "", 1), "line 4: actor is empty"},
		{"empty action", strings.Replace(line4(next), `"action":"deliver"`, `"action":""`, 1), "line 4: action is empty"},
		{"no digest", strings.Replace(line4(next), `,"digest":"`+next.Digest+`"`, "", 1), "line 4: digest is empty"},
		{"write without verb", strings.Replace(line4(withSeq(seedFlow(0).done()[4], 4)), `"verb":"CREATE",`, "", 1),
			"line 4: write 1: verb is empty"},
		{"trailing data", line4(next) + ` {}`, "line 4: data after the JSON object"},
		{"two objects", line4(next) + line4(next), "line 4: data after the JSON object"},
		{"blank line", "", "line 4: empty line"},
		{"huge number", strings.Replace(line4(next), `"seen":1`, `"seen":1e400`, 1), `line 4: field "seen"`},
		{"long line", strings.Replace(line4(next), `"detail":"`, `"detail":"`+strings.Repeat("y", MaxLineBytes), 1),
			"line 4: line longer than 1048576 bytes"},
		{"very long line", strings.Repeat("z", 3*MaxLineBytes), "line 4: line longer than 1048576 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			input := strings.Join(append(append([]string{}, valid...), c.bad, valid[0]), "\n")
			events, err := ReadAll(strings.NewReader(input))
			require.ErrorIs(t, err, ErrBadTrace)
			require.ErrorContains(t, err, "traces: "+c.want)
			var le *LineError
			require.ErrorAs(t, err, &le)
			require.Equal(t, 4, le.Line)
			require.Len(t, events, 3, "events before the bad line are returned")
		})
	}
}

func TestReaderFirstSeqMustBeOne(t *testing.T) {
	e := seedFlow(0).done()[1]
	_, err := ReadAll(strings.NewReader(string(Marshal(e))))
	require.EqualError(t, err, "traces: line 1: seq 2, want 1 for the first event")
}

func TestReaderAcceptsCRLFAndMissingFinalNewline(t *testing.T) {
	events := seedFlow(0).done()[:3]
	data := strings.ReplaceAll(strings.TrimSuffix(string(writeAll(t, events)), "\n"), "\n", "\r\n")
	back, err := ReadAll(strings.NewReader(data))
	require.NoError(t, err)
	require.Equal(t, events, back)
	back, err = ReadAll(strings.NewReader(""))
	require.NoError(t, err)
	require.Empty(t, back)
}

func TestReaderErrorIsSticky(t *testing.T) {
	r := NewReader(strings.NewReader("oops\n"))
	_, err := r.Next()
	require.Error(t, err)
	_, err2 := r.Next()
	require.Equal(t, err, err2)
	r = NewReader(strings.NewReader(""))
	_, err = r.Next()
	require.Equal(t, io.EOF, err)
	_, err = r.Next()
	require.Equal(t, io.EOF, err)
}

func TestReadFileNamesThePath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.jsonl")
	require.NoError(t, os.WriteFile(path, append(writeAll(t, seedFlow(0).done()[:2]), "{}\n"...), 0o644))
	_, err := ReadFile(path)
	require.EqualError(t, err, "traces: "+path+": line 3: v 0, want 1")
	_, err = ReadFile(filepath.Join(dir, "missing.jsonl"))
	require.ErrorIs(t, err, os.ErrNotExist)
	require.NotErrorIs(t, err, ErrBadTrace)
}

func withSeq(e TraceEvent, seq int) TraceEvent {
	e.Seq = seq
	return e
}
