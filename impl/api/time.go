package api

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Time is apimachinery's timestamp: RFC 3339 to the second in UTC on the
// wire, null when zero, and decoded into the local zone.
type Time = metav1.Time

// MicroTime is apimachinery's timestamp to the microsecond
// (Event.eventTime).
type MicroTime = metav1.MicroTime

// NewTime is t as decoding its JSON gives it: to the second, in the local
// zone, so that a value stamped here equals itself after a round trip.
func NewTime(t time.Time) Time {
	if t.IsZero() {
		return Time{}
	}
	return Time{Time: t.Truncate(time.Second).Local()}
}

// Unix is the Time sec seconds after the Unix epoch; converge's logical
// clock uses it to stamp objects deterministically.
func Unix(sec int64) Time { return NewTime(time.Unix(sec, 0)) }

// NewMicroTime is t as decoding its JSON gives it: to the microsecond, in
// the local zone.
func NewMicroTime(t time.Time) MicroTime {
	if t.IsZero() {
		return MicroTime{}
	}
	return MicroTime{Time: t.Truncate(time.Microsecond).Local()}
}

// microFormat is RFC 3339 with exactly six fractional digits, as
// MicroTime is written.
const microFormat = metav1.RFC3339Micro
