package cluster

import (
	"sync"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/model"
)

// writtenProjections remembers the model form of the objects the
// components' writes stored, for the watch events that bring the same
// objects back: the registry hands a write's answer to its watchers too
// (registry.HandOver), and about four events in five are a component's own
// writes, each projected once by the writer and again for its event. The
// objects are read-only, and the model's objects are immutable, so the
// writer's Write.After and the components' views can share one.
type writtenProjections struct {
	mu   sync.Mutex
	objs map[api.Object]model.Obj
	// ring holds the keys in the order they came, to forget the oldest: a
	// write whose event brings a decoded copy instead is never asked for.
	ring []api.Object
	next int
}

// writtenKept bounds the objects remembered: far more than the writes in
// flight at once, which the workers bound (createWorkers, schedulerWorkers
// and one per component).
const writtenKept = 1024

// project projects a stored object of a write and remembers the result.
func (w *writtenProjections) project(stored api.Object, uids *project.UIDs) (model.Obj, error) {
	o, err := project.ToModel(stored, uids)
	if err != nil {
		return o, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.objs == nil {
		w.objs, w.ring = map[api.Object]model.Obj{}, make([]api.Object, writtenKept)
	}
	if old := w.ring[w.next]; old != nil {
		delete(w.objs, old)
	}
	w.ring[w.next], w.next = stored, (w.next+1)%writtenKept
	w.objs[stored] = o
	return o, nil
}

// take returns, and forgets, the projection of obj if a write stored obj
// itself. The ring still holds obj, so no later object can have its
// address while it is remembered.
func (w *writtenProjections) take(obj api.Object) (model.Obj, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	o, ok := w.objs[obj]
	if ok {
		delete(w.objs, obj)
	}
	return o, ok
}
