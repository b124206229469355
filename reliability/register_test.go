package reliability

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// regState is one key of the registry as a register: whether the object
// exists, its value and its resourceVersion. rv -1 is a version nobody
// saw: that of a write whose answer was lost.
type regState struct {
	exists bool
	val    string
	rv     int64
}

// regInput is one call on a key. "read" is a key's share of a list.
type regInput struct {
	key, op, val string
	rv           int64 // update's precondition
}

// regOutput is the answer: an HTTP code with the object's value and
// version, or unknown when none came (the write may or may not be done).
type regOutput struct {
	unknown bool
	code    int
	val     string
	rv      int64
}

// registerModel is the registry's contract for one key, as porcupine
// checks it: creates fail when the object exists, an update's
// resourceVersion precondition must match, reads see the last write, and
// every write's resourceVersion is above the one it replaced.
var registerModel = porcupine.NondeterministicModel{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[string][]porcupine.Operation{}
		var keys []string
		for _, op := range h {
			k := op.Input.(regInput).key
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], op)
		}
		var out [][]porcupine.Operation
		for _, k := range keys {
			out = append(out, byKey[k])
		}
		return out
	},
	Init: func() []any { return []any{regState{}} },
	Step: func(s, i, o any) []any {
		st, in, out := s.(regState), i.(regInput), o.(regOutput)
		if out.unknown {
			if next, ok := effect(st, in); ok {
				return []any{st, next}
			}
			return []any{st}
		}
		newer := st.rv < 0 || out.rv > st.rv
		matches := st.rv < 0 || st.rv == in.rv
		ok := false
		next := st
		switch in.op {
		case "create":
			ok = (out.code == 201 && !st.exists && newer) || (out.code == 409 && st.exists)
			if out.code == 201 {
				next = regState{true, in.val, out.rv}
			}
		case "get", "read":
			ok = (out.code == 200 && st.exists && st.val == out.val && (st.rv < 0 || st.rv == out.rv)) || (out.code == 404 && !st.exists)
			if out.code == 200 {
				next.rv = out.rv
			}
		case "update":
			ok = (out.code == 200 && st.exists && matches && newer) ||
				(out.code == 409 && st.exists && (st.rv < 0 || st.rv != in.rv)) || (out.code == 404 && !st.exists)
			if out.code == 200 {
				next = regState{true, in.val, out.rv}
			}
		case "delete":
			ok = (out.code == 200 && st.exists) || (out.code == 404 && !st.exists)
			if out.code == 200 {
				next = regState{rv: st.rv}
			}
		}
		if !ok {
			return nil
		}
		return []any{next}
	},
	DescribeOperation: func(i, o any) string {
		in, out := i.(regInput), o.(regOutput)
		res := fmt.Sprintf("%d %q rv=%d", out.code, out.val, out.rv)
		if out.unknown {
			res = "?"
		}
		arg := in.val
		if in.op == "update" {
			arg = fmt.Sprintf("%s if rv=%d", in.val, in.rv)
		}
		return fmt.Sprintf("%s(%s %s) -> %s", in.op, in.key, arg, res)
	},
	DescribeState: func(s any) string {
		st := s.(regState)
		if !st.exists {
			return "absent"
		}
		return fmt.Sprintf("%q rv=%d", st.val, st.rv)
	},
}

// effect is the state a write makes if it took effect.
func effect(st regState, in regInput) (regState, bool) {
	switch {
	case in.op == "create" && !st.exists:
		return regState{true, in.val, -1}, true
	case in.op == "update" && st.exists && (st.rv < 0 || st.rv == in.rv):
		return regState{true, in.val, -1}, true
	case in.op == "delete" && st.exists:
		return regState{rv: st.rv}, true
	}
	return st, false
}
