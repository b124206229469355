package cluster

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/model"
)

// unversioned hides a Fake's Version, as a real runtime has none.
type unversioned struct{ container.Runtime }

// A node's container list is kept while its runtime's version stays, and
// shows every change; a runtime without versions is listed every time.
func TestContainerListsFollowTheRuntime(t *testing.T) {
	ctx := context.Background()
	for _, versioned := range []bool{true, false} {
		host := container.NewFakeHost(nil)
		n := newNodes(project.NewUIDs(), func(node string) container.Runtime {
			if versioned {
				return host.Node(node)
			}
			return unversioned{host.Node(node)}
		})
		n.add("n1")
		require.Empty(t, n.containers(ctx, "n1"))
		c := model.Container{ID: model.ContainerID("n1", "p", 0), Node: "n1", Pod: "p", PodUID: 1, Image: "nginx", Running: true, IP: "10.0.0.2"}
		require.NoError(t, n.start(ctx, c, nil))
		got := n.containers(ctx, "n1")
		require.Len(t, got, 1)
		require.True(t, got[0].Running)
		got[0].Running = false // the caller's own list
		require.True(t, n.containers(ctx, "n1")[0].Running, "versioned %v", versioned)

		require.NoError(t, host.Crash(runtimeID(c.ID), 1))
		got = n.containers(ctx, "n1")
		require.False(t, got[0].Running, "a crash shows (versioned %v)", versioned)
		require.Equal(t, 1, got[0].ExitCode)

		require.NoError(t, n.stop(ctx, c, 0))
		require.Empty(t, n.containers(ctx, "n1"), "versioned %v", versioned)
	}
}
