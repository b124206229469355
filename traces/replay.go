package traces

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/converge-dev/converge/model"
)

// ErrNotReplayable is wrapped when a trace cannot be replayed: an event has
// no script, or its script does not parse.
var ErrNotReplayable = errors.New("traces: trace not replayable")

// ReplayReport says whether a replay reproduced a recorded trace.
type ReplayReport struct {
	// Steps is the number of events replayed, the departing one included.
	Steps int
	// Departure is the first event that came out differently; nil when the
	// whole trace was reproduced.
	Departure *Departure
}

// Reproduced reports whether every event came out as recorded.
func (r ReplayReport) Reproduced() bool { return r.Departure == nil }

// Departure is the first replayed event that differs from the recorded one.
// Both events are masked as Diff masks them.
type Departure struct {
	Seq      int
	Recorded TraceEvent
	Got      TraceEvent
	Reason   string // one line, in Diff's words
}

// Replay steps each event's script through s, a fresh cluster, and compares
// the event it makes with the recorded one, ignoring volatile fields as
// Diff does. It stops at the first departure. The trace is checked for
// scripts before anything is stepped, so a bad trace changes nothing.
func Replay(events []TraceEvent, s Stepper) (ReplayReport, error) {
	actions := make([]model.Action, len(events))
	for i, e := range events {
		if e.Script == "" {
			return ReplayReport{}, fmt.Errorf("%w: seq %d (%s %s) has no script", ErrNotReplayable, e.Seq, e.Actor, e.Action)
		}
		a, err := model.ParseAction(e.Script)
		if err != nil {
			return ReplayReport{}, fmt.Errorf("%w: seq %d: %w", ErrNotReplayable, e.Seq, err)
		}
		actions[i] = a
	}
	var rep ReplayReport
	for i, a := range actions {
		r := s.Step(a)
		seen := 0
		if !a.Op.IsUser() && !a.Op.IsFault() {
			seen = s.Seen(a.Actor())
		}
		want := Mask(events[i])
		got := Mask(FromStep(want.Seq, a, r, seen, s.Snapshot()))
		rep.Steps++
		if !bytes.Equal(Marshal(want), Marshal(got)) {
			rep.Departure = &Departure{Seq: want.Seq, Recorded: want, Got: got, Reason: departureReason(want, got)}
			return rep, nil
		}
	}
	return rep, nil
}

func departureReason(want, got TraceEvent) string {
	if want.Actor != got.Actor || want.Action != got.Action || want.Key != got.Key {
		return fmt.Sprintf("recorded %s %s %s, got %s %s %s", want.Actor, want.Action, want.Key, got.Actor, got.Action, got.Key)
	}
	_, reason := explain(want, got)
	return reason
}
