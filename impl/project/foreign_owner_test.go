package project

import (
	"reflect"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// An object whose controller is of a kind the model does not have (a
// custom resource, as an operator's Deployment has) is the model's to run
// as unowned, and writing the model's changes back keeps that reference.
func TestForeignControllerIsKept(t *testing.T) {
	uids := NewUIDs()
	yes := true
	widget := api.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "hello", UID: "w-1", Controller: &yes, BlockOwnerDeletion: &yes}
	d := &api.Deployment{TypeMeta: api.TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"},
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "5", UID: "d-1",
			OwnerReferences: []api.OwnerReference{widget}},
		Spec: api.DeploymentSpec{Replicas: ptr[int32](2), Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}}}
	api.Default(d)
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
	if refs := back.GetObjectMeta().OwnerReferences; len(refs) != 1 || !reflect.DeepEqual(refs[0], widget) {
		t.Fatalf("owner references after Apply: %+v", refs)
	}
}
