package traces

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/converge-dev/converge/model"
	"github.com/converge-dev/converge/properties/mutants/decide"
	"github.com/stretchr/testify/require"
)

func goldenTrace(t *testing.T, name string) []TraceEvent {
	t.Helper()
	events, err := ReadFile(filepath.Join("testdata", "traces", name+".jsonl"))
	require.NoError(t, err)
	return events
}

func TestReplayReproducesEveryGoldenTrace(t *testing.T) {
	for _, sc := range Scenarios() {
		events := goldenTrace(t, sc.Name)
		rep, err := Replay(events, model.New(model.Config{}))
		require.NoError(t, err, sc.Name)
		require.True(t, rep.Reproduced(), "%s: %+v", sc.Name, rep.Departure)
		require.Equal(t, len(events), rep.Steps)
	}
}

func TestReplayNamesTheFirstDeparture(t *testing.T) {
	events := goldenTrace(t, "seed-deployment")
	rep, err := Replay(events, model.New(model.Config{Decisions: decide.EndpointsListsUnready}))
	require.NoError(t, err)
	require.False(t, rep.Reproduced())
	d := rep.Departure
	require.Equal(t, d.Seq, rep.Steps, "replay stops at the departure")
	require.Equal(t, "endpoints-controller", d.Got.Actor)
	require.Equal(t, "reconcile", d.Got.Action)
	require.Contains(t, d.Reason, "writes differ: b UPDATE endpoints/my-app [subsets.addresses")
	// The shipped controller only added the pod to the slice there (a
	// slice lists pods before they are ready); the Endpoints stayed.
	for _, w := range d.Recorded.Writes {
		require.NotContains(t, fmt.Sprint(w), "endpoints/", "the recorded step wrote no Endpoints")
	}
}

func TestReplayIgnoresVolatileFieldsOnly(t *testing.T) {
	events := goldenTrace(t, "seed-pod")
	noisy := append([]TraceEvent(nil), events...)
	noisy[2].Rev, noisy[2].Time = 42, "2026-01-01T00:00:00Z"
	rep, err := Replay(noisy, model.New(model.Config{}))
	require.NoError(t, err)
	require.True(t, rep.Reproduced(), "%+v", rep.Departure)

	tampered := append([]TraceEvent(nil), events...)
	tampered[4].Seen++
	rep, err = Replay(tampered, model.New(model.Config{}))
	require.NoError(t, err)
	require.Equal(t, 5, rep.Departure.Seq)
	require.Contains(t, rep.Departure.Reason, "seen differs")

	reordered := append([]TraceEvent(nil), events...)
	reordered[0], reordered[1] = reordered[1], reordered[0]
	reordered[0].Seq, reordered[1].Seq = 1, 2
	rep, err = Replay(reordered, model.New(model.Config{}))
	require.NoError(t, err)
	require.Equal(t, 1, rep.Departure.Seq)
}

func TestReplayRejectsTracesWithoutScriptsBeforeStepping(t *testing.T) {
	st := model.New(model.Config{})
	before := st.Snapshot().Digest()
	events := goldenTrace(t, "seed-pod")
	for name, mutate := range map[string]func(*TraceEvent){
		"no script":  func(e *TraceEvent) { e.Script = "" },
		"bad script": func(e *TraceEvent) { e.Script = "frobnicate web" },
	} {
		bad := append([]TraceEvent(nil), events...)
		mutate(&bad[3])
		_, err := Replay(bad, st)
		require.ErrorIs(t, err, ErrNotReplayable, name)
		require.Contains(t, err.Error(), "seq 4", name)
	}
	require.Equal(t, before, st.Snapshot().Digest(), "a bad trace stepped nothing")
}

func TestRecorderIsAStepperAndKeepsWriterErrors(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	rec := NewRecorder(model.New(model.Config{}), w)
	r := rec.Step(model.Action{Op: model.OpAddNode, Who: "node-1"})
	require.NoError(t, r.Err)
	r = rec.Step(model.Action{Op: model.OpReconcile, Who: model.Scheduler, Key: "no-such-pod"})
	require.ErrorIs(t, r.Err, model.ErrNotEnabled)
	require.NoError(t, rec.Err())

	events, err := ReadAll(&buf)
	require.NoError(t, err)
	require.Len(t, events, 2)
	require.Equal(t, "user add-node node-1 -> CREATE nodes/node-1 "+
		"[metadata.labels,spec.podCIDR,status.capacity,status.ready] digest="+events[0].Digest, events[0].Text())
	require.Equal(t, "add-node node-1", events[0].Script)
	require.Equal(t, "no-such-pod", events[1].Key)
	require.Contains(t, events[1].Err, "model: action not enabled")
	require.Equal(t, rec.Snapshot().Digest(), events[1].Digest)

	require.NoError(t, w.Close())
	rec.Step(model.Action{Op: model.OpTick})
	require.ErrorIs(t, rec.Err(), ErrClosed)
	require.Equal(t, int64(1), rec.Snapshot().Now, "the step is taken even when recording fails")
}

func TestFromStepNamesLocalWritesAndSubjects(t *testing.T) {
	st := model.New(model.Config{})
	sc, _ := ScenarioNamed("seed-pod")
	actions, err := sc.Expand(st)
	require.NoError(t, err)
	fresh := model.New(model.Config{})
	var sawRuntime, sawDeliver bool
	for i, a := range actions {
		r := fresh.Step(a)
		e := FromStep(i+1, a, r, fresh.Seen(a.Actor()), fresh.Snapshot())
		require.NoError(t, e.Validate())
		for _, w := range e.Writes {
			if w.Verb == "RUNTIME-START" {
				sawRuntime = true
				require.Equal(t, "containers", w.Resource)
				require.Equal(t, "node-1/default/nginx/0", w.Name)
				require.Empty(t, w.Fields)
			}
		}
		if a.Op == model.OpDeliver {
			sawDeliver = true
			require.Equal(t, a.Kind.Resource(), e.Key)
			require.NotEmpty(t, e.Detail)
		}
	}
	require.True(t, sawRuntime)
	require.True(t, sawDeliver)
}

func TestScriptFieldIsOneLineAndDiffed(t *testing.T) {
	e := TraceEvent{V: 1, Seq: 1, Actor: "user", Action: "scale", Key: "web", Script: "scale web 5", Digest: "d"}
	require.NoError(t, e.Validate())
	line := Marshal(e)
	require.Contains(t, string(line), `"key":"web","script":"scale web 5","seen":0`)
	back, err := ReadAll(bytes.NewReader(append(line, '\n')))
	require.NoError(t, err)
	require.Equal(t, []TraceEvent{e}, back)

	bad := e
	bad.Script = "scale web 5\ntick"
	require.ErrorIs(t, bad.Validate(), ErrInvalidEvent)
	bad.Script = "scale web \xff"
	require.ErrorIs(t, bad.Validate(), ErrInvalidEvent)

	other := e
	other.Script = "scale web 6"
	res := Diff([]TraceEvent{e}, []TraceEvent{other}, DiffOptions{})
	require.Equal(t, []string{"script"}, res.FirstDivergence.Fields)
	require.Equal(t, `script differs: a "scale web 5" b "scale web 6"`, res.FirstDivergence.Reason)
}
