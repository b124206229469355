package traces

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/converge-dev/converge/model"
)

// ErrScenario is wrapped by every error about a scenario's steps.
var ErrScenario = errors.New("traces: bad scenario")

// Bounds on the pseudo-steps, so a scenario that never settles fails
// instead of running forever.
const (
	maxDrainSteps   = 1000
	maxQuiesceSteps = 10000
)

// Scenario is a named run of the seed flow. Steps are action script lines
// (model.ParseAction) and two pseudo-steps that Expand replaces with the
// model's own schedule:
//
//	quiesce                run model.State.NextQuiesceStep until nothing is left
//	drain PATTERN...       run model.State.Drain for each path.Match pattern in turn
type Scenario struct {
	Name  string
	Doc   string // one sentence: what the scenario shows
	Steps []string
}

// Scenarios returns the golden scenarios, in a fixed order. Each ends
// converged on the correct model; testdata/traces/NAME.jsonl is its trace.
func Scenarios() []Scenario {
	return []Scenario{
		{"seed-pod", "A bare pod is scheduled, started, reported ready and made reachable through its Service.", []string{
			"add-node node-1",
			"apply-service nginx app=nginx port=80",
			"create-pod nginx image=nginx:1.27",
			"drain scheduler", "drain kubelet/*", "drain endpoints-controller", "drain kube-proxy/*",
			"quiesce",
		}},
		// The last stretch runs on the fair schedule rather than one
		// component at a time, so the endpoints controller sees pods that
		// run but are not ready yet, as it does in a real cluster.
		{"seed-deployment", "kubectl apply of my-app (3 replicas) flows Deployment -> ReplicaSet -> Pods -> nodes -> Endpoints -> rules.", []string{
			"add-node node-1", "add-node node-2", "add-node node-3",
			"apply-service my-app app=my-app port=80",
			"apply my-app replicas=3 image=nginx:1.27",
			"drain deployment-controller", "drain replicaset-controller", "drain scheduler",
			"quiesce",
		}},
		{"scale", "A Deployment scaled 3 -> 5 -> 1 creates, then deletes, pods and keeps Endpoints in step.", []string{
			"add-node node-1", "add-node node-2",
			"apply-service web app=web port=80",
			"apply web replicas=3 image=nginx:1",
			"quiesce",
			"scale web 5",
			"quiesce",
			"scale web 1",
			"quiesce",
		}},
		{"rolling-update", "An image change with maxSurge 1 and maxUnavailable 0 replaces pods one at a time.", []string{
			"add-node node-1", "add-node node-2",
			"apply-service web app=web port=80",
			"apply web replicas=3 image=nginx:1 surge=1 unavailable=0",
			"quiesce",
			"set-image web nginx:2",
			"quiesce",
		}},
		{"node-failure", "A partitioned node goes NotReady, its pod is evicted and replaced; when it heals it stops the evicted container.", []string{
			"add-node node-1", "add-node node-2",
			"apply web replicas=2 image=nginx:1",
			"quiesce",
			"node-down node-1",
			"tick", "heartbeat node-2", "tick", "heartbeat node-2",
			"tick", "heartbeat node-2", "tick", "heartbeat node-2",
			"drain node-lifecycle-controller",
			"tick", "tick", "tick", "heartbeat node-2",
			"drain node-lifecycle-controller",
			"drain replicaset-controller scheduler",
			"node-up node-1",
			"quiesce",
		}},
		{"container-crash", "A crashed container is restarted by its kubelet; the pod leaves and rejoins the Endpoints.", []string{
			"add-node node-1",
			"apply-service web app=web port=80",
			"apply web replicas=1 image=nginx:1",
			"quiesce",
			"crash-container node-1 web-xf4qm9f8x2-0",
			"drain kubelet/node-1", "drain endpoints-controller",
			"quiesce",
		}},
		{"bad-image", "A rollout to an image that does not pull: the new pods wait in ImagePullBackOff, the old ones keep serving, and the rollout stays stuck until the image pulls again.", []string{
			"add-node node-1",
			"apply-service web app=web port=80",
			"apply web replicas=2 image=nginx:1",
			"quiesce",
			"set-image web nginx:2",
			"image-fails nginx:2",
			"quiesce",
			"image-pulls nginx:2",
			"quiesce",
		}},
		{"crash-loop", "A container killed for memory restarts at once; one that crashes again waits in CrashLoopBackOff for a sync; a failing readiness probe drops the pod from the Endpoints until it passes.", []string{
			"add-node node-1",
			"apply-service web app=web port=80",
			"apply web replicas=1 image=nginx:1",
			"quiesce",
			"container-oom node-1 web-xf4qm9f8x2-0",
			"drain kubelet/node-1",
			"crash-container node-1 web-xf4qm9f8x2-0",
			"drain kubelet/node-1", "drain endpoints-controller",
			"readiness-fails node-1 web-xf4qm9f8x2-0",
			"quiesce",
			"readiness-passes node-1 web-xf4qm9f8x2-0",
			"quiesce",
		}},
		{"cascading-delete", "Deleting a Deployment lets the garbage collector remove its ReplicaSet and pods, and their containers stop.", []string{
			"add-node node-1",
			"apply web replicas=2 image=nginx:1",
			"quiesce",
			"delete deployments/web",
			"drain garbage-collector",
			"quiesce",
		}},
		{"foreground-delete", "kubectl delete --cascade=foreground keeps the Deployment, marked, while the garbage collector deletes its ReplicaSet and pods first; nothing replaces them.", []string{
			"add-node node-1",
			"apply web replicas=2 image=nginx:1",
			"quiesce",
			"delete deployments/web cascade=foreground",
			"drain garbage-collector",
			"quiesce",
		}},
		{"orphan-delete", "kubectl delete --cascade=orphan removes the Deployment; the garbage collector first frees its ReplicaSet, which keeps its pods.", []string{
			"add-node node-1",
			"apply web replicas=2 image=nginx:1",
			"quiesce",
			"delete deployments/web cascade=orphan",
			"quiesce",
		}},
		{"finalizer-hold", "A user's finalizer keeps a deleted Deployment, and its pods running, until the user removes it; then the garbage collector removes the rest.", []string{
			"add-node node-1",
			"apply web replicas=1 image=nginx:1",
			"add-finalizer deployments/web",
			"quiesce",
			"delete deployments/web",
			"quiesce",
			"remove-finalizer deployments/web",
			"quiesce",
		}},
		{"namespace-delete", "The seed Deployment and a Service in namespace team-b; deleting the namespace marks it Terminating, the namespace controller deletes what it holds and, once it is empty, finalizes it, and it goes.", []string{
			"add-node node-1",
			"create-namespace team-b",
			"apply team-b/web replicas=2 image=nginx:1",
			"apply-service team-b/web app=web port=80",
			"quiesce",
			"delete namespaces/team-b",
			"quiesce",
		}},
	}
}

// ScenarioNamed returns the scenario called name.
func ScenarioNamed(name string) (Scenario, bool) {
	for _, sc := range Scenarios() {
		if sc.Name == name {
			return sc, true
		}
	}
	return Scenario{}, false
}

// Expand plays the scenario on st and returns the real actions it took, in
// order, with each pseudo-step replaced by the steps st's schedule chose.
// Stepping the returned actions on a fresh cluster with st's config
// reproduces the run; that is how the implementation runs the same
// scenarios. A line that does not parse, a scripted action the model
// refuses, or a pseudo-step that does not settle is an error wrapping
// ErrScenario.
func (sc Scenario) Expand(st *model.State) ([]model.Action, error) {
	var out []model.Action
	for i, line := range sc.Steps {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%w: %s step %d %q: %s", ErrScenario, sc.Name, i+1, line, fmt.Sprintf(format, args...))
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 1 && f[0] == "quiesce":
			done, err := st.Quiesce(maxQuiesceSteps)
			if err != nil {
				return out, fail("%v", err)
			}
			out = append(out, done...)
		case len(f) > 0 && f[0] == "drain":
			if len(f) == 1 {
				return out, fail("drain needs a component pattern")
			}
			for _, pattern := range f[1:] {
				done := st.Drain(pattern, maxDrainSteps)
				if len(done) == maxDrainSteps {
					return out, fail("%s still busy after %d steps", pattern, maxDrainSteps)
				}
				for _, e := range done {
					out = append(out, e.Action)
				}
			}
		default:
			a, err := model.ParseAction(line)
			if err != nil {
				return out, fail("%v", err)
			}
			if r := st.Step(a); r.Err != nil {
				return out, fail("%v", r.Err)
			}
			out = append(out, a)
		}
	}
	return out, nil
}

// RecordScenario runs sc on a fresh model with cfg, expanded with that
// model's own schedule, and writes its trace to w. It returns the recorded
// model, whose state is the scenario's end state.
func RecordScenario(sc Scenario, cfg model.Config, w io.Writer) (*model.State, error) {
	actions, err := sc.Expand(model.New(cfg))
	if err != nil {
		return nil, err
	}
	st := model.New(cfg)
	rec := NewRecorder(st, NewWriter(w))
	for _, a := range actions {
		rec.Step(a)
	}
	return st, rec.Err()
}
