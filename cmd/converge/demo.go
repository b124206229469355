package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/converge-dev/converge/model"
)

func init() {
	register(command{name: "demo", summary: "run the seed Deployment flow (myapp, 3 replicas) through the model", run: runDemo})
}

// runDemo walks the seed flow stage by stage, as the seed documents number
// it, then quiesces and prints the converged state.
func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", "[--replicas N] [--nodes N] [--image IMAGE]", stderr)
	replicas := fs.Int("replicas", 3, "replicas of the seed Deployment")
	nodes := fs.Int("nodes", 3, "fake nodes")
	image := fs.String("image", "nginx:1.27", "container image")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *replicas < 0 || *nodes < 1 || *nodes > 250 || *image == "" {
		return usageError("need --replicas >= 0, 1 <= --nodes <= 250 and a non-empty --image")
	}
	st := model.New(model.Config{})
	n := 0
	show := func(a model.Action, r model.Result) {
		n++
		fmt.Fprintf(stdout, "%3d. %s\n", n, model.FormatStep(a, r))
	}
	var setup []model.Action
	for i := 1; i <= *nodes; i++ {
		setup = append(setup, model.Action{Op: model.OpAddNode, Who: fmt.Sprintf("node-%d", i)})
	}
	setup = append(setup,
		model.Action{Op: model.OpApplyService, Key: "myapp", App: "myapp", N: 80},
		model.Action{Op: model.OpApply, Key: "myapp", N: *replicas, Image: *image})
	fmt.Fprintln(stdout, "== kubectl apply -f examples/my-app.yaml (the model of the seed flow)")
	for _, a := range setup {
		show(a, st.Step(a))
	}
	stages := []struct{ title, pattern string }{
		{"deployment controller: Deployment -> ReplicaSet", model.DeploymentController},
		{"replicaset controller: ReplicaSet -> Pods", model.ReplicaSetController},
		{"scheduler: unbound Pods -> bindings", model.Scheduler},
		{"kubelets: bound Pods -> runtime -> status", "kubelet/*"},
		{"endpoints controller: Service + ready Pods -> Endpoints", model.EndpointsController},
		{"kube-proxy: Services + Endpoints -> rules", "kube-proxy/*"},
	}
	for _, s := range stages {
		fmt.Fprintf(stdout, "== %s\n", s.title)
		for _, e := range st.Drain(s.pattern, 10000) {
			if len(e.Result.Writes) > 0 {
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
	for _, l := range snap.Lines() {
		if !strings.Contains(l, " ") || strings.HasPrefix(l, "rules/") || strings.HasPrefix(l, "containers/") {
			fmt.Fprintln(stdout, "  "+l)
		}
	}
	return nil
}
