package registry

import (
	"context"

	"github.com/converge-dev/converge/impl/api"
)

// Admission is the webhook stage of kube-apiserver's admission chain, for
// a harness that runs an operator's admission webhooks in-process. Mutate
// runs before the registry validates a create or an update, and may return
// another object; Validate runs after, and refuses with an error (a
// *api.StatusError as the webhook answered). old is nil on create. Status
// and other subresource writes skip it, as webhooks registered for a
// resource do not see its subresources.
type Admission interface {
	Mutate(ctx context.Context, old, obj api.Object) (api.Object, error)
	Validate(ctx context.Context, old, obj api.Object) error
}

// SetAdmission makes a run its webhooks on every create and update from
// now on; nil runs none. An operator registers its webhooks only once it
// started, on a registry that exists already, hence a setter.
func (r *Registry) SetAdmission(a Admission) {
	if a == nil {
		r.admission.Store(nil)
		return
	}
	r.admission.Store(&a)
}

// mutate is the admission's Mutate, if there is one.
func (r *Registry) mutate(ctx context.Context, old, obj api.Object) (api.Object, error) {
	a := r.admission.Load()
	if a == nil {
		return obj, nil
	}
	return (*a).Mutate(ctx, old, obj)
}

// validateAdmission is the admission's Validate, if there is one.
func (r *Registry) validateAdmission(ctx context.Context, old, obj api.Object) error {
	a := r.admission.Load()
	if a == nil {
		return nil
	}
	return (*a).Validate(ctx, old, obj)
}
