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
// body shows field by field, and a Deployment a Widget controls names it
// as its owner. The garbage collector follows custom resources through its
// informer of them all: when the Widget goes, so does its Deployment, and
// a foreground deletion takes the Deployment first. The same informer
// follows the built-in kinds the model lacks, ConfigMaps among them.
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
	noteWrite(t, s, "widgets", w)
	require.NoError(t, s.Step(model.Action{Op: model.OpApply, Key: "web", N: 1, Image: "nginx"}).Err)
	d, err := reg.Get(ctx, "deployments", api.DefaultNamespace, "web")
	require.NoError(t, err)
	yes := true
	api.Meta(d).OwnerReferences = []api.OwnerReference{{APIVersion: "example.com/v1", Kind: "Widget", Name: "hello",
		UID: api.Meta(w).UID, Controller: &yes, BlockOwnerDeletion: &yes}}
	d, err = reg.Update(ctx, d)
	require.NoError(t, err)
	noteWrite(t, s, "deployments", d)
	// A Service and a ConfigMap it owns, as an operator makes them: the
	// collector finds the Service live, and follows ConfigMaps as it follows
	// custom resources.
	widgetRef := api.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "hello",
		UID: api.Meta(w).UID, Controller: &yes, BlockOwnerDeletion: &yes}
	svc, err := reg.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: api.DefaultNamespace,
		OwnerReferences: []api.OwnerReference{widgetRef}}, Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}})
	require.NoError(t, err)
	noteWrite(t, s, "services", svc)
	cm, err := reg.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: api.DefaultNamespace,
		OwnerReferences: []api.OwnerReference{widgetRef}}, Data: map[string]string{"k": "v"}})
	require.NoError(t, err)
	noteWrite(t, s, "configmaps", cm)
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

	gone, err := reg.Delete(ctx, "widgets", api.DefaultNamespace, "hello", api.DeleteOptions{})
	require.NoError(t, err)
	noteWrite(t, s, "widgets", gone)
	a, ok := s.NextQuiesceStep()
	require.True(t, ok)
	require.Equal(t, "deliver garbage-collector custom", a.String(), "the garbage collector hears of the Widget's deletion")
	require.Equal(t, "DELETED widgets.example.com/default/hello", s.Step(a).Delivered)
	quiesce()
	snap = s.Snapshot()
	require.NotContains(t, snap.Objects, ref)
	require.NoError(t, model.Converged(snap))
	require.Empty(t, s.Objects(model.KindDeployment), "the Widget's Deployment went with it")
	require.Empty(t, s.Objects(model.KindService), "and its Service")
	_, err = reg.Get(ctx, "configmaps", api.DefaultNamespace, "web")
	require.True(t, api.IsNotFound(err), "and its ConfigMap: %v", err)

	// An operator with a stale view makes a ConfigMap for the Widget now
	// gone: the collector hears of it, finds its owner gone, and deletes it.
	late, err := reg.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "late", Namespace: api.DefaultNamespace,
		OwnerReferences: []api.OwnerReference{widgetRef}}})
	require.NoError(t, err)
	noteWrite(t, s, "configmaps", late)
	a, ok = s.NextQuiesceStep()
	require.True(t, ok)
	require.Equal(t, "deliver garbage-collector custom", a.String())
	require.Equal(t, "ADDED configmaps/default/late", s.Step(a).Delivered)
	quiesce()
	_, err = reg.Get(ctx, "configmaps", api.DefaultNamespace, "late")
	require.True(t, api.IsNotFound(err), "the ConfigMap of a gone Widget is collected: %v", err)

	// Foreground: the Widget waits for its Deployment.
	w, err = reg.Create(ctx, &api.CustomObject{TypeMeta: api.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
		ObjectMeta: api.ObjectMeta{Name: "fg", Namespace: api.DefaultNamespace},
		Content:    map[string]any{"spec": map[string]any{"image": "nginx:1.27"}}})
	require.NoError(t, err)
	noteWrite(t, s, "widgets", w)
	require.NoError(t, s.Step(model.Action{Op: model.OpApply, Key: "fg", N: 1, Image: "nginx"}).Err)
	d, err = reg.Get(ctx, "deployments", api.DefaultNamespace, "fg")
	require.NoError(t, err)
	api.Meta(d).OwnerReferences = []api.OwnerReference{{APIVersion: "example.com/v1", Kind: "Widget", Name: "fg",
		UID: api.Meta(w).UID, Controller: &yes, BlockOwnerDeletion: &yes}}
	d, err = reg.Update(ctx, d)
	require.NoError(t, err)
	noteWrite(t, s, "deployments", d)
	quiesce()
	foreground := api.DeletePropagationForeground
	marked, err := reg.Delete(ctx, "widgets", api.DefaultNamespace, "fg", api.DeleteOptions{PropagationPolicy: &foreground})
	require.NoError(t, err)
	require.Contains(t, api.Meta(marked).Finalizers, "foregroundDeletion")
	noteWrite(t, s, "widgets", marked)
	quiesce()
	require.NoError(t, model.Converged(s.Snapshot()))
	require.Empty(t, s.Objects(model.KindDeployment), "the foreground deletion took the Deployment")
	require.Empty(t, s.Objects(model.KindCustom), "and then the Widget")

	// The namespace controller deletes the custom resources a namespace
	// holds (and what else it holds of kinds the model lacks), and then the
	// namespace goes.
	require.NoError(t, s.Step(model.Action{Op: model.OpCreateNamespace, Key: "team"}).Err)
	w, err = reg.Create(ctx, &api.CustomObject{TypeMeta: api.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
		ObjectMeta: api.ObjectMeta{Name: "in-team", Namespace: "team"},
		Content:    map[string]any{"spec": map[string]any{"image": "nginx:1.27"}}})
	require.NoError(t, err)
	noteWrite(t, s, "widgets", w)
	secret, err := reg.Create(ctx, &api.Secret{ObjectMeta: api.ObjectMeta{Name: "creds", Namespace: "team"}})
	require.NoError(t, err)
	noteWrite(t, s, "secrets", secret)
	quiesce()
	require.Len(t, s.Objects(model.KindCustom), 1)
	require.NoError(t, s.Step(model.Action{Op: model.OpDelete, Kind: model.KindNamespace, Key: "team"}).Err)
	quiesce()
	require.Empty(t, s.Objects(model.KindCustom), "the namespace's Widget went with it")
	_, err = reg.Get(ctx, "secrets", "team", "creds")
	require.True(t, api.IsNotFound(err), "and its Secret: %v", err)
	require.Nil(t, s.Snapshot().Objects[model.RefTo(model.KindNamespace, "team")], "the namespace went once empty")
	require.NoError(t, model.Converged(s.Snapshot()))
}

// noteWrite tells s of a write made around it, as an operator's are.
func noteWrite(t *testing.T, s *Stepped, resource string, o api.Object) {
	rev, err := strconv.ParseInt(api.Meta(o).ResourceVersion, 10, 64)
	require.NoError(t, err)
	s.NoteExternalWrite(resource, rev)
}
