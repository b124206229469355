package apiserver

import (
	"slices"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDiscoveryDocuments(t *testing.T) {
	e := newEnv(t)
	aggregated := "Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"

	var v VersionInfo
	e.must(200, "GET", "/version", "").into(t, &v)
	if v.Major != "1" || v.GitVersion == "" {
		t.Fatalf("version: %+v", v)
	}
	var versions metav1.APIVersions
	r := e.must(200, "GET", "/api", "")
	if r.hdr.Get("Content-Type") != "application/json" {
		t.Fatalf("/api Content-Type %q", r.hdr.Get("Content-Type"))
	}
	r.into(t, &versions)
	if versions.Kind != "APIVersions" || !slices.Equal(versions.Versions, []string{"v1"}) {
		t.Fatalf("/api: %+v", versions)
	}
	var groups metav1.APIGroupList
	e.must(200, "GET", "/apis", "").into(t, &groups)
	var names []string
	for _, g := range groups.Groups {
		names = append(names, g.Name)
	}
	if groups.Kind != "APIGroupList" || groups.Groups[0].PreferredVersion.GroupVersion != "apps/v1" ||
		strings.Join(names, " ") != "apps events.k8s.io authentication.k8s.io apiextensions.k8s.io authorization.k8s.io autoscaling batch coordination.k8s.io discovery.k8s.io networking.k8s.io policy rbac.authorization.k8s.io" {
		t.Fatalf("/apis: %+v", groups)
	}
	var group metav1.APIGroup
	e.must(200, "GET", "/apis/batch", "").into(t, &group)
	if group.Kind != "APIGroup" || group.Name != "batch" || group.PreferredVersion.Version != "v1" {
		t.Fatalf("/apis/batch: %+v", group)
	}
	e.must(404, "GET", "/apis/batch/v2", "")

	// Aggregated discovery, as client-go and kubectl ask for it first: the
	// whole of /api or /apis in one document, subresources with their
	// kinds, in the Content-Type client-go recognises.
	r = e.must(200, "GET", "/apis", "", aggregated)
	if ct := r.hdr.Get("Content-Type"); ct != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" {
		t.Fatalf("aggregated /apis Content-Type %q", ct)
	}
	var agg apidiscoveryv2.APIGroupDiscoveryList
	r.into(t, &agg)
	if agg.Kind != "APIGroupDiscoveryList" || len(agg.Items) != len(groups.Groups) || agg.Items[0].Name != "apps" {
		t.Fatalf("aggregated /apis: %+v", agg)
	}
	var deployments *apidiscoveryv2.APIResourceDiscovery
	for i, rd := range agg.Items[0].Versions[0].Resources {
		if rd.Resource == "deployments" {
			deployments = &agg.Items[0].Versions[0].Resources[i]
		}
	}
	if deployments == nil || deployments.Scope != apidiscoveryv2.ScopeNamespace || deployments.ResponseKind.Kind != "Deployment" ||
		agg.Items[0].Versions[0].Freshness != apidiscoveryv2.DiscoveryFreshnessCurrent || len(deployments.Subresources) != 2 ||
		deployments.Subresources[1].Subresource != "scale" || deployments.Subresources[1].ResponseKind.Group != "autoscaling" {
		t.Fatalf("aggregated deployments: %+v", deployments)
	}
	var core apidiscoveryv2.APIGroupDiscoveryList
	e.must(200, "GET", "/api", "", aggregated).into(t, &core)
	if len(core.Items) != 1 || core.Items[0].Name != "" || core.Items[0].Versions[0].Version != "v1" || len(core.Items[0].Versions[0].Resources) < 10 {
		t.Fatalf("aggregated /api: %+v", core)
	}

	find := func(l metav1.APIResourceList, name string) metav1.APIResource {
		t.Helper()
		for _, r := range l.APIResources {
			if r.Name == name {
				return r
			}
		}
		t.Fatalf("%s has no %s", l.GroupVersion, name)
		return metav1.APIResource{}
	}
	var v1 metav1.APIResourceList
	e.must(200, "GET", "/api/v1", "").into(t, &v1)
	if v1.Kind != "APIResourceList" || v1.GroupVersion != "v1" {
		t.Fatalf("/api/v1: %+v", v1)
	}
	pods := find(v1, "pods")
	if !pods.Namespaced || pods.Kind != "Pod" || pods.SingularName != "pod" || !slices.Contains(pods.ShortNames, "po") || !slices.Contains(pods.Verbs, "watch") {
		t.Fatalf("pods: %+v", pods)
	}
	if b := find(v1, "pods/binding"); b.Kind != "Binding" || !slices.Equal(b.Verbs, []string{"create"}) {
		t.Fatalf("pods/binding: %+v", b)
	}
	find(v1, "pods/status")
	if n := find(v1, "nodes"); n.Namespaced {
		t.Fatalf("nodes namespaced")
	}
	var apps metav1.APIResourceList
	e.must(200, "GET", "/apis/apps/v1", "").into(t, &apps)
	if sc := find(apps, "deployments/scale"); sc.Kind != "Scale" || sc.Group != "autoscaling" || sc.Version != "v1" {
		t.Fatalf("deployments/scale: %+v", sc)
	}
	find(apps, "replicasets/scale")
	find(apps, "deployments/status")
	var as metav1.APIResourceList
	e.must(200, "GET", "/apis/autoscaling/v1", "").into(t, &as)
	if as.GroupVersion != "autoscaling/v1" {
		t.Fatalf("autoscaling: %+v", as)
	}
	e.must(405, "POST", "/api/v1", "{}")
}
