package api

import (
	"encoding/json"
	"reflect"
	"sync"
)

// The fast path of strict decoding. Almost every request body is a clean
// JSON object: no unknown fields, no duplicate keys, no escaped keys. One
// byte scan against the Go type proves that, and then a single
// json.Unmarshal decodes it. Anything else (YAML, a problem, a doubt)
// returns false and takes the slow path, which words the error, so both
// paths give the same answer for every input (FuzzDecodeFastMatchesSlow).

// maxFastDepth bounds recursion on hostile input; deeper bodies take the
// slow path.
const maxFastDepth = 100

// decodeFast decodes data into want when data is one clean JSON object of
// want's type whose kind and apiVersion are absent or expected.
func decodeFast(data []byte, want Object, expected TypeMeta) bool {
	s := strictScan{b: data}
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '{' || !s.value(reflect.TypeOf(want), 0) {
		return false
	}
	if s.space(); s.i != len(s.b) {
		return false
	}
	tm := TypeOf(want)
	if json.Unmarshal(data, want) != nil ||
		(tm.APIVersion != "" && tm.APIVersion != expected.APIVersion) || (tm.Kind != "" && tm.Kind != expected.Kind) {
		reflect.ValueOf(want).Elem().SetZero() // the slow path starts afresh, as New made it
		*tm = expected
		return false
	}
	*tm = expected
	return true
}

// strictScan walks JSON text. Its methods return false for anything the
// fast path does not vouch for.
type strictScan struct {
	b []byte
	i int
}

func (s *strictScan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value that will decode into t. A nil t (an interface,
// RawMessage, or a type with its own UnmarshalJSON) accepts any shape, but
// duplicate keys are still refused everywhere, as the slow path does.
func (s *strictScan) value(t reflect.Type, depth int) bool {
	if depth > maxFastDepth {
		return false
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && opaque(t) {
		t = nil
	}
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '{':
		return s.object(t, depth)
	case '[':
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		s.i++
		if s.space(); s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			return true
		}
		for {
			if !s.value(elem, depth+1) {
				return false
			}
			if more, ok := s.next(']'); !more {
				return ok
			}
		}
	case '"':
		_, ok := s.str()
		return ok
	default:
		// A number or literal; json.Unmarshal checks its spelling.
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.i > start
			}
			s.i++
		}
		return s.i > start
	}
}

// object scans an object whose keys must be t's JSON fields (t a struct),
// any keys (t a map: values decode into its element), or anything (nil).
func (s *strictScan) object(t reflect.Type, depth int) bool {
	var fields map[string]reflect.Type
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = jsonFields(t)
		case reflect.Map:
			elem = t.Elem()
		}
	}
	s.i++ // '{'
	if s.space(); s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	var seen keySet
	for {
		s.space()
		key, ok := s.str()
		if !ok || !seen.add(key) {
			return false
		}
		if s.space(); s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		vt := elem
		if fields != nil {
			ft, known := fields[string(key)]
			if !known {
				return false
			}
			vt = ft
		}
		if !s.value(vt, depth+1) {
			return false
		}
		if more, ok := s.next('}'); !more {
			return ok
		}
	}
}

// next reads what follows an item of an array or object: more after a
// comma; the end (ok) after close; anything else is not ok.
func (s *strictScan) next(close byte) (more, ok bool) {
	s.space()
	if s.i >= len(s.b) {
		return false, false
	}
	s.i++
	switch s.b[s.i-1] {
	case ',':
		return true, true
	case close:
		return false, true
	}
	return false, false
}

// str scans a string and returns its raw contents. Strings with escapes
// are skipped correctly but refused as keys (the caller compares bytes).
func (s *strictScan) str() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	escaped := false
	for s.i = start; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			escaped = true
			s.i++
		case '"':
			s.i++
			if escaped {
				return nil, true
			}
			return s.b[start : s.i-1], true
		}
	}
	return nil, false
}

var opaqueCache sync.Map // reflect.Type -> bool

// opaque reports a type whose JSON shape it defines itself: an interface
// or a type with UnmarshalJSON (Time, IntOrString, Quantity, RawMessage).
func opaque(t reflect.Type) bool {
	if v, ok := opaqueCache.Load(t); ok {
		return v.(bool)
	}
	o := t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType)
	opaqueCache.Store(t, o)
	return o
}

// keySet finds duplicate keys. Objects are small, and a linear search
// beats a map until they are not. A nil key (one with escapes) counts as
// a clash, so that the slow path decides.
type keySet struct {
	small [keySetSmall][]byte
	n     int
	large map[string]struct{}
}

const keySetSmall = 24

func (k *keySet) add(key []byte) bool {
	if key == nil {
		return false
	}
	if k.large != nil {
		if _, dup := k.large[string(key)]; dup {
			return false
		}
		k.large[string(key)] = struct{}{}
		return true
	}
	for _, have := range k.small[:k.n] {
		if string(have) == string(key) {
			return false
		}
	}
	if k.n < keySetSmall {
		k.small[k.n] = key
		k.n++
		return true
	}
	k.large = make(map[string]struct{}, 2*keySetSmall)
	for _, have := range k.small {
		k.large[string(have)] = struct{}{}
	}
	k.large[string(key)] = struct{}{}
	return true
}
