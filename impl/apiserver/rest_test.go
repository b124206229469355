package apiserver

import (
	"net/url"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
)

func TestCreateGetListUpdateDelete(t *testing.T) {
	e := newEnv(t)
	var created api.Deployment
	e.must(201, "POST", deployPath, deploymentJSON("web", 2, "nginx:1.27")).into(t, &created)
	if created.UID == "" || created.ResourceVersion == "" || created.Namespace != "default" || created.Kind != "Deployment" {
		t.Fatalf("created: %+v", created.ObjectMeta)
	}
	var got api.Deployment
	e.must(200, "GET", webPath, "").into(t, &got)
	if got.UID != created.UID || *got.Spec.Replicas != 2 {
		t.Fatalf("got %+v", got)
	}

	// PUT with the current resourceVersion.
	got.Spec.Replicas = ptr(int32(4))
	body, _ := api.Marshal(&got)
	var updated api.Deployment
	e.must(200, "PUT", webPath, string(body)).into(t, &updated)
	if *updated.Spec.Replicas != 4 || updated.Generation != 2 || updated.ResourceVersion == got.ResourceVersion {
		t.Fatalf("updated: %+v", updated)
	}

	e.must(201, "POST", deployPath, deploymentJSON("api", 1, "nginx:1.27"))
	var list api.DeploymentList
	e.must(200, "GET", deployPath, "").into(t, &list)
	if len(list.Items) != 2 || list.ResourceVersion == "" || list.Kind != "DeploymentList" {
		t.Fatalf("list: %+v", list)
	}
	e.must(200, "GET", deployPath+"?labelSelector="+url.QueryEscape("app=api"), "").into(t, &list)
	if len(list.Items) != 1 || list.Items[0].Name != "api" {
		t.Fatalf("label-selected list: %+v", list.Items)
	}
	e.must(200, "GET", deployPath+"?fieldSelector="+url.QueryEscape("metadata.name=web"), "").into(t, &list)
	if len(list.Items) != 1 || list.Items[0].Name != "web" {
		t.Fatalf("field-selected list: %+v", list.Items)
	}
	// Paging.
	e.must(200, "GET", deployPath+"?limit=1", "").into(t, &list)
	if len(list.Items) != 1 || list.Continue == "" {
		t.Fatalf("page 1: %+v", list.ListMeta)
	}
	first := list.Items[0].Name
	e.must(200, "GET", deployPath+"?limit=1&continue="+url.QueryEscape(list.Continue), "").into(t, &list)
	if len(list.Items) != 1 || list.Items[0].Name == first {
		t.Fatalf("page 2: %+v %+v", list.ListMeta, list.Items)
	}
	// All namespaces.
	e.must(200, "GET", "/apis/apps/v1/deployments", "").into(t, &list)
	if len(list.Items) != 2 {
		t.Fatalf("all-namespaces list: %d items", len(list.Items))
	}

	var deleted api.Deployment
	e.must(200, "DELETE", webPath, `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}`).into(t, &deleted)
	if deleted.Name != "web" {
		t.Fatalf("deleted: %+v", deleted.ObjectMeta)
	}
	e.must(404, "GET", webPath, "")
}

func ptr[T any](v T) *T { return &v }

func TestGenerateNameAndNamespaces(t *testing.T) {
	e := newEnv(t)
	var p api.Pod
	e.must(201, "POST", podPath, `{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"job-"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`).into(t, &p)
	if !strings.HasPrefix(p.Name, "job-") || len(p.Name) <= len("job-") {
		t.Fatalf("generated name %q", p.Name)
	}
	// A pod in a namespace that does not exist yet is refused; after the
	// namespace is created it is accepted.
	devPods := "/api/v1/namespaces/dev/pods"
	e.must(404, "POST", devPods, podJSON("p", nil))
	e.must(201, "POST", "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"dev"}}`)
	var ns api.Namespace
	e.must(200, "GET", "/api/v1/namespaces/dev", "").into(t, &ns)
	if ns.Name != "dev" {
		t.Fatalf("namespace: %+v", ns)
	}
	e.must(201, "POST", devPods, podJSON("p", nil))
	var pods api.PodList
	e.must(200, "GET", "/api/v1/pods", "").into(t, &pods)
	if len(pods.Items) != 2 {
		t.Fatalf("all pods: %d", len(pods.Items))
	}
	e.must(200, "GET", "/api/v1/namespaces/dev/status", "")
}

func TestDeleteCollectionBySelector(t *testing.T) {
	e := newEnv(t)
	for _, n := range []string{"a", "b"} {
		e.must(201, "POST", podPath, podJSON(n, map[string]string{"app": "x"}))
	}
	e.must(201, "POST", podPath, podJSON("keep", map[string]string{"app": "y"}))
	var gone api.PodList
	e.must(200, "DELETE", podPath+"?labelSelector=app%3Dx", "").into(t, &gone)
	if len(gone.Items) != 2 {
		t.Fatalf("deleted %d pods", len(gone.Items))
	}
	var left api.PodList
	e.must(200, "GET", podPath, "").into(t, &left)
	if len(left.Items) != 1 || left.Items[0].Name != "keep" {
		t.Fatalf("left: %+v", left.Items)
	}
}

func TestStatusScaleAndBinding(t *testing.T) {
	e := newEnv(t)
	e.must(201, "POST", deployPath, deploymentJSON("web", 2, "nginx:1.27"))

	// status: PUT writes only the status.
	var d api.Deployment
	e.must(200, "GET", webPath+"/status", "").into(t, &d)
	d.Status.Replicas, d.Status.ReadyReplicas = 2, 1
	d.Spec.Replicas = ptr(int32(9)) // ignored by the status subresource
	b, _ := api.Marshal(&d)
	e.must(200, "PUT", webPath+"/status", string(b)).into(t, &d)
	if d.Status.ReadyReplicas != 1 || *d.Spec.Replicas != 2 {
		t.Fatalf("status update: spec %d status %+v", *d.Spec.Replicas, d.Status)
	}
	e.must(200, "PATCH", webPath+"/status", `{"status":{"availableReplicas":1}}`, "Content-Type: "+mergePatchType).into(t, &d)
	if d.Status.AvailableReplicas != 1 || d.Status.ReadyReplicas != 1 {
		t.Fatalf("status patch: %+v", d.Status)
	}

	// scale: GET, PUT, PATCH.
	var sc api.Scale
	e.must(200, "GET", webPath+"/scale", "").into(t, &sc)
	if sc.Kind != "Scale" || sc.APIVersion != "autoscaling/v1" || sc.Spec.Replicas != 2 || sc.Status.Replicas != 2 || sc.Status.Selector != "app=web" {
		t.Fatalf("scale: %+v", sc)
	}
	sc.Spec.Replicas = 5
	b, _ = api.Marshal(&sc)
	e.must(200, "PUT", webPath+"/scale", string(b)).into(t, &sc)
	if sc.Spec.Replicas != 5 {
		t.Fatalf("scale put: %+v", sc)
	}
	e.must(409, "PUT", webPath+"/scale", string(b)) // stale resourceVersion now
	e.must(200, "PATCH", webPath+"/scale", `{"spec":{"replicas":7}}`, "Content-Type: "+mergePatchType).into(t, &sc)
	e.must(200, "GET", webPath, "").into(t, &d)
	if sc.Spec.Replicas != 7 || *d.Spec.Replicas != 7 {
		t.Fatalf("scale patch: scale %d deployment %d", sc.Spec.Replicas, *d.Spec.Replicas)
	}

	// binding, through pods/{name}/binding and through bindings.
	e.must(201, "POST", "/api/v1/nodes", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`)
	e.must(201, "POST", podPath, podJSON("p1", nil))
	e.must(201, "POST", podPath, podJSON("p2", nil))
	st := e.must(201, "POST", podPath+"/p1/binding", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p1"},"target":{"kind":"Node","name":"n1"}}`).status(t)
	if st.Status != api.StatusSuccess {
		t.Fatalf("binding status: %+v", st)
	}
	e.must(201, "POST", "/api/v1/namespaces/default/bindings", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p2"},"target":{"kind":"Node","name":"n1"}}`)
	var pods api.PodList
	e.must(200, "GET", podPath+"?fieldSelector=spec.nodeName%3Dn1", "").into(t, &pods)
	if len(pods.Items) != 2 {
		t.Fatalf("bound pods: %d", len(pods.Items))
	}
	e.must(409, "POST", podPath+"/p1/binding", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p1"},"target":{"kind":"Node","name":"n1"}}`)

	// A bound pod on a live node is deleted gracefully: it stays.
	var p api.Pod
	e.must(200, "DELETE", podPath+"/p1", "").into(t, &p)
	if p.DeletionTimestamp == nil {
		t.Fatalf("graceful delete: %+v", p.ObjectMeta)
	}
	e.must(200, "DELETE", podPath+"/p1?gracePeriodSeconds=0", "")
	e.must(404, "GET", podPath+"/p1", "")
}

// Quantities are served as kube-apiserver serves them, in apimachinery's
// canonical form, whatever form the client sent; a server-side apply that
// only respells a quantity writes nothing.
func TestQuantitiesAreServedInCanonicalForm(t *testing.T) {
	e := newEnv(t)
	body := strings.Replace(podJSON("q", nil), `"name":"c"`,
		`"name":"c","resources":{"requests":{"cpu":0.5,"memory":"1.5Gi","ephemeral-storage":"1000"},"limits":{"cpu":"1000m","memory":"2e9"}}`, 1)
	created := e.must(201, "PATCH", podPath+"/q?fieldManager=me", body, "Content-Type: "+applyPatchType)
	got := e.must(200, "GET", podPath+"/q", "")
	for _, r := range []response{created, got} {
		if !strings.Contains(string(r.body), `"resources":{"limits":{"cpu":"1","memory":"2e9"},"requests":{"cpu":"500m","ephemeral-storage":"1k","memory":"1536Mi"}}`) {
			t.Fatalf("quantities not canonical: %s", r.body)
		}
	}
	before := e.rev()
	respelled := strings.NewReplacer(`0.5`, `"500m"`, `"1.5Gi"`, `"1536Mi"`, `"1000"`, `"1k"`).Replace(body)
	e.must(200, "PATCH", podPath+"/q?fieldManager=me", respelled, "Content-Type: "+applyPatchType)
	if after := e.rev(); after != before {
		t.Fatalf("respelling quantities wrote: revision %d -> %d", before, after)
	}
}
