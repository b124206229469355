package mutants

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/converge-dev/converge/examples/replicaset"
	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/cluster"
	ctrl "github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
)

// Control is a correct controller written with a legitimate idiom that a
// harness with the wrong semantics would flag: the property must pass it.
type Control struct {
	// Name is short and stable, for test names.
	Name string
	// Idiom says what it does that a naive harness takes for a bug.
	Idiom string
	// Spec plugs it in place of a built-in component.
	Spec cluster.ControllerSpec
	// TimeTravel: it withstands a restart against a lagging apiserver, so
	// its check draws the time-travel fault for it too.
	TimeTravel bool
}

// Controls are the false-alarm checks of the catalogue.
var Controls = append([]Control{
	{
		Name:  "replicaset-periodic-resync",
		Idiom: "asks to be reconciled again in ten minutes after every successful pass (RequeueAfter)",
		Spec:  cluster.ControllerSpec{Name: model.ReplicaSetController, New: newResyncing},
	},
	{
		Name:  "replicaset-delete-without-precondition",
		Idiom: "deletes surplus pods without a resourceVersion precondition, as upstream's replicaset controller does",
		Spec:  cluster.ControllerSpec{Name: model.ReplicaSetController, New: newUnconditionalDeleter},
	},
	{
		Name:  "replicaset-ordinal-names",
		Idiom: "names pods <set>-0, <set>-1, ... and reuses a deleted pod's name once it is gone, as StatefulSets do",
		Spec:  cluster.ControllerSpec{Name: model.ReplicaSetController, New: newOrdinal},
	},
}, oracleControls...)

// ResyncPeriod is replicaset-periodic-resync's RequeueAfter.
const ResyncPeriod = 10 * time.Minute

// resyncing is the example's controller, resyncing every ResyncPeriod.
type resyncing struct{ inner ctrl.Reconciler }

func newResyncing(env cluster.ControllerEnv) ctrl.Reconciler {
	return &resyncing{inner: replicaset.New(env)}
}

func (r *resyncing) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	res, err := r.inner.Reconcile(ctx, req)
	if err == nil && !res.Requeue && res.RequeueAfter == 0 {
		res.RequeueAfter = ResyncPeriod
	}
	return res, err
}

// unconditional is a client whose pod deletes carry no precondition.
type unconditional struct{ client.Client }

func (u unconditional) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	opts.Preconditions = nil
	return u.Client.Delete(ctx, resource, namespace, name, opts)
}

func newUnconditionalDeleter(env cluster.ControllerEnv) ctrl.Reconciler {
	env.Client = unconditional{env.Client}
	return replicaset.New(env)
}

// ordinal keeps pods <set>-0 .. <set>-(replicas-1). A name is its own
// expectation: a create of a name that exists fails (AlreadyExists) and is
// retried, so no stale cache makes it create twice; a name whose pod is
// terminating waits until the pod is gone, then is created again.
type ordinal struct {
	client client.Client
	sets   *ctrl.Cache
	pods   *ctrl.Cache
}

func newOrdinal(env cluster.ControllerEnv) ctrl.Reconciler {
	return &ordinal{client: env.Client, sets: env.Cache(model.KindReplicaSet), pods: env.Cache(model.KindPod)}
}

func (o *ordinal) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	rs, ok := get[*api.ReplicaSet](o.sets, req)
	if !ok || rs.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	want := 0
	if rs.Spec.Replicas != nil {
		want = int(*rs.Spec.Replicas)
	}
	owned := map[int]*api.Pod{}
	for _, obj := range o.pods.List() {
		p := obj.(*api.Pod)
		n, err := strconv.Atoi(strings.TrimPrefix(p.Name, rs.Name+"-"))
		if err == nil && strings.HasPrefix(p.Name, rs.Name+"-") && replicaset.ControlledBy(p.OwnerReferences, string(rs.UID)) {
			owned[n] = p
		}
	}
	var active []*api.Pod
	var res ctrl.Result
	for i := range want {
		if p, ok := owned[i]; ok {
			if p.DeletionTimestamp == nil {
				active = append(active, p)
			} else {
				// A terminating pod's name is taken until it is gone:
				// come back for it, as a StatefulSet controller does.
				res.RequeueAfter = time.Second
			}
			continue
		}
		p := replicaset.PodFor(rs)
		p.GenerateName, p.Name = "", rs.Name+"-"+strconv.Itoa(i)
		if _, err := o.client.Create(ctx, p); err != nil {
			return ctrl.Result{}, err
		}
	}
	for _, i := range slices.Sorted(maps.Keys(owned)) {
		if p := owned[i]; i >= want && p.DeletionTimestamp == nil {
			if _, err := o.client.Delete(ctx, "pods", req.Namespace, p.Name, precondition(p)); err != nil {
				return ctrl.Result{}, err
			}
		}
	}
	return res, replicaset.WriteStatus(ctx, o.client, rs, active)
}
