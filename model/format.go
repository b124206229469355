package model

import (
	"path"
	"strings"
)

// FormatStep renders one step the way the seed documents number their flow:
// "actor: action key -> writes".
func FormatStep(a Action, r Result) string {
	var b strings.Builder
	b.WriteString(a.Actor())
	b.WriteString(": ")
	line := a.String()
	if a.Op.IsStep() && a.Op != OpHeartbeat {
		line = strings.Replace(line, " "+a.Who, "", 1) // the actor already says who
	}
	b.WriteString(line)
	if r.Delivered != "" {
		b.WriteString(" [" + r.Delivered + "]")
	}
	for i, w := range r.Writes {
		if i == 0 {
			b.WriteString(" -> ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(string(w.Verb) + " " + w.Target())
		if w.Err != nil {
			b.WriteString(" (" + w.Err.Error() + ")")
		}
	}
	if r.Err != nil && len(r.Writes) == 0 {
		b.WriteString(" !! " + r.Err.Error())
	}
	return b.String()
}

// Executed is an action with what it did.
type Executed struct {
	Action Action
	Result Result
}

// Drain runs the components whose names match pattern (path.Match syntax,
// e.g. "kubelet/*") alone until they have nothing left to do: every event
// delivered, every key reconciled. It stops after max steps.
func (st *State) Drain(pattern string, max int) []Executed {
	var out []Executed
	for len(out) < max {
		next, ok := st.nextDrainStep(pattern)
		if !ok {
			break
		}
		out = append(out, Executed{next, st.Step(next)})
	}
	return out
}

func (st *State) nextDrainStep(pattern string) (Action, bool) {
	for _, n := range st.names {
		if ok, _ := path.Match(pattern, n); !ok {
			continue
		}
		if d, ok := st.firstDelivery(n); ok {
			return d, true
		}
		if c := st.comps[n]; !c.down && len(c.queue) > 0 {
			return Action{Op: OpReconcile, Who: n, Key: c.queue[0]}, true
		}
	}
	return Action{}, false
}
