package operator_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	webappv1 "github.com/converge-dev/converge/examples/operator/api/v1"
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/impl/registry"
)

// webAppDefaulter labels every WebApp it sees and names a default image.
type webAppDefaulter struct{}

func (webAppDefaulter) Default(_ context.Context, w *webappv1.WebApp) error {
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	w.Labels["defaulted"] = "yes"
	if w.Spec.Image == "" {
		w.Spec.Image = "nginx:1.27"
	}
	return nil
}

// webAppRules refuses one image, and scaling down.
type webAppRules struct{ webAppValidator }

func (webAppRules) ValidateCreate(_ context.Context, w *webappv1.WebApp) (admission.Warnings, error) {
	if w.Spec.Image == "forbidden" {
		return nil, fmt.Errorf("image %q is not allowed", w.Spec.Image)
	}
	return nil, nil
}

func (webAppRules) ValidateUpdate(_ context.Context, old, w *webappv1.WebApp) (admission.Warnings, error) {
	if w.Spec.Replicas < old.Spec.Replicas {
		return nil, fmt.Errorf("replicas cannot go down")
	}
	return nil, nil
}

// TestTheOperatorsWebhooksAdmitWrites: with the host's Admission on the
// registry, the operator's defaulting webhook runs before validation (the
// image the schema requires comes from it) and its validating webhook
// after, on creates and updates but not on the status subresource; a
// denial is kube-apiserver's.
func TestTheOperatorsWebhooksAdmitWrites(t *testing.T) {
	cfg, reg := configOver(t)
	ctx := context.Background()
	_, err := reg.InstallCRDs(ctx, "../../examples/operator/config/crd/bases")
	require.NoError(t, err)
	cfg.Setup = func(mgr ctrl.Manager) error {
		if err := builder.WebhookManagedBy(mgr, &webappv1.WebApp{}).WithDefaulter(webAppDefaulter{}).WithValidator(webAppRules{}).Complete(); err != nil {
			return err
		}
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(&copier{Client: mgr.GetClient()})
	}
	h, err := operator.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	reg.SetAdmission(h.Admission())

	webApp := func(name, spec string) api.Object {
		o, err := api.Decode("webapps", []byte(`{"apiVersion":"webapp.example.com/v1","kind":"WebApp","metadata":{"name":"`+name+`","namespace":"default"},"spec":`+spec+`}`))
		require.NoError(t, err)
		return o
	}
	got, err := reg.Create(ctx, webApp("a", `{"replicas":2}`))
	require.NoError(t, err, "the defaulter names the image the schema requires")
	a := got.(*api.CustomObject)
	require.Equal(t, "yes", a.Labels["defaulted"])
	spec := a.Content["spec"].(map[string]any)
	require.Equal(t, "nginx:1.27", spec["image"])
	require.EqualValues(t, 8080, spec["port"], "the schema's defaults stay")

	_, err = reg.Create(ctx, webApp("b", `{"image":"forbidden"}`))
	require.EqualValues(t, 403, api.CodeOf(err))
	require.EqualError(t, err, `admission webhook "/validate-webapp-example-com-v1-webapp" denied the request: image "forbidden" is not allowed`)
	_, err = reg.Get(ctx, "webapps", "default", "b")
	require.True(t, api.IsNotFound(err), "a denied create stores nothing")

	_, err = reg.Create(registry.WithDryRun(ctx), webApp("c", `{"image":"forbidden"}`))
	require.EqualValues(t, 403, api.CodeOf(err), "a dry run is admitted too")

	down := api.DeepCopy(a)
	down.Content["spec"].(map[string]any)["replicas"] = int64(1)
	_, err = reg.Update(ctx, down)
	require.ErrorContains(t, err, "replicas cannot go down")

	up := api.DeepCopy(a)
	up.Content["spec"].(map[string]any)["replicas"] = int64(3)
	delete(up.Labels, "defaulted")
	got, err = reg.Update(ctx, up)
	require.NoError(t, err)
	require.Equal(t, "yes", api.Meta(got).Labels["defaulted"], "the defaulter runs on updates")

	status := api.DeepCopy(got.(*api.CustomObject))
	status.Content["status"] = map[string]any{"availableReplicas": int64(0)}
	status.Content["spec"].(map[string]any)["replicas"] = int64(0)
	_, err = reg.UpdateStatus(ctx, status)
	require.NoError(t, err, "the status subresource skips the webhooks")

	require.NoError(t, h.Restart())
	_, err = reg.Create(ctx, webApp("d", `{"image":"forbidden"}`))
	require.ErrorContains(t, err, "denied the request", "a restarted operator's webhooks run")
}
