package properties

import (
	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/model"
)

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

// userNumber says whether n is a number the user wrote into the spec of
// a custom resource in this run (a node port it asks for, say).
func (r *operatorRun) userNumber(n int64) bool {
	return r.numbers[n]
}

// asInt64 is v as an integer, whichever way JSON decoding typed it.
func asInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), float64(int64(n)) == n
	}
	return 0, false
}

// noteUserValues keeps the string and number leaves of a spec the user
// writes.
func (r *operatorRun) noteUserValues(v any) {
	switch v := v.(type) {
	case string:
		if r.inputs == nil {
			r.inputs = map[string]bool{}
		}
		r.inputs[v] = true
	case int, int32, int64, float64:
		if n, ok := asInt64(v); ok {
			if r.numbers == nil {
				r.numbers = map[int64]bool{}
			}
			r.numbers[n] = true
		}
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
// refused in reconcile it.
func (r *operatorRun) refusedNote(it operator.Item, out operator.Outcome) string {
	if out.Refused == "" {
		return ""
	}
	if r.refusedOwners == nil {
		r.refusedOwners = map[string]bool{}
	}
	r.refusedOwners[model.Key(it.Request.Namespace, it.Request.Name)] = true
	return "input refused: " + out.Refused
}
