package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Strict decoding. encoding/json ignores unknown fields and matches names
// case-insensitively; Kubernetes' strict mode does neither. Walking the
// generic document alongside the Go type finds every unknown field with its
// full path ("spec.template.spec.containers[0].imagee").

// maxUnknownReported bounds the error message for garbage input.
const maxUnknownReported = 10

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// jsonFields maps a struct type's JSON names to field types, with inline
// embedded structs flattened in.
var jsonFieldsCache sync.Map // reflect.Type -> map[string]reflect.Type

func jsonFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := jsonFieldsCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					out[k] = v
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	jsonFieldsCache.Store(t, out)
	return out
}

// unknownFields appends to out the paths in doc (a value decoded into
// any) that type t does not declare.
func unknownFields(doc any, t reflect.Type, path string, out *[]string) {
	if len(*out) >= maxUnknownReported {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	// Types with their own decoding (Time, IntOrString, Quantity,
	// RawMessage) define their own shape.
	if reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := doc.(map[string]any)
		if !ok {
			return // a type mismatch; encoding/json reports it
		}
		fields := jsonFields(t)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, known := fields[k]
			if !known {
				*out = append(*out, joinPath(path, k))
				if len(*out) >= maxUnknownReported {
					return
				}
				continue
			}
			unknownFields(m[k], ft, joinPath(path, k), out)
		}
	case reflect.Slice, reflect.Array:
		items, ok := doc.([]any)
		if !ok {
			return
		}
		for i, item := range items {
			unknownFields(item, t.Elem(), path+"["+strconv.Itoa(i)+"]", out)
		}
	case reflect.Map:
		m, ok := doc.(map[string]any)
		if !ok {
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			unknownFields(m[k], t.Elem(), path+"["+k+"]", out)
		}
	}
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// duplicateFields lists the paths of keys that appear twice in one JSON
// object. encoding/json silently keeps the last; Kubernetes' strict mode
// rejects them. (YAML input gets the same check from the YAML parser.)
// decoded is j already decoded into any: a duplicate exists only if the
// text holds more keys than the value, which a byte scan can tell, so the
// slow token walk runs only when there is something to find.
func duplicateFields(j []byte, decoded any) []string {
	if countRawKeys(j) == countKeys(decoded) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var out []string
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				if seen[k] && len(out) < maxUnknownReported {
					out = append(out, joinPath(path, k))
				}
				seen[k] = true
				if err := walk(joinPath(path, k)); err != nil {
					return err
				}
			}
			_, err = dec.Token() // '}'
			return err
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if err := walk(path + "[" + strconv.Itoa(i) + "]"); err != nil {
					return err
				}
			}
			_, err = dec.Token() // ']'
			return err
		}
		return nil
	}
	if err := walk(""); err != nil {
		return nil // malformed input is reported by the real decode
	}
	return out
}

// countRawKeys counts strings followed by ':' in valid JSON text.
func countRawKeys(j []byte) int {
	n := 0
	for i := 0; i < len(j); i++ {
		if j[i] != '"' {
			continue
		}
		for i++; i < len(j) && j[i] != '"'; i++ {
			if j[i] == '\\' {
				i++
			}
		}
		k := i + 1
		for k < len(j) && (j[k] == ' ' || j[k] == '\t' || j[k] == '\n' || j[k] == '\r') {
			k++
		}
		if k < len(j) && j[k] == ':' {
			n++
		}
	}
	return n
}

func countKeys(v any) int {
	switch t := v.(type) {
	case map[string]any:
		n := len(t)
		for _, e := range t {
			n += countKeys(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range t {
			n += countKeys(e)
		}
		return n
	}
	return 0
}
