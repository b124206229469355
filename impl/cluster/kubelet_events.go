package cluster

import (
	"sync"

	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/model"
)

// kubeletPods hands each event of the running driver's shared pod informer
// to the kubelet of the pod's node alone, as upstream's kubelets each
// watch with a spec.nodeName field selector. The model's kubelet decides
// from its own node's pods alone, so its decisions do not change. With a
// handler per kubelet, each of a hundred kubelets was called for every pod
// event. (The stepped driver keeps every event: its memories must match
// the model's exactly.)
type kubeletPods struct {
	env    *env
	mu     sync.RWMutex
	byNode map[string]*component
}

// wantsOwnPods reports a component that kubeletPods feeds: a running
// model kubelet's pod events.
func wantsOwnPods(c *component, k model.Kind) bool {
	return k == model.KindPod && !c.env.stepped && c.user == nil && c.node != "" && c.name == model.KubeletName(c.node)
}

// kubeletPodsOf returns the env's dispatcher for inf, the shared pod
// informer, attaching it the first time.
func (e *env) kubeletPodsOf(inf *controller.Informer) *kubeletPods {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.kubelets == nil {
		e.kubelets = &kubeletPods{env: e, byNode: map[string]*component{}}
		inf.AddHandler(e.kubelets.handle)
	}
	return e.kubelets
}

// add makes c its node's kubelet; a restarted kubelet replaces the one
// before it.
func (d *kubeletPods) add(c *component) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.byNode[c.node] = c
}

func (d *kubeletPods) handle(ev controller.ListWatchEvent, _ *controller.Cache) {
	o, err := d.env.projectEvent(model.KindPod, ev.Object)
	if err != nil {
		d.env.report(err)
		return
	}
	node := o.(*model.Pod).NodeName
	if node == "" {
		return
	}
	d.mu.RLock()
	c := d.byNode[node]
	d.mu.RUnlock()
	if c != nil {
		c.deliver(model.WatchEvent{Type: eventType(ev.Type), Obj: o, Rev: ev.Rev})
	}
}
