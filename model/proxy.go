package model

import "slices"

// kube-proxy of one node: watches Services and Endpoints; a key is a
// Service's namespace/name. Its rules table maps each Service (by that key)
// to its port and ready backends.
// The rules live in the node (like iptables), so they survive a restart.
var proxyRole = role{
	watches: kinds(KindService, KindEndpoints),
	keyKind: KindService,
	keys: func(c *Memory, e WatchEvent) []string {
		return []string{KeyOf(e.Obj)}
	},
	resync: func(c *Memory, h Host) []string {
		out := append(keys(c.List(KindService)), keys(c.List(KindEndpoints))...)
		return append(out, sortedKeys(h.Rules(c.Node))...)
	},
	reconcile: reconcileProxy,
}

// RuleFor is the rule a Service and its Endpoints (possibly nil) call for.
func RuleFor(s *Service, ep *Endpoints) Rule {
	r := Rule{Port: s.FirstPort()}
	if ep != nil {
		for _, a := range ep.Addresses {
			r.Backends = append(r.Backends, a.IP)
		}
		slices.Sort(r.Backends)
	}
	return r
}

func reconcileProxy(c *Memory, h Host, t Writer, key string) {
	s, _ := c.Get(KindService, key).(*Service)
	cur, have := h.Rules(c.Node)[key]
	if s == nil {
		if have {
			t.DeleteRule(key)
		}
		return
	}
	ep, _ := c.Get(KindEndpoints, key).(*Endpoints)
	want := RuleFor(s, ep)
	if !have || cur.Port != want.Port || !slices.Equal(cur.Backends, want.Backends) {
		t.SetRule(key, want)
	}
}
