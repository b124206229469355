package cluster

import (
	"context"
	"fmt"
	"k8s.io/apimachinery/pkg/types"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/client"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/model"
)

// The running driver reports what its components do as core/v1 Events, the
// way upstream's controllers and kubelets do, so that kubectl describe and
// kubectl get events explain a rollout. Events are derived from the writes
// the components make, never read by them, and not part of the model: the
// stepped driver records none.

// DefaultEventTTL is how long an Event is kept, as the apiserver's
// --event-ttl defaults to.
const DefaultEventTTL = time.Hour

// eventBuffer bounds the Events waiting to be written; past it they are
// dropped, as upstream's broadcaster drops under pressure.
const eventBuffer = 1024

// repeatInterval is how often a repeated Event is written again; repeats
// in between only count, as upstream's correlator folds a storm (a pod
// that fits no node fails again on every node heartbeat).
const repeatInterval = 10 * time.Second

// eventRecorder writes Events in the background, best effort.
type eventRecorder struct {
	client client.Client
	queue  chan *api.Event
	now    func() time.Time
	seq    atomic.Uint64

	mu     sync.Mutex
	recent map[string]*repeated // by object uid, reason and message
}

// repeated is the Event last written for one key, and how often it
// happened since.
type repeated struct {
	ev      *api.Event
	count   int32
	written time.Time
}

func newEventRecorder(c client.Client) *eventRecorder {
	return &eventRecorder{client: c, queue: make(chan *api.Event, eventBuffer), now: time.Now, recent: map[string]*repeated{}}
}

// run writes queued Events until ctx ends, and every sweep deletes the
// ones last seen more than ttl ago.
func (e *eventRecorder) run(ctx context.Context, ttl time.Duration) {
	sweep := time.NewTicker(min(ttl/2, time.Minute))
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-e.queue:
			e.write(ctx, ev)
		case <-sweep.C:
			e.expire(ctx, ttl)
		}
	}
}

// write creates ev, or for a repeat updates the Event it repeats (creating
// it again if it expired). Best effort: an Event is a report, not state.
func (e *eventRecorder) write(ctx context.Context, ev *api.Event) {
	if ev.Count > 1 {
		if cur, err := e.client.Get(ctx, "events", ev.Namespace, ev.Name); err == nil {
			u := *ev // ev is shared with fold: write on a copy
			u.ResourceVersion = api.Meta(cur).ResourceVersion
			if _, err := e.client.Update(ctx, &u); err == nil {
				return
			}
		}
	}
	_, _ = e.client.Create(ctx, ev)
}

// expire deletes the Events last seen before now-ttl, and forgets the
// repeats it counts that are as old.
func (e *eventRecorder) expire(ctx context.Context, ttl time.Duration) {
	e.mu.Lock()
	for k, r := range e.recent {
		if e.now().Sub(r.written) > ttl {
			delete(e.recent, k)
		}
	}
	e.mu.Unlock()
	l, err := e.client.List(ctx, "events", "", registry.ListOptions{})
	if err != nil {
		return
	}
	cutoff := e.now().Add(-ttl)
	for _, o := range api.Items(l) {
		ev := o.(*api.Event)
		if last := lastSeen(ev); !last.IsZero() && last.Before(cutoff) {
			_, _ = e.client.Delete(ctx, "events", ev.Namespace, ev.Name, api.DeleteOptions{})
		}
	}
}

func lastSeen(ev *api.Event) time.Time {
	if !ev.LastTimestamp.IsZero() {
		return ev.LastTimestamp.Time
	}
	if !ev.EventTime.IsZero() {
		return ev.EventTime.Time
	}
	return ev.CreationTimestamp.Time
}

// observe turns one successful write of actor into Events. stored is the
// object as the write left it (its last state for a final delete).
func (e *eventRecorder) observe(actor string, w model.Write, stored api.Object) {
	if stored == nil {
		return
	}
	m := api.Meta(stored)
	self := referenceTo(stored)
	switch {
	case actor == model.DeploymentController && w.Ref.Kind == model.KindReplicaSet:
		from, to := replicasOf(w.Before), replicasOf(w.After)
		if from == to || w.After == nil {
			return
		}
		verb := "up"
		if to < from {
			verb = "down"
		}
		e.emit(ownerOf(stored), api.EventTypeNormal, "ScalingReplicaSet",
			fmt.Sprintf("Scaled %s replica set %s from %d to %d", verb, m.Name, from, to), "deployment-controller", "")
	case actor == model.ReplicaSetController && w.Ref.Kind == model.KindPod && w.Verb == model.VerbCreate:
		e.emit(ownerOf(stored), api.EventTypeNormal, "SuccessfulCreate", "Created pod: "+m.Name, "replicaset-controller", "")
	case actor == model.ReplicaSetController && w.Ref.Kind == model.KindPod && w.Verb == model.VerbDelete:
		e.emit(ownerOf(stored), api.EventTypeNormal, "SuccessfulDelete", "Deleted pod: "+m.Name, "replicaset-controller", "")
	case actor == model.Scheduler && w.Verb == model.VerbBind:
		if p, ok := w.After.(*model.Pod); ok {
			e.emit(self, api.EventTypeNormal, "Scheduled",
				fmt.Sprintf("Successfully assigned %s/%s to %s", m.Namespace, m.Name, p.NodeName), "default-scheduler", "")
		}
	case actor == model.NodeLifecycle && w.Ref.Kind == model.KindPod && w.Verb == model.VerbDelete:
		e.emit(self, api.EventTypeNormal, "TaintManagerEviction", fmt.Sprintf("Marking for deletion Pod %s/%s", m.Namespace, m.Name), "taint-eviction-controller", "")
	case w.Ref.Kind == model.KindNode && w.Verb == model.VerbStatus:
		before, _ := w.Before.(*model.Node)
		after, _ := w.After.(*model.Node)
		if before == nil || after == nil || before.Ready == after.Ready {
			return
		}
		reason, component := "NodeReady", "kubelet"
		if !after.Ready {
			reason, component = "NodeNotReady", "node-controller"
		}
		e.emit(self, api.EventTypeNormal, reason, fmt.Sprintf("Node %s status is now: %s", m.Name, reason), component, "")
	case strings.HasPrefix(actor, "kubelet/") && w.Ref.Kind == model.KindPod:
		e.kubeletPod(model.NodeOf(actor), w, stored)
	}
}

// failedScheduling reports that the scheduler found no node for a pod it
// just tried, with the filter's reasons (a scheduling attempt writes
// nothing, so there is no write to derive it from).
func (e *eventRecorder) failedScheduling(c *component, key string, cpuFull []string) {
	c.mu.Lock()
	p, _ := c.mem.Get(model.KindPod, key).(*model.Pod)
	why := ""
	if p != nil && p.NodeName == "" && !p.Deleting {
		why = model.WhyUnschedulable(p, c.mem.List(model.KindNode), c.mem.List(model.KindPod), cpuFull...)
	}
	c.mu.Unlock()
	if why == "" {
		return
	}
	if inf := c.inf[model.KindPod]; inf != nil {
		if obj, ok := inf.Cache().Get(model.SplitKey(key)); ok {
			e.emit(referenceTo(obj), api.EventTypeWarning, "FailedScheduling", why, "default-scheduler", "")
		}
	}
}

// registered reports a node joining, as its kubelet and the node
// lifecycle controller do.
func (e *eventRecorder) registered(ctx context.Context, node string) {
	obj, err := e.client.Get(ctx, "nodes", "", node)
	if err != nil {
		return
	}
	ref := referenceTo(obj)
	e.emit(ref, api.EventTypeNormal, "Starting", "Starting kubelet.", "kubelet", node)
	e.emit(ref, api.EventTypeNormal, "RegisteredNode", fmt.Sprintf("Node %s event: Registered Node %s in Controller", node, node), "node-controller", "")
}

// kubeletPod reports a pod's container starting, restarting or stopping.
func (e *eventRecorder) kubeletPod(node string, w model.Write, stored api.Object) {
	pod, ok := stored.(*api.Pod)
	if !ok || len(pod.Spec.Containers) == 0 {
		return
	}
	c := pod.Spec.Containers[0]
	self := referenceTo(stored)
	before, _ := w.Before.(*model.Pod)
	after, _ := w.After.(*model.Pod)
	switch {
	case w.Verb == model.VerbDelete:
		e.emit(self, api.EventTypeNormal, "Killing", "Stopping container "+c.Name, "kubelet", node)
	case before == nil || after == nil:
	case after.Restarts > before.Restarts:
		e.emit(self, api.EventTypeWarning, "BackOff", fmt.Sprintf("Back-off restarting failed container %s in pod %s", c.Name, pod.Name), "kubelet", node)
	case before.Phase != model.PhaseRunning && after.Phase == model.PhaseRunning:
		e.emit(self, api.EventTypeNormal, "Pulled", fmt.Sprintf("Container image %q already present on machine", c.Image), "kubelet", node)
		e.emit(self, api.EventTypeNormal, "Created", "Created container: "+c.Name, "kubelet", node)
		e.emit(self, api.EventTypeNormal, "Started", "Started container "+c.Name, "kubelet", node)
	}
}

// emit queues one Event about involved (dropped when the queue is full).
func (e *eventRecorder) emit(involved api.ObjectReference, typ, reason, message, component, host string) {
	if involved.Name == "" {
		return
	}
	now := api.NewTime(e.now())
	ns := involved.Namespace
	if ns == "" {
		ns = api.DefaultNamespace // where upstream puts a cluster-scoped object's events
	}
	ev := &api.Event{
		TypeMeta: api.TypeMeta{Kind: "Event", APIVersion: "v1"},
		ObjectMeta: api.ObjectMeta{Namespace: ns,
			Name: fmt.Sprintf("%s.%x", involved.Name, uint64(now.UnixNano())+e.seq.Add(1))},
		InvolvedObject: involved, Reason: reason, Message: message,
		Source:         api.EventSource{Component: component, Host: host},
		FirstTimestamp: now, LastTimestamp: now, Count: 1, Type: typ,
		ReportingController: component,
	}
	if host != "" {
		ev.ReportingInstance = component + "-" + host
	}
	if ev = e.fold(ev, string(involved.UID)+"\x00"+reason+"\x00"+message); ev == nil {
		return
	}
	select {
	case e.queue <- ev:
	default:
	}
}

// fold turns a repeat of key into a count on the Event it repeats: nil
// while the last write is recent, else that Event with the new count.
func (e *eventRecorder) fold(ev *api.Event, key string) *api.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.recent[key]
	if r == nil {
		e.recent[key] = &repeated{ev: ev, count: 1, written: ev.LastTimestamp.Time}
		return ev
	}
	r.count++
	if ev.LastTimestamp.Sub(r.written) < repeatInterval {
		return nil
	}
	again := *r.ev
	again.Count, again.LastTimestamp = r.count, ev.LastTimestamp
	r.ev, r.written = &again, ev.LastTimestamp.Time
	out := again
	return &out
}

func referenceTo(o api.Object) api.ObjectReference {
	m, tm := api.Meta(o), api.TypeOf(o)
	return api.ObjectReference{Kind: tm.Kind, APIVersion: tm.APIVersion, Namespace: m.Namespace, Name: m.Name,
		UID: types.UID(m.UID), ResourceVersion: m.ResourceVersion}
}

// ownerOf references o's controller (or nothing).
func ownerOf(o api.Object) api.ObjectReference {
	m := api.Meta(o)
	for _, ow := range m.OwnerReferences {
		if ow.Controller != nil && *ow.Controller {
			return api.ObjectReference{Kind: ow.Kind, APIVersion: ow.APIVersion, Namespace: m.Namespace, Name: ow.Name, UID: types.UID(ow.UID)}
		}
	}
	return api.ObjectReference{}
}

func replicasOf(o model.Obj) int {
	if rs, ok := o.(*model.ReplicaSet); ok {
		return rs.Replicas
	}
	return 0
}
