package client

import (
	"context"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/model"
)

// ListOptions and ObjectEvent are the registry's; the aliases spare components an
// import.
type (
	ListOptions = registry.ListOptions
	ObjectEvent = registry.ObjectEvent
)

// Client is what every component uses to talk to the apiserver. The
// in-process Local client calls the registry; the HTTP client (HTTP) speaks
// the Kubernetes REST conventions to an apiserver. Components must not care
// which.
type Client interface {
	Get(ctx context.Context, resource, namespace, name string) (api.Object, error)
	List(ctx context.Context, resource, namespace string, opts registry.ListOptions) (api.ListObject, error)
	Create(ctx context.Context, obj api.Object) (api.Object, error)
	Update(ctx context.Context, obj api.Object) (api.Object, error)
	UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
	Bind(ctx context.Context, namespace, pod, node, expectRV string) (api.Object, error)
	// FinalizeNamespace writes ns's spec.finalizers through the finalize
	// subresource (PUT namespaces/{name}/finalize), as upstream's namespace
	// controller does; see registry.FinalizeNamespace.
	FinalizeNamespace(ctx context.Context, ns *api.Namespace) (api.Object, error)
	Watch(ctx context.Context, resource, namespace, resourceVersion string) (<-chan registry.ObjectEvent, error)
}

// SharedWatcher is a Client whose watches can hand out objects shared with
// the apiserver's cache, for readers that never change them (informers):
// see registry.WatchShared. The in-process client is one.
type SharedWatcher interface {
	WatchShared(ctx context.Context, resource, namespace, resourceVersion string) (<-chan registry.ObjectEvent, error)
}

// local calls a registry in the same process.
type local struct{ r *registry.Registry }

var _ Client = (*local)(nil)

// Local returns a Client over r.
func Local(r *registry.Registry) Client { return &local{r: r} }

func (c *local) Get(ctx context.Context, resource, namespace, name string) (api.Object, error) {
	return c.r.Get(ctx, resource, namespace, name)
}

func (c *local) List(ctx context.Context, resource, namespace string, opts registry.ListOptions) (api.ListObject, error) {
	return c.r.List(ctx, resource, namespace, opts)
}

func (c *local) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.r.Create(ctx, obj)
}

func (c *local) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.r.Update(ctx, obj)
}

func (c *local) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.r.UpdateStatus(ctx, obj)
}

func (c *local) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	return c.r.Delete(ctx, resource, namespace, name, opts)
}

func (c *local) Bind(ctx context.Context, namespace, pod, node, expectRV string) (api.Object, error) {
	return c.r.Bind(ctx, namespace, pod, node, expectRV)
}

func (c *local) FinalizeNamespace(ctx context.Context, ns *api.Namespace) (api.Object, error) {
	return c.r.FinalizeNamespace(ctx, ns)
}

func (c *local) Watch(ctx context.Context, resource, namespace, resourceVersion string) (<-chan registry.ObjectEvent, error) {
	return c.r.Watch(ctx, resource, namespace, resourceVersion)
}

func (c *local) WatchShared(ctx context.Context, resource, namespace, resourceVersion string) (<-chan registry.ObjectEvent, error) {
	return c.r.WatchShared(ctx, resource, namespace, resourceVersion)
}

// The verbs Counting passes to its hook: the model's trace verbs.
const (
	VerbCreate = string(model.VerbCreate)
	VerbUpdate = string(model.VerbUpdate)
	VerbStatus = string(model.VerbStatus)
	VerbDelete = string(model.VerbDelete)
	VerbBind   = string(model.VerbBind)
)

// counting gates a client's writes through a hook.
type counting struct {
	Client
	hook func(verb string) error
}

var _ Client = (*counting)(nil)

// Counting returns c with hook called before every write; a non-nil error
// from hook fails the write, which is then not sent. The stepped driver uses
// it to crash a component after its k-th write. A nil hook counts nothing.
func Counting(c Client, hook func(verb string) error) Client {
	if hook == nil {
		return c
	}
	return &counting{Client: c, hook: hook}
}

func (c *counting) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	if err := c.hook(VerbCreate); err != nil {
		return nil, err
	}
	return c.Client.Create(ctx, obj)
}

func (c *counting) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	if err := c.hook(VerbUpdate); err != nil {
		return nil, err
	}
	return c.Client.Update(ctx, obj)
}

func (c *counting) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	if err := c.hook(VerbStatus); err != nil {
		return nil, err
	}
	return c.Client.UpdateStatus(ctx, obj)
}

func (c *counting) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	if err := c.hook(VerbDelete); err != nil {
		return nil, err
	}
	return c.Client.Delete(ctx, resource, namespace, name, opts)
}

func (c *counting) Bind(ctx context.Context, namespace, pod, node, expectRV string) (api.Object, error) {
	if err := c.hook(VerbBind); err != nil {
		return nil, err
	}
	return c.Client.Bind(ctx, namespace, pod, node, expectRV)
}

// FinalizeNamespace is gated as an update: it is a PUT of the namespace.
func (c *counting) FinalizeNamespace(ctx context.Context, ns *api.Namespace) (api.Object, error) {
	if err := c.hook(VerbUpdate); err != nil {
		return nil, err
	}
	return c.Client.FinalizeNamespace(ctx, ns)
}
