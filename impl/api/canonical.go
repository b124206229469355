package api

import (
	"reflect"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Canonicalize makes obj what a JSON round trip of it gives, in place:
// after it, obj equals what json.Unmarshal(json.Marshal(obj)) makes. What
// already is as the round trip gives it is only read, never written, so
// obj may share parts with objects that others read concurrently, as long
// as those parts are canonical already (those of an object decoded from
// what Marshal wrote are; a quantity decoded from a client's "0.5" is
// not). ok is false for what the round-trip plans refuse, and for maps of
// other than strings or quantities, which no API type has; obj may then
// have been changed in part, as the round trip changes it. It costs a
// fraction of a copy, and allocates nothing but to round-trip quantities
// that keep no text of their own.
func Canonicalize(obj Object) bool {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	return canonical(rtPlanOf(v.Type().Elem()), v.Elem())
}

// canonical canonicalizes the addressable v, of p's type, writing only
// what changes.
func canonical(p *rtPlan, v reflect.Value) bool {
	switch p.kind {
	case rtScalar, rtBytes:
	case rtString:
		return utf8.ValidString(v.String())
	case rtRaw:
		// nil is written null, which comes back as the bytes null.
		raw := v.Bytes()
		return raw != nil && rawAsIs(raw)
	case rtFieldsV1:
		// Empty is written null, which leaves a decoded FieldsV1 unset.
		raw := v.Addr().Interface().(*metav1.FieldsV1).GetRawBytes()
		return len(raw) > 0 && rawAsIs(raw)
	case rtTime:
		tm := v.Addr().Interface().(*Time)
		if !tm.IsZero() && !inFormatRange(tm.UTC().Year()) {
			return false
		}
		if c := NewTime(tm.Time); c != *tm {
			*tm = c
		}
	case rtMicroTime:
		tm := v.Addr().Interface().(*MicroTime)
		if !tm.IsZero() && !inFormatRange(tm.UTC().Year()) {
			return false
		}
		if c := NewMicroTime(tm.Time); c != *tm {
			*tm = c
		}
	case rtIntOrString:
		x := v.Addr().Interface().(*IntOrString)
		var c IntOrString
		switch x.Type {
		case StringValue:
			if !utf8.ValidString(x.StrVal) {
				return false
			}
			c = FromString(x.StrVal)
		case IntValue:
			c = FromInt32(x.IntVal)
		default:
			return false // its MarshalJSON refuses any other Type
		}
		if c != *x {
			*x = c
		}
	case rtQuantity:
		q := v.Addr().Interface().(*Quantity)
		c, ok := roundTripQuantity(*q)
		if !ok {
			return false
		}
		if !sameQuantity(c, *q) {
			*q = c
		}
	case rtResourceList:
		for k, q := range v.Interface().(ResourceList) {
			if !utf8.ValidString(string(k)) {
				return false
			}
			c, ok := roundTripQuantity(q)
			if !ok {
				return false
			}
			if !sameQuantity(c, q) {
				v.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(c))
			}
		}
	case rtPointer:
		if v.IsNil() {
			return true
		}
		if isZeroTime(v.Elem()) {
			v.SetZero() // a zero time is written as null
			return true
		}
		return canonical(p.elem, v.Elem())
	case rtSlice:
		for i := range v.Len() {
			if !canonical(p.elem, v.Index(i)) {
				return false
			}
		}
	case rtStringMap:
		if v.IsNil() {
			return true
		}
		// As a Go map: reflect's map iterator allocates every key and value.
		for k, val := range v.Convert(stringMapType).Interface().(map[string]string) {
			if !utf8.ValidString(k) || !utf8.ValidString(val) {
				return false
			}
		}
	case rtStruct:
		for _, f := range p.fields {
			sf := v.Field(f.index)
			if f.omitZero && isZeroTime(sf) {
				if !sf.IsZero() {
					sf.SetZero() // left out, so it comes back zero
				}
				continue
			}
			if f.omitEmpty && isEmptyJSON(sf) {
				if (sf.Kind() == reflect.Slice || sf.Kind() == reflect.Map) && !sf.IsNil() {
					sf.SetZero() // left out, so it comes back nil
				}
				continue
			}
			if !canonical(f.plan, sf) {
				return false
			}
		}
		for _, i := range p.dropped {
			if f := v.Field(i); !f.IsZero() {
				if !f.CanSet() {
					return false
				}
				f.SetZero()
			}
		}
	default:
		return false
	}
	return true
}
