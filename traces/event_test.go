package traces

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEventStringIsRaftStyle(t *testing.T) {
	e := TraceEvent{V: 1, Seq: 12, Actor: "replicaset-controller", Action: "reconcile", Key: "myapp-7d9f", Seen: 5,
		Writes: []Write{
			{Verb: "CREATE", Resource: "pods", Name: "myapp-7d9f-0"},
			{Verb: "UPDATE", Resource: "replicasets", Name: "myapp-7d9f", Fields: []string{"status.replicas"}},
		},
		Digest: "sha256:0123456789abcdef"}
	require.Equal(t, "12 replicaset-controller reconcile myapp-7d9f seen=5 -> CREATE pods/myapp-7d9f-0, "+
		"UPDATE replicasets/myapp-7d9f [status.replicas] digest=sha256:0123456789abcdef", e.String())
	require.Equal(t, e.String()[3:], e.Text())
}

func TestEventStringShowsVolatileUntilMasked(t *testing.T) {
	e := TraceEvent{V: 1, Seq: 3, Actor: "user", Action: "apply", Key: "myapp", Detail: "replicas=3 image=nginx:1",
		Writes: []Write{{Verb: "CREATE", Resource: "deployments", Name: "myapp", Rev: 7, UID: "u-1", Err: "boom"}},
		Err:    "store: resource version conflict", Digest: "sha256:aa", Rev: 7, Time: "T1"}
	require.Equal(t, `3 user apply myapp "replicas=3 image=nginx:1" -> CREATE deployments/myapp error="boom" rev=7 uid=u-1 `+
		`error="store: resource version conflict" digest=sha256:aa rev=7 time=T1`, e.String())
	require.Equal(t, `3 user apply myapp "replicas=3 image=nginx:1" -> CREATE deployments/myapp error="boom" `+
		`error="store: resource version conflict" digest=sha256:aa`, Mask(e).String())
	require.Equal(t, `3 user apply myapp -> CREATE deployments/myapp`,
		Mask(e, "detail", "error", "writes.error", "digest").String())
}

func TestEventStringQuotesAmbiguousAtoms(t *testing.T) {
	e := TraceEvent{V: 1, Seq: 1, Actor: "my actor", Action: "tick", Key: `a"b`, Detail: "two\nlines", Digest: "d"}
	require.Equal(t, `1 "my actor" tick "a\"b" "two\nlines" digest=d`, e.String())
	w := Write{Verb: "UPDATE", Resource: "pods", Name: "x, y", Fields: []string{"a b"}}
	require.Equal(t, `UPDATE "pods/x, y" ["a b"]`, w.String())
}

func TestMaskZeroesVolatileAndNamedFieldsWithoutTouchingInput(t *testing.T) {
	e := seedFlow(7).done()[6]
	orig := Marshal(e)
	m := Mask(e)
	require.Zero(t, m.Rev)
	require.Empty(t, m.Time)
	for _, w := range m.Writes {
		require.Zero(t, w.Rev)
		require.Empty(t, w.UID)
		require.NotEmpty(t, w.Name)
	}
	require.Equal(t, e.Digest, m.Digest)
	require.Equal(t, orig, Marshal(e), "Mask modified its input")

	m = Mask(e, "digest", "seen", "detail", "writes.fields", "error", "key")
	require.Empty(t, m.Digest)
	require.Zero(t, m.Seen)
	require.Empty(t, m.Key)
	require.Nil(t, m.Writes[3].Fields)
	require.Equal(t, []string{"status.replicas"}, e.Writes[3].Fields)
	require.Nil(t, Mask(e, "writes").Writes)
}

func TestMaskedTracesFromDifferentRunsAreEqual(t *testing.T) {
	a, b := seedFlow(1).done(), seedFlow(2).done()
	require.NotEqual(t, Marshal(a[0]), Marshal(b[0]), "the helper should add run-specific noise")
	for i := range a {
		require.Equal(t, Marshal(Mask(a[i])), Marshal(Mask(b[i])))
	}
}

func TestValidateMask(t *testing.T) {
	require.NoError(t, ValidateMask(MaskFields()))
	err := ValidateMask([]string{"digest", "colour"})
	require.ErrorIs(t, err, ErrUnknownMask)
	require.Contains(t, err.Error(), `"colour"`)
}

func TestDigestIsShortAndStable(t *testing.T) {
	d := Digest([]byte("state"))
	require.Regexp(t, regexp.MustCompile(`^sha256:[0-9a-f]{16}$`), d)
	require.Equal(t, d, Digest([]byte("state")))
	require.NotEqual(t, d, Digest([]byte("state2")))
}

func TestValidate(t *testing.T) {
	ok := TraceEvent{V: 1, Seq: 1, Actor: "user", Action: "set-image", Digest: "d",
		Writes: []Write{{Verb: "RUNTIME-START", Resource: "containers", Name: "c", Fields: []string{"a", "b"}}}}
	require.NoError(t, ok.Validate())
	for name, mutate := range map[string]func(*TraceEvent){
		"version":        func(e *TraceEvent) { e.V = 2 },
		"seq":            func(e *TraceEvent) { e.Seq = 0 },
		"actor":          func(e *TraceEvent) { e.Actor = "" },
		"upper action":   func(e *TraceEvent) { e.Action = "Apply" },
		"spaced action":  func(e *TraceEvent) { e.Action = "set image" },
		"digest":         func(e *TraceEvent) { e.Digest = "" },
		"seen":           func(e *TraceEvent) { e.Seen = -1 },
		"utf8":           func(e *TraceEvent) { e.Detail = "\xff" },
		"verb":           func(e *TraceEvent) { e.Writes[0].Verb = "create" },
		"resource":       func(e *TraceEvent) { e.Writes[0].Resource = "" },
		"name":           func(e *TraceEvent) { e.Writes[0].Name = "" },
		"unsorted field": func(e *TraceEvent) { e.Writes[0].Fields = []string{"b", "a"} },
		"dup field":      func(e *TraceEvent) { e.Writes[0].Fields = []string{"a", "a"} },
	} {
		e := ok
		e.Writes = []Write{ok.Writes[0]}
		mutate(&e)
		require.ErrorIs(t, e.Validate(), ErrInvalidEvent, name)
	}
}
