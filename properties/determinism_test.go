package properties_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/converge-dev/converge/properties"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

// TestANondeterministicOperatorIsNamed: an operator whose config hash
// iterates a Go map (in random order) writes differently on the same
// steps; the check names that, with each run's first differing step,
// instead of rapid's "flaky test, can not reproduce a failure".
func TestANondeterministicOperatorIsNamed(t *testing.T) {
	defer properties.SetRapidFlags(t, map[string]string{"rapid.checks": "50", "rapid.shrinktime": "5s", "rapid.nofailfile": "true"})()
	rep := properties.NewReport(t.Name())
	properties.CheckOperatorTB(rep, t, fleetOperator(func(ctx context.Context, c client.Client, req reconcile.Request) error {
		var f fleetv1.Fleet
		if err := c.Get(ctx, req.NamespacedName, &f); err != nil || !f.DeletionTimestamp.IsZero() {
			return client.IgnoreNotFound(err)
		}
		config := map[string]string{"name": f.Name, "ships": fmt.Sprint(f.Spec.Ships), "speed": fmt.Sprint(f.Spec.Speed)}
		h := fnv.New64a()
		for k, v := range config { // the bug: a map's order is random
			h.Write([]byte(k + "=" + v + ";"))
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: f.Name}}
		_, err := controllerutil.CreateOrUpdate(ctx, c, cm, func() error {
			cm.Annotations = map[string]string{"config-hash": fmt.Sprintf("%x", h.Sum64())}
			return controllerutil.SetControllerReference(&f, cm, c.Scheme())
		})
		return err
	}))
	text := rep.Text()
	if !rep.Failed() || !strings.Contains(text, "nondeterministic operator: the same steps gave different writes") || strings.Contains(text, "flaky test") {
		t.Fatalf("the nondeterministic operator was not named:\n%s", text)
	}
}
