package cluster

import (
	"cmp"
	"context"
	"strconv"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/model"
)

// objects projects the store at one revision.
func (s *Stepped) objects(ctx context.Context) (*model.Snapshot, error) {
	kinds := make([]model.Kind, model.NumKinds)
	for i := range kinds {
		kinds[i] = model.Kind(i)
	}
	lists, err := s.projected(ctx, kinds...)
	if err != nil {
		return nil, err
	}
	customs, err := s.customProjected(ctx)
	if err != nil {
		return nil, err
	}
	snap := &model.Snapshot{Objects: map[model.Ref]model.Obj{}}
	for _, objs := range append(lists, customs) {
		for _, o := range objs {
			snap.Objects[model.RefOf(o)] = o
		}
	}
	return snap, nil
}

// customProjected projects every served custom resource, reusing each
// one's last projection while the store's fingerprint of it holds, as
// projected does for the model's kinds.
func (s *Stepped) customProjected(ctx context.Context) ([]model.Obj, error) {
	var scopes []store.Scope
	for _, info := range api.Resources() {
		if _, ok := api.LookupCustom(info.Resource); ok {
			scopes = append(scopes, store.Scope{Resource: info.Resource})
		}
	}
	if len(scopes) == 0 {
		return nil, nil
	}
	rev, err := s.store.Rev(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	last := s.customs
	s.mu.Unlock()
	if last.rev == rev && last.n == len(scopes) {
		return last.objs, nil // nothing was written since: the cheapest check
	}
	fps, rev, err := s.store.Fingerprints(ctx, scopes...)
	if err != nil {
		return nil, err
	}
	var out []model.Obj
	for i, sc := range scopes {
		s.mu.Lock()
		c, ok := s.customProjections[sc.Resource]
		s.mu.Unlock()
		if !ok || c.fp != fps[i] {
			objs, err := s.env.customObjects(ctx, sc.Resource, strconv.FormatInt(rev, 10))
			if err != nil {
				return nil, err
			}
			c = projectionCache{fp: fps[i], objs: objs, valid: true}
			s.mu.Lock()
			s.customProjections[sc.Resource] = c
			s.mu.Unlock()
		}
		out = append(out, c.objs...)
	}
	s.mu.Lock()
	s.customs.rev, s.customs.n, s.customs.objs = rev, len(scopes), out
	s.mu.Unlock()
	return out, nil
}

// projectionCache is one kind's projection and the store's fingerprint of
// the kind it was taken at.
type projectionCache struct {
	fp    store.Fingerprint
	rev   int64 // the store revision the fingerprint was last checked at
	objs  []model.Obj
	valid bool
}

// projected projects the given kinds at one revision, reusing each kind's
// last projection while the store's fingerprint of the kind holds: the
// lockstep asks after every step, and most steps change one kind or none.
// The objects are shared and must not be changed. Objects that do not
// project are left out, and the first such failure is returned with the
// rest; any other error comes alone.
func (s *Stepped) projected(ctx context.Context, kinds ...model.Kind) ([][]model.Obj, error) {
	rev, err := s.store.Rev(ctx)
	if err != nil {
		return nil, err
	}
	if out, ok := s.projectedAt(rev, kinds); ok {
		return out, nil // nothing was written since: the cheapest check
	}
	scopes := make([]store.Scope, len(kinds))
	for i, k := range kinds {
		scopes[i] = store.Scope{Resource: k.Resource()}
	}
	fps, rev, err := s.store.Fingerprints(ctx, scopes...)
	if err != nil {
		return nil, err
	}
	rv := strconv.FormatInt(rev, 10)
	out := make([][]model.Obj, len(kinds))
	var unprojected error
	for i, k := range kinds {
		s.mu.Lock()
		c := s.projections[k]
		s.mu.Unlock()
		if !c.valid || c.fp != fps[i] {
			objs, bad, err := s.env.kindObjects(ctx, k, rv)
			if err != nil {
				return nil, err
			}
			// A kind with an object that does not project is not cached,
			// so the failure is reported again.
			c = projectionCache{fp: fps[i], objs: objs, valid: bad == nil}
			unprojected = cmp.Or(unprojected, bad)
		}
		c.rev = rev
		s.mu.Lock()
		s.projections[k] = c
		s.mu.Unlock()
		out[i] = c.objs
	}
	return out, unprojected
}

// projectedAt returns the cached projections of kinds if each was checked
// at store revision rev.
func (s *Stepped) projectedAt(rev int64, kinds []model.Kind) ([][]model.Obj, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]model.Obj, len(kinds))
	for i, k := range kinds {
		c := s.projections[k]
		if !c.valid || c.rev != rev {
			return nil, false
		}
		out[i] = c.objs
	}
	return out, true
}
