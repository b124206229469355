package api

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Valid, defaulted objects that tests break one field at a time.

func int32p(v int32) *int32 { return &v }
func int64p(v int64) *int64 { return &v }

func validDeployment() *Deployment {
	d := &Deployment{
		ObjectMeta: ObjectMeta{Name: "myapp", Labels: map[string]string{"app": "myapp"}},
		Spec: DeploymentSpec{
			Replicas: int32p(3),
			Selector: &LabelSelector{MatchLabels: map[string]string{"app": "myapp"}},
			Template: PodTemplateSpec{
				ObjectMeta: ObjectMeta{Labels: map[string]string{"app": "myapp"}},
				Spec: PodSpec{Containers: []Container{{
					Name: "nginx", Image: "nginx:1.27",
					Ports: []ContainerPort{{ContainerPort: 80}},
				}}},
			},
		},
	}
	Default(d)
	return d
}

func validPod() *Pod {
	p := &Pod{
		ObjectMeta: ObjectMeta{Name: "web-0"},
		Spec: PodSpec{Containers: []Container{{
			Name: "web", Image: "nginx:1.27",
			Resources: ResourceRequirements{
				Requests: ResourceList{"cpu": resource.MustParse("100m"), "memory": resource.MustParse("64Mi")},
				Limits:   ResourceList{"cpu": resource.MustParse("1"), "memory": resource.MustParse("128Mi")},
			},
			ReadinessProbe: &Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &HTTPGetAction{Port: FromInt32(80)}}},
		}}},
	}
	Default(p)
	return p
}

func validService() *Service {
	s := &Service{
		ObjectMeta: ObjectMeta{Name: "myapp"},
		Spec: ServiceSpec{
			Selector: map[string]string{"app": "myapp"},
			Ports:    []ServicePort{{Port: 80}},
		},
	}
	Default(s)
	return s
}

func validNode() *Node {
	return &Node{
		ObjectMeta: ObjectMeta{Name: "node-1"},
		Spec:       NodeSpec{PodCIDR: "10.244.1.0/24", Taints: []Taint{{Key: "dedicated", Value: "gpu", Effect: TaintEffectNoSchedule}}},
		Status:     NodeStatus{Capacity: ResourceList{"cpu": resource.MustParse("4"), "memory": resource.MustParse("8Gi"), "pods": resource.MustParse("110")}},
	}
}

func validReplicaSet() *ReplicaSet {
	d := validDeployment()
	rs := &ReplicaSet{
		ObjectMeta: ObjectMeta{Name: "myapp-abc"},
		Spec:       ReplicaSetSpec{Replicas: int32p(3), Selector: d.Spec.Selector, Template: d.Spec.Template},
	}
	Default(rs)
	return rs
}
func ptrTo[T any](v T) *T { return &v }
