package project

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// manifest decodes and defaults one of examples/*.yaml, as the apiserver
// would store it.
func manifest(t *testing.T, name string) []api.Object {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := api.DecodeManifests(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		api.Default(o)
	}
	return objs
}

func TestExampleManifestsProject(t *testing.T) {
	myapp := map[string]string{"app": "myapp"}
	echo := map[string]string{"app": "echo"}
	for _, c := range []struct {
		file string
		want []model.Obj
	}{
		{"my-app.yaml", []model.Obj{&model.Deployment{Meta: model.Meta{Namespace: "default", Name: "myapp", Labels: myapp},
			Replicas: 3, Image: "nginx:1.21.6", PodLabels: myapp, MaxSurge: percent(25), MaxUnavailable: percent(25)}}},
		{"my-service.yaml", []model.Obj{&model.Service{Meta: model.Meta{Namespace: "default", Name: "myapp"}, Selector: myapp, Ports: model.ServicePorts(80)}}},
		{"echo.yaml", []model.Obj{
			&model.Deployment{Meta: model.Meta{Namespace: "default", Name: "echo", Labels: echo},
				Replicas: 3, Image: "converge.local/echo:v1", PodLabels: echo, MaxSurge: percent(25), MaxUnavailable: percent(25)},
			&model.Service{Meta: model.Meta{Namespace: "default", Name: "echo"}, Selector: echo, Ports: []model.ServicePort{{Protocol: "TCP", Port: 80, TargetPort: 8080}}}}},
	} {
		var got []model.Obj
		for _, obj := range manifest(t, c.file) {
			o, err := ToModel(obj, NewUIDs())
			if err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			// The examples' templates declare ports (and more): their
			// digest is not empty. Its value is an opaque hash.
			if d, ok := o.(*model.Deployment); ok {
				if d.Template == "" {
					t.Errorf("%s: Deployment %s: empty template digest for a template with ports", c.file, d.Name)
				}
				d.Template = ""
			}
			got = append(got, o)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", c.file, got, c.want)
		}
	}
}

// storedEcho is the echo Deployment as stored, with an env var and a uid,
// so templates have something to lose.
func storedEcho(t *testing.T, uids *UIDs) (*api.Deployment, *model.Deployment) {
	t.Helper()
	d := manifest(t, "echo.yaml")[0].(*api.Deployment)
	d.UID, d.ResourceVersion, d.Generation = "d-uid", "7", 1
	d.Spec.Template.Spec.Containers[0].Env = []api.EnvVar{{Name: "GREETING", Value: "hi"}}
	d.Spec.Template.Annotations = map[string]string{"team": "edge"}
	o, err := ToModel(d, uids)
	if err != nil {
		t.Fatal(err)
	}
	return d, o.(*model.Deployment)
}

// A ReplicaSet made for a Deployment, and a Pod made for the ReplicaSet,
// keep the template's containers, ports, env, probes and annotations, and
// carry the hash label and the controller reference.
func TestTemplatesSurviveReplicaSetAndPod(t *testing.T) {
	uids := NewUIDs()
	d, dm := storedEcho(t, uids)
	hash := TemplateHash(d.Spec.Template)
	labels := map[string]string{"app": "echo", api.PodTemplateHashLabel: hash}
	rsm := &model.ReplicaSet{
		Meta:     model.Meta{Namespace: "default", Name: model.ReplicaSetName("echo", hash), Labels: labels, Owner: model.Owner{Kind: model.KindDeployment, Name: "echo", UID: dm.UID}},
		Replicas: 3, Image: dm.Image, PodLabels: labels, Hash: hash, Template: dm.Template, Revision: 1,
	}
	if dm.Template == "" {
		t.Fatal("the echo template holds ports, env and probes: its digest cannot be empty")
	}
	obj, err := New(rsm, d, uids)
	if err != nil {
		t.Fatal(err)
	}
	rs := obj.(*api.ReplicaSet)
	if rs.Namespace != "default" || rs.Kind != "ReplicaSet" || rs.APIVersion != "apps/v1" {
		t.Errorf("type and namespace: %q %q %q", rs.Kind, rs.APIVersion, rs.Namespace)
	}
	if !reflect.DeepEqual(rs.Labels, labels) || !reflect.DeepEqual(rs.Spec.Selector.MatchLabels, labels) || !reflect.DeepEqual(rs.Spec.Template.Labels, labels) {
		t.Errorf("labels %v selector %v template %v, want %v everywhere", rs.Labels, rs.Spec.Selector, rs.Spec.Template.Labels, labels)
	}
	wantRef := []api.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "echo", UID: "d-uid", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
	if !reflect.DeepEqual(rs.OwnerReferences, wantRef) {
		t.Errorf("ownerReferences %+v, want %+v", rs.OwnerReferences, wantRef)
	}
	wantSpec := d.Spec.Template.Spec
	if !reflect.DeepEqual(rs.Spec.Template.Spec, wantSpec) || rs.Spec.Template.Annotations["team"] != "edge" {
		t.Errorf("template changed:\n got %s\nwant %s", mustJSON(t, rs.Spec.Template), mustJSON(t, d.Spec.Template))
	}
	if err := api.Validate(rs); err != nil {
		t.Errorf("ReplicaSet invalid: %v", err)
	}
	if got, err := ToModel(rs, uids); err != nil || !reflect.DeepEqual(got, rsm) {
		t.Errorf("ReplicaSet round trip: %v\n got %#v\nwant %#v", err, got, rsm)
	}

	rs.UID = "rs-uid"
	stored, err := ToModel(rs, uids)
	if err != nil {
		t.Fatal(err)
	}
	pm := &model.Pod{
		Meta:  model.Meta{Namespace: "default", Labels: labels, Owner: model.Owner{Kind: model.KindReplicaSet, Name: rs.Name, UID: model.MetaOf(stored).UID}},
		Image: rsm.Image, CPU: model.DefaultPodCPU, Memory: model.DefaultPodMemory, Phase: model.PhasePending,
	}
	obj, err = New(pm, rs, uids)
	if err != nil {
		t.Fatal(err)
	}
	p := obj.(*api.Pod)
	if p.Name != "" || p.GenerateName != rs.Name+"-" || p.Namespace != "default" {
		t.Errorf("name %q generateName %q namespace %q", p.Name, p.GenerateName, p.Namespace)
	}
	c := p.Spec.Containers[0]
	tc := d.Spec.Template.Spec.Containers[0]
	if c.Name != "echo" || !reflect.DeepEqual(c.Ports, tc.Ports) || !reflect.DeepEqual(c.Env, tc.Env) ||
		!reflect.DeepEqual(c.ReadinessProbe, tc.ReadinessProbe) || c.ReadinessProbe == nil {
		t.Errorf("container lost template fields:\n got %s\nwant %s", mustJSON(t, c), mustJSON(t, tc))
	}
	if want := (api.ResourceList{"cpu": resource.MustParse("100m"), "memory": resource.MustParse("128Mi")}); !equality.Semantic.DeepEqual(c.Resources.Requests, want) {
		t.Errorf("requests %v, want %v", c.Resources.Requests, want)
	}
	if p.Annotations["team"] != "edge" || p.OwnerReferences[0].UID != "rs-uid" || p.OwnerReferences[0].Kind != "ReplicaSet" {
		t.Errorf("annotations %v owner %+v", p.Annotations, p.OwnerReferences)
	}
	if tc.Resources.Requests != nil {
		t.Errorf("New wrote requests into the Deployment's template: %v", tc.Resources.Requests)
	}
	if err := api.Validate(p); err != nil {
		t.Errorf("Pod invalid: %v", err)
	}
	if got, err := ToModel(p, uids); err != nil || !reflect.DeepEqual(got, pm) {
		t.Errorf("Pod round trip: %v\n got %#v\nwant %#v", err, got, pm)
	}
}

// Endpoints carry the model's ports, and list addresses that
// point back at their pods.
func TestEndpointsFromService(t *testing.T) {
	svc := ServiceFor("web", "web", 80)
	svc.Spec.Ports[0].Name = "http"
	e := &model.Endpoints{Meta: model.Meta{Namespace: "default", Name: "web"}, Ports: []model.EndpointPort{{Name: "http", Protocol: "TCP", Port: 80}}, Addresses: []model.Address{
		{Pod: "web-b", IP: "127.100.0.3", Node: "n1"}, {Pod: "web-a", IP: "127.100.1.2", Node: "n2"}}}
	obj, err := New(e, svc, NewUIDs())
	if err != nil {
		t.Fatal(err)
	}
	ep := obj.(*api.Endpoints)
	want := []api.EndpointSubset{{
		Addresses: []api.EndpointAddress{
			{IP: "127.100.1.2", NodeName: ptr("n2"), TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-a"}},
			{IP: "127.100.0.3", NodeName: ptr("n1"), TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-b"}},
		},
		Ports: []api.EndpointPort{{Name: "http", Port: 80, Protocol: api.ProtocolTCP}},
	}}
	if !reflect.DeepEqual(ep.Subsets, want) {
		t.Errorf("subsets:\n got %s\nwant %s", mustJSON(t, ep.Subsets), mustJSON(t, want))
	}
	if err := api.Validate(ep); err != nil {
		t.Errorf("Endpoints invalid: %v", err)
	}
	// No ready pod: no subset, which Kubernetes would reject, and no port.
	empty, err := Apply(ep, &model.Endpoints{Meta: model.Meta{Namespace: "default", Name: "web"}}, NewUIDs())
	if err != nil {
		t.Fatal(err)
	}
	if ep := empty.(*api.Endpoints); ep.Subsets != nil {
		t.Errorf("empty Endpoints kept subsets %s", mustJSON(t, ep.Subsets))
	}
	if err := api.Validate(empty); err != nil {
		t.Errorf("empty Endpoints invalid: %v", err)
	}
}
