package api

import (
	"errors"

	"fmt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"net/http"
	"strings"
)

// The Status types are k8s.io/apimachinery's own: the body of every
// failed (and some successful) API response, what it is about, and each
// cause (for an invalid object, one field error).
type (
	Status        = metav1.Status
	StatusDetails = metav1.StatusDetails
	StatusCause   = metav1.StatusCause
	// StatusReason is the machine-readable reason of a failed request.
	StatusReason = metav1.StatusReason
	// CauseType is the machine-readable kind of one StatusCause; for field
	// errors it is the Kubernetes field error type.
	CauseType = metav1.CauseType
)

const (
	StatusReasonUnknown               = metav1.StatusReasonUnknown
	StatusReasonBadRequest            = metav1.StatusReasonBadRequest
	StatusReasonUnauthorized          = metav1.StatusReasonUnauthorized
	StatusReasonForbidden             = metav1.StatusReasonForbidden
	StatusReasonNotFound              = metav1.StatusReasonNotFound
	StatusReasonMethodNotAllowed      = metav1.StatusReasonMethodNotAllowed
	StatusReasonNotAcceptable         = metav1.StatusReasonNotAcceptable
	StatusReasonAlreadyExists         = metav1.StatusReasonAlreadyExists
	StatusReasonConflict              = metav1.StatusReasonConflict
	StatusReasonGone                  = metav1.StatusReasonGone
	StatusReasonExpired               = metav1.StatusReasonExpired
	StatusReasonRequestEntityTooLarge = metav1.StatusReasonRequestEntityTooLarge
	StatusReasonUnsupportedMediaType  = metav1.StatusReasonUnsupportedMediaType
	StatusReasonInvalid               = metav1.StatusReasonInvalid
	StatusReasonTooManyRequests       = metav1.StatusReasonTooManyRequests
	StatusReasonInternalError         = metav1.StatusReasonInternalError
	StatusReasonServiceUnavailable    = metav1.StatusReasonServiceUnavailable
	StatusReasonTimeout               = metav1.StatusReasonTimeout
)

// Values of Status.Status.
const (
	StatusSuccess = metav1.StatusSuccess
	StatusFailure = metav1.StatusFailure
)

const (
	CauseTypeFieldValueNotFound     = metav1.CauseTypeFieldValueNotFound
	CauseTypeFieldValueRequired     = metav1.CauseTypeFieldValueRequired
	CauseTypeFieldValueDuplicate    = metav1.CauseTypeFieldValueDuplicate
	CauseTypeFieldValueInvalid      = metav1.CauseTypeFieldValueInvalid
	CauseTypeFieldValueNotSupported = metav1.CauseTypeFieldValueNotSupported
	CauseTypeFieldValueForbidden    = CauseType(field.ErrorTypeForbidden)
	CauseTypeFieldValueTooLong      = CauseType(field.ErrorTypeTooLong)
	CauseTypeFieldValueTooMany      = CauseType(field.ErrorTypeTooMany)
	CauseTypeInternal               = metav1.CauseTypeInternal
)

// StatusError is an error carrying the Status the apiserver should answer
// with.
type StatusError struct {
	Status Status
}

// Error is the status message.
func (e *StatusError) Error() string { return e.Status.Message }

// failure builds a Failure status with the wire type fields set.
func failure(code int, reason StatusReason, message string, details *StatusDetails) *StatusError {
	return &StatusError{Status: Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   StatusFailure,
		Code:     int32(code),
		Reason:   reason,
		Message:  message,
		Details:  details,
	}}
}

func grDetails(gr GroupResource, name string) *StatusDetails {
	return &StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
}

// NewBadRequest is 400 BadRequest.
func NewBadRequest(message string) *StatusError {
	return failure(http.StatusBadRequest, StatusReasonBadRequest, message, nil)
}

// NewUnauthorized is 401 Unauthorized.
func NewUnauthorized(message string) *StatusError {
	if message == "" {
		message = "not authorized"
	}
	return failure(http.StatusUnauthorized, StatusReasonUnauthorized, message, nil)
}

// NewForbidden is 403 Forbidden: `pods "x" is forbidden: <err>`.
func NewForbidden(gr GroupResource, name string, err error) *StatusError {
	var msg string
	if name == "" {
		msg = fmt.Sprintf("%s is forbidden: %v", gr, err)
	} else {
		msg = fmt.Sprintf("%s %q is forbidden: %v", gr, name, err)
	}
	return failure(http.StatusForbidden, StatusReasonForbidden, msg, grDetails(gr, name))
}

// NewNotFound is 404 NotFound: `deployments.apps "myapp" not found`.
func NewNotFound(gr GroupResource, name string) *StatusError {
	return failure(http.StatusNotFound, StatusReasonNotFound,
		fmt.Sprintf("%s %q not found", gr, name), grDetails(gr, name))
}

// NewMethodNotSupported is 405 MethodNotAllowed.
func NewMethodNotSupported(gr GroupResource, action string) *StatusError {
	return failure(http.StatusMethodNotAllowed, StatusReasonMethodNotAllowed,
		fmt.Sprintf("%s is not supported on resources of kind %q", action, gr), grDetails(gr, ""))
}

// NewNotAcceptable is 406 NotAcceptable, listing the media types served.
func NewNotAcceptable(accepted []string) *StatusError {
	return failure(http.StatusNotAcceptable, StatusReasonNotAcceptable,
		"only the following media types are accepted: "+strings.Join(accepted, ", "), nil)
}

// NewAlreadyExists is 409 AlreadyExists: `deployments.apps "myapp" already exists`.
func NewAlreadyExists(gr GroupResource, name string) *StatusError {
	return failure(http.StatusConflict, StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", gr, name), grDetails(gr, name))
}

// OptimisticLockErrorMsg is the reason Kubernetes gives for a stale
// resourceVersion.
const OptimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// NewConflict is 409 Conflict: `Operation cannot be fulfilled on <gr> "<name>": <err>`.
func NewConflict(gr GroupResource, name string, err error) *StatusError {
	return failure(http.StatusConflict, StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %v", gr, name, err), grDetails(gr, name))
}

// NewOptimisticLockConflict is the Conflict for a write made against a
// stale resourceVersion.
func NewOptimisticLockConflict(gr GroupResource, name string) *StatusError {
	return NewConflict(gr, name, errors.New(OptimisticLockErrorMsg))
}

// NewGone is 410 Gone.
func NewGone(message string) *StatusError {
	return failure(http.StatusGone, StatusReasonGone, message, nil)
}

// NewResourceExpired is 410 Expired, what a watch or list from a compacted
// resourceVersion gets; clients relist on it.
func NewResourceExpired(message string) *StatusError {
	return failure(http.StatusGone, StatusReasonExpired, message, nil)
}

// NewRequestEntityTooLarge is 413 RequestEntityTooLarge.
func NewRequestEntityTooLarge(message string) *StatusError {
	return failure(http.StatusRequestEntityTooLarge, StatusReasonRequestEntityTooLarge,
		"Request entity too large: "+message, nil)
}

// NewUnsupportedMediaType is 415 UnsupportedMediaType, listing the media
// types accepted.
func NewUnsupportedMediaType(accepted []string) *StatusError {
	return failure(http.StatusUnsupportedMediaType, StatusReasonUnsupportedMediaType,
		"the body of the request was in an unknown format - accepted media types include: "+strings.Join(accepted, ", "), nil)
}

// NewInvalid is 422 Invalid with one cause per field error:
// `Deployment.apps "myapp" is invalid: spec.replicas: Invalid value: -1: ...`.
func NewInvalid(gk GroupKind, name string, errs FieldErrors) *StatusError {
	causes := make([]StatusCause, 0, len(errs))
	for _, e := range errs {
		causes = append(causes, StatusCause{Type: e.Type, Message: e.Body(), Field: e.Field})
	}
	msg := fmt.Sprintf("%s %q is invalid", gk, name)
	if agg := errs.aggregate(); agg != "" {
		msg += ": " + agg
	}
	return failure(http.StatusUnprocessableEntity, StatusReasonInvalid, msg,
		&StatusDetails{Name: name, Group: gk.Group, Kind: gk.Kind, Causes: causes})
}

// NewTooManyRequests is 429 TooManyRequests with a retry hint.
func NewTooManyRequests(message string, retryAfterSeconds int) *StatusError {
	return failure(http.StatusTooManyRequests, StatusReasonTooManyRequests, message,
		&StatusDetails{RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewInternalError is 500 InternalError wrapping err.
func NewInternalError(err error) *StatusError {
	return failure(http.StatusInternalServerError, StatusReasonInternalError,
		fmt.Sprintf("Internal error occurred: %v", err),
		&StatusDetails{Causes: []StatusCause{{Message: err.Error()}}})
}

// NewServiceUnavailable is 503 ServiceUnavailable.
func NewServiceUnavailable(message string) *StatusError {
	return failure(http.StatusServiceUnavailable, StatusReasonServiceUnavailable, message, nil)
}

// NewTimeout is 504 Timeout, e.g. a request that waited too long on etcd.
func NewTimeout(message string, retryAfterSeconds int) *StatusError {
	return failure(http.StatusGatewayTimeout, StatusReasonTimeout, "Timeout: "+message,
		&StatusDetails{RetryAfterSeconds: int32(retryAfterSeconds)})
}

// statusOfErr finds a *StatusError anywhere in err's %w chain.
func statusOfErr(err error) (*StatusError, bool) {
	var se *StatusError
	if errors.As(err, &se) && se != nil {
		return se, true
	}
	return nil, false
}

// ReasonOf is the reason of the StatusError wrapped in err, or
// StatusReasonUnknown.
func ReasonOf(err error) StatusReason {
	if se, ok := statusOfErr(err); ok {
		return se.Status.Reason
	}
	return StatusReasonUnknown
}

// CodeOf is the HTTP code of the StatusError wrapped in err, or 0.
func CodeOf(err error) int32 {
	if se, ok := statusOfErr(err); ok {
		return se.Status.Code
	}
	return 0
}

// StatusOf is the Status to answer with for err: its own if it wraps a
// StatusError, otherwise a 500 InternalError.
func StatusOf(err error) Status {
	if se, ok := statusOfErr(err); ok {
		return se.Status
	}
	return NewInternalError(err).Status
}

// IsNotFound reports a NotFound StatusError anywhere in err's chain.
func IsNotFound(err error) bool { return ReasonOf(err) == StatusReasonNotFound }

// IsAlreadyExists reports an AlreadyExists StatusError.
func IsAlreadyExists(err error) bool { return ReasonOf(err) == StatusReasonAlreadyExists }

// IsConflict reports a Conflict StatusError (not AlreadyExists, though both
// are 409).
func IsConflict(err error) bool { return ReasonOf(err) == StatusReasonConflict }

// IsInvalid reports an Invalid StatusError.
func IsInvalid(err error) bool { return ReasonOf(err) == StatusReasonInvalid }

// IsBadRequest reports a BadRequest StatusError.
func IsBadRequest(err error) bool { return ReasonOf(err) == StatusReasonBadRequest }

// IsResourceExpired reports an Expired or Gone StatusError: either way the
// client must relist.
func IsResourceExpired(err error) bool {
	r := ReasonOf(err)
	return r == StatusReasonExpired || r == StatusReasonGone
}
