package api

import (
	"encoding/base64"
	"reflect"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The encoder writes what json.Marshal writes for the API types, byte for
// byte, from plans made once per type: it reads fields at their offsets
// instead of through reflect, calls no MarshalJSON and compacts nothing.
// Encoding each object a write stores was the largest single cost of the
// running driver after etcd's own; this takes a little over half the time
// encoding/json takes (BenchmarkMarshalPod, BenchmarkJSONMarshalPod). What
// the round-trip plans refuse (raw JSON, floats, interfaces) it refuses
// too, and Marshal then asks encoding/json.

type encPlan struct {
	kind     rtKind
	typ      reflect.Type
	scalar   reflect.Kind // rtScalar
	elem     *encPlan     // rtPointer, rtSlice, rtMap
	elemSize uintptr      // rtSlice
	fields   []encField   // rtStruct
	// clash: two fields JSON carries have one name, which encoding/json
	// settles by rules this encoder does not follow.
	clash bool
}

type encField struct {
	offset    uintptr
	key       string // `"name":`; "" for an embedded struct's fields
	omitEmpty bool
	omitZero  bool // a time
	plan      *encPlan
}

var encPlans = planCache[encPlan]{
	fill: fillEncPlan,
	done: func(p *encPlan) { p.clash = p.kind == rtStruct && !uniqueKeys(p, map[string]bool{}) },
}

func encPlanOf(t reflect.Type) *encPlan { return encPlans.of(t) }

// fillEncPlan makes t's plan from its round-trip plan, which says what
// JSON carries, adding where each field lies.
func fillEncPlan(t reflect.Type, p *encPlan, link func(reflect.Type) *encPlan) {
	rp := rtPlanOf(t)
	*p = encPlan{kind: rp.kind, typ: t, scalar: t.Kind()}
	switch rp.kind {
	case rtPointer, rtSlice, rtMap:
		p.elem = link(t.Elem())
		p.elemSize = t.Elem().Size()
	case rtStruct:
		for _, f := range rp.fields {
			sf := t.Field(f.index)
			key := ""
			if f.name != "" {
				key = string(appendString(nil, f.name)) + ":"
			}
			p.fields = append(p.fields, encField{offset: sf.Offset, key: key, omitEmpty: f.omitEmpty, omitZero: f.omitZero, plan: link(sf.Type)})
		}
	}
}

// uniqueKeys reports whether a struct's fields, embedded ones included,
// all have names of their own; seen holds the names met so far.
func uniqueKeys(p *encPlan, seen map[string]bool) bool {
	for _, f := range p.fields {
		if f.key == "" {
			if f.plan.kind != rtStruct || !uniqueKeys(f.plan, seen) {
				return false
			}
			continue
		}
		if seen[f.key] {
			return false
		}
		seen[f.key] = true
	}
	return true
}

// appendJSON appends what json.Marshal gives for the value of p's type
// at ptr, or reports that it cannot.
func appendJSON(b []byte, p *encPlan, ptr unsafe.Pointer) ([]byte, bool) {
	switch p.kind {
	case rtScalar:
		return appendScalar(b, p.scalar, ptr), true
	case rtString:
		return appendString(b, *(*string)(ptr)), true
	case rtTime:
		return appendTime(b, (*Time)(ptr).Time, time.RFC3339), true
	case rtMicroTime:
		return appendTime(b, (*MicroTime)(ptr).Time, microFormat), true
	case rtIntOrString:
		switch x := (*IntOrString)(ptr); x.Type {
		case StringValue:
			return appendString(b, x.StrVal), true
		case IntValue:
			return strconv.AppendInt(b, int64(x.IntVal), 10), true
		}
		return b, false // its MarshalJSON refuses any other Type
	case rtQuantity:
		return appendQuantity(b, (*Quantity)(ptr)), true
	case rtResourceList:
		return appendResourceList(b, *(*ResourceList)(ptr)), true
	case rtPointer:
		elem := *(*unsafe.Pointer)(ptr)
		if elem == nil {
			return append(b, "null"...), true
		}
		return appendJSON(b, p.elem, elem)
	case rtRaw:
		raw := *(*[]byte)(ptr)
		if raw == nil {
			return append(b, "null"...), true
		}
		if !rawAsIs(raw) {
			return b, false // encoding/json compacts and escapes it
		}
		return append(b, raw...), true
	case rtFieldsV1:
		raw := (*metav1.FieldsV1)(ptr).GetRawBytes()
		if len(raw) == 0 {
			return append(b, "null"...), true
		}
		if !rawAsIs(raw) {
			return b, false
		}
		return append(b, raw...), true
	case rtBytes:
		s := *(*[]byte)(ptr)
		if s == nil {
			return append(b, "null"...), true
		}
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, s)
		return append(b, '"'), true
	case rtSlice:
		s := (*sliceHeader)(ptr)
		if s.data == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i := range s.len {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendJSON(b, p.elem, unsafe.Add(s.data, uintptr(i)*p.elemSize)); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case rtStringMap:
		return appendStringMap(b, *(*map[string]string)(ptr)), true
	case rtMap:
		return appendMap(b, p, reflect.NewAt(p.typ, ptr).Elem())
	case rtStruct:
		if p.clash {
			return b, false
		}
		b = append(b, '{')
		b, _, ok := appendFields(b, p, ptr, true)
		return append(b, '}'), ok
	}
	return b, false
}

type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func appendScalar(b []byte, k reflect.Kind, ptr unsafe.Pointer) []byte {
	switch k {
	case reflect.Bool:
		return strconv.AppendBool(b, *(*bool)(ptr))
	case reflect.Int:
		return strconv.AppendInt(b, int64(*(*int)(ptr)), 10)
	case reflect.Int8:
		return strconv.AppendInt(b, int64(*(*int8)(ptr)), 10)
	case reflect.Int16:
		return strconv.AppendInt(b, int64(*(*int16)(ptr)), 10)
	case reflect.Int32:
		return strconv.AppendInt(b, int64(*(*int32)(ptr)), 10)
	case reflect.Int64:
		return strconv.AppendInt(b, *(*int64)(ptr), 10)
	case reflect.Uint:
		return strconv.AppendUint(b, uint64(*(*uint)(ptr)), 10)
	case reflect.Uint8:
		return strconv.AppendUint(b, uint64(*(*uint8)(ptr)), 10)
	case reflect.Uint16:
		return strconv.AppendUint(b, uint64(*(*uint16)(ptr)), 10)
	case reflect.Uint32:
		return strconv.AppendUint(b, uint64(*(*uint32)(ptr)), 10)
	}
	return strconv.AppendUint(b, *(*uint64)(ptr), 10)
}

// isEmpty is omitempty's test for the value of p's type at ptr.
func isEmpty(p *encPlan, ptr unsafe.Pointer) bool {
	switch p.kind {
	case rtScalar:
		switch p.scalar {
		case reflect.Bool:
			return !*(*bool)(ptr)
		case reflect.Int, reflect.Uint:
			return *(*uint)(ptr) == 0
		case reflect.Int8, reflect.Uint8:
			return *(*uint8)(ptr) == 0
		case reflect.Int16, reflect.Uint16:
			return *(*uint16)(ptr) == 0
		case reflect.Int32, reflect.Uint32:
			return *(*uint32)(ptr) == 0
		}
		return *(*uint64)(ptr) == 0
	case rtString:
		return len(*(*string)(ptr)) == 0
	case rtPointer:
		return *(*unsafe.Pointer)(ptr) == nil
	case rtBytes, rtRaw, rtSlice:
		return (*sliceHeader)(ptr).len == 0
	case rtStringMap:
		return len(*(*map[string]string)(ptr)) == 0
	case rtResourceList:
		return len(*(*ResourceList)(ptr)) == 0
	case rtMap:
		return reflect.NewAt(p.typ, ptr).Elem().Len() == 0
	}
	return false // structs, times among them, are never empty
}

// appendFields appends a struct's fields, those of embedded structs in
// their place; first says no field has been written yet.
func appendFields(b []byte, p *encPlan, ptr unsafe.Pointer, first bool) ([]byte, bool, bool) {
	for _, f := range p.fields {
		fp := unsafe.Add(ptr, f.offset)
		if f.key == "" { // embedded: its fields are this struct's
			var ok bool
			if b, first, ok = appendFields(b, f.plan, fp, first); !ok {
				return b, first, false
			}
			continue
		}
		if f.omitEmpty && isEmpty(f.plan, fp) || f.omitZero && (*time.Time)(fp).IsZero() {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, f.key...)
		var ok bool
		if b, ok = appendJSON(b, f.plan, fp); !ok {
			return b, first, false
		}
	}
	return b, first, true
}

func appendStringMap(b []byte, m map[string]string) []byte {
	return appendSortedMap(b, m, appendString)
}

// appendQuantity appends what q's MarshalJSON writes, reading q only: q
// may be shared. Its text needs no escaping.
func appendQuantity(b []byte, q *Quantity) []byte {
	b = append(b, '"')
	b = append(b, quantityText(*q)...)
	return append(b, '"')
}

func appendResourceList(b []byte, l ResourceList) []byte {
	return appendSortedMap(b, l, func(b []byte, q Quantity) []byte { return appendQuantity(b, &q) })
}

// appendSortedMap encodes m as encoding/json does: null when nil, keys in
// order (string keys need no key escaping beyond appendString's).
func appendSortedMap[K ~string, V any](b []byte, m map[K]V, appendValue func([]byte, V) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	var buf [8]K
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, string(k)), ':')
		b = appendValue(b, m[k])
	}
	return append(b, '}')
}

// appendMap encodes a map with string keys and other values, rare in the
// API types, through reflect.
func appendMap(b []byte, p *encPlan, m reflect.Value) ([]byte, bool) {
	if m.IsNil() {
		return append(b, "null"...), true
	}
	keys := m.MapKeys()
	slices.SortFunc(keys, func(x, y reflect.Value) int {
		switch {
		case x.String() < y.String():
			return -1
		case x.String() > y.String():
			return 1
		}
		return 0
	})
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, k.String()), ':')
		v := reflect.New(m.Type().Elem())
		v.Elem().Set(m.MapIndex(k))
		var ok bool
		if b, ok = appendJSON(b, p.elem, v.UnsafePointer()); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendTime is marshalTime, appended.
func appendTime(b []byte, t time.Time, layout string) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, layout)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendString appends s quoted as json.Marshal quotes it, HTML escaping
// on: <, > and & as \u003c and so on, U+2028 and U+2029 escaped, invalid
// UTF-8 as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
