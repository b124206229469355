package apiserver

import (
	"testing"

	"github.com/converge-dev/converge/impl/store/storetest"
)

// kubectl auth can-i asks with a SelfSubjectAccessReview; the answer is the
// rules' answer for the asking user, and asking needs no rule.
func TestSelfSubjectAccessReview(t *testing.T) {
	e := newEnvOn(t, storetest.Store(t), testAuth(t, false), nil)
	ask := func(token, attrs string) accessReviewStatus {
		t.Helper()
		var rev selfSubjectAccessReview
		e.must(201, "POST", accessReviewPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{`+attrs+`}}`,
			"Authorization: Bearer "+token).into(t, &rev)
		if rev.Kind != "SelfSubjectAccessReview" {
			t.Fatalf("answer kind %q", rev.Kind)
		}
		return rev.Status
	}
	pods := func(verb, ns string) string {
		return `"resourceAttributes":{"namespace":"` + ns + `","verb":"` + verb + `","resource":"pods"}`
	}
	if st := ask(adminToken, pods("create", "default")); !st.Allowed {
		t.Fatalf("admin may not create pods: %+v", st)
	}
	if st := ask(viewerToken, pods("get", "default")); !st.Allowed {
		t.Fatalf("viewer may not get pods: %+v", st)
	}
	if st := ask(viewerToken, pods("delete", "default")); st.Allowed || st.Reason != "" {
		t.Fatalf("viewer may delete pods: %+v", st)
	}
	if st := ask(viewerToken, `"nonResourceAttributes":{"path":"/logs","verb":"get"}`); st.Allowed {
		t.Fatalf("a non-resource URL is allowed by resource rules: %+v", st)
	}
	e.must(422, "POST", accessReviewPath, `{"spec":{}}`, "Authorization: Bearer "+adminToken)
	e.must(400, "POST", accessReviewPath, `{"spec":{"bogus":1}}`, "Authorization: Bearer "+adminToken)
	e.must(401, "POST", accessReviewPath, `{"spec":{}}`)
	e.must(405, "GET", accessReviewPath, "", "Authorization: Bearer "+adminToken)
}
