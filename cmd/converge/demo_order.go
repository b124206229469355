package main

import (
	"sort"
	"sync"
	"time"

	"github.com/converge-dev/converge/model"
)

// causalLog prints the running cluster's steps in causal order. The
// components run concurrently, so a kubelet can report starting a pod's
// container before the scheduler reports the binding the kubelet acted
// on. The store's revisions restore the order: every write has one, a
// component acts only on writes it has seen, and so anything a step
// caused is written at a higher revision than the step's own first
// write. A step is placed at the revision of its first store write; one
// that wrote nothing to the store (a container started, a rule written,
// an error) at the store's revision when it is heard, which is past any
// write it saw.
//
// A line is printed once every revision up to its place has been heard
// from: etcd's revisions are consecutive, so none can come later and sort
// before it. A revision that no step claims within orphanAfter (a write
// outside the components, such as another tenant's on an external etcd)
// stops holding the log back.
type causalLog struct {
	mu sync.Mutex
	// print writes one line; called under mu, in order.
	print func(line string)
	// rev reads the store's current revision.
	rev func() (int64, error)
	// show says whether a step gets a line (heartbeats do not).
	show func(a model.Action, res model.Result) bool

	next    int64            // the lowest revision not yet heard from
	heard   map[int64]bool   // revisions at or past next that a step wrote
	pending []causalEntry    // steps heard, not yet printed
	seq     int              // steps heard
	stuck   time.Time        // when next stopped moving with lines waiting
	now     func() time.Time // the wall clock; a test replaces it
	closed  bool             // the flow is over: print nothing more
}

type causalEntry struct {
	at    int64 // the revision the step is placed at
	local bool  // placed after the store write at the same revision
	seq   int   // heard order, to keep equal places stable
	line  string
}

// orphanAfter is how long an unclaimed revision holds the log back.
const orphanAfter = time.Second

func newCausalLog(from int64, print func(string), rev func() (int64, error), show func(model.Action, model.Result) bool) *causalLog {
	return &causalLog{print: print, rev: rev, show: show, next: from + 1, heard: map[int64]bool{}, now: time.Now}
}

// step hears one step; it is the running cluster's OnStep.
func (l *causalLog) step(a model.Action, res model.Result) {
	var revs []int64
	for _, w := range res.Writes {
		if w.Local == "" && w.Err == nil && w.Rev > 0 {
			revs = append(revs, w.Rev)
		}
	}
	e := causalEntry{}
	if l.show(a, res) {
		e.line = model.FormatStep(a, res)
	}
	if len(revs) == 0 {
		e.local = true
		if e.line == "" {
			return
		}
		rev, err := l.rev()
		if err != nil {
			rev = 0 // the store is going away; print it with what is known
		}
		e.at = rev
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range revs {
		if e.at == 0 || r < e.at {
			e.at = r
		}
		if r >= l.next {
			l.heard[r] = true
		}
	}
	if l.closed {
		return
	}
	if e.line != "" {
		l.seq++
		e.seq = l.seq
		l.pending = append(l.pending, e)
	}
	l.advance()
	l.flush(false)
}

// advance moves next past every revision heard from.
func (l *causalLog) advance() {
	moved := false
	for l.heard[l.next] {
		delete(l.heard, l.next)
		l.next++
		moved = true
	}
	if moved || len(l.pending) == 0 {
		l.stuck = time.Time{}
	} else if l.stuck.IsZero() {
		l.stuck = l.now()
	}
}

// tick lets an unclaimed revision go once it has held the log back for
// orphanAfter, if a later one has been heard from (so it exists).
func (l *causalLog) tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stuck.IsZero() || l.now().Sub(l.stuck) < orphanAfter || len(l.heard) == 0 {
		return
	}
	l.next++
	l.stuck = time.Time{}
	l.advance()
	l.flush(false)
}

// flush prints the waiting lines whose place every earlier revision has
// been heard from; all of them if all is set (the flow is over).
func (l *causalLog) flush(all bool) {
	sort.SliceStable(l.pending, func(i, j int) bool {
		a, b := l.pending[i], l.pending[j]
		if a.at != b.at {
			return a.at < b.at
		}
		if a.local != b.local {
			return !a.local
		}
		return a.seq < b.seq
	})
	n := 0
	for _, e := range l.pending {
		if !all && e.at >= l.next {
			break
		}
		l.print(e.line)
		n++
	}
	l.pending = append(l.pending[:0], l.pending[n:]...)
}

// section prints whatever is waiting, in order, then a heading.
func (l *causalLog) section(heading string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush(true)
	if !l.closed {
		l.print(heading)
	}
}

// close prints whatever is still waiting, in order; steps heard after it
// are not printed.
func (l *causalLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush(true)
	l.closed = true
}
