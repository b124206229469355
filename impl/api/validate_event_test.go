package api

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// validEvent is a legacy event, as kubelets and controllers record them.
func validEvent() *Event {
	e := &Event{
		ObjectMeta:     ObjectMeta{Name: "web-0.17a2b3c4d5e6f708"},
		InvolvedObject: ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-0", UID: "u1", APIVersion: "v1"},
		Reason:         "Scheduled", Message: "Successfully assigned default/web-0 to node-1",
		Source: EventSource{Component: "default-scheduler"}, Type: EventTypeNormal, Count: 1,
		FirstTimestamp: Unix(100), LastTimestamp: Unix(100),
	}
	Default(e)
	return e
}

// validNewEvent is an event with an eventTime, which must name its reporter.
func validNewEvent() *Event {
	e := validEvent()
	at := NewMicroTime(time.Unix(100, 0))
	e.EventTime, e.Source, e.Count = at, EventSource{}, 0
	e.FirstTimestamp, e.LastTimestamp = Time{}, Time{}
	e.Action, e.ReportingController, e.ReportingInstance = "Binding", "default-scheduler", "default-scheduler-node-1"
	return e
}

func TestEventValidationMessages(t *testing.T) {
	e := validEvent()
	e.Type = "Error"
	e.InvolvedObject.Namespace = "team"
	assert.Equal(t, `Event "web-0.17a2b3c4d5e6f708" is invalid: [involvedObject.namespace: Invalid value: "team": does not match event.namespace, `+
		`type: Unsupported value: "Error": supported values: "Normal", "Warning"]`, Validate(e).Error())

	// A legacy event is not bounded; a new one is, and the value is not echoed.
	e = validEvent()
	e.Reason = strings.Repeat("r", 200)
	assert.NoError(t, Validate(e))
	n := validNewEvent()
	n.Reason = e.Reason
	assert.Equal(t, `Event "web-0.17a2b3c4d5e6f708" is invalid: reason: Invalid value: "": can have at most 128 characters`, Validate(n).Error())

	// Updates re-run the create checks (core/v1 has no immutable event fields).
	upd := validEvent()
	upd.Count, upd.LastTimestamp = 2, Unix(200)
	assert.NoError(t, ValidateUpdate(validEvent(), upd))
	upd.Type = "Fatal"
	assert.Error(t, ValidateUpdate(validEvent(), upd))
}
