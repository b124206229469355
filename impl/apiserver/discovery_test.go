package apiserver

import (
	"slices"
	"testing"
)

func TestDiscoveryDocuments(t *testing.T) {
	e := newEnv(t)
	aggregated := "Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"

	var v VersionInfo
	e.must(200, "GET", "/version", "").into(t, &v)
	if v.Major != "1" || v.GitVersion == "" {
		t.Fatalf("version: %+v", v)
	}
	var versions apiVersions
	r := e.must(200, "GET", "/api", "", aggregated)
	if r.hdr.Get("Content-Type") != "application/json" {
		t.Fatalf("/api Content-Type %q", r.hdr.Get("Content-Type"))
	}
	r.into(t, &versions)
	if versions.Kind != "APIVersions" || !slices.Equal(versions.Versions, []string{"v1"}) {
		t.Fatalf("/api: %+v", versions)
	}
	var groups apiGroupList
	e.must(200, "GET", "/apis", "", aggregated).into(t, &groups)
	if groups.Kind != "APIGroupList" || len(groups.Groups) != 6 || groups.Groups[0].Name != "apps" || groups.Groups[0].PreferredVersion.GroupVersion != "apps/v1" ||
		groups.Groups[1].Name != "events.k8s.io" || groups.Groups[2].Name != "authorization.k8s.io" || groups.Groups[3].Name != "batch" ||
		groups.Groups[4].Name != "coordination.k8s.io" || groups.Groups[5].Name != "discovery.k8s.io" {
		t.Fatalf("/apis: %+v", groups)
	}

	find := func(l apiResourceList, name string) apiResource {
		t.Helper()
		for _, r := range l.Resources {
			if r.Name == name {
				return r
			}
		}
		t.Fatalf("%s has no %s", l.GroupVersion, name)
		return apiResource{}
	}
	var core apiResourceList
	e.must(200, "GET", "/api/v1", "").into(t, &core)
	if core.Kind != "APIResourceList" || core.GroupVersion != "v1" {
		t.Fatalf("/api/v1: %+v", core)
	}
	pods := find(core, "pods")
	if !pods.Namespaced || pods.Kind != "Pod" || pods.SingularName != "pod" || !slices.Contains(pods.ShortNames, "po") || !slices.Contains(pods.Verbs, "watch") {
		t.Fatalf("pods: %+v", pods)
	}
	if b := find(core, "pods/binding"); b.Kind != "Binding" || !slices.Equal(b.Verbs, []string{"create"}) {
		t.Fatalf("pods/binding: %+v", b)
	}
	find(core, "pods/status")
	if n := find(core, "nodes"); n.Namespaced {
		t.Fatalf("nodes namespaced")
	}
	var apps apiResourceList
	e.must(200, "GET", "/apis/apps/v1", "").into(t, &apps)
	if sc := find(apps, "deployments/scale"); sc.Kind != "Scale" || sc.Group != "autoscaling" || sc.Version != "v1" {
		t.Fatalf("deployments/scale: %+v", sc)
	}
	find(apps, "replicasets/scale")
	find(apps, "deployments/status")
	var as apiResourceList
	e.must(200, "GET", "/apis/autoscaling/v1", "").into(t, &as)
	if as.GroupVersion != "autoscaling/v1" {
		t.Fatalf("autoscaling: %+v", as)
	}
	e.must(405, "POST", "/api/v1", "{}")
}
