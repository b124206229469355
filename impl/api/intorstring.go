package api

import (
	"errors"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// ErrInvalidIntOrPercent reports an IntOrString that is neither an integer
// nor a "NN%" percentage where one of those is required.
var ErrInvalidIntOrPercent = errors.New("api: invalid int or percent")

// IntOrString is k8s.io/apimachinery's: an int32 or a string, serialized
// as a bare JSON number or string (ports, maxSurge, maxUnavailable).
type IntOrString = intstr.IntOrString

// Its members, as intstr names them.
const (
	IntValue    = intstr.Int
	StringValue = intstr.String
)

// FromInt32 is an integer IntOrString.
func FromInt32(v int32) IntOrString { return intstr.FromInt32(v) }

// FromString is a string IntOrString.
func FromString(s string) IntOrString { return intstr.FromString(s) }

// IntOrStringPtr is a helper for optional fields.
func IntOrStringPtr(v IntOrString) *IntOrString { return &v }

// percentOf is the NN of a "NN%" string IntOrString, as upstream's
// validation reads it; ok is false for an integer or any other string.
func percentOf(v IntOrString) (n int, ok bool) {
	if v.Type != intstr.String || len(validPercent(v.StrVal)) > 0 {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	return n, err == nil
}
