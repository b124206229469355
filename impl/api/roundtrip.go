package api

import (
	"encoding"
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// RoundTripCopy returns what a JSON round trip of v would give,
// json.Unmarshal(json.Marshal(v)) into a fresh value, without the JSON: a
// deep copy in which what the encoding drops or reshapes is dropped or
// reshaped the same way. Fields tagged omitempty that are empty come back
// nil, fields JSON does not carry come back zero, times lose what their
// format cannot hold, and a pointer to a zero time, written as null, comes
// back nil. ok is false when v holds something it does not know to
// reproduce exactly: an interface, a float, a raw JSON value, a string
// that is not UTF-8, a type with JSON methods of its own other than this
// package's. A copy costs a fifth of a decode.
func RoundTripCopy[T any](v T) (out T, ok bool) {
	src := reflect.ValueOf(&v).Elem()
	dst := reflect.New(src.Type()).Elem()
	if src.Kind() == reflect.Interface && !src.IsNil() {
		// An Object: the round trip decodes into a value of its type.
		src = src.Elem()
	}
	copied := reflect.New(src.Type()).Elem()
	if !roundTrip(rtPlanOf(src.Type()), copied, src) {
		return out, false
	}
	dst.Set(copied)
	return dst.Interface().(T), true
}

var (
	timeType          = reflect.TypeFor[Time]()
	microTimeType     = reflect.TypeFor[MicroTime]()
	intOrStringType   = reflect.TypeFor[IntOrString]()
	resourceType      = reflect.TypeFor[ResourceList]()
	stringMapType     = reflect.TypeFor[map[string]string]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// How roundTrip copies a value of one type.
type rtKind uint8

const (
	rtRefuse      rtKind = iota
	rtScalar             // bools and integers, as they are
	rtString             // as it is, if it is UTF-8
	rtTime               // to the second (Time) or microsecond (MicroTime)
	rtMicroTime          //
	rtIntOrString        // the member its Type names
	rtPointer            //
	rtBytes              // base64 both ways: as they are
	rtSlice              //
	rtStringMap          // labels, annotations, resource lists
	rtMap                //
	rtStruct             // the fields JSON carries
)

type rtPlan struct {
	kind    rtKind
	fields  []jsonField // rtStruct
	dropped []int       // rtStruct: the fields JSON does not carry
	elem    *rtPlan     // rtPointer, rtSlice, rtMap: the element's plan
}

// rtPlans caches a plan per type, linked to its fields' and elements'
// plans: asking reflect which methods a type has, or even finding a
// type's plan in a map at every value, cost more than the copy.
var (
	rtPlans   sync.Map // reflect.Type -> *rtPlan, complete
	rtBuildMu sync.Mutex
)

func rtPlanOf(t reflect.Type) *rtPlan {
	if p, ok := rtPlans.Load(t); ok {
		return p.(*rtPlan)
	}
	rtBuildMu.Lock()
	defer rtBuildMu.Unlock()
	building := map[reflect.Type]*rtPlan{}
	p := linkRTPlan(t, building)
	for t, p := range building { // published once every link is made
		rtPlans.Store(t, p)
	}
	return p
}

// linkRTPlan builds t's plan and those it links to; building holds the
// plans under construction, so a recursive type links to itself.
func linkRTPlan(t reflect.Type, building map[reflect.Type]*rtPlan) *rtPlan {
	if p, ok := rtPlans.Load(t); ok {
		return p.(*rtPlan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := buildRTPlan(t)
	building[t] = p
	switch p.kind {
	case rtPointer, rtSlice, rtMap:
		p.elem = linkRTPlan(t.Elem(), building)
	case rtStruct:
		for i := range p.fields {
			p.fields[i].plan = linkRTPlan(t.Field(p.fields[i].index).Type, building)
		}
	}
	return p
}

func buildRTPlan(t reflect.Type) *rtPlan {
	switch t {
	case timeType:
		return &rtPlan{kind: rtTime}
	case microTimeType:
		return &rtPlan{kind: rtMicroTime}
	case intOrStringType:
		return &rtPlan{kind: rtIntOrString}
	case resourceType:
		// Its UnmarshalJSON keeps strings as they are: a plain map.
		return &rtPlan{kind: rtStringMap}
	}
	// A pointer has its element's methods: its element is checked.
	if t.Kind() != reflect.Pointer && (t.Implements(marshalerType) || reflect.PointerTo(t).Implements(unmarshalerType)) {
		return &rtPlan{kind: rtRefuse}
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &rtPlan{kind: rtScalar}
	case reflect.String:
		return &rtPlan{kind: rtString}
	case reflect.Pointer:
		return &rtPlan{kind: rtPointer}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return &rtPlan{kind: rtBytes}
		}
		return &rtPlan{kind: rtSlice}
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Key().Implements(textMarshalerType) {
			return &rtPlan{kind: rtRefuse}
		}
		if t.ConvertibleTo(stringMapType) && t.Elem() == stringMapType.Elem() && t.Key() == stringMapType.Key() {
			return &rtPlan{kind: rtStringMap}
		}
		return &rtPlan{kind: rtMap}
	case reflect.Struct:
		fields, ok := fieldsOf(t)
		if !ok {
			return &rtPlan{kind: rtRefuse}
		}
		return &rtPlan{kind: rtStruct, fields: fields, dropped: droppedFields(t, fields)}
	}
	return &rtPlan{kind: rtRefuse} // floats, complex numbers, interfaces, arrays, channels, funcs
}

// roundTrip sets dst, zero, settable and addressable, to src after a JSON
// round trip, or reports that it cannot; p is src's type's plan.
func roundTrip(p *rtPlan, dst, src reflect.Value) bool {
	switch p.kind {
	case rtScalar:
		dst.Set(src)
	case rtString:
		dst.Set(src)
		return utf8.ValidString(src.String())
	case rtTime:
		tm := valueAt[Time](src)
		if !tm.IsZero() && !inFormatRange(tm.UTC().Year()) {
			return false
		}
		*dst.Addr().Interface().(*Time) = NewTime(tm.Time)
	case rtMicroTime:
		tm := valueAt[MicroTime](src)
		if !tm.IsZero() && !inFormatRange(tm.UTC().Year()) {
			return false
		}
		*dst.Addr().Interface().(*MicroTime) = NewMicroTime(tm.Time)
	case rtIntOrString:
		v := valueAt[IntOrString](src)
		out := dst.Addr().Interface().(*IntOrString)
		if v.Type != StringValue {
			*out = FromInt32(v.IntVal)
			return true
		}
		*out = FromString(v.StrVal)
		return utf8.ValidString(v.StrVal)
	case rtPointer:
		if src.IsNil() {
			return true
		}
		// A time that is zero is written as null, and null leaves a
		// pointer nil.
		if isZeroTime(src.Elem()) {
			return true
		}
		ptr := reflect.New(src.Type().Elem())
		if !roundTrip(p.elem, ptr.Elem(), src.Elem()) {
			return false
		}
		dst.Set(ptr)
	case rtBytes:
		if !src.IsNil() {
			dst.Set(reflect.ValueOf(append([]byte{}, src.Bytes()...)).Convert(src.Type()))
		}
	case rtSlice:
		if src.IsNil() {
			return true
		}
		n := src.Len()
		s := reflect.MakeSlice(src.Type(), n, n)
		for i := range n {
			if !roundTrip(p.elem, s.Index(i), src.Index(i)) {
				return false
			}
		}
		dst.Set(s)
	case rtStringMap:
		if src.IsNil() {
			return true
		}
		m := src.Convert(stringMapType).Interface().(map[string]string)
		for k, v := range m {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return false
			}
		}
		dst.Set(reflect.ValueOf(maps.Clone(m)).Convert(src.Type()))
	case rtMap:
		if src.IsNil() {
			return true
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		iter := src.MapRange()
		for iter.Next() {
			if !utf8.ValidString(iter.Key().String()) {
				return false
			}
			val := reflect.New(src.Type().Elem()).Elem()
			if !roundTrip(p.elem, val, iter.Value()) {
				return false
			}
			m.SetMapIndex(iter.Key(), val)
		}
		dst.Set(m)
	case rtStruct:
		for _, f := range p.fields {
			sf := src.Field(f.index)
			if f.omitEmpty && isEmptyJSON(sf) {
				continue
			}
			if !roundTrip(f.plan, dst.Field(f.index), sf) {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// isZeroTime reports a zero Time or MicroTime; v is addressable.
func isZeroTime(v reflect.Value) bool {
	switch v.Type() {
	case timeType:
		return v.Addr().Interface().(*Time).IsZero()
	case microTimeType:
		return v.Addr().Interface().(*MicroTime).IsZero()
	}
	return false
}

// valueAt reads src as a T without boxing it, when src is addressable.
func valueAt[T any](src reflect.Value) T {
	if src.CanAddr() {
		return *src.Addr().Interface().(*T)
	}
	return src.Interface().(T)
}

// inFormatRange: RFC 3339 holds four-digit years only.
func inFormatRange(year int) bool { return year >= 1 && year <= 9999 }

// isEmptyJSON is omitempty's test.
func isEmptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// jsonField is a struct field the encoding carries.
type jsonField struct {
	index     int
	omitEmpty bool
	plan      *rtPlan
	// name is the field's JSON name; "" for an embedded struct whose
	// fields are the outer struct's.
	name string
}

// droppedFields lists the fields of t that are not among fields.
func droppedFields(t reflect.Type, fields []jsonField) []int {
	var out []int
	for i, f := 0, 0; i < t.NumField(); i++ {
		if f < len(fields) && fields[f].index == i {
			f++
			continue
		}
		out = append(out, i)
	}
	return out
}

// fieldsOf lists the fields of struct type t that JSON carries, or reports
// a struct whose encoding it does not follow: tag options other than
// omitempty (and Kubernetes' inline), or an unnamed embedded field that is
// not an exported struct. An unnamed embedded struct's fields are the
// outer struct's in JSON; copying it field by field gives the same.
func fieldsOf(t reflect.Type) ([]jsonField, bool) {
	var fields []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		promoted := f.Anonymous && name == ""
		// encoding/json has no inline option: it ignores it, and an
		// embedded struct with no name is inline anyway.
		if opts != "" && opts != "omitempty" && opts != "inline" || promoted && (!f.IsExported() || f.Type.Kind() != reflect.Struct) {
			return nil, false
		}
		if name == "" && !promoted {
			name = f.Name
		}
		fields = append(fields, jsonField{index: i, omitEmpty: opts == "omitempty", name: name})
	}
	return fields, true
}
