package api

import (
	"encoding/json"
	"fmt"
	"time"
)

// Time is a timestamp with one-second precision, as Kubernetes serializes
// it: RFC 3339 in UTC, and null when zero.
type Time struct {
	time.Time
}

// NewTime truncates t to the second and moves it to UTC, so that a value
// equals itself after a JSON round trip.
func NewTime(t time.Time) Time {
	if t.IsZero() {
		return Time{}
	}
	return Time{t.UTC().Truncate(time.Second)}
}

// Unix is the Time sec seconds after the Unix epoch; converge's logical
// clock uses it to stamp objects deterministically.
func Unix(sec int64) Time {
	return Time{time.Unix(sec, 0).UTC()}
}

// MarshalJSON writes null for the zero time, so an unset timestamp is
// visibly unset rather than year 1.
func (t Time) MarshalJSON() ([]byte, error) { return marshalTime(t.Time, time.RFC3339), nil }

// UnmarshalJSON accepts null, "" and RFC 3339 strings.
func (t *Time) UnmarshalJSON(b []byte) error {
	p, err := unmarshalTime(b)
	*t = NewTime(p)
	return err
}

// marshalTime is t in layout, quoted, or null for the zero time.
func marshalTime(t time.Time, layout string) []byte {
	if t.IsZero() {
		return []byte("null")
	}
	return []byte(`"` + t.UTC().Format(layout) + `"`)
}

// unmarshalTime reads null, "" (both the zero time) or an RFC 3339 string
// with any fraction of a second.
func unmarshalTime(b []byte) (time.Time, error) {
	if string(b) == "null" {
		return time.Time{}, nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return time.Time{}, fmt.Errorf("api: time must be an RFC 3339 string: %w", err)
	}
	if s == "" {
		return time.Time{}, nil
	}
	p, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("api: time %q is not RFC 3339: %w", s, err)
	}
	return p, nil
}

// Equal compares instants, ignoring location.
func (t Time) Equal(o Time) bool { return t.Time.Equal(o.Time) }

// MicroTime is a timestamp with microsecond precision (Event.eventTime),
// which kubectl parses only in its fixed six-digit form.
type MicroTime struct {
	time.Time
}

// microFormat is RFC 3339 with exactly six fractional digits.
const microFormat = "2006-01-02T15:04:05.000000Z07:00"

// NewMicroTime truncates t to the microsecond, in UTC.
func NewMicroTime(t time.Time) MicroTime {
	if t.IsZero() {
		return MicroTime{}
	}
	return MicroTime{t.UTC().Truncate(time.Microsecond)}
}

// MarshalJSON writes null for the zero time.
func (t MicroTime) MarshalJSON() ([]byte, error) { return marshalTime(t.Time, microFormat), nil }

// UnmarshalJSON accepts null, "" and RFC 3339 strings with any fraction.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	p, err := unmarshalTime(b)
	*t = NewMicroTime(p)
	return err
}
