package project

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// An object whose controller is of a kind the model does not have (a
// custom resource of no served CRD) is the model's to run
// as unowned, and writing the model's changes back keeps that reference.
func TestForeignControllerIsKept(t *testing.T) {
	uids := NewUIDs()
	widget, d := widgetDeployment()
	o, err := ToModel(d, uids)
	if err != nil {
		t.Fatal(err)
	}
	if o.(*model.Deployment).Owner != (model.Owner{}) {
		t.Fatalf("the model sees owner %+v", o.(*model.Deployment).Owner)
	}
	cp := *o.(*model.Deployment)
	n := &cp
	n.Labels = map[string]string{"changed": "yes"}
	back, err := Apply(d, n, uids)
	if err != nil {
		t.Fatal(err)
	}
	if refs := api.Meta(back).OwnerReferences; len(refs) != 1 || !reflect.DeepEqual(refs[0], widget) {
		t.Fatalf("owner references after Apply: %+v", refs)
	}
}

// A served custom resource's controller is the model's KindCustom owner,
// named by the resource's full name. Apply keeps the reference, also once
// the CRD went (the model only ever keeps a custom owner, or clears it),
// and a cluster-scoped custom controller of a namespaced object is left
// invisible, as the model looks an owner up in its dependent's namespace.
func TestCustomControllerIsAnOwner(t *testing.T) {
	info := api.ResourceInfo{Resource: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList", Group: "example.com",
		Version: "v1", Namespaced: true, Verbs: []string{"get", "list"}}
	require.NoError(t, api.RegisterCustom(t.Name(), api.CustomResource{Info: info, Served: []string{"v1"}}))
	defer api.UnregisterCustom(t.Name(), "widgets")
	uids := NewUIDs()
	widget, d := widgetDeployment()
	o, err := ToModel(d, uids)
	require.NoError(t, err)
	require.Equal(t, model.Owner{Kind: model.KindCustom, Type: "widgets.example.com", Name: "hello", UID: uids.Of("w-1")}, model.MetaOf(o).Owner)

	apply := func() {
		t.Helper()
		n := *o.(*model.Deployment)
		n.Labels = map[string]string{"changed": "yes"}
		back, err := Apply(d, &n, uids)
		require.NoError(t, err)
		require.Equal(t, []api.OwnerReference{widget}, api.Meta(back).OwnerReferences)
	}
	apply()
	api.UnregisterCustom(t.Name(), "widgets")
	apply()

	info.Namespaced = false
	require.NoError(t, api.RegisterCustom(t.Name(), api.CustomResource{Info: info, Served: []string{"v1"}}))
	o, err = ToModel(d, uids)
	require.NoError(t, err)
	require.Equal(t, model.Owner{}, model.MetaOf(o).Owner, "a cluster-scoped controller of a namespaced object")
}

// widgetDeployment is a Deployment whose controller is the Widget hello.
func widgetDeployment() (api.OwnerReference, *api.Deployment) {
	yes := true
	widget := api.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "hello", UID: "w-1", Controller: &yes, BlockOwnerDeletion: &yes}
	d := &api.Deployment{TypeMeta: api.TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"},
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "5", UID: "d-1",
			OwnerReferences: []api.OwnerReference{widget}},
		Spec: api.DeploymentSpec{Replicas: ptr[int32](2), Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}}}
	api.Default(d)
	return widget, d
}

// An object of a built-in kind the model lacks projects as an opaque
// object named by its resource, its owner as any object's; Apply writes
// back only its metadata (the garbage collector's orphaning) and keeps
// its body.
func TestKindsTheModelLacksAreOpaque(t *testing.T) {
	uids := NewUIDs()
	_, d := widgetDeployment()
	dep, err := ToModel(d, uids) // the owner, for its uid
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	cm := &api.ConfigMap{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: api.ObjectMeta{Name: "cfg", Namespace: "default", OwnerReferences: []api.OwnerReference{
			{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: &yes}}},
		Data: map[string]string{"k": "v"}}
	o, err := ToModel(cm, uids)
	require.NoError(t, err)
	c, ok := o.(*model.Custom)
	require.True(t, ok, "%T", o)
	require.Equal(t, "configmaps", c.Type)
	require.Equal(t, `{"data":{"k":"v"}}`, c.Body)
	require.Equal(t, model.Owner{Kind: model.KindDeployment, Name: d.Name, UID: model.MetaOf(dep).UID}, c.Owner)
	require.Equal(t, "configmaps", ResourceOf(model.RefOf(c)))

	orphaned := *c
	orphaned.Owner = model.Owner{}
	back, err := Apply(cm, &orphaned, uids)
	require.NoError(t, err)
	require.Empty(t, api.Meta(back).OwnerReferences)
	require.Equal(t, cm.Data, back.(*api.ConfigMap).Data)
	require.Len(t, cm.OwnerReferences, 1, "Apply left its base alone")
}
