package project

import (
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/model"
)

// The objects the model's user actions create, built as the model builds
// them and rendered by New, so a user action sent to the apiserver projects
// to what the model stores.

// NodeFor is the Node add-node registers: model.NewNode, rendered.
func NodeFor(name string, index int, now int64) *api.Node {
	return newNode(model.NewNode(name, index, now))
}

// DeploymentFor is the Deployment apply creates: labelled, selecting and
// templating app=<name>, one container running image. A nil surge or
// unavailable means Kubernetes' 25%. Generation is left to the apiserver.
func DeploymentFor(name, image string, replicas int, surge, unavailable *model.IntOrPercent) *api.Deployment {
	labels := map[string]string{"app": name}
	d := &model.Deployment{
		Meta:           model.Meta{Name: name, Labels: labels},
		Replicas:       replicas,
		Image:          image,
		PodLabels:      labels,
		MaxSurge:       defaultStrategy,
		MaxUnavailable: defaultStrategy,
	}
	if surge != nil {
		d.MaxSurge = *surge
	}
	if unavailable != nil {
		d.MaxUnavailable = *unavailable
	}
	out, _ := newDeployment(d) // Template is "": always renderable
	return out
}

// ServiceFor is the Service apply-service creates: labelled app=<name>,
// selecting app=<app>, with one TCP port that targets the same port.
func ServiceFor(name, app string, port int) *api.Service {
	return newService(&model.Service{
		Meta:     model.Meta{Name: name, Labels: map[string]string{"app": name}},
		Selector: map[string]string{"app": app},
		Ports:    model.ServicePorts(port),
	})
}

// PodFor is the bare Pod create-pod makes: labelled app=<name>, no owner,
// one container running image with the model's default requests.
func PodFor(name, image string) *api.Pod {
	p, _ := newPod(&model.Pod{
		Meta:   model.Meta{Name: name, Labels: map[string]string{"app": name}},
		Image:  image,
		CPU:    model.DefaultPodCPU,
		Memory: model.DefaultPodMemory,
		Phase:  model.PhasePending,
	}, nil) // a nil template cannot fail
	return p
}
