package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalidIntOrPercent reports an IntOrString that is neither an integer
// nor a "NN%" percentage where one of those is required.
var ErrInvalidIntOrPercent = errors.New("api: invalid int or percent")

// IntOrStringType says which member of an IntOrString is set.
type IntOrStringType int

const (
	IntValue    IntOrStringType = iota // the IntVal member is set
	StringValue                        // the StrVal member is set
)

// IntOrString holds either an int32 or a string, and serializes as a bare
// JSON number or string (ports, maxSurge, maxUnavailable).
type IntOrString struct {
	Type   IntOrStringType
	IntVal int32
	StrVal string
}

// FromInt32 is an integer IntOrString.
func FromInt32(v int32) IntOrString { return IntOrString{Type: IntValue, IntVal: v} }

// FromString is a string IntOrString.
func FromString(s string) IntOrString { return IntOrString{Type: StringValue, StrVal: s} }

// IntOrStringPtr is a helper for optional fields.
func IntOrStringPtr(v IntOrString) *IntOrString { return &v }

// MarshalJSON writes a number or a string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.Type == StringValue {
		return json.Marshal(v.StrVal)
	}
	return json.Marshal(v.IntVal)
}

// UnmarshalJSON reads a number or a string.
func (v *IntOrString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		v.Type = StringValue
		v.IntVal = 0
		return json.Unmarshal(b, &v.StrVal)
	}
	v.Type = IntValue
	v.StrVal = ""
	if string(b) == "null" {
		v.IntVal = 0
		return nil
	}
	if err := json.Unmarshal(b, &v.IntVal); err != nil {
		return fmt.Errorf("api: int or string: %w", err)
	}
	return nil
}

// String prints the set member.
func (v IntOrString) String() string {
	if v.Type == StringValue {
		return v.StrVal
	}
	return strconv.Itoa(int(v.IntVal))
}

// IsZero reports the unset value: integer 0 or the empty string.
func (v IntOrString) IsZero() bool {
	if v.Type == StringValue {
		return v.StrVal == ""
	}
	return v.IntVal == 0
}

// percent returns the NN of "NN%" and whether v is such a string.
func (v IntOrString) percent() (int64, bool) {
	if v.Type != StringValue || !strings.HasSuffix(v.StrVal, "%") {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(v.StrVal, "%"), 10, 32)
	if err != nil {
		return 0, false
	}
	return n, true
}

// ScaledValue resolves v against total: an integer is itself, "NN%" is
// NN% of total rounded up or down, anything else is an error.
func (v IntOrString) ScaledValue(total int, roundUp bool) (int, error) {
	if v.Type == IntValue {
		return int(v.IntVal), nil
	}
	p, ok := v.percent()
	if !ok {
		return 0, fmt.Errorf("%w: %q is not an integer or a percentage", ErrInvalidIntOrPercent, v.StrVal)
	}
	prod := p * int64(total)
	q := prod / 100
	if rem := prod % 100; rem != 0 {
		// Go division truncates toward zero; adjust toward the wanted side.
		if roundUp && prod > 0 {
			q++
		} else if !roundUp && prod < 0 {
			q--
		}
	}
	return int(q), nil
}

// ResolveSurge turns a rolling update's maxSurge and maxUnavailable into pod
// counts for the given replicas, following Kubernetes: surge rounds up,
// unavailable rounds down, and if both come out 0, unavailable becomes 1 so
// the rollout can make progress. A nil value counts as 0.
func ResolveSurge(replicas int, maxSurge, maxUnavailable *IntOrString) (surge, unavailable int, err error) {
	if maxSurge != nil {
		if surge, err = maxSurge.ScaledValue(replicas, true); err != nil {
			return 0, 0, fmt.Errorf("maxSurge: %w", err)
		}
	}
	if maxUnavailable != nil {
		if unavailable, err = maxUnavailable.ScaledValue(replicas, false); err != nil {
			return 0, 0, fmt.Errorf("maxUnavailable: %w", err)
		}
	}
	if surge < 0 || unavailable < 0 {
		return 0, 0, fmt.Errorf("%w: maxSurge and maxUnavailable must not be negative", ErrInvalidIntOrPercent)
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable, nil
}
