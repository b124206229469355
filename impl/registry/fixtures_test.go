package registry_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// epoch is the logical clock's reading in every test.
var epoch = time.Unix(1_000_000, 0).UTC()

// newRegistry is a registry over a fresh prefix of the shared etcd with a
// fixed clock. Tests in this package do not run in parallel, so the etcd
// revision moves only with the test's own writes.
func newRegistry(t *testing.T) (*registry.Registry, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return registry.New(registry.Config{Store: storetest.Store(t), Clock: func() time.Time { return epoch }}), ctx
}

func int32p(v int32) *int32 { return &v }
func int64p(v int64) *int64 { return &v }
func strp(s string) *string { return &s }

func podTemplate(app string) api.PodTemplateSpec {
	return api.PodTemplateSpec{
		ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27"}}},
	}
}

func deployment(name string, replicas int32) *api.Deployment {
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"app": name}},
		Spec: api.DeploymentSpec{
			Replicas: int32p(replicas),
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: podTemplate(name),
		},
	}
}

func replicaSet(name string) *api.ReplicaSet {
	return &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.ReplicaSetSpec{
			Replicas: int32p(2),
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: podTemplate("web"),
		},
	}
}

func pod(name string, labels map[string]string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: labels},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27"}}},
	}
}

func node(name string, ready api.ConditionStatus) *api.Node {
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name},
		Status: api.NodeStatus{
			Capacity:   api.ResourceList{"cpu": resource.MustParse("4"), "memory": resource.MustParse("8Gi"), "pods": resource.MustParse("110")},
			Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: ready}},
		},
	}
}

func service(name string) *api.Service {
	return &api.Service{
		ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.ServiceSpec{
			Selector: map[string]string{"app": name},
			Ports:    []api.ServicePort{{Port: 80}},
		},
	}
}

func endpoints(name, ip string) *api.Endpoints {
	return &api.Endpoints{
		ObjectMeta: api.ObjectMeta{Name: name},
		Subsets: []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{{IP: ip}},
			Ports:     []api.EndpointPort{{Port: 80}},
		}},
	}
}

func namespace(name string) *api.Namespace {
	return &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}
}

// mustCreate creates obj and returns the stored object as its own type.
func mustCreate[T api.Object](t *testing.T, ctx context.Context, r *registry.Registry, obj T) T {
	t.Helper()
	out, err := r.Create(ctx, obj)
	if err != nil {
		t.Fatalf("create %T %q: %v", obj, api.Meta(obj).Name, err)
	}
	return out.(T)
}

// wantReason fails unless err carries a StatusError with reason and code.
func wantReason(t *testing.T, err error, reason api.StatusReason, code int32) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s (%d)", reason, code)
	}
	if api.ReasonOf(err) != reason || api.CodeOf(err) != code {
		t.Fatalf("got %v (reason %q, code %d), want %s (%d)", err, api.ReasonOf(err), api.CodeOf(err), reason, code)
	}
}

func rev(t *testing.T, ctx context.Context, r *registry.Registry) int64 {
	t.Helper()
	n, err := r.Rev(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
