package model

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Custom is a custom resource, opaque to the model: it knows nothing of
// the user's schema. Its metadata is the model's, so the invariants and
// the convergence check treat it as any object (an orphan, a namespace it
// outlives, a deletion that never ends), and its body is kept as
// canonical JSON, so that traces and diffs show it field by field.
type Custom struct {
	Meta
	Type string // the resource's full name: "widgets.example.com"
	// Body is every top-level field but apiVersion, kind and metadata, as
	// JSON with object keys in order (encoding/json's canonical form).
	Body string
}

func (c *Custom) meta() *Meta  { return &c.Meta }
func (c *Custom) Kind() Kind   { return KindCustom }
func (c *Custom) shallow() Obj { n := *c; return &n }

// bodyFields flattens a custom resource's body into one field per leaf
// ("spec.replicas", "spec.ports[0].name"), in path order, with timestamps
// masked; a body that is not JSON is one field, "body".
func bodyFields(body string) []Field {
	d := json.NewDecoder(strings.NewReader(body))
	d.UseNumber() // numbers print as written, big integers included
	var v any
	if err := d.Decode(&v); err != nil {
		return []Field{{"body", body}}
	}
	var out []Field
	flatten("", v, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func flatten(path string, v any, out *[]Field) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 && path != "" {
			*out = append(*out, Field{path, "{}"})
		}
		for k, e := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			flatten(p, e, out)
		}
	case []any:
		if len(x) == 0 {
			*out = append(*out, Field{path, "[]"})
		}
		for i, e := range x {
			flatten(path+"["+strconv.Itoa(i)+"]", e, out)
		}
	case string:
		if IsTimestamp(x) {
			x = "<time>" // an operator stamps its wall clock (metav1.Now): masked, as UIDs are
		}
		*out = append(*out, Field{path, strconv.Quote(x)})
	case nil:
		*out = append(*out, Field{path, "null"})
	default: // json.Number and bool
		*out = append(*out, Field{path, fmt.Sprint(x)})
	}
}

// IsTimestamp tells whether s is a timestamp as Kubernetes writes them
// (RFC 3339), which checks mask: no two runs share a wall clock.
func IsTimestamp(s string) bool {
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}
