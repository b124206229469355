package model

import (
	"slices"
	"sort"
	"testing"
)

// objectLines is what Lines renders for the objects, built from Fields
// alone: the ref's line, then one line per field, refs in Lines' order.
func objectLines(s *Snapshot) []string {
	var refs []Ref
	for r := range s.Objects {
		refs = append(refs, r)
	}
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].Kind != refs[j].Kind {
			return refs[i].Kind < refs[j].Kind
		}
		if refs[i].Type != refs[j].Type {
			return refs[i].Type < refs[j].Type
		}
		return refs[i].Key() < refs[j].Key()
	})
	var out []string
	for _, r := range refs {
		out = append(out, r.String())
		for _, f := range s.Fields(s.Objects[r]) {
			out = append(out, r.String()+" "+f.Name+"="+f.Value)
		}
	}
	return out
}

// TestLineCacheRendersAsFields runs a busy cluster (rollouts, scale-downs,
// deletions) and checks after every step that a LineCache kept across the
// steps renders the snapshot's objects as Fields does and the rest as an
// uncached Lines.
func TestLineCacheRendersAsFields(t *testing.T) {
	st := New(Config{})
	for _, n := range []string{"node-1", "node-2"} {
		st.Step(Action{Op: OpAddNode, Who: n})
	}
	users := []Action{
		{Op: OpApply, Key: "web", N: 3, Image: "nginx:1"},
		{Op: OpApplyService, Key: "web", App: "web", N: 80},
		{Op: OpSetImage, Key: "web", Image: "nginx:2"},
		{Op: OpScale, Key: "web", N: 1},
		{Op: OpDelete, Key: "web"},
		{Op: OpApply, Key: "web", N: 2, Image: "nginx:1"},
	}
	var c LineCache
	steps := 0
	for _, u := range users {
		for a, ok := u, true; ok; a, ok = st.NextQuiesceStep() {
			st.Step(a)
			s := st.Snapshot()
			got, objs, all := c.Lines(s), objectLines(s), s.Lines()
			if !slices.Equal(got[:min(len(objs), len(got))], objs) || !slices.Equal(got, all) {
				t.Fatalf("after %s the cached lines differ:\ncached: %q\nfields: %q\nuncached: %q", a, got, objs, all)
			}
			steps++
		}
	}
	if steps < 30 {
		t.Fatalf("only %d steps: the schedule did not run", steps)
	}
}

// TestLineCacheRendersAGoneOwnerEachTime keeps a pod's lines from a
// snapshot with its owner and renders the pod again without it: the owner
// reference must read "(gone)", as Fields says.
func TestLineCacheRendersAGoneOwnerEachTime(t *testing.T) {
	rs := &ReplicaSet{Meta: Meta{Name: "web-1", Namespace: DefaultNamespace, UID: 7}}
	pod := &Pod{Meta: Meta{Name: "web-1-a", Namespace: DefaultNamespace, UID: 8, Labels: map[string]string{"app": "web"},
		Owner: Owner{Kind: KindReplicaSet, Name: "web-1", UID: 7}}}
	with := &Snapshot{Objects: map[Ref]Obj{RefOf(rs): rs, RefOf(pod): pod}}
	without := &Snapshot{Objects: map[Ref]Obj{RefOf(pod): pod}}
	var c LineCache
	const live, gone = "pods/default/web-1-a metadata.ownerReferences=replicasets/web-1", "pods/default/web-1-a metadata.ownerReferences=replicasets/web-1 (gone)"
	if l := c.Lines(with); !slices.Contains(l, live) {
		t.Fatalf("with the owner: %q", l)
	}
	if l := c.Lines(without); !slices.Contains(l, gone) || !slices.Equal(l, without.Lines()) {
		t.Fatalf("without the owner: %q", l)
	}
	if d := c.Diff(with, without, "a", "b"); !slices.Contains(d, "only in b: "+gone) {
		t.Fatalf("diff: %q", d)
	}
}
