package model

import "slices"

// The endpoints controller: watches Services, Pods and Endpoints; a key is a
// Service name. Endpoints list the ready, non-terminating pods the Service
// selects, sorted by name; they go when the Service goes.
var endpointsRole = role{
	watches: kinds(KindService, KindPod, KindEndpoints),
	keys: func(c *Memory, e WatchEvent) []string {
		switch o := e.Obj.(type) {
		case *Service:
			return []string{o.Name}
		case *Endpoints:
			return []string{o.Name}
		case *Pod:
			var out []string
			for _, s := range c.List(KindService) {
				if Matches(s.(*Service).Selector, o.Labels) {
					out = append(out, s.meta().Name)
				}
			}
			return out
		}
		return nil
	},
	resync: func(c *Memory, h Host) []string {
		return append(names(c.List(KindService)), names(c.List(KindEndpoints))...)
	},
	reconcile: reconcileEndpoints,
}

func reconcileEndpoints(c *Memory, h Host, t Writer, key string) {
	s, _ := c.Get(KindService, key).(*Service)
	ep, _ := c.Get(KindEndpoints, key).(*Endpoints)
	if s == nil {
		if ep != nil {
			t.Delete(ep)
		}
		return
	}
	var addrs []Address
	for _, o := range c.List(KindPod) {
		p := o.(*Pod)
		if Matches(s.Selector, p.Labels) && p.Ready && p.PodIP != "" && !p.Deleting {
			addrs = append(addrs, Address{Pod: p.Name, IP: p.PodIP, Node: p.NodeName})
		}
	}
	port := EndpointsPort(s, addrs)
	switch {
	case ep == nil:
		t.Create(&Endpoints{Meta: Meta{Name: s.Name, Labels: s.Labels}, Addresses: addrs, Port: port})
	case !slices.Equal(ep.Addresses, addrs) || ep.Port != port:
		n := ep.shallow().(*Endpoints)
		n.Addresses, n.Port = addrs, port
		t.Update(VerbUpdate, ep, n)
	}
}

// EndpointsPort is the port Endpoints carry: the Service's, when there is a
// subset to carry it (Kubernetes drops empty subsets, and their ports).
func EndpointsPort(s *Service, addrs []Address) int {
	if len(addrs) == 0 {
		return 0
	}
	return s.Port
}
