package broker_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"pgregory.net/rapid"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/converge-dev/converge/examples/foreign/broker"
	mqv1 "github.com/converge-dev/converge/examples/foreign/broker/api/v1"
	"github.com/converge-dev/converge/examples/foreign/probetest"
	"github.com/converge-dev/converge/properties"
	"github.com/converge-dev/converge/properties/crdgen"
)

func TestMain(m *testing.M) { properties.Main(m) }

// op is the operator as its users test it, with the image drawn from real
// tags; freeFormOp draws it from the schema too (TestBrokerFreeForm).
func op() properties.Operator {
	o := freeFormOp()
	o.Fields = map[string][]crdgen.Option{"brokers": {
		crdgen.WithField("spec.image", crdgen.Optional(rapid.SampledFrom([]any{"rabbitmq:3.13", "rabbitmq:4.0"}))),
	}}
	return o
}

// freeFormOp draws every field from the CRD's schema, the image too.
func freeFormOp() properties.Operator {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = mqv1.AddToScheme(s)
	return properties.Operator{
		CRDs:   "config/crd/bases",
		Scheme: s,
		Setup: func(mgr ctrl.Manager) error {
			return (&broker.Reconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(),
				Recorder: mgr.GetEventRecorderFor("broker-controller"), APIReader: mgr.GetAPIReader()}).SetupWithManager(mgr)
		},
	}
}

func TestBroker(t *testing.T) { probetest.Check(t, op()) }
