package traces

import (
	"fmt"
	"strings"

	"github.com/converge-dev/converge/model"
)

// Stepper is a cluster driven one action at a time: the model, or the
// stepped implementation. Both return the model's Result and project their
// observable state onto a model.Snapshot.
type Stepper interface {
	Step(a model.Action) model.Result
	Snapshot() *model.Snapshot
	Seen(component string) int
}

var (
	_ Stepper = (*model.State)(nil)
	_ Stepper = (*Recorder)(nil)
)

// FromStep turns one step into a trace event: who acted, on what, what the
// step delivered or why it failed, the writes with the fields they changed,
// and the digest of snap, the state after the step. seen is the number of
// events delivered to the actor so far (0 for user and fault actions).
// Volatile fields other than each write's revision are left empty.
func FromStep(seq int, a model.Action, r model.Result, seen int, snap *model.Snapshot) TraceEvent {
	e := EventOf(seq, a, r, seen, snap)
	e.Digest = snap.Digest()
	return e
}

// EventOf is FromStep without the digest, for a caller that digests the
// state only if it writes the trace out (a digest is most of the cost).
func EventOf(seq int, a model.Action, r model.Result, seen int, snap *model.Snapshot) TraceEvent {
	e := TraceEvent{
		V:      Version,
		Seq:    seq,
		Actor:  a.Actor(),
		Action: a.Op.String(),
		Key:    a.Key,
		Detail: r.Delivered,
		Script: a.String(),
		Seen:   seen,
	}
	switch {
	case a.Op == model.OpDeliver:
		e.Key = a.Kind.Resource() // the informer; Detail names the object
	case e.Key == "":
		e.Key = a.Who // node and component actions are about the node or component
	}
	if r.Err != nil {
		e.Err = r.Err.Error()
	}
	for _, w := range r.Writes {
		e.Writes = append(e.Writes, writeOf(w, snap))
	}
	return e
}

func writeOf(w model.Write, snap *model.Snapshot) Write {
	out := Write{Verb: string(w.Verb), Rev: w.Rev}
	if w.Local != "" {
		out.Resource, out.Name, _ = strings.Cut(w.Local, "/")
	} else {
		out.Resource, out.Name = w.Ref.Kind.Resource(), w.Ref.Key()
		if w.Ref.Namespace == model.DefaultNamespace {
			out.Name = w.Ref.Name // the schema omits the default namespace
		}
		if w.Err == nil {
			// A failed write changed nothing, so it names no fields.
			if f := snap.ChangedFields(w.Before, w.After); len(f) > 0 {
				out.Fields = f
			}
		}
	}
	if w.Err != nil {
		out.Err = w.Err.Error()
	}
	return out
}

// Recorder is a Stepper that writes one event per step to a Writer. It is
// deterministic: the same actions on the same kind of cluster give the same
// bytes. Seq numbers continue from the Writer's last event (1 for a new
// Writer). A Recorder is not safe for concurrent use.
type Recorder struct {
	s     Stepper
	w     *Writer
	model bool // the model's revisions are not etcd's: leave them out
	err   error
}

// NewRecorder records the steps taken through it on s to w.
func NewRecorder(s Stepper, w *Writer) *Recorder {
	_, isModel := s.(*model.State)
	return &Recorder{s: s, w: w, model: isModel}
}

// Step steps the cluster, records the event and returns the step's result.
// The step is taken even after a write error; Err reports the first one.
func (r *Recorder) Step(a model.Action) model.Result {
	res := r.s.Step(a)
	if r.err != nil {
		return res
	}
	seen := 0
	if !a.Op.IsUser() && !a.Op.IsFault() {
		seen = r.s.Seen(a.Actor())
	}
	e := FromStep(r.w.Last()+1, a, res, seen, r.s.Snapshot())
	if r.model {
		e = Mask(e)
	}
	if err := r.w.Write(e); err != nil {
		r.err = fmt.Errorf("traces: record %q: %w", a.String(), err)
	}
	return res
}

// Err returns the first error writing the trace, or nil.
func (r *Recorder) Err() error { return r.err }

// Snapshot is the wrapped cluster's snapshot.
func (r *Recorder) Snapshot() *model.Snapshot { return r.s.Snapshot() }

// Seen is the wrapped cluster's count of events delivered to component.
func (r *Recorder) Seen(component string) int { return r.s.Seen(component) }
