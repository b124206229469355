package cluster

import (
	"context"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/model"
)

// user applies a user action through the API, as kubectl would.
func (s *Stepped) user(a model.Action) model.Result {
	ctx, cancel := s.wait()
	defer cancel()
	u := &component{name: "user", env: s.env}
	w := newWriter(ctx, u, -1)
	h := &host{env: s.env, ctx: ctx}
	var err error
	switch a.Op {
	case model.OpAddNode:
		err = s.addNode(ctx, w, a.Who)
	case model.OpRemoveNode:
		cur := h.Live(model.Ref{Kind: model.KindNode, Name: a.Who})
		if cur == nil {
			err = model.ErrNotFound
			break
		}
		w.RemoveNow(cur)
		s.removeComponent(model.KubeletName(a.Who))
		s.removeComponent(model.ProxyName(a.Who))
		s.env.nodes.remove(ctx, a.Who)
	case model.OpTick:
		now := s.logical.Add(1)
		for _, n := range s.names {
			s.comps[n].fireTimers(now)
		}
		if c := s.comps[model.NodeLifecycle]; c != nil {
			c.mu.Lock()
			for _, n := range c.mem.List(model.KindNode) {
				c.queue.Add(model.MetaOf(n).Name)
			}
			c.mu.Unlock()
		}
	default:
		var uw *model.UserWrite
		uw, err = model.UserIntent(a, h.Live(a.Target()))
		if uw != nil {
			switch uw.Verb {
			case model.VerbCreate:
				w.Create(uw.After)
			case model.VerbUpdate:
				s.updateAnyVersion(ctx, w, uw.Before, uw.After)
			case model.VerbDelete:
				w.DeleteWith(uw.Before, uw.Policy)
			}
		}
	}
	if err == nil {
		for _, wr := range w.writes {
			if wr.Err != nil {
				err = wr.Err
			}
		}
	}
	return model.Result{Writes: w.writes, Err: err}
}

// updateAnyVersion is the user's write: no resourceVersion precondition.
func (s *Stepped) updateAnyVersion(ctx context.Context, w *writer, before, after model.Obj) {
	base, err := s.env.client.Get(ctx, after.Kind().Resource(), model.MetaOf(after).Namespace, model.MetaOf(after).Name)
	var sent, stored api.Object
	if err == nil {
		sent, err = project.Apply(base, after, s.env.uids)
	}
	if err == nil {
		api.Meta(sent).ResourceVersion = ""
		stored, err = s.env.client.Update(ctx, sent)
	}
	w.record(model.VerbUpdate, model.RefOf(after), before, stored, err == nil && removedByUpdate(sent), err)
}

// addNode boots a machine, registers its Node and starts its kubelet and
// kube-proxy.
func (s *Stepped) addNode(ctx context.Context, w *writer, name string) error {
	if (&host{env: s.env, ctx: ctx}).Live(model.Ref{Kind: model.KindNode, Name: name}) != nil {
		return model.ErrAlreadyExists
	}
	index := s.env.nodes.next
	if w.Create(model.NewNode(name, index, s.logical.Load())) == 0 {
		return nil
	}
	s.env.nodes.add(name)
	for _, c := range []string{model.KubeletName(name), model.ProxyName(name)} {
		if err := s.addComponent(c); err != nil {
			return err
		}
	}
	return nil
}

// Snapshot projects the cluster's observable state.
func (s *Stepped) Snapshot() *model.Snapshot {
	ctx, cancel := s.wait()
	defer cancel()
	snap, err := s.objects(ctx)
	if err != nil {
		s.report(err)
		snap = &model.Snapshot{Objects: map[model.Ref]model.Obj{}}
	}
	snap.Now = s.logical.Load()
	snap.Containers = s.env.nodes.all(ctx)
	snap.Rules = s.env.nodes.allRules()
	snap.FailingImages = s.env.nodes.failingImages()
	snap.CPUFullNodes = s.env.nodes.cpuFullNodes()
	return snap
}
