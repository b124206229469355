package cluster

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store/storetest"
	"github.com/converge-dev/converge/model"
)

// The projection cache follows the store: a write by anyone (here straight
// through the client, as kubectl would) shows in the next projection, and
// an object the model cannot represent is left out of Objects but makes
// the snapshot fail, every time, rather than be cached away.
func TestProjectionFollowsTheStoreAndReportsWhatDoesNotProject(t *testing.T) {
	s, err := NewStepped(SteppedConfig{Store: storetest.Store(t)})
	require.NoError(t, err)
	defer s.Close()
	s.Step(model.Action{Op: model.OpAddNode, Who: "node-1"})
	require.Len(t, s.Objects(model.KindNode), 1)
	require.Empty(t, s.Objects(model.KindPod))

	ctx := context.Background()
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: api.DefaultNamespace},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	_, err = s.env.client.Create(ctx, pod)
	require.NoError(t, err)
	require.Len(t, s.Objects(model.KindPod), 1, "a write outside the driver is seen")
	require.Len(t, s.Snapshot().List(model.KindPod), 1)

	// A node in a pod range the model does not use does not project.
	foreign := &api.Node{ObjectMeta: api.ObjectMeta{Name: "foreign"}, Spec: api.NodeSpec{PodCIDR: "10.244.0.0/24", PodCIDRs: []string{"10.244.0.0/24"}}}
	_, err = s.env.client.Create(ctx, foreign)
	require.NoError(t, err)
	for range 2 {
		nodes := s.Objects(model.KindNode)
		require.Len(t, nodes, 1)
		require.Equal(t, "node-1", model.MetaOf(nodes[0]).Name)
		_, err := s.objects(ctx)
		require.Error(t, err, "the snapshot must not hide an object it cannot represent")
	}
}
