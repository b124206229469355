package mutants

import (
	"context"
	"slices"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/model"
)

// endpoints keeps each Service's Endpoints as the built-in does, but with
// one of three bugs: listUnready lists every selected pod that has an IP
// (the readiness check is missing, so traffic goes to pods that cannot
// serve it); createOnly never updates Endpoints that exist (it treats
// "already there" as done); leak handles only Services it can see, so the
// Endpoints of a deleted Service stay forever.
type endpoints struct {
	listUnready, createOnly, leak bool
	// keepTerminating lists pods that are shutting down (see
	// newTerminatingEndpoints).
	keepTerminating bool

	client    client.Client
	services  *controller.Cache
	endpoints *controller.Cache
	pods      *controller.Cache
	uids      *project.UIDs
}

func newUnreadyEndpoints(env cluster.ControllerEnv) controller.Reconciler {
	e := newEndpoints(env)
	e.listUnready = true
	return e
}

func newCreateOnlyEndpoints(env cluster.ControllerEnv) controller.Reconciler {
	e := newEndpoints(env)
	e.createOnly = true
	return e
}

func newLeakingEndpoints(env cluster.ControllerEnv) controller.Reconciler {
	e := newEndpoints(env)
	e.leak = true
	return e
}

func newEndpoints(env cluster.ControllerEnv) *endpoints {
	return &endpoints{client: env.Client, services: env.Cache(model.KindService), endpoints: env.Cache(model.KindEndpoints),
		pods: env.Cache(model.KindPod), uids: project.NewUIDs()}
}

func (e *endpoints) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	svc, ok := get[*api.Service](e.services, req)
	ep, have := get[*api.Endpoints](e.endpoints, req)
	if !ok {
		if have && !e.leak {
			_, err := e.client.Delete(ctx, "endpoints", ep.Namespace, ep.Name, precondition(ep))
			return controller.Result{}, err
		}
		return controller.Result{}, nil
	}
	ms, err := project.ToModel(svc, e.uids)
	if err != nil {
		return controller.Result{}, err
	}
	s := ms.(*model.Service)
	var addrs []model.Address
	var ports []model.EndpointPort
	for _, obj := range e.pods.List() { // name order, as Endpoints want
		o, err := project.ToModel(obj, e.uids)
		if err != nil {
			return controller.Result{}, err
		}
		p := o.(*model.Pod)
		if p.Namespace == s.Namespace && model.Matches(s.Selector, p.Labels) && (p.Ready || e.listUnready) && p.PodIP != "" && (!p.Deleting || e.keepTerminating) {
			pp, ok := model.PodPorts(s, p)
			switch {
			case !ok:
				continue
			case len(addrs) == 0:
				ports = pp
			case !slices.Equal(pp, ports):
				continue
			}
			addrs = append(addrs, model.Address{Pod: p.Name, IP: p.PodIP, Node: p.NodeName})
		}
	}
	want := &model.Endpoints{Meta: model.Meta{Name: s.Name, Labels: s.Labels}, Addresses: addrs, Ports: ports}
	if !have {
		obj, err := project.New(want, svc, e.uids)
		if err == nil {
			_, err = e.client.Create(ctx, obj)
		}
		return controller.Result{}, err
	}
	if e.createOnly {
		return controller.Result{}, nil
	}
	mc, err := project.ToModel(ep, e.uids)
	if err != nil {
		return controller.Result{}, err
	}
	cur := mc.(*model.Endpoints)
	if slices.Equal(cur.Addresses, addrs) && slices.Equal(cur.Ports, want.Ports) {
		return controller.Result{}, nil
	}
	want.Meta = cur.Meta // keeps the resourceVersion: a CAS on what we saw
	obj, err := project.Apply(ep, want, e.uids)
	if err == nil {
		_, err = e.client.Update(ctx, obj)
	}
	return controller.Result{}, err
}
