package properties

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/converge-dev/converge/traces"
)

// determinism is madsim's determinism check on CheckOperator: converge
// steps the operator deterministically (ARCHITECTURE.md, contract 2), so
// the same drawn steps must give the same writes. When they do not, rapid
// cannot replay a failure and says only "flaky test, can not reproduce a
// failure" (or reports the unshrunk failure, or its shrinker panics). The
// runs of one check are watched: the first failing run and rapid's replay
// of it draw the same bits, and so do two more runs of the failure's seed;
// if their steps differ, the failure is reported as the operator's
// nondeterminism, with each run's first differing step. An operator that
// iterates a Go map to build what it writes is the usual cause.
type determinism struct {
	mu      sync.Mutex
	runs    int
	first   []string // the steps of the first failing run
	firstAt int      // its number
	replay  []string // the run after it: rapid's replay of the same bits
	last    [2][]string
	drawn   int       // drawn actions of the last failing run
	capture *[]string // a rerun's steps go here, not into the record
}

// ended records one run of the property: its steps, and how it ended.
func (d *determinism) ended(events []traces.TraceEvent, drawn int, failed bool) {
	steps := make([]string, len(events))
	for i, e := range events {
		steps[i] = writeLine(e)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.capture != nil {
		*d.capture = steps
		return
	}
	d.runs++
	if failed {
		d.drawn = drawn
	}
	switch {
	case failed && d.first == nil:
		d.first, d.firstAt = steps, d.runs
	case d.firstAt > 0 && d.runs == d.firstAt+1:
		d.replay = steps
	}
	d.last[0], d.last[1] = d.last[1], steps
}

// writeLine is a step as the determinism check compares it: the step
// line, with its writes and the fields they changed.
func writeLine(e traces.TraceEvent) string {
	line := stepLine(e)
	for _, w := range e.Writes {
		if len(w.Fields) > 0 {
			line += fmt.Sprintf(" [%s/%s: %s]", w.Resource, w.Name, strings.Join(w.Fields, ", "))
		}
	}
	return line
}

var rapidSeed = regexp.MustCompile(`-rapid\.seed=(\d+)`)

// verdict is the nondeterminism report for rapid's failure message msg,
// if the runs show the operator's steps changing under the same bits;
// rerun runs the property on a seed's bits.
func (d *determinism) verdict(msg string, rerun func(seed uint64)) (string, bool) {
	d.mu.Lock()
	first, replay := d.first, d.replay
	d.mu.Unlock()
	if !strings.HasPrefix(msg, "[rapid] ") || first == nil || replay == nil {
		return "", false
	}
	if sameSteps(first, replay) && !strings.Contains(msg, "flaky test") {
		return "", false // rapid replayed the failure: shrinking went on from there
	}
	runs := [][]string{first, replay}
	names := []string{"run 1 (the failure)", "run 2 (rapid's replay)"}
	if m := rapidSeed.FindStringSubmatch(msg); m != nil {
		if seed, err := strconv.ParseUint(m[1], 10, 64); err == nil {
			for i := range 2 {
				runs = append(runs, d.rerun(rerun, seed))
				names = append(names, fmt.Sprintf("run %d (the same seed again)", i+3))
			}
		}
	}
	return nondeterminismReport(runs, names)
}

// rerun runs the property once more on seed's bits, capturing its steps.
func (d *determinism) rerun(rerun func(uint64), seed uint64) []string {
	var steps []string
	d.mu.Lock()
	d.capture = &steps
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.capture = nil
		d.mu.Unlock()
	}()
	rerun(seed)
	return steps
}

// shrinkerVerdict is the report when rapid's shrinker panicked because
// one input failed two different ways: its last two runs drew the same
// bits.
func (d *determinism) shrinkerVerdict() (string, bool) {
	d.mu.Lock()
	a, b := d.last[0], d.last[1]
	d.mu.Unlock()
	if a == nil || b == nil {
		return "", false
	}
	return nondeterminismReport([][]string{a, b}, []string{"run 1 (a shrunk input)", "run 2 (the same input again)"})
}

func sameSteps(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// nondeterminismReport names the first step at which the runs part, and
// each run's step there; false if all the runs took the same steps.
func nondeterminismReport(runs [][]string, names []string) (string, bool) {
	at := -1
	for i := 0; at < 0; i++ {
		var ref string
		ended := 0
		for n, r := range runs {
			s := "(no more steps)"
			if i < len(r) {
				s = r[i]
			} else {
				ended++
			}
			if n == 0 {
				ref = s
			} else if s != ref {
				at = i
			}
		}
		if ended == len(runs) {
			return "", false
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "nondeterministic operator: the same steps gave different writes (the same drawn choices, %d runs); the first difference, at step %d:\n", len(runs), at+1)
	for n, r := range runs {
		s := "(no more steps)"
		if at < len(r) {
			s = r[at]
		}
		fmt.Fprintf(&b, "  %s: %s\n", names[n], s)
	}
	b.WriteString("the steps before it, the same in every run:\n")
	for i := range at {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, runs[0][i])
	}
	b.WriteString("converge steps the operator deterministically, so its own code chose differently: iterating a Go map, a random value, the clock")
	return b.String(), true
}

// determinismTB is the TB rapid reports to: a failure of rapid that the
// operator's nondeterminism explains is reported as that instead.
type determinismTB struct {
	rapid.TB
	d     *determinism
	rerun func(seed uint64)
}

func (w *determinismTB) Errorf(format string, args ...any) {
	w.TB.Helper()
	msg := fmt.Sprintf(format, args...)
	if report, ok := w.d.verdict(msg, w.rerun); ok {
		w.TB.Error(report)
		return
	}
	w.TB.Error(msg)
}

// checkOperator is Check of op's property with the determinism check;
// each, if set, wraps every run of the property.
func checkOperator(tb rapid.TB, t testing.TB, op Operator, d *determinism, each func(rt *rapid.T, run func())) {
	tb.Helper()
	shared := newOperatorShared(op)
	shared.ended = d.ended
	prop := func(rt *rapid.T) { runOperator(rt, t, op, shared) }
	if each != nil {
		inner := prop
		prop = func(rt *rapid.T) { each(rt, func() { inner(rt) }) }
	}
	w := &determinismTB{TB: tb, d: d, rerun: func(seed uint64) {
		_, _, _ = runSeed(seed, func(rt *rapid.T) (struct{}, error) { runOperator(rt, t, op, shared); return struct{}{}, nil })
	}}
	defer func() {
		if p := recover(); p != nil {
			// rapid's shrinker panics when one input fails two ways.
			if report, ok := d.shrinkerVerdict(); ok {
				tb.Error(report)
				return
			}
			panic(p)
		}
	}()
	Check(w, prop)
}
