package registry_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
)

// CreateWire's bytes are what encoding the created object gives, for a
// named create and a generateName create; a dry run has none.
func TestCreateWireMatchesEncodedObject(t *testing.T) {
	reg, ctx := newRegistry(t)
	named := deployment("web", 2)
	named.Namespace = "default"
	generated := replicaSet("")
	generated.Namespace, generated.GenerateName = "default", "web-"
	for _, obj := range []api.Object{named, generated} {
		out, wire, err := reg.CreateWire(ctx, obj)
		require.NoError(t, err)
		require.NotEmpty(t, api.Meta(out).ResourceVersion)
		want, err := api.Marshal(out)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(wire))
	}

	dry := deployment("dry", 1)
	dry.Namespace = "default"
	out, wire, err := reg.CreateWire(registry.WithDryRun(ctx), dry)
	require.NoError(t, err)
	require.Nil(t, wire)
	require.Equal(t, "dry", api.Meta(out).Name)
}
