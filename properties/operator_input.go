package properties

import "github.com/converge-dev/converge/impl/operator"

// userValue says whether s is a string the user wrote into the spec of
// a custom resource in this run: the operator's Config.UserInput. A child
// write that the apiserver refuses (422) for such a value, passed on
// verbatim, is the user's bad input, as it would be in a cluster (a
// Deployment's image of " nginx" is invalid whoever writes it): the step
// notes it, and the end-of-run oracles still judge what the operator did
// about it. Every version the user wrote counts, not only the stored one:
// the operator may act on one its cache still holds.
func (r *operatorRun) userValue(s string) bool {
	return r.inputs[s]
}

// noteInput keeps the string leaves of a spec the user writes.
func (r *operatorRun) noteUserValues(v any) {
	switch v := v.(type) {
	case string:
		if r.inputs == nil {
			r.inputs = map[string]bool{}
		}
		r.inputs[v] = true
	case map[string]any:
		for _, e := range v {
			r.noteUserValues(e)
		}
	case []any:
		for _, e := range v {
			r.noteUserValues(e)
		}
	}
}

// refusedNote is a step's note of the user's input that the apiserver
// refused.
func (r *operatorRun) refusedNote(out operator.Outcome) string {
	if out.Refused == "" {
		return ""
	}
	r.refusedInput = true
	return "input refused: " + out.Refused
}
