package project

import (
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// The template the model renders digests to "" before and after the
// apiserver defaults it and across image changes; anything else a user
// puts in the template changes the digest and so the pod-template-hash.
func TestTemplateDigest(t *testing.T) {
	uids := NewUIDs()
	m := &model.Deployment{Meta: model.Meta{Namespace: "default", Name: "web"}, Replicas: 2, Image: "nginx:1", PodLabels: map[string]string{"app": "web"}}
	obj, err := New(m, nil, uids)
	if err != nil {
		t.Fatal(err)
	}
	d := obj.(*api.Deployment)
	if got := templateDigest(d.Spec.Template); got != "" {
		t.Fatalf("rendered template digest %q, want empty", got)
	}
	api.Default(d)
	if got := templateDigest(d.Spec.Template); got != "" {
		t.Fatalf("defaulted template digest %q, want empty", got)
	}
	m2 := *m
	m2.Image = "nginx:latest" // another pull policy and container name follow
	moved, err := Apply(d, &m2, uids)
	if err != nil {
		t.Fatal(err)
	}
	md := moved.(*api.Deployment)
	api.Default(md)
	if got := templateDigest(md.Spec.Template); got != "" {
		t.Fatalf("after an image change the digest is %q, want empty", got)
	}

	base := TemplateHash(d.Spec.Template)
	if base != model.TemplateHash("nginx:1", map[string]string{"app": "web"}, "") {
		t.Fatalf("TemplateHash %q is not the model's", base)
	}
	seen := map[string]string{"bare": templateDigest(d.Spec.Template)}
	for name, change := range map[string]func(*api.PodTemplateSpec){
		"env": func(t *api.PodTemplateSpec) { t.Spec.Containers[0].Env = []api.EnvVar{{Name: "A", Value: "1"}} },
		"restart": func(t *api.PodTemplateSpec) {
			t.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "now"}
		},
		"port": func(t *api.PodTemplateSpec) { t.Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 80}} },
	} {
		c := api.DeepCopy(d.Spec.Template)
		change(&c)
		got := templateDigest(c)
		for other, g := range seen {
			if g == got {
				t.Errorf("%s digests as %s: %q", name, other, got)
			}
		}
		seen[name] = got
		if TemplateHash(c) == base {
			t.Errorf("%s leaves the pod-template-hash unchanged", name)
		}
		api.Default(&api.Deployment{Spec: api.DeploymentSpec{Template: c}})
		if templateDigest(c) != got {
			t.Errorf("%s: defaulting moves the digest", name)
		}
	}
}

// A ReplicaSet's revision is its deployment.kubernetes.io/revision
// annotation both ways; a malformed one reads as 0 and is left alone.
func TestReplicaSetRevisionAnnotation(t *testing.T) {
	uids := NewUIDs()
	labels := map[string]string{"app": "web", api.PodTemplateHashLabel: "h"}
	rs := &model.ReplicaSet{Meta: model.Meta{Namespace: "default", Name: "web-h", Labels: labels}, Replicas: 1, Image: "nginx:1", PodLabels: labels, Hash: "h", Revision: 3}
	obj, err := New(rs, nil, uids)
	if err != nil {
		t.Fatal(err)
	}
	if got := api.Meta(obj).Annotations[revisionAnnotation]; got != "3" {
		t.Fatalf("revision annotation %q, want 3", got)
	}
	back, err := ToModel(obj, uids)
	if err != nil || back.(*model.ReplicaSet).Revision != 3 {
		t.Fatalf("ToModel revision: %+v %v", back, err)
	}
	api.Meta(obj).Annotations[revisionAnnotation] = "x"
	back, err = ToModel(obj, uids)
	if err != nil || back.(*model.ReplicaSet).Revision != 0 {
		t.Fatalf("malformed revision: %+v %v", back, err)
	}
	again, err := Apply(obj, back, uids)
	if err != nil || api.Meta(again).Annotations[revisionAnnotation] != "x" {
		t.Fatalf("Apply of its own projection changed the annotation: %v", err)
	}
}
