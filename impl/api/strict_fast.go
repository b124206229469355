package api

import (
	"reflect"

	kjson "sigs.k8s.io/json"
)

// The fast path of strict decoding. Almost every request body is one
// clean JSON object of the resource's kind: sigs.k8s.io/json's strict
// decode takes it in a single pass. Anything else (YAML, a problem, a
// doubt) returns false and takes the slow path, which words the error, so
// both paths give the same answer for every input
// (FuzzDecodeFastMatchesSlow).

// decodeFast decodes data into want when data is one clean JSON object of
// want's type whose kind and apiVersion are absent or expected; strict are
// its unknown and duplicate fields.
func decodeFast(data []byte, want Object, expected TypeMeta) (ok bool, strict []error) {
	i := 0
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	if i == len(data) || data[i] != '{' {
		return false, nil
	}
	strict, err := kjson.UnmarshalStrict(data, want)
	tm := TypeOf(want)
	if err != nil ||
		(tm.APIVersion != "" && tm.APIVersion != expected.APIVersion) || (tm.Kind != "" && tm.Kind != expected.Kind) {
		reflect.ValueOf(want).Elem().SetZero() // the slow path starts afresh, as New made it
		*tm = expected
		return false, nil
	}
	*tm = expected
	return true, strict
}
