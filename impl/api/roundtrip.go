package api

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The round-trip plans say, per type, what a JSON round trip does to its
// values, json.Unmarshal(json.Marshal(v)) into a fresh value: fields tagged
// omitempty that are empty come back nil, fields JSON does not carry come
// back zero, times lose what their format cannot hold, and a pointer to a
// zero time, written as null, comes back nil. Canonicalize follows them.
// A plan refuses what it does not know to reproduce exactly: an
// interface, a float, a type with JSON methods of its own other than
// times, quantities, int-or-strings and raw JSON.

var (
	timeType          = reflect.TypeFor[Time]()
	microTimeType     = reflect.TypeFor[MicroTime]()
	intOrStringType   = reflect.TypeFor[IntOrString]()
	quantityType      = reflect.TypeFor[Quantity]()
	resourceType      = reflect.TypeFor[ResourceList]()
	rawType           = reflect.TypeFor[json.RawMessage]()
	fieldsV1Type      = reflect.TypeFor[metav1.FieldsV1]()
	stringMapType     = reflect.TypeFor[map[string]string]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	unmarshalerType   = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// What a JSON round trip does to a value of one type.
type rtKind uint8

const (
	rtRefuse       rtKind = iota
	rtScalar              // bools and integers, as they are
	rtString              // as it is, if it is UTF-8
	rtTime                // to the second (Time) or microsecond (MicroTime)
	rtMicroTime           //
	rtIntOrString         // the member its Type names
	rtQuantity            // parsed from its canonical form
	rtResourceList        // a map of quantities
	rtPointer             //
	rtBytes               // base64 both ways: as they are
	rtRaw                 // raw JSON: as it is, if compact and free of what HTML escaping changes
	rtFieldsV1            // a managedFields entry's fields: raw JSON, as rtRaw
	rtSlice               //
	rtStringMap           // labels, annotations, resource lists
	rtMap                 //
	rtStruct              // the fields JSON carries
)

type rtPlan struct {
	kind    rtKind
	fields  []jsonField // rtStruct
	dropped []int       // rtStruct: the fields JSON does not carry
	elem    *rtPlan     // rtPointer, rtSlice, rtMap: the element's plan
}

// rtPlans caches a plan per type: asking reflect which methods a type has
// cost more than the work the plan guides.
var rtPlans = planCache[rtPlan]{fill: fillRTPlan}

func rtPlanOf(t reflect.Type) *rtPlan { return rtPlans.of(t) }

func fillRTPlan(t reflect.Type, p *rtPlan, link func(reflect.Type) *rtPlan) {
	*p = *buildRTPlan(t)
	switch p.kind {
	case rtPointer, rtSlice, rtMap:
		p.elem = link(t.Elem())
	case rtStruct:
		for i := range p.fields {
			p.fields[i].plan = link(t.Field(p.fields[i].index).Type)
		}
	}
}

func buildRTPlan(t reflect.Type) *rtPlan {
	switch t {
	case timeType:
		return &rtPlan{kind: rtTime}
	case microTimeType:
		return &rtPlan{kind: rtMicroTime}
	case intOrStringType:
		return &rtPlan{kind: rtIntOrString}
	case quantityType:
		return &rtPlan{kind: rtQuantity}
	case resourceType:
		return &rtPlan{kind: rtResourceList}
	case rawType:
		return &rtPlan{kind: rtRaw}
	case fieldsV1Type:
		return &rtPlan{kind: rtFieldsV1}
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

// quantityText is what q's MarshalJSON quotes: the text it keeps (a
// parsed canonical string) or else its canonical form. q is a copy, as
// String caches what it computes and others may be reading the original.
func quantityText(q Quantity) string { return q.String() }

// roundTripQuantity is what a JSON round trip makes of q: quantityText
// parsed again, as its UnmarshalJSON parses it. A quantity that keeps its
// text costs no allocation.
func roundTripQuantity(q Quantity) (Quantity, bool) {
	c, err := resource.ParseQuantity(quantityText(q))
	return c, err == nil
}

// sameQuantity reports whether a and b are equal as reflect.DeepEqual
// sees them (the registry's self-check): == unless a decimal too large
// for an int64 holds them, behind a pointer.
func sameQuantity(a, b Quantity) bool { return a == b || reflect.DeepEqual(a, b) }

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

// rawAsIs reports whether raw JSON comes back from json.Marshal, which
// compacts it and escapes <, >, &, U+2028 and U+2029 in its strings, as it
// is: valid, with no space between tokens and none of those characters.
func rawAsIs(raw json.RawMessage) bool {
	inString, escaped := false, false
	for i, c := range raw {
		switch {
		case c == '<' || c == '>' || c == '&':
			return false
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			return false
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		}
	}
	return json.Valid(raw)
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
	// omitZero: a zero time is left out (omitzero, which apimachinery
	// gives creationTimestamp).
	omitZero bool
	plan     *rtPlan
	// protobuf: Kubernetes' protobuf encoding carries the field too (it
	// has a protobuf tag); TypeMeta, for one, it carries in an envelope.
	protobuf bool
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
// omitempty, omitzero on a time (whose IsZero encoding/json asks) and
// Kubernetes' inline, or an unnamed embedded field that is
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
		field := jsonField{index: i, name: name, protobuf: f.Tag.Get("protobuf") != ""}
		for opt := range strings.SplitSeq(opts, ",") {
			switch {
			case opt == "omitempty":
				field.omitEmpty = true
			case opt == "omitzero" && (f.Type == timeType || f.Type == microTimeType):
				field.omitZero = true
			case opt != "" && opt != "inline":
				return nil, false
			}
		}
		if promoted && (!f.IsExported() || f.Type.Kind() != reflect.Struct) {
			return nil, false
		}
		if name == "" && !promoted {
			field.name = f.Name
		}
		fields = append(fields, field)
	}
	return fields, true
}
