package apiserver

import (
	"slices"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/converge-dev/converge/impl/store/storetest"
)

// kubectl auth can-i --list asks with a SelfSubjectRulesReview: the rules
// that name the caller and hold in the namespace, besides the reviews
// anyone may make about themselves.
func TestSelfSubjectRulesReview(t *testing.T) {
	e := newEnvOn(t, storetest.Store(t), testAuth(t, false), nil)
	list := func(token, ns string) []authorizationv1.ResourceRule {
		t.Helper()
		var rev authorizationv1.SelfSubjectRulesReview
		e.must(201, "POST", rulesReviewPath, `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"`+ns+`"}}`,
			"Authorization: Bearer "+token).into(t, &rev)
		if rev.Kind != "SelfSubjectRulesReview" || rev.APIVersion != "authorization.k8s.io/v1" {
			t.Fatalf("answer %s %s", rev.APIVersion, rev.Kind)
		}
		return rev.Status.ResourceRules
	}
	has := func(rules []authorizationv1.ResourceRule, verb, resource string) bool {
		return slices.ContainsFunc(rules, func(r authorizationv1.ResourceRule) bool {
			return matches(r.Verbs, verb) && matches(r.Resources, resource)
		})
	}
	if r := list(viewerToken, "default"); !has(r, "list", "pods") || has(r, "delete", "pods") || !has(r, "create", "selfsubjectrulesreviews") {
		t.Fatalf("viewer's rules: %+v", r)
	}
	if r := list("dev-token", "dev"); !has(r, "delete", "pods") {
		t.Fatalf("dev's rules in dev: %+v", r)
	}
	if r := list("dev-token", "default"); has(r, "delete", "pods") {
		t.Fatalf("dev's rules in default hold a rule for the dev namespace only: %+v", r)
	}
	e.must(400, "POST", rulesReviewPath, `{"spec":{}}`, "Authorization: Bearer "+adminToken)
	e.must(400, "POST", rulesReviewPath, `{"spec":{"bogus":1}}`, "Authorization: Bearer "+adminToken)
	e.must(401, "POST", rulesReviewPath, `{"spec":{"namespace":"default"}}`)
	e.must(405, "GET", rulesReviewPath, "", "Authorization: Bearer "+adminToken)
}

// kubectl auth whoami asks with a SelfSubjectReview: the answer is the
// authenticated user.
func TestSelfSubjectReview(t *testing.T) {
	e := newEnvOn(t, storetest.Store(t), testAuth(t, false), nil)
	var rev authenticationv1.SelfSubjectReview
	e.must(201, "POST", selfReviewPath, `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`,
		"Authorization: Bearer dev-token").into(t, &rev)
	u := rev.Status.UserInfo
	if rev.Kind != "SelfSubjectReview" || u.Username != "dev" || u.UID != "3" || !slices.Equal(u.Groups, []string{"devs", "others", "system:authenticated"}) {
		t.Fatalf("whoami: %+v", rev)
	}
	e.must(401, "POST", selfReviewPath, `{}`)
	e.must(405, "GET", selfReviewPath, "", "Authorization: Bearer dev-token")
}

// Discovery lists both reviews, so kubectl finds them.
func TestSelfReviewsDiscovered(t *testing.T) {
	for group, resource := range map[string]string{authorizationGroup: "selfsubjectrulesreviews", authenticationGroup: "selfsubjectreviews"} {
		if !slices.ContainsFunc(resourceList(group, "v1").APIResources, func(r metav1.APIResource) bool { return r.Name == resource }) {
			t.Errorf("%s/v1 does not list %s", group, resource)
		}
		if !slices.Contains(listedGroups, group) {
			t.Errorf("/apis does not list %s", group)
		}
	}
}
