package operator_test

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/converge-dev/converge/examples/operator/api/v1"
	"github.com/converge-dev/converge/examples/operator/internal/controller"
	"github.com/converge-dev/converge/properties"
)

// availableWhileUnavailable is a minimal status-honesty check: Kubernetes' API conventions make status what
// is observed, so a WebApp whose Available condition is True at
// convergence while its Deployment has unavailable replicas reports what
// it has not seen.
func availableWhileUnavailable(ctx context.Context, c client.Reader) error {
	var apps webappv1.WebAppList
	if err := c.List(ctx, &apps); err != nil {
		return err
	}
	for _, app := range apps.Items {
		if !meta.IsStatusConditionTrue(app.Status.Conditions, controller.ConditionAvailable) || app.DeletionTimestamp != nil {
			continue
		}
		var dep appsv1.Deployment
		if err := c.Get(ctx, client.ObjectKey{Namespace: app.Namespace, Name: app.Name}, &dep); err != nil {
			return fmt.Errorf("webapp %s is Available without a Deployment: %w", app.Name, err)
		}
		want := int32(1)
		if dep.Spec.Replicas != nil {
			want = *dep.Spec.Replicas
		}
		if dep.Status.AvailableReplicas < want {
			return fmt.Errorf("webapp %s is Available while its Deployment has %d of %d replicas available", app.Name, dep.Status.AvailableReplicas, want)
		}
	}
	return nil
}

// TestWebAppReportsAnUnhappyWorldHonestly: the operator as it ships, with
// world faults, never claims Available over a Deployment that is not.
func TestWebAppReportsAnUnhappyWorldHonestly(t *testing.T) {
	op := webApp()
	op.Converged = availableWhileUnavailable
	properties.CheckOperator(t, op)
}
