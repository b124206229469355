package fieldpath

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrMalformed reports FieldsV1 that is not a tree of JSON objects with
// f:, k:, v: or i: keys.
var ErrMalformed = errors.New("fieldpath: malformed FieldsV1")

// Path is one field path, element by element in FieldsV1 spelling.
type Path []string

// Field is the element naming a field or map key.
func Field(name string) string { return "f:" + name }

// Key is the element naming the keyed-list item whose key fields are keys.
func Key(keys map[string]any) string {
	b, err := json.Marshal(keys) // map keys come out sorted
	if err != nil {
		b = []byte("{}")
	}
	return "k:" + string(b)
}

// Value is the element naming a set-list item.
func Value(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte("null")
	}
	return "v:" + string(b)
}

// Child is p extended by elem; p itself is left alone.
func (p Path) Child(elem string) Path {
	out := make(Path, len(p), len(p)+1)
	copy(out, p)
	return append(out, elem)
}

// HasPrefix reports whether q is p or an ancestor of p.
func (p Path) HasPrefix(q Path) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// String spells p as Kubernetes does in conflict messages:
// .spec.template.spec.containers[name="nginx"].image
func (p Path) String() string {
	var b strings.Builder
	for _, e := range p {
		switch {
		case strings.HasPrefix(e, "f:"):
			b.WriteString("." + e[2:])
		case strings.HasPrefix(e, "k:"):
			var m map[string]json.RawMessage
			if json.Unmarshal([]byte(e[2:]), &m) != nil {
				b.WriteString("[" + e[2:] + "]")
				continue
			}
			names := make([]string, 0, len(m))
			for k := range m {
				names = append(names, k)
			}
			sort.Strings(names)
			parts := make([]string, len(names))
			for i, k := range names {
				parts[i] = k + "=" + string(m[k])
			}
			b.WriteString("[" + strings.Join(parts, ",") + "]")
		case strings.HasPrefix(e, "v:"):
			b.WriteString("[=" + e[2:] + "]")
		default:
			b.WriteString("[" + e + "]")
		}
	}
	return b.String()
}

func (p Path) key() string { return strings.Join(p, "\x00") }

// Set is a set of paths. The zero value is empty and ready to use.
type Set struct {
	m map[string]Path
}

// NewSet holds paths.
func NewSet(paths ...Path) *Set {
	s := &Set{}
	for _, p := range paths {
		s.Insert(p)
	}
	return s
}

// Insert adds p (an empty path is ignored: the root is never a member).
func (s *Set) Insert(p Path) {
	if len(p) == 0 {
		return
	}
	if s.m == nil {
		s.m = map[string]Path{}
	}
	s.m[p.key()] = append(Path(nil), p...)
}

// Remove drops p.
func (s *Set) Remove(p Path) { delete(s.m, p.key()) }

// Has reports whether p is a member.
func (s *Set) Has(p Path) bool {
	if s == nil {
		return false
	}
	_, ok := s.m[p.key()]
	return ok
}

// Len is the number of members.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.m)
}

// Paths lists the members in a stable order (by their spelling).
func (s *Set) Paths() []Path {
	if s == nil {
		return nil
	}
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Path, len(keys))
	for i, k := range keys {
		out[i] = s.m[k]
	}
	return out
}

// HasBelow reports whether some member lies strictly under p.
func (s *Set) HasBelow(p Path) bool {
	for _, q := range s.Paths() {
		if len(q) > len(p) && q.HasPrefix(p) {
			return true
		}
	}
	return false
}

// Union is s ∪ o.
func (s *Set) Union(o *Set) *Set {
	out := NewSet(s.Paths()...)
	for _, p := range o.Paths() {
		out.Insert(p)
	}
	return out
}

// Difference is s − o.
func (s *Set) Difference(o *Set) *Set {
	out := &Set{}
	for _, p := range s.Paths() {
		if !o.Has(p) {
			out.Insert(p)
		}
	}
	return out
}

// Intersection is s ∩ o.
func (s *Set) Intersection(o *Set) *Set {
	out := &Set{}
	for _, p := range s.Paths() {
		if o.Has(p) {
			out.Insert(p)
		}
	}
	return out
}

// node is one level of the FieldsV1 tree.
type node map[string]node

// MarshalFieldsV1 writes s as Kubernetes' FieldsV1 JSON.
func (s *Set) MarshalFieldsV1() ([]byte, error) {
	root := node{}
	for _, p := range s.Paths() {
		n := root
		for _, e := range p {
			c, ok := n[e]
			if !ok {
				c = node{}
				n[e] = c
			}
			n = c
		}
	}
	// A member that also has members below it says so with ".".
	for _, p := range s.Paths() {
		n := root
		for _, e := range p {
			n = n[e]
		}
		if len(n) > 0 {
			n["."] = node{}
		}
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(root); err != nil {
		return nil, fmt.Errorf("fieldpath: encode: %w", err)
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}

// ParseFieldsV1 reads Kubernetes' FieldsV1 JSON.
func ParseFieldsV1(b []byte) (*Set, error) {
	s := &Set{}
	if len(bytes.TrimSpace(b)) == 0 {
		return s, nil
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if err := parseNode(root, nil, s, 0); err != nil {
		return nil, err
	}
	return s, nil
}

func parseNode(n map[string]json.RawMessage, at Path, s *Set, depth int) error {
	if depth > 100 {
		return fmt.Errorf("%w: nested too deeply", ErrMalformed)
	}
	for k, raw := range n {
		if k == "." {
			s.Insert(at)
			continue
		}
		if len(k) < 2 || k[1] != ':' || !strings.ContainsRune("fkvi", rune(k[0])) {
			return fmt.Errorf("%w: element %q", ErrMalformed, k)
		}
		var child map[string]json.RawMessage
		if err := json.Unmarshal(raw, &child); err != nil {
			return fmt.Errorf("%w: under %q: %v", ErrMalformed, k, err)
		}
		p := at.Child(k)
		if len(child) == 0 {
			s.Insert(p)
			continue
		}
		if err := parseNode(child, p, s, depth+1); err != nil {
			return err
		}
	}
	return nil
}
