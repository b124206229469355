package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/etcd"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/model"
)

func init() {
	register(command{name: "demo", summary: "run the seed flow (examples/my-app.yaml) on embedded etcd, live, until it converges", run: runDemo,
		examples: []string{
			"converge demo",
			"converge demo -f examples/my-service.yaml --nodes 5",
			"converge demo --model",
			"converge demo --workload statefulset",
		}})
}

// runDemo starts embedded etcd and every component in running mode with
// fake nodes, applies the seed manifest, prints the flow as it happens and
// ends when the state has converged. --model walks the same flow through the
// pure model instead, stage by stage.
func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "[-f MANIFEST | --workload deployment|statefulset] [--nodes N] [--timeout D] [--model]", stderr)
	manifest := fs.String("f", "", "the manifest to apply (Deployments, StatefulSets and Services; default the --workload's)")
	workload := fs.String("workload", "deployment", "the seed manifest to apply without -f: deployment (examples/my-app.yaml) or statefulset (examples/my-statefulset.yaml, its ordered start)")
	nodes := fs.Int("nodes", 3, "fake nodes")
	timeout := fs.Duration("timeout", time.Minute, "give up if not converged by then")
	useModel := fs.Bool("model", false, "walk the flow through the pure model instead of etcd")
	endpoints := fs.String("etcd-endpoints", "", "use this external etcd (comma-separated) instead of an embedded one")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *nodes < 1 || *nodes > 250 {
		return usageError("--nodes must be between 1 and 250")
	}
	if *manifest == "" {
		seed, ok := seedManifests[*workload]
		if !ok {
			return usageError("--workload takes deployment or statefulset, not %q", *workload)
		}
		*manifest = seed
	}
	actions, err := manifestActions(*manifest)
	if err != nil {
		return err
	}
	if *useModel {
		return demoModel(actions, *nodes, stdout)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	return demoRunning(ctx, actions, *nodes, *endpoints, stdout)
}

// seedManifests are the demo's manifests, by --workload.
var seedManifests = map[string]string{"deployment": "examples/my-app.yaml", "statefulset": "examples/my-statefulset.yaml"}

// statefulSetAction is the model's apply-statefulset of s.
func statefulSetAction(s *api.StatefulSet) (model.Action, error) {
	cs := s.Spec.Template.Spec.Containers
	if len(cs) == 0 {
		return model.Action{}, fmt.Errorf("statefulset %s has no container", s.Name)
	}
	o := &model.StatefulSetOptions{Service: s.Spec.ServiceName, Parallel: s.Spec.PodManagementPolicy == "Parallel"}
	for _, c := range s.Spec.VolumeClaimTemplates {
		o.Claims = append(o.Claims, c.Name)
	}
	if p := s.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
		o.DeleteOnScale, o.DeleteOnGone = p.WhenScaled == "Delete", p.WhenDeleted == "Delete"
	}
	return model.Action{Op: model.OpApplyStatefulSet, Key: model.Key(s.Namespace, s.Name), N: int(*s.Spec.Replicas), Image: cs[0].Image, StatefulSet: o}, nil
}

// manifestActions reads a manifest into the model's user actions.
func manifestActions(path string) ([]model.Action, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError("cannot read %s: %v", path, err)
	}
	objs, err := api.DecodeManifests(data)
	if err != nil {
		return nil, usageError("%s: %v", path, err)
	}
	var out []model.Action
	for _, o := range objs {
		api.Default(o)
		if err := api.Validate(o); err != nil {
			return nil, usageError("%s: %v", path, err)
		}
		switch x := o.(type) {
		case *api.Deployment:
			cs := x.Spec.Template.Spec.Containers
			if len(cs) == 0 {
				return nil, usageError("%s: deployment %s has no container", path, x.Name)
			}
			out = append(out, model.Action{Op: model.OpApply, Key: model.RefTo(model.KindDeployment, model.Key(x.Namespace, x.Name)).Key(), N: int(*x.Spec.Replicas), Image: cs[0].Image})
		case *api.StatefulSet:
			a, err := statefulSetAction(x)
			if err != nil {
				return nil, usageError("%s: %v", path, err)
			}
			out = append(out, a)
		case *api.Service:
			if len(x.Spec.Ports) == 0 || x.Spec.Selector["app"] == "" {
				return nil, usageError("%s: service %s needs a port and an app selector", path, x.Name)
			}
			out = append(out, model.Action{Op: model.OpApplyService, Key: model.RefTo(model.KindService, model.Key(x.Namespace, x.Name)).Key(), App: x.Spec.Selector["app"], N: int(x.Spec.Ports[0].Port)})
		default:
			return nil, usageError("%s: the demo applies Deployments, StatefulSets and Services, not %s", path, api.TypeOf(o).Kind)
		}
	}
	return out, nil
}

func demoRunning(ctx context.Context, actions []model.Action, nodes int, endpoints string, stdout io.Writer) error {
	st, closeStore, err := openStore(endpoints)
	if err != nil {
		return err
	}
	defer closeStore()
	base, err := st.Rev(ctx)
	if err != nil {
		return err
	}
	n := 0
	causal := newCausalLog(base, func(line string) {
		if strings.HasPrefix(line, "==") {
			fmt.Fprintln(stdout, line)
			return
		}
		n++
		fmt.Fprintf(stdout, "%4d. %s\n", n, line)
	}, func() (int64, error) { return st.Rev(context.Background()) }, func(a model.Action, res model.Result) bool {
		return a.Op != model.OpHeartbeat || res.Err != nil
	})
	fmt.Fprintf(stdout, "== etcd up; starting the control plane with %d fake nodes\n", nodes)
	r, err := cluster.StartRunning(cluster.RunningConfig{Store: st, Nodes: nodes, OnStep: causal.step})
	if err != nil {
		return err
	}
	defer r.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				causal.tick()
			}
		}
	}()
	causal.section("== kubectl apply -f (the seed manifest)")
	for _, a := range actions {
		if res := r.Apply(a); res.Err != nil {
			return fmt.Errorf("%s: %w", a, res.Err)
		}
	}
	snap, err := r.WaitConverged(ctx, 50*time.Millisecond)
	causal.close()
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			fmt.Fprintln(stdout, "== interrupted; shutting down")
			return nil
		}
		return err
	}
	fmt.Fprintln(stdout, "== converged; state:")
	printState(stdout, snap)
	return nil
}

// openStore starts an embedded etcd in a temporary directory, or dials an
// external one, and returns a store with a fresh key prefix.
func openStore(endpoints string) (*store.Store, func(), error) {
	if endpoints != "" {
		c, err := etcd.Dial(strings.Split(endpoints, ","))
		if err != nil {
			return nil, nil, err
		}
		prefix := fmt.Sprintf("/converge-demo/%d", time.Now().UnixNano())
		return store.New(c, prefix), func() { c.Close() }, nil
	}
	c, stop, err := tempEtcd("demo")
	if err != nil {
		return nil, nil, err
	}
	return store.New(c, ""), stop, nil
}

func printState(w io.Writer, snap *model.Snapshot) {
	for _, l := range snap.Lines() {
		if !strings.Contains(l, " ") || strings.HasPrefix(l, "rules/") || strings.HasPrefix(l, "containers/") {
			fmt.Fprintln(w, "  "+l)
		}
	}
}

// demoModel walks the seed flow stage by stage, as the seed documents
// number it, then quiesces and prints the converged state.
func demoModel(actions []model.Action, nodes int, stdout io.Writer) error {
	st := model.New(model.Config{})
	n := 0
	show := func(a model.Action, r model.Result) {
		n++
		fmt.Fprintf(stdout, "%3d. %s\n", n, model.FormatStep(a, r))
	}
	fmt.Fprintln(stdout, "== kubectl apply -f (the model of the seed flow)")
	for i := 1; i <= nodes; i++ {
		a := model.Action{Op: model.OpAddNode, Who: fmt.Sprintf("node-%d", i)}
		show(a, st.Step(a))
	}
	for _, a := range actions {
		show(a, st.Step(a))
	}
	stages := []struct{ title, pattern string }{
		{"deployment controller: Deployment -> ReplicaSet", model.DeploymentController},
		{"replicaset controller: ReplicaSet -> Pods", model.ReplicaSetController},
		{"scheduler: unbound Pods -> bindings", model.Scheduler},
		{"kubelets: bound Pods -> runtime -> status", "kubelet/*"},
		{"endpoints controller: Service + ready Pods -> Endpoints, EndpointSlice", model.EndpointsController},
		{"kube-proxy: Services + Endpoints -> rules", "kube-proxy/*"},
	}
	for _, s := range stages {
		titled := false // a stage with nothing to do (no Deployment in a StatefulSet's flow) prints nothing
		for _, e := range st.Drain(s.pattern, 10000) {
			if len(e.Result.Writes) > 0 {
				if !titled {
					fmt.Fprintf(stdout, "== %s\n", s.title)
					titled = true
				}
				show(e.Action, e.Result)
			}
		}
	}
	fmt.Fprintln(stdout, "== status updates until quiet")
	for {
		a, ok := st.NextQuiesceStep()
		if !ok {
			break
		}
		if r := st.Step(a); len(r.Writes) > 0 {
			show(a, r)
		}
	}
	snap := st.Snapshot()
	if err := model.Converged(snap); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "== converged at store revision %d; state:\n", st.Rev())
	printState(stdout, snap)
	return nil
}
