package model

// Logical-time thresholds of the node lifecycle controller, in ticks.
const (
	// NodeMonitorGrace: a node whose last heartbeat is older than this goes NotReady.
	NodeMonitorGrace = 3
	// EvictionTimeout: pods on a node NotReady for this long are evicted.
	EvictionTimeout = 3
)

// The node lifecycle controller: watches Nodes and Pods; a key is a node
// name. Every tick requeues every node. A node without a recent heartbeat
// goes NotReady; after EvictionTimeout its pods are deleted (gracefully:
// they terminate when the kubelet comes back). Pods bound to a node that no
// longer exists are deleted at once (upstream's pod GC).
var nodeLifecycleRole = role{
	watches: kinds(KindNode, KindPod),
	keyKind: KindNode,
	keys: func(c *Memory, e WatchEvent) []string {
		switch o := e.Obj.(type) {
		case *Node:
			return []string{o.Name}
		case *Pod:
			if o.NodeName != "" && e.Type != Deleted && c.Get(KindNode, o.NodeName) == nil {
				return []string{o.NodeName}
			}
		}
		return nil
	},
	resync: func(c *Memory, h Host) []string {
		seen := map[string]bool{}
		var out []string
		add := func(n string) {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
		for _, n := range c.List(KindNode) {
			add(n.meta().Name)
		}
		for _, o := range c.List(KindPod) {
			if p := o.(*Pod); p.NodeName != "" {
				add(p.NodeName)
			}
		}
		return out
	},
	reconcile: reconcileNodeLifecycle,
}

func reconcileNodeLifecycle(c *Memory, h Host, t Writer, key string) {
	n, _ := c.Get(KindNode, key).(*Node)
	if n == nil {
		// Live read before a force delete: a stale view must not remove the
		// pods of a node that exists.
		if h.Live(Ref{Kind: KindNode, Name: key}) != nil {
			return
		}
		for _, p := range podsOn(c, key) {
			t.RemoveNow(p)
		}
		return
	}
	now := h.Now()
	switch {
	case n.Ready && now-n.Heartbeat > NodeMonitorGrace:
		nn := n.shallow().(*Node)
		nn.Ready, nn.TransitionAt = false, now
		t.Update(VerbStatus, n, nn)
	case !n.Ready && now-n.TransitionAt >= EvictionTimeout:
		for _, p := range podsOn(c, key) {
			if !p.Deleting {
				t.Delete(p)
			}
		}
	}
}

// podsOn lists the viewed pods bound to node, in name order. Only a node
// that is gone or due for eviction needs them: every node is rechecked on
// every tick, and listing every pod for each of a thousand healthy nodes
// made a tick cost nodes × pods.
func podsOn(c *Memory, node string) []*Pod {
	var pods []*Pod
	for _, o := range c.List(KindPod) {
		if p := o.(*Pod); p.NodeName == node {
			pods = append(pods, p)
		}
	}
	return pods
}
