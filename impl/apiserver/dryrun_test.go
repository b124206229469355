package apiserver

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store"
)

// Every write with dryRun=All answers as the real write would and leaves
// the store as it was: no revision moves, the stored objects are
// unchanged, and the real write afterwards gets what the dry run showed.
func TestDryRunWritesNothing(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", deployPath, deploymentJSON("web", 2, "nginx:1.27"))
	e.must(201, "POST", "/api/v1/nodes", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`)
	e.must(201, "POST", podPath, podJSON("p1", nil))
	e.must(201, "POST", podPath+"/p1/binding", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p1"},"target":{"kind":"Node","name":"n1"}}`)
	e.must(201, "POST", podPath, podJSON("p2", nil))

	stored := func() []byte {
		t.Helper()
		raw, _, _, err := e.st.List(context.Background(), "deployments", "", store.ListOptions{})
		require.NoError(t, err)
		pods, _, _, err := e.st.List(context.Background(), "pods", "", store.ListOptions{})
		require.NoError(t, err)
		var b bytes.Buffer
		for _, o := range append(raw, pods...) {
			b.WriteString(o.Key.Name)
			b.Write(o.Value)
		}
		return b.Bytes()
	}
	before, rev := stored(), e.rev()
	unchanged := func(what string) {
		t.Helper()
		require.Equal(t, rev, e.rev(), "%s moved the revision", what)
		require.Equal(t, string(before), string(stored()), "%s changed the store", what)
	}
	var d api.Deployment
	e.must(200, "GET", webPath, "").into(t, &d)
	webRV := d.ResourceVersion

	e.must(201, "POST", deployPath+"?dryRun=All", deploymentJSON("new", 1, "nginx")).into(t, &d)
	require.Equal(t, "new", d.Name)
	require.NotEmpty(t, d.UID)
	require.Empty(t, d.ResourceVersion)
	require.Equal(t, "RollingUpdate", string(d.Spec.Strategy.Type), "defaults applied")
	e.must(404, "GET", deployPath+"/new", "")
	unchanged("create")

	gen := `{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"g-"},"spec":{"containers":[{"name":"c","image":"x"}]}}`
	var p api.Pod
	e.must(201, "POST", podPath+"?dryRun=All", gen).into(t, &p)
	dryName := p.Name
	require.NotEmpty(t, dryName)
	unchanged("generated create")

	e.must(200, "PUT", webPath+"?dryRun=All", deploymentJSON("web", 5, "nginx:1.28")).into(t, &d)
	require.Equal(t, int32(5), *d.Spec.Replicas)
	require.Equal(t, int64(2), d.Generation, "the spec change bumps the generation")
	require.Equal(t, webRV, d.ResourceVersion, "a dry-run update answers with the current resourceVersion")
	unchanged("update")

	e.must(200, "PATCH", webPath+"?dryRun=All", `{"spec":{"replicas":4}}`, "Content-Type: "+mergePatchType).into(t, &d)
	require.Equal(t, int32(4), *d.Spec.Replicas)
	unchanged("merge patch")

	e.must(200, "PATCH", webPath+"?dryRun=All&fieldManager=me&force=true", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":6}}`,
		"Content-Type: "+applyPatchType).into(t, &d)
	require.Equal(t, int32(6), *d.Spec.Replicas)
	unchanged("server-side apply")

	e.must(200, "PATCH", webPath+"/scale?dryRun=All", `{"spec":{"replicas":8}}`, "Content-Type: "+mergePatchType)
	unchanged("scale patch")

	e.must(201, "POST", podPath+"/p2/binding?dryRun=All", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p2"},"target":{"kind":"Node","name":"n1"}}`)
	e.must(409, "POST", podPath+"/p2/binding?dryRun=All", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p2"},"target":{"kind":"Node","name":"n9"}}`)
	unchanged("binding")

	e.must(200, "DELETE", webPath+"?dryRun=All", "").into(t, &d)
	require.Equal(t, "web", d.Name)
	e.must(200, "DELETE", podPath+"/p1?dryRun=All", "").into(t, &p)
	require.NotNil(t, p.DeletionTimestamp, "a bound pod's delete is graceful: it shows the mark it would get")
	e.must(200, "DELETE", podPath+"?dryRun=All", "")
	unchanged("deletes")

	// The real writes get what the dry runs showed.
	e.must(201, "POST", podPath, gen).into(t, &p)
	require.Equal(t, dryName, p.Name)
}
