package operator_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	webappv1 "github.com/converge-dev/converge/examples/operator/api/v1"
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/apiserver"
	convergeclient "github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/operator"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// copier is a small controller-runtime operator: each ConfigMap gets a
// Secret with the same data, owned by it.
type copier struct {
	client.Client
	panicOn string
}

func (c *copier) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if req.Name == c.panicOn {
		panic("boom")
	}
	var cm corev1.ConfigMap
	if err := c.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: cm.Name + "-copy", Namespace: cm.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, c.Client, s, func() error {
		s.StringData = nil
		s.Data = map[string][]byte{}
		for k, v := range cm.Data {
			s.Data[k] = []byte(v)
		}
		return controllerutil.SetControllerReference(&cm, s, c.Scheme())
	})
	return reconcile.Result{}, err
}

type rig struct {
	h   *operator.Host
	cli convergeclient.Client
}

func start(t *testing.T, panicOn string) *rig {
	t.Helper()
	cfg, cli := config(t)
	cfg.Setup = func(mgr ctrl.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).Complete(&copier{Client: mgr.GetClient(), panicOn: panicOn})
	}
	h, err := operator.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	return &rig{h: h, cli: cli}
}

// config is a Host's configuration over a fresh stepped cluster, without
// Setup.
func config(t *testing.T) (operator.Config, convergeclient.Client) {
	t.Helper()
	cfg, reg := configOver(t)
	return cfg, convergeclient.Local(reg)
}

// configOver is config, with the registry it serves.
func configOver(t *testing.T) (operator.Config, *registry.Registry) {
	t.Helper()
	st := storetest.Store(t)
	var s *cluster.Stepped
	reg := registry.New(registry.Config{Store: st, Clock: func() time.Time { return s.Now() }})
	cli := convergeclient.Local(reg)
	s, err := cluster.NewStepped(cluster.SteppedConfig{Store: st, Client: cli})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	srv, err := apiserver.New(apiserver.Config{Registry: reg})
	require.NoError(t, err)
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	require.NoError(t, webappv1.AddToScheme(scheme))
	return operator.Config{Scheme: scheme, Handler: srv.Handler(), Store: st, ListWatcher: s.ListWatcher(), Wrote: s.NoteExternalWrite}, reg
}

func TestASetupErrorIsReturnedAtOnce(t *testing.T) {
	cfg, _ := config(t)
	cfg.Setup = func(ctrl.Manager) error { return errors.New("no reconcilers today") }
	start := time.Now()
	_, err := operator.Start(cfg)
	require.ErrorContains(t, err, "operator: setup: no reconcilers today")
	require.Less(t, time.Since(start), 5*time.Second, "nothing waits for a manager that never started")
}

// TestAWatchOfAKindNotServedNamesTheKind: Ships, whose CRD no test here
// installs (custom kinds, once served, are served process-wide).
func TestAWatchOfAKindNotServedNamesTheKind(t *testing.T) {
	cfg, _ := config(t)
	cfg.Timeout = time.Second
	require.NoError(t, fleetv1.AddToScheme(cfg.Scheme))
	cfg.Setup = func(mgr ctrl.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&fleetv1.Ship{}).Complete(&copier{Client: mgr.GetClient()})
	}
	_, err := operator.Start(cfg)
	require.ErrorContains(t, err, "fleet.example.com/v1, Kind=Ship")
	require.ErrorContains(t, err, "is its CRD among the CRDs?")
}

func (r *rig) createConfigMap(t *testing.T, name string) {
	t.Helper()
	cm, err := api.Decode("configmaps", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`+name+`","namespace":"default"},"data":{"k":"v"}}`))
	require.NoError(t, err)
	_, err = r.cli.Create(context.Background(), cm)
	require.NoError(t, err)
	require.NoError(t, r.h.Sync())
}

// drain delivers every event and reconciles every request, in order.
func (r *rig) drain(t *testing.T) int {
	t.Helper()
	writes := 0
	for range 100 {
		if d := r.h.Deliverable(); len(d) > 0 {
			_, err := r.h.Deliver(d[0])
			require.NoError(t, err)
			continue
		}
		if ready := r.h.Ready(); len(ready) > 0 {
			out, err := r.h.Reconcile(ready[0], operator.NoFaults)
			require.NoError(t, err)
			writes += len(out.Writes)
			continue
		}
		return writes
	}
	t.Fatal("did not drain in 100 steps")
	return 0
}

func TestAnEventQueuesAReconcileThatWrites(t *testing.T) {
	r := start(t, "")
	require.Empty(t, r.h.Ready(), "nothing exists yet")
	r.createConfigMap(t, "a")
	require.Equal(t, []string{"configmaps"}, r.h.Deliverable(), "the create is on its way and nothing else")
	require.Empty(t, r.h.Ready(), "not delivered yet")
	ev, err := r.h.Deliver("configmaps")
	require.NoError(t, err)
	require.Equal(t, "ADDED configmaps/default/a", ev)
	ready := r.h.Ready()
	require.Len(t, ready, 1)
	out, err := r.h.Reconcile(ready[0], operator.NoFaults)
	require.NoError(t, err)
	require.Equal(t, []operator.Written{{Verb: "CREATE", Resource: "secrets", Name: "a-copy"}}, out.Writes, "the Secret is created")
	require.Equal(t, []string{"secrets"}, r.h.Deliverable())
	require.Equal(t, 0, r.drain(t), "the owned Secret's event reconciles again, with nothing to write")
	require.Empty(t, r.h.Failures())
	r.h.Resync()
	require.Len(t, r.h.Ready(), 1, "a resync queues the ConfigMap")
	require.Equal(t, 0, r.drain(t), "at the fixed point a resync writes nothing")
}

func TestACrashBeforeTheFirstWriteRestartsTheOperator(t *testing.T) {
	r := start(t, "")
	r.createConfigMap(t, "a")
	_, err := r.h.Deliver("configmaps")
	require.NoError(t, err)
	out, err := r.h.Reconcile(r.h.Ready()[0], operator.Faults{CrashAfter: 0})
	require.NoError(t, err)
	require.True(t, out.Crashed)
	require.Empty(t, out.Writes)
	require.Empty(t, r.h.Failures(), "the error of a crashed reconcile is the crash's, not the reconciler's")
	ready := r.h.Ready()
	require.Len(t, ready, 1, "the restarted operator lists the ConfigMap and queues it")
	require.Equal(t, 1, r.drain(t))
}

func TestAPanicIsAFailure(t *testing.T) {
	r := start(t, "bad")
	r.createConfigMap(t, "bad")
	_, err := r.h.Deliver("configmaps")
	require.NoError(t, err)
	_, err = r.h.Reconcile(r.h.Ready()[0], operator.NoFaults)
	require.NoError(t, err)
	f := r.h.Failures()
	require.Len(t, f, 1)
	require.Equal(t, "boom", f[0].Panic)
	at, ok := r.h.NextTimer()
	require.True(t, ok, "the failed request is retried after a backoff")
	require.Empty(t, r.h.Ready())
	r.h.FireTimers()
	require.Len(t, r.h.Ready(), 1)
	require.Greater(t, at, time.Duration(0))
}

// metaReader reads the owned Secret as metadata only, as an operator with
// a metadata-only watch does.
type metaReader struct {
	client.Client
	seen []string
}

func (m *metaReader) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	p := &metav1.PartialObjectMetadata{}
	p.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	if err := m.Get(ctx, client.ObjectKey{Namespace: req.Namespace, Name: req.Name + "-copy"}, p); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	l := &metav1.PartialObjectMetadataList{}
	l.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("SecretList"))
	if err := m.List(ctx, l, client.InNamespace(req.Namespace)); err != nil {
		return reconcile.Result{}, err
	}
	for _, it := range l.Items {
		m.seen = append(m.seen, it.Name+" "+it.Labels["k"])
	}
	return reconcile.Result{}, nil
}

func TestAMetadataOnlyWatchReadsMetadata(t *testing.T) {
	cfg, cli := config(t)
	mr := &metaReader{}
	cfg.Setup = func(mgr ctrl.Manager) error {
		mr.Client = mgr.GetClient()
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}, builder.OnlyMetadata).Complete(mr)
	}
	h, err := operator.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	r := &rig{h: h, cli: cli}
	sec, err := api.Decode("secrets", []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a-copy","namespace":"default","labels":{"k":"v"}}}`))
	require.NoError(t, err)
	_, err = cli.Create(context.Background(), sec)
	require.NoError(t, err)
	r.createConfigMap(t, "a")
	r.drain(t)
	require.Equal(t, []string{"a-copy v"}, mr.seen)
	require.Empty(t, h.Failures())
}

// webAppValidator is an admission webhook of the kind kubebuilder scaffolds.
type webAppValidator struct{}

func (webAppValidator) ValidateCreate(context.Context, *webappv1.WebApp) (admission.Warnings, error) {
	return nil, nil
}

func (webAppValidator) ValidateUpdate(context.Context, *webappv1.WebApp, *webappv1.WebApp) (admission.Warnings, error) {
	return nil, nil
}

func (webAppValidator) ValidateDelete(context.Context, *webappv1.WebApp) (admission.Warnings, error) {
	return nil, nil
}

// TestASetupWithWebhooksStarts: a Setup that registers admission webhooks,
// as cmd/main.go's SetupWebhookWithManager does, starts without
// certificates or a listener, and the host names the webhooks it does not
// run.
func TestASetupWithWebhooksStarts(t *testing.T) {
	cfg, _ := config(t)
	cfg.Setup = func(mgr ctrl.Manager) error {
		if err := builder.WebhookManagedBy(mgr, &webappv1.WebApp{}).WithValidator(webAppValidator{}).Complete(); err != nil {
			return err
		}
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(&copier{Client: mgr.GetClient()})
	}
	h, err := operator.Start(cfg)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	require.Equal(t, []string{"/validate-webapp-example-com-v1-webapp"}, h.Webhooks())
	require.NoError(t, h.Restart(), "a restarted operator registers its webhooks again")
	require.Equal(t, []string{"/validate-webapp-example-com-v1-webapp"}, h.Webhooks())
}
