package properties_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// fleetIndexer keeps one ConfigMap per namespace, "fleet-index", whose
// data has a key for every Fleet there, while there is one. It reads the
// index live (its APIReader).
//
// A careful one writes the index with the resourceVersion it read (a
// conflict retries), and holds each Fleet with a finalizer until its key
// is gone, so that a restart cannot miss a deletion. A blind one does
// neither: it writes the index back without the resourceVersion, which is
// correct while reconciles run one at a time, and a lost update when two
// run side by side.
type fleetIndexer struct {
	client.Client
	live    client.Reader
	careful bool
}

const indexFinalizer = "example.com/fleet-index"

func (r *fleetIndexer) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var fleet fleetv1.Fleet
	err := r.Get(ctx, req.NamespacedName, &fleet)
	if err != nil && (r.careful || !apierrors.IsNotFound(err)) {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	listed, read := err == nil && fleet.DeletionTimestamp.IsZero(), client.MergeFrom(fleet.DeepCopy())
	if r.careful && listed && controllerutil.AddFinalizer(&fleet, indexFinalizer) {
		if err := r.Patch(ctx, &fleet, read); err != nil {
			return ctrl.Result{}, err
		}
	}
	if err := r.index(ctx, req, listed); err != nil {
		return ctrl.Result{}, err
	}
	if r.careful && !listed && controllerutil.RemoveFinalizer(&fleet, indexFinalizer) {
		return ctrl.Result{}, client.IgnoreNotFound(r.Patch(ctx, &fleet, read))
	}
	return ctrl.Result{}, nil
}

// index puts req's key in the index, or takes it out.
func (r *fleetIndexer) index(ctx context.Context, req ctrl.Request, listed bool) error {
	var index corev1.ConfigMap
	key := client.ObjectKey{Namespace: req.Namespace, Name: "fleet-index"}
	if err := r.live.Get(ctx, key, &index); apierrors.IsNotFound(err) {
		if !listed {
			return nil
		}
		index = corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: "fleet-index"},
			Data: map[string]string{req.Name: "listed"}}
		return r.Create(ctx, &index)
	} else if err != nil {
		return err
	}
	if _, ok := index.Data[req.Name]; ok == listed {
		return nil
	}
	if index.Data == nil {
		index.Data = map[string]string{}
	}
	if listed {
		index.Data[req.Name] = "listed"
	} else if delete(index.Data, req.Name); len(index.Data) == 0 {
		var read []client.DeleteOption
		if r.careful {
			read = append(read, client.Preconditions{ResourceVersion: &index.ResourceVersion})
		}
		return client.IgnoreNotFound(r.Delete(ctx, &index, read...))
	}
	if !r.careful {
		index.ResourceVersion = "" // the bug: an unconditional update
	}
	return r.Update(ctx, &index)
}

// fleetIndexOperator is the indexer, with workers reconciles at a time.
// The blind one's bug is found by its interleavings alone, and it would
// miss deletions across restarts, so it runs without faults.
func fleetIndexOperator(workers int, careful bool) properties.Operator {
	return properties.Operator{
		CRDs:   "testdata/fleet/config/crd/bases",
		Scheme: fleetScheme(),
		Setup: func(mgr ctrl.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Fleet{}).
				WithOptions(controller.Options{MaxConcurrentReconciles: workers}).
				Complete(&fleetIndexer{Client: mgr.GetClient(), live: mgr.GetAPIReader(), careful: careful})
		},
		Kinds:    []string{"fleets"},
		Names:    []string{"a", "b", "c"},
		NoFaults: !careful,
	}
}

// TestConcurrentReconcilesInterleave: a controller with
// MaxConcurrentReconciles 2 has its reconciles parked before each write
// and interleaved, so a lost update between two reconciles of different
// keys is found; the same controller with one worker passes, so it is the
// interleaving that finds it.
func TestConcurrentReconcilesInterleave(t *testing.T) {
	t.Run("one worker passes", func(t *testing.T) {
		defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "100", "rapid.seed": "1"})()
		properties.CheckOperator(t, fleetIndexOperator(1, false))
	})
	t.Run("two workers lose an update", func(t *testing.T) {
		defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "400", "rapid.seed": "2", "rapid.shrinktime": "10s", "rapid.nofailfile": "true"})()
		rep := properties.NewReport(t.Name())
		properties.CheckOperatorTB(rep, t, fleetIndexOperator(2, false))
		if !rep.Failed() {
			t.Fatal("the lost update between two reconciles side by side was not found")
		}
		text := rep.Text()
		for _, want := range []string{"continue", "parked before its next write"} {
			if !strings.Contains(text, want) {
				t.Errorf("the counterexample lacks %q:\n%s", want, text)
			}
		}
		t.Logf("found:\n%s", text)
	})
	t.Run("with faults, writes with the read's resourceVersion pass", func(t *testing.T) {
		defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "100", "rapid.seed": "1"})()
		properties.CheckOperator(t, fleetIndexOperator(2, true))
	})
	t.Run("the same seed gives the same steps", func(t *testing.T) {
		steps := sameSteps(t, fleetIndexOperator(2, true))
		parked := false
		for _, e := range steps {
			parked = parked || e.Action == "continue"
		}
		if !parked {
			t.Fatalf("no reconcile was continued: the run did not interleave")
		}
	})
}
