package clients

import (
	"context"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// apiOnly is an apiserver over a fresh registry with no components: no
// namespace controller empties a Terminating namespace, so the test plays
// its part through the API and sees every step.
func apiOnly(t *testing.T) (*kubernetes.Clientset, string) {
	t.Helper()
	reg := registry.New(registry.Config{Store: storetest.Isolated(t)})
	s, err := apiserver.New(apiserver.Config{Registry: reg, Log: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return cs, srv.URL
}

// A namespace's lifecycle through client-go, as upstream's namespace
// controller drives it: created with spec.finalizers [kubernetes]; a
// delete marks it Terminating and keeps its content, and creates into it
// are refused with the NamespaceTerminating cause; once the content is
// deleted, Finalize with no spec finalizers removes it.
func TestNamespaceLifecycleThroughClientGo(t *testing.T) {
	cs, url := apiOnly(t)
	c := ctx(t)
	nss := cs.CoreV1().Namespaces()
	ns, err := nss.Create(c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ns.Spec.Finalizers, []corev1.FinalizerName{corev1.FinalizerKubernetes}) || ns.Status.Phase != corev1.NamespaceActive {
		t.Fatalf("created namespace: finalizers %q phase %q, want [kubernetes] Active", ns.Spec.Finalizers, ns.Status.Phase)
	}
	kubectlFinalizers(t, url, "team", `["kubernetes"]`)
	cms := cs.CoreV1().ConfigMaps("team")
	if _, err := cms.Create(c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}, Data: map[string]string{"a": "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	if err := nss.Delete(c, "team", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, err = nss.Get(c, "team", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ns.DeletionTimestamp == nil || ns.Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("deleted namespace: deletionTimestamp %v phase %q, want Terminating", ns.DeletionTimestamp, ns.Status.Phase)
	}
	if _, err := cms.Get(c, "settings", metav1.GetOptions{}); err != nil {
		t.Fatalf("the namespace's config map after the delete: %v, want it kept for the namespace controller", err)
	}
	_, err = cms.Create(c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		t.Fatalf("create in a Terminating namespace: %v, want 403 with cause %s", err, corev1.NamespaceTerminatingCause)
	}
	if want := `configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated`; err.Error() != want {
		t.Fatalf("create in a Terminating namespace: %q, want %q", err, want)
	}

	// The namespace controller's part: empty it, then finalize.
	if err := cms.Delete(c, "settings", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	stale := ns.DeepCopy()
	stale.ResourceVersion = "1"
	stale.Spec.Finalizers = nil
	if _, err := nss.Finalize(c, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("finalize at a stale resourceVersion: %v, want 409 Conflict", err)
	}
	ns.Spec.Finalizers = nil
	if _, err := nss.Finalize(c, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := nss.Get(c, "team", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("namespace after finalize: %v, want NotFound", err)
	}
}

// A finalize that leaves a spec finalizer keeps the namespace, Terminating,
// and takes only spec.finalizers and metadata: the status stays.
func TestFinalizeKeepsTheStatus(t *testing.T) {
	cs, _ := apiOnly(t)
	c := ctx(t)
	nss := cs.CoreV1().Namespaces()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"example.com/cleanup"}}}
	if _, err := nss.Create(c, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := nss.Delete(c, "team", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, err := nss.Get(c, "team", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns.Spec.Finalizers = []corev1.FinalizerName{"example.com/cleanup"}
	ns.Status.Phase = corev1.NamespaceActive
	out, err := nss.Finalize(c, ns, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Spec.Finalizers, ns.Spec.Finalizers) || out.Status.Phase != corev1.NamespaceTerminating || out.DeletionTimestamp == nil {
		t.Fatalf("finalized namespace: finalizers %q phase %q deletionTimestamp %v, want [example.com/cleanup] Terminating, still deleting", out.Spec.Finalizers, out.Status.Phase, out.DeletionTimestamp)
	}
	res, err := cs.Discovery().ServerResourcesForGroupVersion("v1")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.APIResources, func(r metav1.APIResource) bool { return r.Name == "namespaces/finalize" })
	if i < 0 || !slices.Equal(res.APIResources[i].Verbs, metav1.Verbs{"update"}) {
		t.Fatalf("discovery of namespaces/finalize: %+v", res.APIResources)
	}
}

// kubectlFinalizers checks what the real kubectl prints for a namespace's
// spec.finalizers.
func kubectlFinalizers(t *testing.T, url, name, want string) {
	t.Helper()
	const kubectl = "/usr/bin/kubectl"
	if _, err := os.Stat(kubectl); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required in CI: %v", err)
		}
		t.Logf("kubectl not installed at %s: not checked", kubectl)
		return
	}
	dir := t.TempDir()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(c, kubectl, "--server", url, "--request-timeout=20s", "get", "ns", name, "-o", "jsonpath={.spec.finalizers}")
	cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG="+filepath.Join(dir, "none"), "KUBECACHEDIR="+filepath.Join(dir, "cache"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != want {
		t.Fatalf("kubectl get ns %s -o jsonpath={.spec.finalizers}: %s, want %s", name, got, want)
	}
}
