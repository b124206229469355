package api

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestStatusConstructors(t *testing.T) {
	deploy := GroupResource{Group: "apps", Resource: "deployments"}
	pods := GroupResource{Resource: "pods"}
	for _, tc := range []struct {
		err    *StatusError
		code   int32
		reason StatusReason
		msg    string
	}{
		{NewBadRequest("bad body"), 400, StatusReasonBadRequest, "bad body"},
		{NewUnauthorized(""), 401, StatusReasonUnauthorized, "not authorized"},
		{NewForbidden(pods, "web", errors.New("no")), 403, StatusReasonForbidden, `pods "web" is forbidden: no`},
		{NewNotFound(deploy, "myapp"), 404, StatusReasonNotFound, `deployments.apps "myapp" not found`},
		{NewNotFound(pods, "web-0"), 404, StatusReasonNotFound, `pods "web-0" not found`},
		{NewMethodNotSupported(pods, "deletecollection"), 405, StatusReasonMethodNotAllowed,
			`deletecollection is not supported on resources of kind "pods"`},
		{NewNotAcceptable([]string{"application/json", "application/yaml"}), 406, StatusReasonNotAcceptable,
			"only the following media types are accepted: application/json, application/yaml"},
		{NewAlreadyExists(deploy, "myapp"), 409, StatusReasonAlreadyExists, `deployments.apps "myapp" already exists`},
		{NewOptimisticLockConflict(deploy, "myapp"), 409, StatusReasonConflict,
			`Operation cannot be fulfilled on deployments.apps "myapp": the object has been modified; please apply your changes to the latest version and try again`},
		{NewGone("gone"), 410, StatusReasonGone, "gone"},
		{NewResourceExpired("too old resource version: 5 (90)"), 410, StatusReasonExpired, "too old resource version: 5 (90)"},
		{NewRequestEntityTooLarge("limit is 3145728"), 413, StatusReasonRequestEntityTooLarge, "Request entity too large: limit is 3145728"},
		{NewUnsupportedMediaType([]string{"application/json"}), 415, StatusReasonUnsupportedMediaType,
			"the body of the request was in an unknown format - accepted media types include: application/json"},
		{NewInvalid(GroupKind{Kind: "Pod"}, "p", FieldErrors{FieldRequired("spec.containers", "")}), 422, StatusReasonInvalid,
			`Pod "p" is invalid: spec.containers: Required value`},
		{NewTooManyRequests("slow down", 3), 429, StatusReasonTooManyRequests, "slow down"},
		{NewInternalError(errors.New("etcd down")), 500, StatusReasonInternalError, "Internal error occurred: etcd down"},
		{NewServiceUnavailable("starting"), 503, StatusReasonServiceUnavailable, "starting"},
		{NewTimeout("waiting for etcd", 1), 504, StatusReasonTimeout, "Timeout: waiting for etcd"},
	} {
		s := tc.err.Status
		assert.Equal(t, tc.code, s.Code, tc.msg)
		assert.Equal(t, tc.reason, s.Reason, tc.msg)
		assert.Equal(t, tc.msg, tc.err.Error())
		assert.Equal(t, StatusFailure, s.Status)
		assert.Equal(t, metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, s.TypeMeta)
	}
	nf := NewNotFound(deploy, "myapp").Status.Details
	assert.Equal(t, &StatusDetails{Name: "myapp", Group: "apps", Kind: "deployments"}, nf)
	assert.Equal(t, int32(3), NewTooManyRequests("x", 3).Status.Details.RetryAfterSeconds)
	assert.Equal(t, "etcd down", NewInternalError(errors.New("etcd down")).Status.Details.Causes[0].Message)
}

func TestStatusHelpersSeeThroughWrapping(t *testing.T) {
	gr := GroupResource{Group: "apps", Resource: "deployments"}
	wrapped := fmt.Errorf("store: get: %w", NewNotFound(gr, "x"))
	twice := fmt.Errorf("client: %w", wrapped)
	assert.True(t, IsNotFound(twice))
	assert.Equal(t, StatusReasonNotFound, ReasonOf(twice))
	assert.Equal(t, int32(404), CodeOf(twice))
	assert.False(t, IsConflict(twice))

	conflict := fmt.Errorf("update: %w", NewOptimisticLockConflict(gr, "x"))
	assert.True(t, IsConflict(conflict))
	exists := fmt.Errorf("create: %w", NewAlreadyExists(gr, "x"))
	assert.True(t, IsAlreadyExists(exists))
	assert.False(t, IsConflict(exists), "AlreadyExists is 409 but not a Conflict")
	assert.True(t, IsResourceExpired(fmt.Errorf("watch: %w", NewResourceExpired("old"))))
	assert.True(t, IsResourceExpired(NewGone("old")))
	assert.True(t, IsInvalid(fmt.Errorf("x: %w", NewInvalid(GroupKind{Kind: "Pod"}, "p", nil))))
	assert.True(t, IsBadRequest(errors.Join(errors.New("a"), NewBadRequest("b"))))

	plain := errors.New("boom")
	assert.Equal(t, StatusReasonUnknown, ReasonOf(plain))
	assert.Equal(t, int32(0), CodeOf(plain))
	assert.False(t, IsNotFound(nil))
	assert.Equal(t, int32(500), StatusOf(plain).Code)
	assert.Equal(t, int32(409), StatusOf(conflict).Code)
}

func TestNewInvalidWithoutErrorsAndDuplicates(t *testing.T) {
	assert.Equal(t, `Pod "p" is invalid`, NewInvalid(GroupKind{Kind: "Pod"}, "p", nil).Error())
	e := FieldRequired("spec.x", "")
	err := NewInvalid(GroupKind{Group: "apps", Kind: "Deployment"}, "d", FieldErrors{e, e})
	assert.Equal(t, `Deployment.apps "d" is invalid: spec.x: Required value`, err.Error(), "duplicate messages collapse")
	assert.Len(t, err.Status.Details.Causes, 2)
}

func TestFieldErrorBodies(t *testing.T) {
	for _, tc := range []struct {
		err  *FieldError
		want string
	}{
		{FieldRequired("f", ""), "f: Required value"},
		{FieldRequired("f", "name or generateName is required"), "f: Required value: name or generateName is required"},
		{FieldInvalid("f", int64(-1), "must be greater than or equal to 0"), "f: Invalid value: -1: must be greater than or equal to 0"},
		{FieldInvalid("f", "X", "bad"), `f: Invalid value: "X": bad`},
		{FieldInvalid("f", map[string]string{"a": "b"}, "bad"), `f: Invalid value: {"a":"b"}: bad`},
		{FieldDuplicate("f", "c"), `f: Duplicate value: "c"`},
		{FieldNotSupported("f", "x", []string{"A", "B"}), `f: Unsupported value: "x": supported values: "A", "B"`},
		{FieldForbidden("f", "not allowed on this type"), "f: Forbidden: not allowed on this type"},
		{FieldTooLong("f", 10), "f: Too long: may not be more than 10 bytes"},
	} {
		assert.Equal(t, tc.want, tc.err.Error())
	}
}
