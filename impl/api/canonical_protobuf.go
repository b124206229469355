package api

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CanonicalizeProtobuf is Canonicalize for Kubernetes' protobuf (Protobuf,
// how the registry stores built-in kinds): it makes obj, in place, what
// decoding MarshalProtobuf(obj) into a fresh value gives. The encoding
// carries strings, bytes, integers, int-or-strings and raw fields as they
// are; it leaves out what is empty, so empty slices and maps come back
// nil whatever their JSON tags say, but a pointer to an empty struct or
// to a zero time comes back; times keep what their JSON keeps; TypeMeta
// travels in the envelope, not in the object, and comes back empty. As
// Canonicalize, it writes only what changes and refuses (false) what the
// round-trip plans refuse; obj may then have been changed in part.
func CanonicalizeProtobuf(obj Object) bool {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || !HasProtobuf(obj) {
		return false
	}
	return canonicalProtobuf(rtPlanOf(v.Type().Elem()), v.Elem())
}

// canonicalProtobuf canonicalizes the addressable v, of p's type, for a
// protobuf round trip.
func canonicalProtobuf(p *rtPlan, v reflect.Value) bool {
	switch p.kind {
	case rtScalar, rtBytes, rtString, rtIntOrString:
	case rtFieldsV1:
		// Empty is left out, which leaves a decoded FieldsV1 unset.
		if len(v.Addr().Interface().(*metav1.FieldsV1).GetRawBytes()) == 0 && !v.IsZero() {
			v.SetZero()
		}
	case rtTime, rtMicroTime, rtQuantity:
		return canonical(p, v) // as JSON: to the second or microsecond; quantities from their text
	case rtResourceList:
		if v.Len() == 0 {
			setNil(v)
			return true
		}
		return canonical(p, v)
	case rtPointer:
		return v.IsNil() || canonicalProtobuf(p.elem, v.Elem())
	case rtSlice:
		if v.Len() == 0 {
			setNil(v)
		}
		for i := range v.Len() {
			if !canonicalProtobuf(p.elem, v.Index(i)) {
				return false
			}
		}
	case rtStringMap:
		if v.Len() == 0 {
			setNil(v)
		}
	case rtStruct:
		for _, f := range p.fields {
			sf := v.Field(f.index)
			if !f.protobuf {
				if !sf.IsZero() {
					sf.SetZero()
				}
				continue
			}
			if !canonicalProtobuf(f.plan, sf) {
				return false
			}
		}
		for _, i := range p.dropped {
			if f := v.Field(i); !f.IsZero() {
				if !f.CanSet() || v.Type().Field(i).Tag.Get("protobuf") != "" {
					return false // carried by protobuf, not by JSON: no plan says how
				}
				f.SetZero()
			}
		}
	default:
		return false
	}
	return true
}

// setNil makes the empty slice or map v nil, if it is not already.
func setNil(v reflect.Value) {
	if !v.IsNil() {
		v.SetZero()
	}
}
