package properties

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/model"
)

// maxReportedKeys bounds the keys an endless quiesce's failure names.
const maxReportedKeys = 10

// endlessQuiesce explains a quiesce that did not end: the keys still being
// reconciled in its second half (the ones that kept coming back), most
// reconciled first, each with how many times it ran in the quiesce and how
// its latest reconcile ended, the error above all: an error retried on
// every pass, with nothing written, is the usual cause.
func endlessQuiesce(impl *cluster.Stepped, steps Script) error {
	type comeBack struct {
		who, key string
		runs     int
	}
	runs := map[[2]string]int{}
	late := map[[2]string]bool{}
	for i, a := range steps {
		if a.Op != model.OpReconcile {
			continue
		}
		k := [2]string{a.Who, a.Key}
		runs[k]++
		if i >= len(steps)/2 {
			late[k] = true
		}
	}
	var keys []comeBack
	for k := range late {
		keys = append(keys, comeBack{k[0], k[1], runs[k]})
	}
	slices.SortFunc(keys, func(a, b comeBack) int {
		return cmp.Or(cmp.Compare(b.runs, a.runs), cmp.Compare(a.who, b.who), cmp.Compare(a.key, b.key))
	})
	var b strings.Builder
	fmt.Fprintf(&b, "quiesce did not finish in %d steps", MaxQuiesceSteps)
	if len(keys) == 0 {
		b.WriteString("; no key was reconciled in its second half")
		return fmt.Errorf("%s", b.String())
	}
	b.WriteString("; these keys kept coming back:")
	for i, k := range keys {
		if i == maxReportedKeys {
			fmt.Fprintf(&b, "\n  and %d more", len(keys)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s %s: reconciled %d times in the quiesce", k.who, k.key, k.runs)
		if out, ok := impl.LastReconcile(k.who, k.key); ok {
			fmt.Fprintf(&b, "; the last returned %s", describeOutcome(out))
		}
	}
	return fmt.Errorf("%s", b.String())
}

// describeOutcome is a reconcile's answer as controller-runtime would log
// it: the error, else the Result, and whether the key was queued again.
func describeOutcome(o cluster.Outcome) string {
	var parts []string
	if o.Err != nil {
		parts = append(parts, fmt.Sprintf("error %q", o.Err.Error()))
	} else {
		parts = append(parts, "no error")
	}
	switch {
	case o.Result.RequeueAfter > 0:
		parts = append(parts, "RequeueAfter "+o.Result.RequeueAfter.String())
	case o.Result.Requeue:
		parts = append(parts, "Requeue")
	}
	if o.Retry {
		parts = append(parts, "queued again with backoff")
	}
	return strings.Join(parts, ", ")
}

// shortScript prints script as Script.String does, with its steps from
// quiesce on cut at the end of their first repetition: an endless quiesce
// repeats a few steps thousands of times, and one round shows them.
func shortScript(script Script, quiesce int) string {
	lines := make([]string, len(script))
	for i, a := range script {
		lines[i] = a.String()
	}
	head, tail := lines[:quiesce], lines[quiesce:]
	keep, note := cutRepetition(tail)
	// The marks are comments, so the printout still parses as a script.
	out := append(append(append([]string(nil), head...), quiesceMark), keep...)
	if note != "" {
		out = append(out, note)
	}
	return fmt.Sprintf("script (%d actions):\n  %s", len(script), strings.Join(out, "\n  "))
}

// quiesceMark is the comment line between the drawn steps and the quiesce.
const quiesceMark = "# the quiesce starts here"

// maxPeriod bounds the length of the repeated round cutRepetition looks
// for; headTail is how much of steps without one it keeps at each end.
const maxPeriod, headTail = 500, 50

// cutRepetition finds the round of p steps that repeats to the end of
// steps, starting as early as it can, and keeps steps up to the end of
// its first occurrence, with a note of what is left out (a comment line,
// so the printout still parses as a script). Steps with no
// such round keep their first and last headTail.
func cutRepetition(steps []string) (keep []string, note string) {
	n := len(steps)
	best, bestP := n, 0
	for p := 1; p <= maxPeriod && 2*p <= n; p++ {
		j := n - 1
		for j-p >= 0 && steps[j] == steps[j-p] {
			j--
		}
		start := j + 1 - p
		if n-start >= 2*p && start+p < best {
			best, bestP = start+p, p
		}
	}
	if bestP > 0 {
		left := n - best
		return steps[:best], fmt.Sprintf("# ... and %d more steps, the last %d above over and over", left, bestP)
	}
	if n <= 2*headTail {
		return steps, ""
	}
	keep = append(append([]string(nil), steps[:headTail]...), fmt.Sprintf("# ... %d steps left out ...", n-2*headTail))
	return append(keep, steps[n-headTail:]...), ""
}
