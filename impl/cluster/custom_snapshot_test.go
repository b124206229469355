package cluster

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// Custom resources are in the snapshot, opaque (issue 17, item 6): their
// body shows field by field, a Deployment a Widget controls names it as
// its owner, and when the Widget goes the convergence check sees the
// Deployment orphaned until the custom resources' collector has run.
func TestSnapshotShowsCustomResourcesAndTheirDependents(t *testing.T) {
	ctx := context.Background()
	st := storetest.Store(t)
	reg := registry.New(registry.Config{Store: st})
	s, err := NewStepped(SteppedConfig{Store: st, Client: client.Local(reg)})
	require.NoError(t, err)
	defer s.Close()
	_, err = reg.InstallCRDs(ctx, "../../examples/crd/bases")
	require.NoError(t, err)
	defer reg.UnserveCRDs()

	quiesce := func() {
		for range 2000 {
			a, ok := s.NextQuiesceStep()
			if !ok {
				return
			}
			require.NoError(t, s.Step(a).Err, "%s", a)
		}
		a, _ := s.NextQuiesceStep()
		t.Fatalf("the control plane does not quiesce: %s %v", a, s.Errors())
	}
	s.Step(model.Action{Op: model.OpAddNode, Who: "node-1"})
	w, err := reg.Create(ctx, &api.CustomObject{TypeMeta: api.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
		ObjectMeta: api.ObjectMeta{Name: "hello", Namespace: api.DefaultNamespace},
		Content:    map[string]any{"spec": map[string]any{"image": "nginx:1.27", "replicas": int64(2)}}})
	require.NoError(t, err)
	require.NoError(t, s.Step(model.Action{Op: model.OpApply, Key: "web", N: 1, Image: "nginx"}).Err)
	d, err := reg.Get(ctx, "deployments", api.DefaultNamespace, "web")
	require.NoError(t, err)
	yes := true
	d.GetObjectMeta().OwnerReferences = []api.OwnerReference{{APIVersion: "example.com/v1", Kind: "Widget", Name: "hello",
		UID: w.GetObjectMeta().UID, Controller: &yes, BlockOwnerDeletion: &yes}}
	d, err = reg.Update(ctx, d)
	require.NoError(t, err)
	noteWrite(t, s, "deployments", d)
	quiesce()

	snap := s.Snapshot()
	ref := model.Ref{Kind: model.KindCustom, Namespace: api.DefaultNamespace, Name: "hello", Type: "widgets.example.com"}
	widget, ok := snap.Objects[ref].(*model.Custom)
	require.True(t, ok, "the Widget is in the snapshot: %v", snap.Lines())
	require.Equal(t, model.Owner{Kind: model.KindCustom, Type: "widgets.example.com", Name: "hello", UID: widget.UID},
		model.MetaOf(snap.Objects[model.RefTo(model.KindDeployment, "web")]).Owner)
	lines := strings.Join(snap.Lines(), "\n")
	require.Contains(t, lines, "widgets.example.com/default/hello spec.replicas=2")
	require.Contains(t, lines, `widgets.example.com/default/hello spec.image="nginx:1.27"`)
	require.Contains(t, lines, "deployments/default/web metadata.ownerReferences=widgets.example.com/hello\n")
	require.NoError(t, model.Converged(snap))

	_, err = reg.Delete(ctx, "widgets", api.DefaultNamespace, "hello", api.DeleteOptions{})
	require.NoError(t, err)
	quiesce()
	snap = s.Snapshot()
	require.NotContains(t, snap.Objects, ref)
	require.ErrorContains(t, model.Converged(snap), "deployments/default/web is an orphan")
	require.Contains(t, strings.Join(snap.Lines(), "\n"), "metadata.ownerReferences=widgets.example.com/hello (gone)")

	require.NoError(t, reg.CollectCustomGarbageNoting(ctx, func(resource string, o api.Object) { noteWrite(t, s, resource, o) }))
	quiesce()
	require.NoError(t, model.Converged(s.Snapshot()))
	require.Empty(t, s.Objects(model.KindDeployment), "the Widget's Deployment went with it")
}

// noteWrite tells s of a write made around it, as an operator's are.
func noteWrite(t *testing.T, s *Stepped, resource string, o api.Object) {
	rev, err := strconv.ParseInt(o.GetObjectMeta().ResourceVersion, 10, 64)
	require.NoError(t, err)
	s.NoteExternalWrite(resource, rev)
}
