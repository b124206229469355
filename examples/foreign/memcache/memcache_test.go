package memcache_test

import (
	"testing"

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

func TestMemcacheBugDriftIgnored(t *testing.T) {
	memcache.BugDriftIgnored = true
	defer func() { memcache.BugDriftIgnored = false }()
	probetest.ExpectFailure(t, op())
}
