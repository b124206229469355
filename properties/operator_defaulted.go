package properties

// The apiserver fills two fields of what an operator writes on its own,
// from the object's history: a container's imagePullPolicy, defaulted
// from its image when the container is made (Always for an untagged or
// :latest image, else IfNotPresent) and kept through later image
// updates; and a NodePort Service's node ports, the lowest free ones
// when the port is made. Two correct runs of the same inputs may differ
// there, in a cluster too, so the differential leaves such a value out,
// but only a value the apiserver could have chosen: a pull policy or a
// node port the user wrote (a custom resource that asks for one), or
// the policy Never, which no default gives, is the operator's to get
// right, and compared. The teeth tests are
// TestPullPolicyTheUserAskedForIsCompared and
// TestNodePortTheUserAskedForIsCompared.

// withoutDefaulted is state without the pull policies and node ports the
// apiserver may have chosen; state is left as it is (a reference's is
// shared).
func (r *operatorRun) withoutDefaulted(state map[string]map[string]any) map[string]map[string]any {
	out := make(map[string]map[string]any, len(state))
	for key, obj := range state {
		if hasDefaulted(obj, r.defaulted) {
			obj = deepCopyJSON(obj)
			dropDefaulted(obj, r.defaulted)
		}
		out[key] = obj
	}
	return out
}

// defaulted says whether field's value v may be the apiserver's choice.
func (r *operatorRun) defaulted(field string, v any) bool {
	switch field {
	case "imagePullPolicy":
		s, _ := v.(string)
		return (s == "Always" || s == "IfNotPresent") && !r.userValue(s)
	case "nodePort":
		n, ok := asInt64(v)
		return ok && !r.userNumber(n)
	}
	return false
}

// defaultedLists are the lists whose elements carry such a field.
var defaultedLists = []struct {
	path  []string
	field string
}{
	{[]string{"spec", "template", "spec", "containers"}, "imagePullPolicy"},
	{[]string{"spec", "template", "spec", "initContainers"}, "imagePullPolicy"},
	{[]string{"spec", "ports"}, "nodePort"},
}

func hasDefaulted(obj map[string]any, defaulted func(string, any) bool) bool {
	found := false
	eachDefaulted(obj, func(e map[string]any, field string) {
		found = found || defaulted(field, e[field])
	})
	return found
}

func dropDefaulted(obj map[string]any, defaulted func(string, any) bool) {
	eachDefaulted(obj, func(e map[string]any, field string) {
		if defaulted(field, e[field]) {
			delete(e, field)
		}
	})
}

// eachDefaulted calls f on every list element that has one of the
// fields.
func eachDefaulted(obj map[string]any, f func(e map[string]any, field string)) {
	for _, l := range defaultedLists {
		var v any = obj
		for _, k := range l.path {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		list, _ := v.([]any)
		for _, e := range list {
			if m, ok := e.(map[string]any); ok && m[l.field] != nil {
				f(m, l.field)
			}
		}
	}
}
