package clients

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
)

// TestDynamicClientOnEveryServedResource: discovery lists the resources
// (with the stored-only kinds among them), and a dynamic client lists
// and watches each one that has the verbs, reading what it created.
func TestDynamicClientOnEveryServedResource(t *testing.T) {
	c := start(t)
	if _, err := c.cs.AppsV1().Deployments("default").Create(ctx(t), deployment("dyn", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !hasVerbs(r.Verbs, "list", "watch") {
				continue
			}
			served[r.Name] = true
			ri := dyn.Resource(gv.WithResource(r.Name))
			list, err := ri.List(ctx(t), metav1.ListOptions{})
			if err != nil {
				t.Fatalf("list %s: %v", r.Name, err)
			}
			w, err := ri.Watch(ctx(t), metav1.ListOptions{ResourceVersion: list.GetResourceVersion(), TimeoutSeconds: ptrInt64(1)})
			if err != nil {
				t.Fatalf("watch %s: %v", r.Name, err)
			}
			for ev := range w.ResultChan() {
				if ev.Type == watch.Error {
					t.Fatalf("watch %s: %v", r.Name, ev.Object)
				}
			}
			if r.Name == "deployments" {
				got, err := ri.Namespace("default").Get(ctx(t), "dyn", metav1.GetOptions{})
				if err != nil || got.GetKind() != "Deployment" {
					t.Fatalf("get deployment: %v %v", got, err)
				}
			}
		}
	}
	for _, want := range []string{"pods", "deployments", "replicasets", "services", "endpoints", "nodes", "namespaces", "events",
		"configmaps", "secrets", "serviceaccounts", "leases", "endpointslices", "persistentvolumeclaims", "statefulsets",
		"daemonsets", "jobs"} {
		if !served[want] {
			t.Errorf("discovery lacks %s: %v", want, served)
		}
	}
}

func hasVerbs(have []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

func ptrInt64(v int64) *int64 { return &v }
