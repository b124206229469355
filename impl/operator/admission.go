package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	jsonpatch "github.com/evanphx/json-patch/v5"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	webhookerrors "k8s.io/apiserver/pkg/admission/plugin/webhook/errors"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// Admission runs the operator's admission webhooks on the registry's
// creates and updates (registry.SetAdmission), as kube-apiserver calls
// them: the mutating one before validation, the validating one after. A
// webhook serves the kind its path names, by controller-runtime's
// convention for the webhooks its builder registers
// (/mutate-<group with dashes>-<version>-<kind>, /validate-...), as
// kubebuilder's generated configuration routes them. It runs those of the
// operator's current life; while it has none, writes pass.
func (h *Host) Admission() registry.Admission { return hostAdmission{h} }

type hostAdmission struct{ h *Host }

// reviews numbers the requests, so that each has a uid of its own.
var reviews atomic.Int64

func (a hostAdmission) Mutate(ctx context.Context, old, obj api.Object) (api.Object, error) {
	path, info, ok := a.route("/mutate-", obj)
	if !ok {
		return obj, nil
	}
	raw, err := api.Marshal(obj)
	if err != nil {
		return nil, err
	}
	resp, err := a.review(ctx, path, info, old, obj, raw)
	if err != nil {
		return nil, err
	}
	if resp.Patch == nil {
		return obj, nil
	}
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		return nil, api.NewInternalError(fmt.Errorf("admission webhook %q answered a patch that is not a JSONPatch", path))
	}
	p, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		return nil, api.NewInternalError(fmt.Errorf("admission webhook %q answered a bad patch: %w", path, err))
	}
	patched, err := p.Apply(raw)
	if err != nil {
		return nil, api.NewInternalError(fmt.Errorf("admission webhook %q answered a patch that does not apply: %w", path, err))
	}
	return api.DecodeAt(info.Resource, info.APIVersion(), patched)
}

func (a hostAdmission) Validate(ctx context.Context, old, obj api.Object) error {
	path, info, ok := a.route("/validate-", obj)
	if !ok {
		return nil
	}
	raw, err := api.Marshal(obj)
	if err != nil {
		return err
	}
	_, err = a.review(ctx, path, info, old, obj, raw)
	return err
}

// route is the path of the webhook of prefix's sort for obj's kind, if the
// operator registered one.
func (a hostAdmission) route(prefix string, obj api.Object) (string, api.ResourceInfo, bool) {
	info, ok := api.ResourceFor(obj)
	if !ok {
		return "", info, false
	}
	path := prefix + strings.ReplaceAll(info.Group, ".", "-") + "-" + info.Version + "-" + strings.ToLower(info.Kind)
	if _, ok := a.hooksNow().handler(path); !ok {
		return "", info, false
	}
	return path, info, true
}

// review sends obj to the webhook at path in an AdmissionReview and
// returns its answer; a denial is the error kube-apiserver answers with.
func (a hostAdmission) review(ctx context.Context, path string, info api.ResourceInfo, old, obj api.Object, raw []byte) (*admissionv1.AdmissionResponse, error) {
	m := api.Meta(obj)
	gvk := metav1.GroupVersionKind{Group: info.Group, Version: info.Version, Kind: info.Kind}
	gvr := metav1.GroupVersionResource{Group: info.Group, Version: info.Version, Resource: info.Resource}
	req := &admissionv1.AdmissionRequest{
		UID:  types.UID(fmt.Sprintf("converge-review-%d", reviews.Add(1))),
		Kind: gvk, Resource: gvr, RequestKind: &gvk, RequestResource: &gvr,
		Name: m.Name, Namespace: m.Namespace,
		Operation: admissionv1.Create,
		UserInfo:  authenticationv1.UserInfo{Username: "converge"},
		Object:    runtime.RawExtension{Raw: raw},
		DryRun:    new(registry.IsDryRun(ctx)),
	}
	if old != nil {
		req.Operation = admissionv1.Update
		oldRaw, err := api.Marshal(old)
		if err != nil {
			return nil, err
		}
		req.OldObject = runtime.RawExtension{Raw: oldRaw}
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Request: req})
	if err != nil {
		return nil, err
	}
	h, ok := a.hooksNow().handler(path)
	if !ok { // the operator restarted without it
		return &admissionv1.AdmissionResponse{Allowed: true}, nil
	}
	rec := httptest.NewRecorder()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, hr)
	var review admissionv1.AdmissionReview
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &review) != nil || review.Response == nil {
		return nil, api.NewInternalError(fmt.Errorf("failed calling webhook %q: HTTP %d: %s", path, rec.Code, strings.TrimSpace(rec.Body.String())))
	}
	if !review.Response.Allowed {
		return nil, &api.StatusError{Status: webhookerrors.ToStatusErr(path, review.Response.Result).ErrStatus}
	}
	return review.Response, nil
}

func (a hostAdmission) hooksNow() *webhooks {
	a.h.mu.Lock()
	defer a.h.mu.Unlock()
	return a.h.hooks
}
