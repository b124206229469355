package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Op is the type of an action. The model and the stepped implementation
// accept the same alphabet (ARCHITECTURE.md, contract 1: one action
// alphabet).
type Op uint8

const (
	// User actions.
	OpApply        Op = iota + 1 // create or update a Deployment
	OpScale                      // set a Deployment's replicas
	OpSetImage                   // set a Deployment's image
	OpDelete                     // delete a Deployment, Service or Pod
	OpAddNode                    // register a node (and start its kubelet and kube-proxy)
	OpRemoveNode                 // delete a node and its machine
	OpApplyService               // create or update a Service
	OpCreatePod                  // create a bare Pod (no owner)
	OpTick                       // advance the logical clock by one
	// Component steps.
	OpDeliver   // deliver the next watch event of one of a component's informers
	OpRelist    // list again after a broken watch (or at start)
	OpReconcile // reconcile one key from a component's queue
	OpHeartbeat // a kubelet reports its node's status
	// Faults.
	OpHold           // hold back a component's events (stale view)
	OpRelease        // deliver them again
	OpDropWatch      // drop a component's watch: it relists
	OpCompact        // compact the store: lagging watches relist
	OpCrash          // crash and restart a component (empty cache, queue, expectations)
	OpCrashContainer // a container exits with an error
	OpNodeDown       // partition a node: its kubelet and kube-proxy stop
	OpNodeUp         // heal it
	OpAPIError       // the component's next API call fails transiently (N: 429, 503 or 504)
	OpTimeTravel     // crash and restart a component whose list is served at the revision it had reached
	// User actions added later, numbered after the others so that recorded
	// fuzz inputs keep their meaning.
	OpAddFinalizer    // add UserFinalizer to a Deployment or Pod
	OpRemoveFinalizer // remove it
	OpCreateNamespace // create a Namespace
	// World faults, numbered after the others for the same reason: the
	// managed application's world, which the kubelet reports
	// (model/world.go).
	OpImageFails      // pulls of an image fail from now on (a bad tag, a registry that refuses it)
	OpImagePulls      // they succeed again
	OpContainerOOM    // a running container is killed for memory (exit 137, OOMKilled)
	OpReadinessFails  // a running container's readiness probe starts failing
	OpReadinessPasses // it passes again
	// User actions added later still (statefulset_action.go).
	OpApplyStatefulSet // create or update a StatefulSet
	// World faults added later (world_cpu.go).
	OpNodeCPUFull  // another tenant's workload takes a node's spare CPU
	OpNodeCPUFrees // it gives it back
)

var opNames = map[Op]string{
	OpApply: "apply", OpScale: "scale", OpSetImage: "set-image", OpDelete: "delete",
	OpAddNode: "add-node", OpRemoveNode: "remove-node", OpApplyService: "apply-service", OpCreatePod: "create-pod",
	OpTick: "tick", OpDeliver: "deliver", OpRelist: "relist", OpReconcile: "reconcile", OpHeartbeat: "heartbeat",
	OpHold: "hold", OpRelease: "release", OpDropWatch: "drop-watch", OpCompact: "compact",
	OpCrash: "crash", OpCrashContainer: "crash-container", OpNodeDown: "node-down", OpNodeUp: "node-up",
	OpAPIError: "api-error", OpTimeTravel: "time-travel",
	OpAddFinalizer: "add-finalizer", OpRemoveFinalizer: "remove-finalizer",
	OpCreateNamespace: "create-namespace",
	OpImageFails:      "image-fails", OpImagePulls: "image-pulls", OpContainerOOM: "container-oom",
	OpReadinessFails: "readiness-fails", OpReadinessPasses: "readiness-passes",
	OpApplyStatefulSet: "apply-statefulset",
	OpNodeCPUFull:      "node-cpu-full", OpNodeCPUFrees: "node-cpu-frees",
}

func (o Op) String() string { return opNames[o] }

// IsUser, IsFault and IsStep classify an action.
func (o Op) IsUser() bool {
	return (o >= OpApply && o <= OpTick) || (o >= OpAddFinalizer && o <= OpCreateNamespace) || o == OpApplyStatefulSet
}
func (o Op) IsStep() bool  { return o >= OpDeliver && o <= OpHeartbeat }
func (o Op) IsFault() bool { return (o >= OpHold && o <= OpTimeTravel) || o.IsWorld() }

// IsWorld tells a world fault: one of the managed application's world
// (its images, its containers' memory and readiness, its nodes' CPU), not
// of the control plane.
func (o Op) IsWorld() bool {
	return (o >= OpImageFails && o <= OpReadinessPasses) || o == OpNodeCPUFull || o == OpNodeCPUFrees
}

// Action is one step of an interleaving. Unused fields are zero.
type Action struct {
	Op Op
	// Component for steps and component faults; the node for node actions.
	Who string
	// Key of the object for user actions (namespace/name; the name of a
	// namespace); the queue key for reconcile; the pod's key for
	// crash-container and the container faults of the world.
	Key string
	// Kind of the object to delete (Deployment, Service, Pod or Namespace)
	// or to add a finalizer to or remove it from, or of the informer to
	// deliver from.
	Kind Kind
	// Policy of a delete: kubectl's --cascade; zero is background.
	Policy Propagation
	// Replicas for apply/scale; Port for apply-service; the HTTP code for
	// api-error.
	N     int
	Image string
	// Selector value of the app label for apply-service.
	App string
	// Strategy for apply; zero means the 25%/25% default.
	Surge, Unavailable *IntOrPercent
	// CrashAfter > 0 crashes the component after that many writes of the
	// reconcile (intermediate state).
	CrashAfter int
	// StatefulSet is apply-statefulset's spec beyond N and Image.
	StatefulSet *StatefulSetOptions
}

// Target is the object a user action writes.
func (a Action) Target() Ref {
	switch a.Op {
	case OpApply, OpScale, OpSetImage:
		return RefTo(KindDeployment, a.Key)
	case OpApplyService:
		return RefTo(KindService, a.Key)
	case OpCreatePod:
		return RefTo(KindPod, a.Key)
	case OpCreateNamespace:
		return RefTo(KindNamespace, a.Key)
	case OpApplyStatefulSet:
		return RefTo(KindStatefulSet, a.Key)
	}
	return RefTo(a.Kind, a.Key)
}

// Actor is who performs the action in traces.
func (a Action) Actor() string {
	switch {
	case a.Op.IsUser():
		return "user"
	case a.Op.IsFault():
		return "fault"
	case a.Op == OpHeartbeat:
		return KubeletName(a.Who)
	}
	return a.Who
}

// String renders the action as one script line; ParseAction reads it back.
func (a Action) String() string {
	var b strings.Builder
	b.WriteString(a.Op.String())
	arg := func(s string) { b.WriteByte(' '); b.WriteString(s) }
	kv := func(k, v string) { arg(k + "=" + v) }
	switch a.Op {
	case OpApply:
		arg(a.Key)
		kv("replicas", strconv.Itoa(a.N))
		kv("image", a.Image)
		if a.Surge != nil {
			kv("surge", a.Surge.String())
		}
		if a.Unavailable != nil {
			kv("unavailable", a.Unavailable.String())
		}
	case OpScale:
		arg(a.Key)
		arg(strconv.Itoa(a.N))
	case OpSetImage:
		arg(a.Key)
		arg(a.Image)
	case OpDelete:
		arg(a.Kind.Resource() + "/" + a.Key)
		if a.Policy > PropagateBackground {
			kv("cascade", a.Policy.String())
		}
	case OpAddFinalizer, OpRemoveFinalizer:
		arg(a.Kind.Resource() + "/" + a.Key)
	case OpApplyService:
		arg(a.Key)
		kv("app", a.App)
		kv("port", strconv.Itoa(a.N))
	case OpCreatePod:
		arg(a.Key)
		kv("image", a.Image)
	case OpCreateNamespace:
		arg(a.Key)
	case OpApplyStatefulSet:
		a.statefulSetString(arg, kv)
	case OpDeliver:
		arg(a.Who)
		arg(a.Kind.Resource())
	case OpAddNode, OpRemoveNode, OpHeartbeat, OpNodeDown, OpNodeUp, OpNodeCPUFull, OpNodeCPUFrees,
		OpRelist, OpHold, OpRelease, OpDropWatch, OpCrash, OpTimeTravel:
		arg(a.Who)
	case OpReconcile:
		arg(a.Who)
		arg(a.Key)
		if a.CrashAfter > 0 {
			kv("crash-after", strconv.Itoa(a.CrashAfter))
		}
	case OpCrashContainer, OpContainerOOM, OpReadinessFails, OpReadinessPasses:
		arg(a.Who)
		arg(a.Key)
	case OpImageFails, OpImagePulls:
		arg(a.Image)
	case OpAPIError:
		arg(a.Who)
		arg(strconv.Itoa(a.N))
	}
	return b.String()
}

// ParseAction reads one script line written by Action.String.
func ParseAction(line string) (Action, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return Action{}, fmt.Errorf("model: empty action")
	}
	var a Action
	for op, name := range opNames {
		if name == f[0] {
			a.Op = op
		}
	}
	if a.Op == 0 {
		return a, fmt.Errorf("model: unknown action %q", f[0])
	}
	var pos []string
	kv := map[string]string{}
	for _, w := range f[1:] {
		if k, v, ok := strings.Cut(w, "="); ok {
			kv[k] = v
		} else {
			pos = append(pos, w)
		}
	}
	need := func(n int) error {
		if len(pos) != n {
			return fmt.Errorf("model: %s takes %d argument(s), got %d in %q", f[0], n, len(pos), line)
		}
		return nil
	}
	num := func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("model: %q is not a non-negative number in %q", s, line)
		}
		return n, nil
	}
	// key reads an object's key: namespace/name, or a name alone for the
	// default namespace (kubectl's default) or a cluster-scoped kind.
	key := func(k Kind, s string) (string, error) {
		r := RefTo(k, s)
		if r.Name == "" || strings.Contains(r.Name, "/") || strings.HasPrefix(s, "/") || (!k.Namespaced() && strings.Contains(s, "/")) {
			if k.Namespaced() {
				return "", fmt.Errorf("model: %q is not NAME or NAMESPACE/NAME in %q", s, line)
			}
			return "", fmt.Errorf("model: %q is not a name in %q", s, line)
		}
		return r.Key(), nil
	}
	// resourceKey reads RESOURCE/[NAMESPACE/]NAME of one of the kinds.
	resourceKey := func(s string, allowed ...Kind) (Kind, string, error) {
		res, rest, _ := strings.Cut(s, "/")
		k, known := KindOf(res)
		if known && slices.Contains(allowed, k) {
			k0, err := key(k, rest)
			return k, k0, err
		}
		var forms []string
		for _, k := range allowed {
			forms = append(forms, k.Resource()+"/NAME")
		}
		return 0, "", fmt.Errorf("model: %s takes %s, got %q", f[0], strings.Join(forms, ", "), s)
	}
	var err error
	switch a.Op {
	case OpApply:
		if err = need(1); err != nil {
			return a, err
		}
		if a.Key, err = key(KindDeployment, pos[0]); err != nil {
			return a, err
		}
		a.Image = kv["image"]
		if a.Image == "" {
			return a, fmt.Errorf("model: apply needs image= in %q", line)
		}
		if a.N, err = num(kv["replicas"]); err != nil {
			return a, err
		}
		for k, dst := range map[string]**IntOrPercent{"surge": &a.Surge, "unavailable": &a.Unavailable} {
			if v, ok := kv[k]; ok {
				p := IntOrPercent{}
				p.Percent = strings.HasSuffix(v, "%")
				if p.Val, err = num(strings.TrimSuffix(v, "%")); err != nil {
					return a, err
				}
				*dst = &p
			}
		}
	case OpImageFails, OpImagePulls:
		if err = need(1); err != nil {
			return a, err
		}
		a.Image = pos[0]
	case OpScale, OpSetImage, OpCrashContainer, OpContainerOOM, OpReadinessFails, OpReadinessPasses:
		if err = need(2); err != nil {
			return a, err
		}
		if a.Op != OpScale && a.Op != OpSetImage {
			a.Who = pos[0]
			a.Key, err = key(KindPod, pos[1])
		} else {
			if a.Key, err = key(KindDeployment, pos[0]); err != nil {
				return a, err
			}
			if a.Op == OpScale {
				a.N, err = num(pos[1])
			} else {
				a.Image = pos[1]
			}
		}
	case OpDelete:
		if err = need(1); err != nil {
			return a, err
		}
		if a.Kind, a.Key, err = resourceKey(pos[0], KindDeployment, KindService, KindPod, KindNamespace, KindStatefulSet, KindPersistentVolumeClaim); err != nil {
			return a, err
		}
		k := a.Kind
		if v, ok := kv["cascade"]; ok {
			if a.Policy, ok = ParsePropagation(v); !ok {
				return a, fmt.Errorf("model: cascade takes background, foreground or orphan, got %q", line)
			}
			if a.Policy != PropagateBackground && (k == KindService || k == KindNamespace) {
				return a, fmt.Errorf("model: %s are deleted in the background only (the garbage collector does not watch them, so no finalizer of its would go): %q", k.Resource(), line)
			}
		}
		if a.Policy == PropagateBackground {
			a.Policy = PropagateDefault // one spelling per action: background is the zero
		}
	case OpAddFinalizer, OpRemoveFinalizer:
		if err = need(1); err != nil {
			return a, err
		}
		a.Kind, a.Key, err = resourceKey(pos[0], KindDeployment, KindPod)
	case OpApplyService:
		if err = need(1); err != nil {
			return a, err
		}
		if a.Key, err = key(KindService, pos[0]); err != nil {
			return a, err
		}
		a.App = kv["app"]
		if a.App == "" {
			a.App = a.Target().Name
		}
		a.N, err = num(kv["port"])
	case OpCreateNamespace:
		if err = need(1); err != nil {
			return a, err
		}
		a.Key, err = key(KindNamespace, pos[0])
	case OpApplyStatefulSet:
		if err = need(1); err != nil {
			return a, err
		}
		if a.Key, err = key(KindStatefulSet, pos[0]); err != nil {
			return a, err
		}
		err = a.parseStatefulSet(kv, line)
	case OpCreatePod:
		if err = need(1); err != nil {
			return a, err
		}
		if a.Key, err = key(KindPod, pos[0]); err != nil {
			return a, err
		}
		a.Image = kv["image"]
		if a.Image == "" {
			return a, fmt.Errorf("model: create-pod needs image= in %q", line)
		}
	case OpTick, OpCompact:
		err = need(0)
	case OpAPIError:
		if err = need(2); err != nil {
			return a, err
		}
		a.Who = pos[0]
		if a.N, err = num(pos[1]); err == nil && !TransientCode(a.N) {
			err = fmt.Errorf("model: api-error takes 429, 503 or 504, got %q", line)
		}
	case OpDeliver:
		if err = need(2); err != nil {
			return a, err
		}
		k, ok := KindOf(pos[1])
		if !ok {
			return a, fmt.Errorf("model: unknown resource %q in %q", pos[1], line)
		}
		a.Who, a.Kind = pos[0], k
	case OpReconcile:
		if err = need(2); err != nil {
			return a, err
		}
		a.Who, a.Key = pos[0], NormalizeKey(pos[0], pos[1])
		if v, ok := kv["crash-after"]; ok {
			a.CrashAfter, err = num(v)
		}
	default:
		if err = need(1); err != nil {
			return a, err
		}
		a.Who = pos[0]
	}
	return a, err
}
