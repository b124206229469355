package tenant_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/converge-dev/converge/examples/foreign/probetest"
	"github.com/converge-dev/converge/examples/foreign/tenant"
	tenantv1 "github.com/converge-dev/converge/examples/foreign/tenant/api/v1"
	"github.com/converge-dev/converge/properties"
)

func TestMain(m *testing.M) { properties.Main(m) }

func op() properties.Operator {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = tenantv1.AddToScheme(s)
	return properties.Operator{
		CRDs:   "config/crd/bases",
		Scheme: s,
		Setup: func(mgr ctrl.Manager) error {
			return (&tenant.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr)
		},
	}
}

// TestTenant: the operator as written, minting a random token once.
func TestTenant(t *testing.T) { probetest.Check(t, op()) }

// TestTenantDerivedToken: the token derived from the UID instead.
func TestTenantDerivedToken(t *testing.T) {
	tenant.RandomToken = false
	defer func() { tenant.RandomToken = true }()
	probetest.Check(t, op())
}

func TestTenantBugDeleteNotFound(t *testing.T) {
	tenant.BugDeleteNotFound = true
	defer func() { tenant.BugDeleteNotFound = false }()
	probetest.ExpectFailure(t, op())
}
