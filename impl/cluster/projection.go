package cluster

import (
	"cmp"
	"context"
	"strconv"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/model"
)

// objects projects the store at one revision: the model's kinds, custom
// resources (opaque objects to the model) among them.
func (s *Stepped) objects(ctx context.Context) (*model.Snapshot, error) {
	var resources []string
	for k := range model.Kind(model.NumKinds) {
		resources = append(resources, listedResource(k))
	}
	lists, err := s.projected(ctx, resources...)
	if err != nil {
		return nil, err
	}
	snap := &model.Snapshot{Objects: map[model.Ref]model.Obj{}}
	for _, objs := range lists {
		for _, o := range objs {
			snap.Objects[model.RefOf(o)] = o
		}
	}
	return snap, nil
}

// projectionCache is one resource's projection and the store's
// fingerprint of the resource it was taken at.
type projectionCache struct {
	fp    store.Fingerprint
	rev   int64 // the store revision the fingerprint was last checked at
	objs  []model.Obj
	valid bool
}

// projected projects the given resources at one revision, reusing each
// one's last projection while the store's fingerprint of it holds: the
// lockstep asks after every step, and most steps change one kind or none.
// The objects are shared and must not be changed. Objects that do not
// project are left out, and the first such failure is returned with the
// rest; any other error comes alone.
func (s *Stepped) projected(ctx context.Context, resources ...string) ([][]model.Obj, error) {
	rev, err := s.store.Rev(ctx)
	if err != nil {
		return nil, err
	}
	if out, ok := s.projectedAt(rev, resources); ok {
		return out, nil // nothing was written since: the cheapest check
	}
	scopes := make([]store.Scope, len(resources))
	for i, r := range resources {
		scopes[i] = store.Scope{Resource: api.StorageName(r)}
	}
	fps, rev, err := s.store.Fingerprints(ctx, scopes...)
	if err != nil {
		return nil, err
	}
	rv := strconv.FormatInt(rev, 10)
	out := make([][]model.Obj, len(resources))
	var unprojected error
	for i, r := range resources {
		s.mu.Lock()
		c := s.projections[r]
		s.mu.Unlock()
		if !c.valid || c.fp != fps[i] {
			objs, bad, err := s.env.resourceObjects(ctx, r, rv)
			if err != nil {
				return nil, err
			}
			// A resource with an object that does not project is not cached,
			// so the failure is reported again.
			c = projectionCache{fp: fps[i], objs: objs, valid: bad == nil}
			unprojected = cmp.Or(unprojected, bad)
		}
		c.rev = rev
		s.mu.Lock()
		s.projections[r] = c
		s.mu.Unlock()
		out[i] = c.objs
	}
	return out, unprojected
}

// projectedAt returns the cached projections of resources if each was
// checked at store revision rev.
func (s *Stepped) projectedAt(rev int64, resources []string) ([][]model.Obj, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]model.Obj, len(resources))
	for i, r := range resources {
		c := s.projections[r]
		if !c.valid || c.rev != rev {
			return nil, false
		}
		out[i] = c.objs
	}
	return out, true
}
