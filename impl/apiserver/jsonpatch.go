package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/converge-dev/converge/impl/api"
)

// jsonPatchOp is one RFC 6902 operation.
type jsonPatchOp struct {
	Op       string `json:"op"`
	Path     string `json:"path"`
	From     string `json:"from"`
	Value    any    `json:"value"`
	hasValue bool
}

// maxJSONPatchOps bounds the work one request can ask for.
const maxJSONPatchOps = 10000

// decodeJSONPatch parses and checks a JSON patch document (400 when
// malformed).
func decodeJSONPatch(body []byte) ([]jsonPatchOp, error) {
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, api.NewBadRequest(fmt.Sprintf("malformed JSON patch: %v", err))
	}
	if len(raw) > maxJSONPatchOps {
		return nil, api.NewRequestEntityTooLarge(fmt.Sprintf("the JSON patch has %d operations, limit is %d", len(raw), maxJSONPatchOps))
	}
	ops := make([]jsonPatchOp, 0, len(raw))
	for i, m := range raw {
		var op jsonPatchOp
		str := func(k string, dst *string) error {
			v, ok := m[k]
			if !ok {
				return nil
			}
			if err := json.Unmarshal(v, dst); err != nil {
				return api.NewBadRequest(fmt.Sprintf("malformed JSON patch: operation %d: %q must be a string", i, k))
			}
			return nil
		}
		for _, k := range []string{"op", "path", "from"} {
			dst := map[string]*string{"op": &op.Op, "path": &op.Path, "from": &op.From}[k]
			if err := str(k, dst); err != nil {
				return nil, err
			}
		}
		if v, ok := m["value"]; ok {
			dec := json.NewDecoder(bytes.NewReader(v))
			dec.UseNumber()
			if err := dec.Decode(&op.Value); err != nil {
				return nil, api.NewBadRequest(fmt.Sprintf("malformed JSON patch: operation %d: %v", i, err))
			}
			op.hasValue = true
		}
		if _, ok := m["path"]; !ok {
			return nil, api.NewBadRequest(fmt.Sprintf("malformed JSON patch: operation %d has no path", i))
		}
		switch op.Op {
		case "add", "replace", "test":
			if !op.hasValue {
				return nil, api.NewBadRequest(fmt.Sprintf("malformed JSON patch: operation %d (%s) has no value", i, op.Op))
			}
		case "move", "copy":
			if _, ok := m["from"]; !ok {
				return nil, api.NewBadRequest(fmt.Sprintf("malformed JSON patch: operation %d (%s) has no from", i, op.Op))
			}
		case "remove":
		default:
			return nil, api.NewBadRequest(fmt.Sprintf("malformed JSON patch: operation %d: unknown op %q", i, op.Op))
		}
		for _, p := range []string{op.Path, op.From} {
			if _, err := parsePointer(p); err != nil {
				return nil, api.NewBadRequest(fmt.Sprintf("malformed JSON patch: operation %d: %v", i, err))
			}
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// parsePointer splits an RFC 6901 JSON pointer into unescaped tokens.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", p)
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks, nil
}

var errPatchTest = errors.New("apiserver: json patch test failed")

// applyJSONPatch applies ops in order to doc; the first failing op fails
// the patch.
func applyJSONPatch(doc any, ops []jsonPatchOp) (any, error) {
	for i, op := range ops {
		path, _ := parsePointer(op.Path)
		var err error
		switch op.Op {
		case "add":
			doc, err = pointerAdd(doc, path, deepCopyJSON(op.Value))
		case "remove":
			doc, _, err = pointerRemove(doc, path)
		case "replace":
			if _, err = pointerGet(doc, path); err == nil {
				if doc, _, err = pointerRemove(doc, path); err == nil || len(path) == 0 {
					doc, err = pointerAdd(doc, path, deepCopyJSON(op.Value))
				}
			}
		case "move", "copy":
			from, _ := parsePointer(op.From)
			var v any
			if v, err = pointerGet(doc, from); err == nil {
				if op.Op == "move" {
					if strings.HasPrefix(op.Path+"/", op.From+"/") && op.Path != op.From {
						err = fmt.Errorf("cannot move %q into its own child %q", op.From, op.Path)
						break
					}
					doc, _, err = pointerRemove(doc, from)
				} else {
					v = deepCopyJSON(v)
				}
				if err == nil {
					doc, err = pointerAdd(doc, path, v)
				}
			}
		case "test":
			var v any
			if v, err = pointerGet(doc, path); err == nil && !jsonEqual(v, op.Value) {
				err = fmt.Errorf("%w: value at %q is not the expected one", errPatchTest, op.Path)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("json patch operation %d (%s %s): %w", i, op.Op, op.Path, err)
		}
	}
	return doc, nil
}

// arrayIndex reads an array token; "-" (append) only when allowAppend.
func arrayIndex(tok string, n int, allowAppend bool) (int, error) {
	if tok == "-" && allowAppend {
		return n, nil
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || (tok != "0" && strings.HasPrefix(tok, "0")) {
		return 0, fmt.Errorf("invalid array index %q", tok)
	}
	max := n - 1
	if allowAppend {
		max = n
	}
	if i > max {
		return 0, fmt.Errorf("array index %d out of bounds", i)
	}
	return i, nil
}

func pointerGet(doc any, path []string) (any, error) {
	cur := doc
	for _, tok := range path {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("path element %q not found", tok)
			}
			cur = v
		case []any:
			i, err := arrayIndex(tok, len(c), false)
			if err != nil {
				return nil, err
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("path element %q: parent is not a container", tok)
		}
	}
	return cur, nil
}

// pointerAdd sets (objects) or inserts (arrays) v at path, returning the
// new document (arrays may be reallocated).
func pointerAdd(doc any, path []string, v any) (any, error) {
	if len(path) == 0 {
		return v, nil
	}
	tok := path[0]
	switch c := doc.(type) {
	case map[string]any:
		if len(path) == 1 {
			c[tok] = v
			return c, nil
		}
		child, ok := c[tok]
		if !ok {
			return nil, fmt.Errorf("path element %q not found", tok)
		}
		nc, err := pointerAdd(child, path[1:], v)
		if err != nil {
			return nil, err
		}
		c[tok] = nc
		return c, nil
	case []any:
		if len(path) == 1 {
			i, err := arrayIndex(tok, len(c), true)
			if err != nil {
				return nil, err
			}
			out := make([]any, 0, len(c)+1)
			out = append(append(append(out, c[:i]...), v), c[i:]...)
			return out, nil
		}
		i, err := arrayIndex(tok, len(c), false)
		if err != nil {
			return nil, err
		}
		nc, err := pointerAdd(c[i], path[1:], v)
		if err != nil {
			return nil, err
		}
		c[i] = nc
		return c, nil
	default:
		return nil, fmt.Errorf("path element %q: parent is not a container", tok)
	}
}

// pointerRemove deletes the value at path and returns the new document and
// the removed value.
func pointerRemove(doc any, path []string) (any, any, error) {
	if len(path) == 0 {
		return nil, doc, nil
	}
	tok := path[0]
	switch c := doc.(type) {
	case map[string]any:
		child, ok := c[tok]
		if !ok {
			return nil, nil, fmt.Errorf("path element %q not found", tok)
		}
		if len(path) == 1 {
			delete(c, tok)
			return c, child, nil
		}
		nc, removed, err := pointerRemove(child, path[1:])
		if err != nil {
			return nil, nil, err
		}
		c[tok] = nc
		return c, removed, nil
	case []any:
		i, err := arrayIndex(tok, len(c), false)
		if err != nil {
			return nil, nil, err
		}
		if len(path) == 1 {
			removed := c[i]
			out := append(append(make([]any, 0, len(c)-1), c[:i]...), c[i+1:]...)
			return out, removed, nil
		}
		nc, removed, err := pointerRemove(c[i], path[1:])
		if err != nil {
			return nil, nil, err
		}
		c[i] = nc
		return c, removed, nil
	default:
		return nil, nil, fmt.Errorf("path element %q: parent is not a container", tok)
	}
}

// jsonEqual compares decoded JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	return reflect.DeepEqual(normalizeJSON(a), normalizeJSON(b))
}

func normalizeJSON(v any) any {
	switch t := v.(type) {
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			return t.String()
		}
		return f
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = normalizeJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalizeJSON(e)
		}
		return out
	}
	return v
}

// deepCopyJSON copies a decoded JSON value, so one value is never shared
// by two places of a document.
func deepCopyJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopyJSON(e)
		}
		return out
	}
	return v
}
