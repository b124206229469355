package apiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/converge-dev/converge/impl/api"
)

// SelfSubjectAccessReview is what `kubectl auth can-i` asks: may I do
// this? The answer comes from the same rules that authorize requests.

// accessReviewPath is where SelfSubjectAccessReviews are created.
const accessReviewPath = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"

type selfSubjectAccessReview struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta `json:"metadata"`
	Spec         struct {
		ResourceAttributes *struct {
			Namespace   string `json:"namespace,omitempty"`
			Verb        string `json:"verb,omitempty"`
			Group       string `json:"group,omitempty"`
			Version     string `json:"version,omitempty"`
			Resource    string `json:"resource,omitempty"`
			Subresource string `json:"subresource,omitempty"`
			Name        string `json:"name,omitempty"`
		} `json:"resourceAttributes,omitempty"`
		NonResourceAttributes *struct {
			Path string `json:"path,omitempty"`
			Verb string `json:"verb,omitempty"`
		} `json:"nonResourceAttributes,omitempty"`
	} `json:"spec"`
	Status accessReviewStatus `json:"status"`
}

type accessReviewStatus struct {
	Allowed bool   `json:"allowed"`
	Denied  bool   `json:"denied,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// accessReview answers a SelfSubjectAccessReview for u. Any authenticated
// user may ask about themselves, as upstream's system:basic-user allows.
func (s *Server) accessReview(w http.ResponseWriter, r *http.Request, u User) {
	if r.Method != http.MethodPost {
		writeError(w, api.NewMethodNotSupported(api.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}, r.Method))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.maxBody)
	b, _, err := readBody(r)
	if err != nil {
		writeError(w, err)
		return
	}
	var rev selfSubjectAccessReview
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rev); err != nil {
		writeError(w, api.NewBadRequest("malformed SelfSubjectAccessReview: "+err.Error()))
		return
	}
	switch ra, nra := rev.Spec.ResourceAttributes, rev.Spec.NonResourceAttributes; {
	case (ra == nil) == (nra == nil):
		writeError(w, api.NewInvalid(api.GroupKind{Group: "authorization.k8s.io", Kind: "SelfSubjectAccessReview"}, "",
			api.FieldErrors{api.FieldInvalid("spec.resourceAttributes", nil, "exactly one of resourceAttributes and nonResourceAttributes must be specified")}))
		return
	case ra != nil:
		info, ok := api.LookupResource(ra.Resource)
		if !ok || info.Group != ra.Group {
			info = api.ResourceInfo{Resource: ra.Resource, Group: ra.Group}
		}
		rt := route{Resource: info, Namespace: ra.Namespace, Name: ra.Name, Subresource: ra.Subresource}
		if err := s.auth.authorize(u, ra.Verb, rt); err != nil {
			rev.Status = accessReviewStatus{} // no reason, as RBAC gives none: kubectl prints "no"
		} else {
			rev.Status = accessReviewStatus{Allowed: true, Reason: "allowed by converge's authorization rules"}
		}
	default:
		// Non-resource URLs have no rules of their own: only an
		// allow-everything configuration admits them.
		rev.Status = accessReviewStatus{Allowed: s.auth == nil || s.auth.allowAll,
			Reason: fmt.Sprintf("converge's rules cover resources, not the URL %s", nra.Path)}
	}
	rev.TypeMeta = api.TypeMeta{Kind: "SelfSubjectAccessReview", APIVersion: "authorization.k8s.io/v1"}
	writeJSON(w, http.StatusCreated, &rev)
}
