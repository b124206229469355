package memcache_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/converge-dev/converge/examples/foreign/memcache"
	cachev1 "github.com/converge-dev/converge/examples/foreign/memcache/api/v1"
	"github.com/converge-dev/converge/examples/foreign/probetest"
	"github.com/converge-dev/converge/properties"
)

func TestMain(m *testing.M) { properties.Main(m) }

func op() properties.Operator {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = cachev1.AddToScheme(s)
	return properties.Operator{
		CRDs:   "config/crd/bases",
		Scheme: s,
		Setup: func(mgr ctrl.Manager) error {
			return (&memcache.Reconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(),
				Recorder: mgr.GetEventRecorderFor("memcache-controller")}).SetupWithManager(mgr)
		},
	}
}

func TestMemcache(t *testing.T) { probetest.Check(t, op()) }

// TestMemcachePodsRun: the control plane's statefulset controller gives
// each Memcache's StatefulSet its pods, <name>-0 up, Running and Ready
// once the run has quiesced. The world's faults are off: a pod whose
// image fails to pull stays Pending (ImagePullBackOff), so a happy world
// is what this test asks.
func TestMemcachePodsRun(t *testing.T) {
	o := op()
	o.NoWorldFaults = true
	o.Converged = func(ctx context.Context, c client.Reader) error {
		var caches cachev1.MemcacheList
		if err := c.List(ctx, &caches); err != nil {
			return err
		}
		for _, m := range caches.Items {
			if !m.DeletionTimestamp.IsZero() {
				continue
			}
			for n := range int(m.Spec.Replicas) {
				var p corev1.Pod
				if err := c.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: fmt.Sprintf("%s-%d", m.Name, n)}, &p); err != nil {
					return fmt.Errorf("memcache %s: pod %d: %w", m.Name, n, err)
				}
				if p.Status.Phase != corev1.PodRunning || p.Spec.Hostname != p.Name || p.Spec.Subdomain != m.Name {
					return fmt.Errorf("memcache %s: pod %s is %s, hostname %s.%s", m.Name, p.Name, p.Status.Phase, p.Spec.Hostname, p.Spec.Subdomain)
				}
			}
		}
		return nil
	}
	probetest.Check(t, o)
}

func TestMemcacheBugDriftIgnored(t *testing.T) {
	memcache.BugDriftIgnored = true
	defer func() { memcache.BugDriftIgnored = false }()
	probetest.ExpectFailure(t, op())
}
