package cluster

import (
	"time"

	"github.com/converge-dev/converge/impl/controller"
)

// NoteExternalWrite tells the stepped driver that a writer outside its
// components (an operator the harness steps beside them) changed resource
// at rev, so that the components' informers of that kind know an event is
// coming. Events are nobody's concern here.
func (s *Stepped) NoteExternalWrite(resource string, rev int64) {
	if k, ok := kindOf(resource); ok {
		s.env.noteWrite(k, rev)
	}
}

// ListWatcher is how the cluster's informers list and watch, for informers
// the harness keeps beside the components' (an operator's).
func (s *Stepped) ListWatcher() controller.ListWatcher { return s.env.lw }

// Now is the cluster's logical clock.
func (s *Stepped) Now() time.Time { return s.clock() }
