package api

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FieldError is one invalid field, reported as one StatusCause.
type FieldError struct {
	Type     CauseType
	Field    string // "spec.template.spec.containers[0].image"
	BadValue any
	Detail   string
}

// omitValue marks a FieldError whose value is not worth printing.
type omitValue struct{}

// Error is "<field>: <body>", as Kubernetes prints a field error.
func (e *FieldError) Error() string { return e.Field + ": " + e.Body() }

// Body is the message without the field: "Invalid value: -1: must be ...".
func (e *FieldError) Body() string {
	var s string
	switch e.Type {
	case CauseTypeFieldValueRequired, CauseTypeFieldValueForbidden, CauseTypeFieldValueTooLong, CauseTypeInternal:
		s = causeText(e.Type)
	default:
		switch v := e.BadValue.(type) {
		case omitValue:
			s = causeText(e.Type)
		case int, int64, int32, float64, float32, bool:
			s = fmt.Sprintf("%s: %v", causeText(e.Type), v)
		case string:
			s = fmt.Sprintf("%s: %q", causeText(e.Type), v)
		default:
			// JSON, not %#v: it is readable and never prints pointers.
			b, err := json.Marshal(v)
			if err != nil {
				b = []byte(fmt.Sprint(v))
			}
			s = fmt.Sprintf("%s: %s", causeText(e.Type), b)
		}
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func causeText(t CauseType) string {
	// apimachinery's own wording; its String panics on a type it lacks.
	switch et := field.ErrorType(t); et {
	case field.ErrorTypeNotFound, field.ErrorTypeRequired, field.ErrorTypeDuplicate, field.ErrorTypeInvalid,
		field.ErrorTypeNotSupported, field.ErrorTypeForbidden, field.ErrorTypeTooLong, field.ErrorTypeTooMany,
		field.ErrorTypeInternal, field.ErrorTypeTypeInvalid:
		return et.String()
	}
	return fmt.Sprintf("<unknown error %q>", string(t))
}

// FieldErrors is the list a validation pass collects.
type FieldErrors []*FieldError

// aggregate is Kubernetes' rendering of several errors: one message alone,
// or "[a, b]" with duplicates dropped.
func (l FieldErrors) aggregate() string {
	seen := map[string]bool{}
	var msgs []string
	for _, e := range l {
		m := e.Error()
		if !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	switch len(msgs) {
	case 0:
		return ""
	case 1:
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// FieldRequired reports a missing value.
func FieldRequired(field, detail string) *FieldError {
	return &FieldError{Type: CauseTypeFieldValueRequired, Field: field, BadValue: "", Detail: detail}
}

// FieldInvalid reports a malformed value.
func FieldInvalid(field string, value any, detail string) *FieldError {
	return &FieldError{Type: CauseTypeFieldValueInvalid, Field: field, BadValue: value, Detail: detail}
}

// FieldDuplicate reports a value that must be unique.
func FieldDuplicate(field string, value any) *FieldError {
	return &FieldError{Type: CauseTypeFieldValueDuplicate, Field: field, BadValue: value}
}

// FieldNotSupported reports a value outside an enumeration.
func FieldNotSupported[T ~string](field string, value any, valid []T) *FieldError {
	detail := ""
	if len(valid) > 0 {
		q := make([]string, len(valid))
		for i, v := range valid {
			q[i] = strconv.Quote(string(v))
		}
		detail = "supported values: " + strings.Join(q, ", ")
	}
	return &FieldError{Type: CauseTypeFieldValueNotSupported, Field: field, BadValue: value, Detail: detail}
}

// FieldNotFound reports a reference to something that does not exist.
func FieldNotFound(field string, value any) *FieldError {
	return &FieldError{Type: CauseTypeFieldValueNotFound, Field: field, BadValue: value}
}

// FieldForbidden reports a well-formed value not allowed here.
func FieldForbidden(field, detail string) *FieldError {
	return &FieldError{Type: CauseTypeFieldValueForbidden, Field: field, BadValue: "", Detail: detail}
}

// FieldTooLong reports a value over maxLength bytes.
func FieldTooLong(field string, maxLength int) *FieldError {
	return &FieldError{Type: CauseTypeFieldValueTooLong, Field: field, BadValue: omitValue{},
		Detail: fmt.Sprintf("may not be more than %d bytes", maxLength)}
}

// fieldPath builds Kubernetes field paths: child names joined by '.',
// indexes and map keys in brackets.
type fieldPath string

func (p fieldPath) child(names ...string) fieldPath {
	for _, n := range names {
		if p == "" {
			p = fieldPath(n)
		} else {
			p += fieldPath("." + n)
		}
	}
	return p
}

func (p fieldPath) index(i int) fieldPath { return p + fieldPath("["+strconv.Itoa(i)+"]") }

func (p fieldPath) key(k string) fieldPath { return p + fieldPath("["+k+"]") }

func (p fieldPath) String() string { return string(p) }

// path is p for apimachinery's validators; its String gives p back.
func (p fieldPath) path() *field.Path { return field.NewPath(string(p)) }

// errs collects field errors during one validation pass.
type errs struct{ list FieldErrors }

func (e *errs) add(fe ...*FieldError) { e.list = append(e.list, fe...) }

// addList takes in what apimachinery's validators return; the error types
// are the cause types, spelled the same.
func (e *errs) addList(l field.ErrorList) {
	for _, fe := range l {
		v := fe.BadValue
		if _, ok := v.(field.OmitValueType); ok {
			v = omitValue{}
		}
		e.add(&FieldError{Type: CauseType(fe.Type), Field: fe.Field, BadValue: v, Detail: fe.Detail})
	}
}

func (e *errs) required(p fieldPath, detail string) { e.add(FieldRequired(p.String(), detail)) }

func (e *errs) invalid(p fieldPath, v any, detail string) {
	e.add(FieldInvalid(p.String(), v, detail))
}

// invalidEach adds one Invalid error per message, as Kubernetes does for
// the messages of a syntax check.
func (e *errs) invalidEach(p fieldPath, v any, msgs []string) {
	for _, m := range msgs {
		e.invalid(p, v, m)
	}
}

func (e *errs) forbidden(p fieldPath, detail string) { e.add(FieldForbidden(p.String(), detail)) }

func (e *errs) duplicate(p fieldPath, v any) { e.add(FieldDuplicate(p.String(), v)) }

func notSupported[T ~string](e *errs, p fieldPath, v any, valid []T) {
	e.add(FieldNotSupported(p.String(), v, valid))
}

func (e *errs) nonNegative(p fieldPath, v int64) {
	if v < 0 {
		e.invalid(p, v, "must be greater than or equal to 0")
	}
}
