package kubeproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// Sentinel errors, wrapped with %w and the place of the problem.
var (
	ErrNotProtobuf     = errors.New("kubeproto: not a Kubernetes protobuf body (want the k8s\\x00 prefix)")
	ErrMalformed       = errors.New("kubeproto: malformed protobuf")
	ErrUnknownField    = errors.New("kubeproto: unknown field")
	ErrUnsupportedKind = errors.New("kubeproto: unsupported kind")
)

// errInternal is a recovered panic.
var errInternal = errors.New("kubeproto: internal error")

// magic prefixes every Kubernetes protobuf body.
var magic = []byte("k8s\x00")

// maxDepth caps message nesting; converge's deepest path (a probe's HTTP
// header in a deployment) is 9 deep.
const maxDepth = 32

// protobufContentType is the only content type runtime.Unknown may name.
const protobufContentType = "application/vnd.kubernetes.protobuf"

// The range of years RFC 3339 can write: 0001-01-01 to 9999-12-31.
const (
	minSeconds = -62135596800
	maxSeconds = 253402300799
)

// ToJSON converts a Kubernetes protobuf body to the JSON document of the
// same object, with apiVersion and kind set from the envelope.
func ToJSON(body []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil { // a bug, not an input problem: FuzzToJSON fails on it
			out, err = nil, fmt.Errorf("%w: %v", errInternal, r)
		}
	}()
	if !bytes.HasPrefix(body, magic) {
		return nil, ErrNotProtobuf
	}
	env, err := readEnvelope(body[len(magic):])
	if err != nil {
		return nil, err
	}
	top, ok := kinds[typeKey{env.apiVersion, env.kind}]
	if !ok {
		return nil, fmt.Errorf("%w: %q in %q (converge reads protobuf for %s)", ErrUnsupportedKind, env.kind, env.apiVersion, supportedKinds())
	}
	obj := map[string]any{"apiVersion": env.apiVersion, "kind": env.kind}
	if err := decodeMessage(env.raw, top, "", 1, obj); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// envelope is runtime.Unknown: {1 typeMeta {1 apiVersion, 2 kind}, 2 raw,
// 3 contentEncoding, 4 contentType}.
type envelope struct {
	apiVersion, kind string
	raw              []byte
}

func readEnvelope(b []byte) (envelope, error) {
	var env envelope
	var encoding, ctype string
	err := eachField(b, "runtime.Unknown", "", func(num protowire.Number, typ protowire.Type, v uint64, val []byte) error {
		if typ != protowire.BytesType {
			return wrongWire("runtime.Unknown", num, typ, "")
		}
		var err error
		switch num {
		case 1:
			err = eachField(val, "runtime.TypeMeta", "", func(num protowire.Number, typ protowire.Type, _ uint64, val []byte) error {
				if typ != protowire.BytesType {
					return wrongWire("runtime.TypeMeta", num, typ, "")
				}
				s, err := utf8String(val, "runtime.TypeMeta", num, "")
				switch num {
				case 1:
					env.apiVersion = s
				case 2:
					env.kind = s
				default:
					return unknownField("runtime.TypeMeta", num, "")
				}
				return err
			})
		case 2:
			env.raw = val
		case 3:
			encoding, err = utf8String(val, "runtime.Unknown", num, "")
		case 4:
			ctype, err = utf8String(val, "runtime.Unknown", num, "")
		default:
			return unknownField("runtime.Unknown", num, "")
		}
		return err
	})
	switch {
	case err != nil:
		return env, err
	case encoding != "":
		return env, fmt.Errorf("%w: content encoding %q is not supported", ErrMalformed, encoding)
	case ctype != "" && ctype != protobufContentType:
		return env, fmt.Errorf("%w: content type %q, want %s", ErrMalformed, ctype, protobufContentType)
	case env.apiVersion == "" || env.kind == "":
		return env, fmt.Errorf("%w: the envelope names no apiVersion and kind", ErrMalformed)
	}
	return env, nil
}

// eachField walks the fields of one message, bounds-checking every length.
func eachField(b []byte, msgName, path string, fn func(num protowire.Number, typ protowire.Type, v uint64, val []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %s%s: bad tag: %v", ErrMalformed, msgName, at(path), protowire.ParseError(n))
		}
		b = b[n:]
		var v uint64
		var val []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			val, n = protowire.ConsumeBytes(b)
		default:
			return wrongWire(msgName, num, typ, path)
		}
		if n < 0 {
			return fmt.Errorf("%w: %s field %d%s: %v", ErrMalformed, msgName, num, at(path), protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(num, typ, v, val); err != nil {
			return err
		}
	}
	return nil
}

// decodeMessage converts message typ in b into out, following the table.
func decodeMessage(b []byte, typ, path string, depth int, out map[string]any) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: nested deeper than %d%s", ErrMalformed, maxDepth, at(path))
	}
	m, ok := schema[typ]
	if !ok {
		return fmt.Errorf("%w: no table for message %s%s", ErrMalformed, typ, at(path))
	}
	return eachField(b, typ, path, func(num protowire.Number, wt protowire.Type, v uint64, val []byte) error {
		f, ok := m[num]
		if !ok {
			return unknownField(typ, num, path)
		}
		if wt != f.wireType() {
			return wrongWire(typ, num, wt, path)
		}
		fieldPath := path // an inline message's fields sit in its parent
		if f.kind != kindInline {
			fieldPath = join(path, f.name)
		}
		return decodeField(f, typ, num, v, val, fieldPath, depth, out)
	})
}

// decodeField sets (or, for a zero plain scalar, clears) f in out.
func decodeField(f field, typ string, num protowire.Number, v uint64, val []byte, path string, depth int, out map[string]any) error {
	var value any
	switch f.kind {
	case kindString:
		s, err := utf8String(val, typ, num, path)
		if err != nil {
			return err
		}
		value = s
	case kindBool:
		value = v != 0
	case kindInt32:
		n, err := int32Of(v, typ, num, path)
		if err != nil {
			return err
		}
		value = int64(n)
	case kindInt64:
		value = int64(v)
	case kindInline:
		return decodeMessage(val, f.msg, path, depth+1, out)
	case kindMessage:
		if f.repeated {
			list, _ := out[f.name].([]any)
			sub := map[string]any{}
			if err := decodeMessage(val, f.msg, fmt.Sprintf("%s[%d]", path, len(list)), depth+1, sub); err != nil {
				return err
			}
			out[f.name] = append(list, sub)
			return nil
		}
		sub, ok := out[f.name].(map[string]any)
		if !ok { // a message seen twice merges, as protobuf specifies
			sub = map[string]any{}
			out[f.name] = sub
		}
		return decodeMessage(val, f.msg, path, depth+1, sub)
	case kindTime:
		t, err := readTime(val, path)
		if err != nil {
			return err
		}
		out[f.name] = t // null stays: Kubernetes writes "creationTimestamp": null
		return nil
	case kindIntOrString:
		ios, err := readIntOrString(val, path)
		if err != nil {
			return err
		}
		out[f.name] = ios
		return nil
	case kindStringMap, kindQuantityMap:
		k, mv, err := readMapEntry(val, f.kind == kindQuantityMap, path)
		if err != nil {
			return err
		}
		entries, ok := out[f.name].(map[string]any)
		if !ok {
			entries = map[string]any{}
			out[f.name] = entries
		}
		entries[k] = mv
		return nil
	case kindRawJSON:
		raw, err := readFieldsV1(val, path)
		if err != nil {
			return err
		}
		out[f.name] = raw
		return nil
	default:
		return fmt.Errorf("%w: %s field %d has no conversion%s", ErrMalformed, typ, num, at(path))
	}
	// Scalars.
	if f.repeated {
		list, _ := out[f.name].([]any)
		out[f.name] = append(list, value)
		return nil
	}
	if !f.optional && isZero(value) {
		delete(out, f.name) // omitempty, and the last occurrence wins
		return nil
	}
	out[f.name] = value
	return nil
}

func isZero(v any) bool {
	switch v := v.(type) {
	case string:
		return v == ""
	case bool:
		return !v
	case int64:
		return v == 0
	}
	return false
}

// readTime reads metav1.Time {1 seconds, 2 nanos}; empty (as Kubernetes
// writes the zero time) or the zero instant is nil, which encodes as null.
func readTime(b []byte, path string) (any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var secs int64
	var nanos int32
	err := eachField(b, "metav1.Time", path, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
		if typ != protowire.VarintType {
			return wrongWire("metav1.Time", num, typ, path)
		}
		switch num {
		case 1:
			secs = int64(v)
		case 2:
			n, err := int32Of(v, "metav1.Time", num, path)
			nanos = n
			return err
		default:
			return unknownField("metav1.Time", num, path)
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case secs < minSeconds || secs > maxSeconds:
		return nil, fmt.Errorf("%w: time %d s is outside years 1-9999%s", ErrMalformed, secs, at(path))
	case nanos < 0 || nanos > 999_999_999:
		return nil, fmt.Errorf("%w: time nanos %d out of range%s", ErrMalformed, nanos, at(path))
	case secs == minSeconds && nanos == 0:
		return nil, nil // time.Time{}: Kubernetes' JSON writes it as null
	}
	// Kubernetes' JSON keeps whole seconds.
	return time.Unix(secs, int64(nanos)).UTC().Format(time.RFC3339), nil
}

// readIntOrString reads intstr.IntOrString {1 type, 2 intVal, 3 strVal}.
func readIntOrString(b []byte, path string) (any, error) {
	const name = "intstr.IntOrString"
	var kind uint64
	var n int32
	var s string
	err := eachField(b, name, path, func(num protowire.Number, typ protowire.Type, v uint64, val []byte) error {
		var err error
		switch {
		case num == 1 && typ == protowire.VarintType:
			kind = v
		case num == 2 && typ == protowire.VarintType:
			n, err = int32Of(v, name, num, path)
		case num == 3 && typ == protowire.BytesType:
			s, err = utf8String(val, name, num, path)
		case num >= 1 && num <= 3:
			err = wrongWire(name, num, typ, path)
		default:
			err = unknownField(name, num, path)
		}
		return err
	})
	switch {
	case err != nil:
		return nil, err
	case kind == 0:
		return int64(n), nil
	case kind == 1:
		return s, nil
	}
	return nil, fmt.Errorf("%w: IntOrString type %d, want 0 (int) or 1 (string)%s", ErrMalformed, kind, at(path))
}

// readQuantity reads resource.Quantity {1 string}; absent is "0", the
// zero quantity.
func readQuantity(b []byte, path string) (string, error) {
	const name = "resource.Quantity"
	q := "0"
	err := eachField(b, name, path, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte) error {
		if num != 1 {
			return unknownField(name, num, path)
		}
		if typ != protowire.BytesType {
			return wrongWire(name, num, typ, path)
		}
		s, err := utf8String(val, name, num, path)
		q = s
		return err
	})
	return q, err
}

// readMapEntry reads one map entry {1 key, 2 value}; the value is a string
// or, for quantity maps, a resource.Quantity.
func readMapEntry(b []byte, quantity bool, path string) (string, any, error) {
	const name = "map entry"
	var key string
	var value any = ""
	if quantity {
		value = "0"
	}
	err := eachField(b, name, path, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte) error {
		if num != 1 && num != 2 {
			return unknownField(name, num, path)
		}
		if typ != protowire.BytesType {
			return wrongWire(name, num, typ, path)
		}
		if num == 2 && quantity {
			q, err := readQuantity(val, join(path, key))
			value = q
			return err
		}
		s, err := utf8String(val, name, num, path)
		if num == 1 {
			key = s
		} else {
			value = s
		}
		return err
	})
	return key, value, err
}

// readFieldsV1 reads metav1.FieldsV1 {1 raw}, whose bytes are JSON.
func readFieldsV1(b []byte, path string) (json.RawMessage, error) {
	const name = "metav1.FieldsV1"
	raw := json.RawMessage("{}")
	err := eachField(b, name, path, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte) error {
		if num != 1 {
			return unknownField(name, num, path)
		}
		if typ != protowire.BytesType {
			return wrongWire(name, num, typ, path)
		}
		if !json.Valid(val) {
			return fmt.Errorf("%w: %s is not JSON%s", ErrMalformed, name, at(path))
		}
		raw = append(json.RawMessage(nil), val...)
		return nil
	})
	return raw, err
}

// int32Of reads an int32 varint: negative values arrive sign-extended to
// 64 bits, so anything outside int32 is malformed.
func int32Of(v uint64, msgName string, num protowire.Number, path string) (int32, error) {
	n := int64(v)
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, fmt.Errorf("%w: %s field %d: %d does not fit int32%s", ErrMalformed, msgName, num, n, at(path))
	}
	return int32(n), nil
}

func utf8String(b []byte, msgName string, num protowire.Number, path string) (string, error) {
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%w: %s field %d is not UTF-8%s", ErrMalformed, msgName, num, at(path))
	}
	return string(b), nil
}

func unknownField(msgName string, num protowire.Number, path string) error {
	return fmt.Errorf("%w: %s has no field %d%s", ErrUnknownField, msgName, num, at(path))
}

func wrongWire(msgName string, num protowire.Number, typ protowire.Type, path string) error {
	return fmt.Errorf("%w: %s field %d has wire type %d%s", ErrMalformed, msgName, num, typ, at(path))
}

// at formats a path for an error message.
func at(path string) string {
	if path == "" {
		return ""
	}
	return " at " + path
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// supportedKinds lists the kinds table for error messages.
func supportedKinds() string {
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k.apiVersion+" "+k.kind)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
