package model

import "slices"

// kube-proxy of one node: watches Services and Endpoints; a key is a Service
// name. Its rules table maps each Service to its port and ready backends.
// The rules live in the node (like iptables), so they survive a restart.
var proxyRole = role{
	watches: kinds(KindService, KindEndpoints),
	keys: func(c *component, e Event) []string {
		return []string{e.Obj.meta().Name}
	},
	resync: func(c *component, st *State) []string {
		out := append(names(c.list(KindService)), names(c.list(KindEndpoints))...)
		if rt := st.runtime[c.node]; rt != nil {
			out = append(out, sortedKeys(rt.rules)...)
		}
		return out
	},
	reconcile: reconcileProxy,
}

// RuleFor is the rule a Service and its Endpoints (possibly nil) call for.
func RuleFor(s *Service, ep *Endpoints) Rule {
	r := Rule{Port: s.Port}
	if ep != nil {
		for _, a := range ep.Addresses {
			r.Backends = append(r.Backends, a.IP)
		}
		slices.Sort(r.Backends)
	}
	return r
}

func reconcileProxy(c *component, st *State, t *tx, key string) {
	rt := st.runtime[c.node]
	if rt == nil {
		return
	}
	s, _ := c.get(KindService, key).(*Service)
	cur, have := rt.rules[key]
	if s == nil {
		if have && t.local(VerbProxyDel, "rules/"+key) {
			delete(rt.rules, key)
		}
		return
	}
	ep, _ := c.get(KindEndpoints, key).(*Endpoints)
	want := RuleFor(s, ep)
	if !have || cur.Port != want.Port || !slices.Equal(cur.Backends, want.Backends) {
		if t.local(VerbProxySet, "rules/"+key) {
			rt.rules[key] = want
		}
	}
}
