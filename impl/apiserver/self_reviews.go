package apiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/converge-dev/converge/impl/api"
)

// The two other reviews a caller makes about itself, served as
// kube-apiserver serves them (create only, nothing stored):
// SelfSubjectRulesReview (`kubectl auth can-i --list`) lists what the
// rules let the caller do in a namespace, and SelfSubjectReview (`kubectl
// auth whoami`) says who the caller was authenticated as.

// authenticationGroup serves SelfSubjectReviews.
const authenticationGroup = "authentication.k8s.io"

const (
	rulesReviewPath = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
	selfReviewPath  = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
)

// selfReviewRules: any authenticated user may ask about themselves, as
// upstream's system:basic-user role allows; a rules review lists it.
var selfReviewRules = []authorizationv1.ResourceRule{
	{Verbs: []string{"create"}, APIGroups: []string{authenticationGroup}, Resources: []string{"selfsubjectreviews"}},
	{Verbs: []string{"create"}, APIGroups: []string{authorizationGroup}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
}

// readReview decodes a review body strictly into v; false once it has
// answered with an error.
func (s *Server) readReview(w http.ResponseWriter, r *http.Request, gr api.GroupResource, kind string, v any) bool {
	if r.Method != http.MethodPost {
		writeError(w, api.NewMethodNotSupported(gr, r.Method))
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.maxBody)
	b, _, err := readBody(r)
	if err != nil {
		writeError(w, err)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, api.NewBadRequest("malformed "+kind+": "+err.Error()))
		return false
	}
	return true
}

// rulesReview answers a SelfSubjectRulesReview for u: each rule that
// names u (or one of its groups) and covers the namespace, as a resource
// rule. converge's rules do not name API groups, so each rule's is "*".
// Non-resource URLs have rules only when everything is allowed.
func (s *Server) rulesReview(w http.ResponseWriter, r *http.Request, u User) {
	var rev authorizationv1.SelfSubjectRulesReview
	gr := api.GroupResource{Group: authorizationGroup, Resource: "selfsubjectrulesreviews"}
	if !s.readReview(w, r, gr, "SelfSubjectRulesReview", &rev) {
		return
	}
	if rev.Spec.Namespace == "" {
		writeError(w, api.NewBadRequest("no namespace on request")) // upstream's words
		return
	}
	rev.Status = authorizationv1.SubjectRulesReviewStatus{ResourceRules: slices.Clone(selfReviewRules),
		NonResourceRules: []authorizationv1.NonResourceRule{}}
	if s.auth == nil || s.auth.allowAll {
		rev.Status.ResourceRules = append(rev.Status.ResourceRules,
			authorizationv1.ResourceRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}})
		rev.Status.NonResourceRules = append(rev.Status.NonResourceRules,
			authorizationv1.NonResourceRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}})
	} else {
		for _, rule := range s.auth.rules {
			if rule.names(u) && rule.covers(rev.Spec.Namespace) {
				rev.Status.ResourceRules = append(rev.Status.ResourceRules, authorizationv1.ResourceRule{
					Verbs: slices.Clone(rule.Verbs), APIGroups: []string{"*"}, Resources: slices.Clone(rule.Resources)})
			}
		}
	}
	rev.TypeMeta = api.TypeMeta{Kind: "SelfSubjectRulesReview", APIVersion: authorizationGroup + "/v1"}
	writeJSON(w, http.StatusCreated, &rev)
}

// selfReview answers a SelfSubjectReview: the user the request was
// authenticated as.
func (s *Server) selfReview(w http.ResponseWriter, r *http.Request, u User) {
	var rev authenticationv1.SelfSubjectReview
	gr := api.GroupResource{Group: authenticationGroup, Resource: "selfsubjectreviews"}
	if !s.readReview(w, r, gr, "SelfSubjectReview", &rev) {
		return
	}
	rev.Status.UserInfo = authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: slices.Clone(u.Groups)}
	rev.TypeMeta = api.TypeMeta{Kind: "SelfSubjectReview", APIVersion: authenticationGroup + "/v1"}
	writeJSON(w, http.StatusCreated, &rev)
}
