package apiserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
)

// A list without selectors is written from the stored bytes (ListRaw); it
// must say exactly what the decoded list says, for every page, for objects
// written through every path (create, update, status, apply), and for a
// stored value of an unexpected shape, which takes the slow way.
func TestRawListEqualsDecodedList(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", deployPath, deploymentJSON("web", 2, "nginx:1.27"))
	e.must(200, "PATCH", deployPath+"/web?fieldManager=kubectl", `{"spec":{"replicas":3}}`,
		"Content-Type: application/merge-patch+json")
	for _, n := range []string{"a", "b", "c"} {
		e.must(201, "POST", "/api/v1/namespaces/default/pods", podJSON(n, map[string]string{"app": n}))
	}
	e.must(200, "PATCH", "/api/v1/namespaces/default/pods/b/status", `{"status":{"phase":"Running"}}`,
		"Content-Type: application/merge-patch+json")
	// A value written by hand, not by the registry's encoder: key order
	// differs, so it cannot be spliced.
	_, err := e.st.Create(context.Background(), store.Key{Resource: "pods", Namespace: "default", Name: "odd"},
		[]byte(`{"metadata":{"name":"odd","namespace":"default"},"kind":"Pod","apiVersion":"v1","spec":{"containers":[{"name":"c","image":"x"}]}}`))
	require.NoError(t, err)

	for _, tc := range []struct{ path, resource, namespace string }{
		{deployPath, "deployments", "default"},
		{"/api/v1/namespaces/default/pods", "pods", "default"},
		{"/api/v1/pods", "pods", ""},
		{"/api/v1/pods?limit=2", "pods", ""},
	} {
		got := e.must(200, "GET", tc.path, "")
		var raw map[string]any
		require.NoError(t, json.Unmarshal(got.body, &raw), tc.path)
		items, _ := raw["items"].([]any)
		require.NotEmpty(t, items, tc.path)

		opts := registry.ListOptions{}
		if tc.path == "/api/v1/pods?limit=2" {
			opts.Limit = 2
			require.Len(t, items, 2)
			require.NotEmpty(t, raw["metadata"].(map[string]any)["continue"])
		}
		list, err := e.reg.List(context.Background(), tc.resource, tc.namespace, opts)
		require.NoError(t, err)
		want, err := api.Marshal(list)
		require.NoError(t, err)
		var decoded map[string]any
		require.NoError(t, json.Unmarshal(want, &decoded))
		// The list's own revision may have moved between the two reads
		// only if something wrote; nothing did.
		require.Equal(t, decoded, raw, tc.path)
	}
}
