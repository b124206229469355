package controller_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	ctrlutil "sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/converge-dev/converge/impl/crd"
	fleetv1 "github.com/converge-dev/converge/properties/testdata/fleet/api/v1"
	"github.com/converge-dev/converge/properties/testdata/fleet/controller"
)

const ns = "sea"

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := fleetv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// The fake client sets neither UID nor generation, so the Fleet is seeded
// with both and the test bumps generation on spec changes itself.
func newFleet(ships, speed int32) *fleetv1.Fleet {
	return &fleetv1.Fleet{
		ObjectMeta: metav1.ObjectMeta{Name: "armada", Namespace: ns, UID: "armada-uid", Generation: 1},
		Spec:       fleetv1.FleetSpec{Ships: ships, Speed: speed},
	}
}

type env struct {
	t     *testing.T
	c     client.Client
	fleet *controller.FleetReconciler
	ship  *controller.ShipReconciler
}

func newEnv(t *testing.T, funcs interceptor.Funcs, objs ...client.Object) *env {
	s := newScheme(t)
	c := fake.NewClientBuilder().WithScheme(s).
		WithStatusSubresource(&fleetv1.Fleet{}, &fleetv1.Ship{}).
		WithObjects(objs...).
		WithInterceptorFuncs(funcs).
		Build()
	return &env{t: t, c: c,
		fleet: &controller.FleetReconciler{Client: c, Scheme: s},
		ship:  &controller.ShipReconciler{Client: c}}
}

func (e *env) reconcileFleet(name string) {
	e.t.Helper()
	req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
	if res, err := e.fleet.Reconcile(context.Background(), req); err != nil || !res.IsZero() {
		e.t.Fatalf("fleet reconcile %s: %v, %v", name, res, err)
	}
}

// reconcileShips runs ShipReconciler over every Ship, as its controller
// would after the Ships' events.
func (e *env) reconcileShips() {
	e.t.Helper()
	for _, s := range e.ships() {
		req := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: s.Name}}
		if res, err := e.ship.Reconcile(context.Background(), req); err != nil || !res.IsZero() {
			e.t.Fatalf("ship reconcile %s: %v, %v", s.Name, res, err)
		}
	}
}

func (e *env) ships() map[string]fleetv1.Ship {
	e.t.Helper()
	var list fleetv1.ShipList
	if err := e.c.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		e.t.Fatal(err)
	}
	m := map[string]fleetv1.Ship{}
	for _, s := range list.Items {
		m[s.Name] = s
	}
	return m
}

func (e *env) getFleet() *fleetv1.Fleet {
	e.t.Helper()
	var f fleetv1.Fleet
	if err := e.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "armada"}, &f); err != nil {
		e.t.Fatal(err)
	}
	return &f
}

// resourceVersions of every Fleet and Ship: equal before and after a pass
// means the pass wrote nothing.
func (e *env) resourceVersions() map[string]string {
	e.t.Helper()
	rvs := map[string]string{"fleet": e.getFleet().ResourceVersion}
	for name, s := range e.ships() {
		rvs[name] = s.ResourceVersion
	}
	return rvs
}

func (e *env) updateSpec(mutate func(*fleetv1.FleetSpec)) {
	e.t.Helper()
	f := e.getFleet()
	mutate(&f.Spec)
	f.Generation++ // what the apiserver would do on a spec change
	if err := e.c.Update(context.Background(), f); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) wantShips(names []string, speed int32) {
	e.t.Helper()
	ships := e.ships()
	var got []string
	for name, s := range ships {
		if ref := metav1.GetControllerOf(&s); ref != nil && ref.UID == "armada-uid" {
			got = append(got, name)
			if ref.Kind != "Fleet" || ref.Name != "armada" || ref.APIVersion != fleetv1.GroupVersion.String() {
				e.t.Errorf("ship %s: controller reference %+v", name, ref)
			}
			if s.Spec.Fleet != "armada" || s.Spec.Speed != speed {
				e.t.Errorf("ship %s: spec %+v, want fleet armada, speed %d", name, s.Spec, speed)
			}
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, names) {
		e.t.Errorf("controlled ships = %v, want %v", got, names)
	}
}

func (e *env) wantStatus(ready int32, generation int64) {
	e.t.Helper()
	want := fleetv1.FleetStatus{ReadyShips: ready, ObservedGeneration: generation}
	if got := e.getFleet().Status; got != want {
		e.t.Errorf("fleet status = %+v, want %+v", got, want)
	}
}

func TestFleetLifecycle(t *testing.T) {
	// A Ship of an earlier Fleet "armada" (another UID), which the garbage
	// collector has yet to delete, must be left alone: control is by UID,
	// not by name.
	stranger := &fleetv1.Ship{
		ObjectMeta: metav1.ObjectMeta{Name: "armada-7", Namespace: ns},
		Spec:       fleetv1.ShipSpec{Fleet: "armada", Speed: 9},
	}
	earlier := newFleet(1, 1)
	earlier.UID = "earlier-uid"
	if err := ctrlutil.SetControllerReference(earlier, stranger, newScheme(t)); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, interceptor.Funcs{}, newFleet(3, 2), stranger)

	e.reconcileFleet("armada")
	e.wantShips([]string{"armada-0", "armada-1", "armada-2"}, 2)
	e.wantStatus(0, 1)

	before := e.resourceVersions()
	e.reconcileFleet("armada")
	if after := e.resourceVersions(); !maps.Equal(before, after) {
		t.Errorf("second fleet pass wrote: before %v, after %v", before, after)
	}

	e.reconcileShips()
	for name, s := range e.ships() {
		if want := (fleetv1.ShipStatus{Ready: true, ObservedSpeed: s.Spec.Speed}); s.Status != want {
			t.Errorf("ship %s: status %+v, want %+v", name, s.Status, want)
		}
	}
	before = e.resourceVersions()
	e.reconcileShips()
	if after := e.resourceVersions(); !maps.Equal(before, after) {
		t.Errorf("second ship pass wrote: before %v, after %v", before, after)
	}
	e.reconcileFleet("armada")
	e.wantStatus(3, 1)

	// A new speed: the Ships follow, and none counts as ready until it
	// has observed it.
	e.updateSpec(func(s *fleetv1.FleetSpec) { s.Speed = 5 })
	e.reconcileFleet("armada")
	e.wantShips([]string{"armada-0", "armada-1", "armada-2"}, 5)
	e.wantStatus(0, 2)
	e.reconcileShips()
	e.reconcileFleet("armada")
	e.wantStatus(3, 2)

	// Drift on a Ship is repaired; a label someone else added stays.
	s0 := e.ships()["armada-0"]
	s0.Spec.Speed = 1
	s0.Labels = map[string]string{"painted": "red"}
	if err := e.c.Update(context.Background(), &s0); err != nil {
		t.Fatal(err)
	}
	e.reconcileFleet("armada")
	e.wantShips([]string{"armada-0", "armada-1", "armada-2"}, 5)
	if got := e.ships()["armada-0"].Labels["painted"]; got != "red" {
		t.Errorf("label painted = %q after repair, want red", got)
	}

	// Scale down: the two highest go, the stranger stays.
	e.reconcileShips()
	e.updateSpec(func(s *fleetv1.FleetSpec) { s.Ships = 1 })
	e.reconcileFleet("armada")
	e.wantShips([]string{"armada-0"}, 5)
	e.wantStatus(1, 3)
	if _, ok := e.ships()["armada-7"]; !ok {
		t.Error("armada-7, controlled by the earlier Fleet, was deleted")
	}
	before = e.resourceVersions()
	e.reconcileFleet("armada")
	if after := e.resourceVersions(); !maps.Equal(before, after) {
		t.Errorf("fleet pass after scale-down wrote: before %v, after %v", before, after)
	}

	// Gone objects are not errors.
	e.reconcileFleet("missing")
	if _, err := e.ship.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "missing"}}); err != nil {
		t.Errorf("ship reconcile of a missing Ship: %v", err)
	}
}

func TestFleetReturnsClientErrors(t *testing.T) {
	boom := errors.New("boom")
	e := newEnv(t, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return boom
		},
	}, newFleet(2, 1))
	_, err := e.fleet.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "armada"}})
	if !errors.Is(err, boom) {
		t.Errorf("reconcile error = %v, want %v", err, boom)
	}
}

func TestSetup(t *testing.T) {
	// Setting up contacts no server; the manager is never started.
	mgr, err := ctrl.NewManager(&rest.Config{Host: "http://127.0.0.1:1"}, ctrl.Options{
		Scheme:  newScheme(t),
		Metrics: metricsserver.Options{BindAddress: "0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := controller.Setup(mgr); err != nil {
		t.Fatal(err)
	}
}

func loadCRD(t *testing.T, file string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "config", "crd", "bases", file))
	if err != nil {
		t.Fatal(err)
	}
	c := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, c); err != nil {
		t.Fatal(err)
	}
	crd.Default(c) // as the apiserver's decoder does
	if err := crd.PrepareForCreate(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if errs := crd.Validate(context.Background(), c); len(errs) > 0 {
		t.Fatalf("%s: %v", file, errs)
	}
	return c
}

func compile(t *testing.T, file string) *crd.Version {
	t.Helper()
	v, err := crd.Compile(loadCRD(t, file), "v1")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func toMap(t *testing.T, obj runtime.Object) map[string]any {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCRDs validates both CRDs with upstream's CRD validation, then checks
// that their schemas agree with the Go types: every field a fully set
// object serializes is known (nothing pruned), and the defaults and bounds
// are the markers'.
func TestCRDs(t *testing.T) {
	ctx := context.Background()
	fleets, ships := compile(t, "fleet.example.com_fleets.yaml"), compile(t, "fleet.example.com_ships.yaml")

	full := map[*crd.Version]runtime.Object{
		fleets: &fleetv1.Fleet{
			TypeMeta:   metav1.TypeMeta{APIVersion: fleetv1.GroupVersion.String(), Kind: "Fleet"},
			ObjectMeta: metav1.ObjectMeta{Name: "armada", Namespace: ns},
			Spec:       fleetv1.FleetSpec{Ships: 4, Speed: 10},
			Status:     fleetv1.FleetStatus{ReadyShips: 4, ObservedGeneration: 3},
		},
		ships: &fleetv1.Ship{
			TypeMeta:   metav1.TypeMeta{APIVersion: fleetv1.GroupVersion.String(), Kind: "Ship"},
			ObjectMeta: metav1.ObjectMeta{Name: "armada-0", Namespace: ns},
			Spec:       fleetv1.ShipSpec{Fleet: "armada", Speed: 10},
			Status:     fleetv1.ShipStatus{Ready: true, ObservedSpeed: 10},
		},
	}
	for v, obj := range full {
		m := toMap(t, obj)
		want := toMap(t, obj)
		unknown, err := v.Prepare(m)
		if err != nil || len(unknown) > 0 {
			t.Errorf("%T: prepare: unknown fields %v, err %v", obj, unknown, err)
		}
		if !reflect.DeepEqual(m["spec"], want["spec"]) || !reflect.DeepEqual(m["status"], want["status"]) {
			t.Errorf("%T: prepare changed it:\n got %v\nwant %v", obj, m, want)
		}
		if errs := v.Validate(ctx, m); len(errs) > 0 {
			t.Errorf("%T: %v", obj, errs)
		}
	}

	fleet := func(spec map[string]any) map[string]any {
		return map[string]any{
			"apiVersion": fleetv1.GroupVersion.String(), "kind": "Fleet",
			"metadata": map[string]any{"name": "armada", "namespace": ns},
			"spec":     spec,
		}
	}
	m := fleet(map[string]any{})
	if _, err := fleets.Prepare(m); err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"ships": int64(1), "speed": int64(1)}; !reflect.DeepEqual(m["spec"], want) {
		t.Errorf("defaulted spec = %v, want %v", m["spec"], want)
	}
	for _, tc := range []struct {
		spec map[string]any
		path string
	}{
		{map[string]any{"ships": int64(5)}, "spec.ships"},
		{map[string]any{"ships": int64(-1)}, "spec.ships"},
		{map[string]any{"speed": int64(0)}, "spec.speed"},
		{map[string]any{"speed": int64(11)}, "spec.speed"},
	} {
		m := fleet(tc.spec)
		if _, err := fleets.Prepare(m); err != nil {
			t.Fatal(err)
		}
		errs := fleets.Validate(ctx, m)
		if len(errs) != 1 || errs[0].Field != tc.path {
			t.Errorf("spec %v: errors %v, want one at %s", tc.spec, errs, tc.path)
		}
	}

	// A Ship needs its fleet and speed.
	ship := toMap(t, full[ships])
	delete(ship["spec"].(map[string]any), "fleet")
	if errs := ships.Validate(ctx, ship); len(errs) != 1 || !strings.Contains(errs[0].Error(), "spec.fleet: Required value") {
		t.Errorf("ship without spec.fleet: errors %v", errs)
	}
}
