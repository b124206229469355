package api

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestResourceTable(t *testing.T) {
	for _, tc := range []struct {
		resource, kind, listKind, group, short string
		namespaced                             bool
		subresources                           []string
	}{
		{"deployments", "Deployment", "DeploymentList", "apps", "deploy", true, []string{"status", "scale"}},
		{"replicasets", "ReplicaSet", "ReplicaSetList", "apps", "rs", true, []string{"status", "scale"}},
		{"pods", "Pod", "PodList", "", "po", true, []string{"status", "binding", "log"}},
		{"nodes", "Node", "NodeList", "", "no", false, []string{"status"}},
		{"services", "Service", "ServiceList", "", "svc", true, []string{"status"}},
		{"endpoints", "Endpoints", "EndpointsList", "", "ep", true, nil},
		{"namespaces", "Namespace", "NamespaceList", "", "ns", false, []string{"status", "finalize"}},
		{"events", "Event", "EventList", "", "ev", true, nil},
	} {
		r, ok := LookupResource(tc.resource)
		require.True(t, ok, tc.resource)
		assert.Equal(t, tc.kind, r.Kind)
		assert.Equal(t, tc.listKind, r.ListKind)
		assert.Equal(t, tc.group, r.Group)
		assert.Equal(t, "v1", r.Version)
		assert.Equal(t, tc.namespaced, r.Namespaced, tc.resource)
		var subs []string
		for _, s := range r.Subresources {
			subs = append(subs, s.Name)
		}
		assert.Equal(t, tc.subresources, subs, tc.resource)

		byKind, ok := LookupKind(tc.kind)
		require.True(t, ok)
		assert.Equal(t, tc.resource, byKind.Resource)
		byShort, ok := LookupShortName(tc.short)
		require.True(t, ok)
		assert.Equal(t, tc.resource, byShort.Resource)

		obj, err := New(tc.resource)
		require.NoError(t, err)
		assert.Equal(t, TypeMeta{Kind: tc.kind, APIVersion: r.APIVersion()}, *TypeOf(obj))
		back, ok := ResourceFor(obj)
		require.True(t, ok)
		assert.Equal(t, tc.resource, back.Resource)

		list, err := NewList(tc.resource)
		require.NoError(t, err)
		assert.Equal(t, tc.listKind, TypeOf(list).Kind)
		require.NoError(t, SetItems(list, []Object{obj}))
		items := Items(list)
		require.Len(t, items, 1)
		Meta(items[0]).Name = "written-through"
		assert.Equal(t, "written-through", Meta(Items(list)[0]).Name, "items alias the list")
	}

	scale, ok := mustLookup(t, "deployments").Subresource("scale")
	require.True(t, ok)
	assert.Equal(t, "Scale", scale.Kind)
	assert.Equal(t, "autoscaling/v1", scale.APIVersion())
	b, _ := mustLookup(t, "pods").Subresource("binding")
	assert.Equal(t, []string{"create"}, b.Verbs)
	assert.Equal(t, "deployments.apps", mustLookup(t, "deployments").GroupResource().String())
	assert.Equal(t, "Deployment.apps", mustLookup(t, "deployments").GroupKind().String())
	assert.Equal(t, "pods", mustLookup(t, "pods").GroupResource().String())
	assert.Contains(t, mustLookup(t, "deployments").Categories, "all")
}

func mustLookup(t *testing.T, resource string) ResourceInfo {
	t.Helper()
	r, ok := LookupResource(resource)
	require.True(t, ok, resource)
	return r
}

func TestResourceTableIsNotShared(t *testing.T) {
	r := mustLookup(t, "deployments")
	r.ShortNames[0] = "mutated"
	r.Subresources[0].Verbs[0] = "mutated"
	again := mustLookup(t, "deployments")
	assert.Equal(t, []string{"deploy"}, again.ShortNames)
	assert.Equal(t, "get", again.Subresources[0].Verbs[0])
	assert.Len(t, Resources(), 28) // 9 with controllers or subresources, 18 stored only, and CustomResourceDefinitions
}

func TestResolveResource(t *testing.T) {
	for in, want := range map[string]string{
		"deploy": "deployments", "Deployment": "deployments", "deployments.apps": "deployments",
		"PO": "pods", "pod": "pods", "svc": "services", "ep": "endpoints", "endpoints": "endpoints",
		"no": "nodes", "ns": "namespaces", "rs": "replicasets",
		"ev": "events", "event": "events", "Event": "events",
	} {
		r, ok := ResolveResource(in)
		require.True(t, ok, in)
		assert.Equal(t, want, r.Resource, in)
	}
	for _, in := range []string{"deployments.core", "widgets", ""} {
		_, ok := ResolveResource(in)
		assert.False(t, ok, in)
	}
}

func TestUnknownResources(t *testing.T) {
	_, err := New("widgets")
	assert.True(t, errors.Is(err, ErrUnknownResource))
	_, err = NewList("bindings")
	assert.True(t, errors.Is(err, ErrUnknownResource), "bindings are create-only")
	_, ok := LookupKind("Scale")
	assert.False(t, ok, "Scale is only a subresource body")
	tm, ok := TypeMetaFor(&Scale{})
	require.True(t, ok)
	assert.Equal(t, TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"}, tm)
	_, ok = TypeMetaFor(42)
	assert.False(t, ok)
	l := &PodList{}
	assert.Error(t, SetItems(l, []Object{&Node{}}))
	assert.Error(t, SetItems(l, []Object{(*Pod)(nil)}))
}

func TestDeepCopySharesNothing(t *testing.T) {
	d := validDeployment()
	ts := Unix(42)
	d.DeletionTimestamp = &ts
	d.ManagedFields = []ManagedFieldsEntry{{Manager: "kubectl", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}}
	cp := DeepCopy(d)
	require.Equal(t, d, cp)

	cp.Labels["app"] = "changed"
	cp.Spec.Selector.MatchLabels["app"] = "changed"
	*cp.Spec.Replicas = 99
	cp.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort = 1
	cp.Spec.Strategy.RollingUpdate.MaxSurge.StrVal = "1%"
	cp.DeletionTimestamp.Time = cp.DeletionTimestamp.AddDate(1, 0, 0)
	cp.ManagedFields[0].FieldsV1.Raw[0] = '['

	assert.Equal(t, "myapp", d.Labels["app"])
	assert.Equal(t, "myapp", d.Spec.Selector.MatchLabels["app"])
	assert.Equal(t, int32(3), *d.Spec.Replicas)
	assert.Equal(t, int32(80), d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort)
	assert.Equal(t, "25%", d.Spec.Strategy.RollingUpdate.MaxSurge.StrVal)
	assert.Equal(t, int64(42), d.DeletionTimestamp.Unix())
	assert.Equal(t, byte('{'), d.ManagedFields[0].FieldsV1.Raw[0])

	// Through the interface, and for lists.
	var obj Object = validPod()
	objCopy := DeepCopy(obj)
	Meta(objCopy).Name = "other"
	assert.Equal(t, "web-0", Meta(obj).Name)
	list := &PodList{Items: []Pod{*validPod()}}
	lc := DeepCopy(list)
	lc.Items[0].Spec.Containers[0].Image = "changed"
	assert.Equal(t, "nginx:1.27", list.Items[0].Spec.Containers[0].Image)
	assert.Nil(t, DeepCopy((*Pod)(nil)))
}
