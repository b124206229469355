package cluster

import (
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/impl/proxy"
	"github.com/converge-dev/converge/model"
)

// WatchRuntimes starts the kubelets' pod lifecycle event generator: every
// period it lists each node's runtime and queues, on that node's kubelet,
// every pod whose containers changed since the last look (a process that
// crashed or exited, a container that appeared or went). The model's
// kubelet learns of a crash from the fault action; a real process dies on
// its own, so running mode needs this to restart it. It stops with the
// cluster.
func (r *Running) WatchRuntimes(period time.Duration) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		seen := map[string]map[string]container.State{} // node -> container id -> state
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-r.ctx.Done():
				return
			case <-t.C:
			}
			for _, node := range r.liveNodes() {
				r.relistNode(node, seen)
			}
		}
	}()
}

func (r *Running) relistNode(node string, seen map[string]map[string]container.State) {
	rt := r.env.nodes.runtimeOf(node)
	if rt == nil {
		return
	}
	cs, err := rt.List(r.ctx)
	if err != nil {
		return
	}
	now := make(map[string]container.State, len(cs))
	changed := map[string]bool{}
	before := seen[node]
	for _, c := range cs {
		now[c.ID] = c.State
		if st, ok := before[c.ID]; !ok || st != c.State {
			changed[model.Key(c.PodNamespace, c.PodName)] = true
		}
	}
	for id := range before {
		if _, ok := now[id]; !ok {
			changed[podOfRuntimeID(id, node)] = true
		}
	}
	seen[node] = now
	if len(changed) == 0 {
		return
	}
	r.mu.Lock()
	c := r.comps[model.KubeletName(node)]
	r.mu.Unlock()
	if c == nil {
		return
	}
	c.mu.Lock()
	q := c.queue
	c.mu.Unlock()
	for pod := range changed {
		if pod != "" {
			q.Add(pod)
		}
	}
}

// podOfRuntimeID recovers the pod's key from a runtime id made by
// runtimeID from model.ContainerID (node/namespace/name/attempt); "" if it
// is not one. Names and namespaces have no "_", so the first one left is
// the key's "/".
func podOfRuntimeID(id, node string) string {
	prefix := runtimeID(node) + "_"
	if len(id) <= len(prefix) || id[:len(prefix)] != prefix {
		return ""
	}
	rest := id[len(prefix):]
	for i := len(rest) - 1; i >= 0; i-- {
		if rest[i] == '_' {
			return strings.Replace(rest[:i], "_", "/", 1)
		}
	}
	return ""
}

// ProxyServices is what this host's proxy should forward: every Service
// with a clusterIP, its first port and targetPort, and the backends of the
// kube-proxy rule of the first live node (by name) that has one; for a
// NodePort or LoadBalancer Service, the same again on every live node's
// own address at the node port. All nodes share the host's network, so
// one forwarder per address serves them all; the nodes' tables agree once
// converged.
func (r *Running) ProxyServices() []proxy.Service {
	r.env.mu.Lock()
	inf := r.env.shared[model.KindService]
	r.env.mu.Unlock()
	if inf == nil {
		return nil
	}
	nodes := r.liveNodes()
	sort.Strings(nodes)
	tables := make([]map[string]model.Rule, 0, len(nodes))
	for _, n := range nodes {
		tables = append(tables, r.env.nodes.rulesOf(n))
	}
	var out []proxy.Service
	for _, o := range inf.Cache().List() {
		s, ok := o.(*api.Service)
		if !ok || s.Spec.ClusterIP == "" || s.Spec.ClusterIP == api.ClusterIPNone || len(s.Spec.Ports) == 0 {
			continue
		}
		p := s.Spec.Ports[0]
		ps := proxy.Service{Name: model.Key(s.Namespace, s.Name), IP: s.Spec.ClusterIP, Port: int(p.Port), TargetPort: int(p.Port)}
		if p.TargetPort.Type == api.IntValue && p.TargetPort.IntVal > 0 {
			ps.TargetPort = int(p.TargetPort.IntVal)
		}
		for _, t := range tables {
			if rule, ok := t[ps.Name]; ok {
				ps.Backends = append([]string(nil), rule.Backends...)
				break
			}
		}
		out = append(out, ps)
		if p.NodePort > 0 && (s.Spec.Type == api.ServiceTypeNodePort || s.Spec.Type == api.ServiceTypeLoadBalancer) {
			for _, n := range nodes {
				np := ps
				np.Name, np.IP, np.Port = ps.Name+" (node port on "+n+")", model.NodeIP(r.env.nodes.indexOf(n)), int(p.NodePort)
				out = append(out, np)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RunProxy keeps p in line with ProxyServices every period until the
// cluster closes, so backends follow the rules live. A listener that fails
// is retried each period and logged once per distinct error.
func (r *Running) RunProxy(p *proxy.Proxy, period time.Duration, log func(string)) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		last := ""
		for {
			err := p.Sync(r.ProxyServices())
			if errors.Is(err, proxy.ErrClosed) {
				return
			}
			if msg := errString(err); msg != last && msg != "" && log != nil {
				log("kube-proxy: " + msg)
				last = msg
			}
			select {
			case <-r.ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
