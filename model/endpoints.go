package model

import "slices"

// The endpoints controller: watches Services, Pods and Endpoints; a key is a
// Service's namespace/name. Endpoints list the ready, non-terminating pods
// of its namespace the Service selects, sorted by name, with the ports
// they serve (endpoints_ports.go); they go when the Service goes. Its
// EndpointSlice is kept beside them (endpointslice.go). A Service without
// a selector, or an ExternalName one, gets neither, as upstream's
// controllers leave them to their user.
var endpointsRole = role{
	watches: kinds(KindService, KindPod, KindEndpoints, KindEndpointSlice),
	keyKind: KindService,
	keys: func(c *Memory, e WatchEvent) []string {
		switch o := e.Obj.(type) {
		case *Service:
			return []string{KeyOf(o)}
		case *Endpoints:
			return []string{KeyOf(o)}
		case *EndpointSlice:
			if !managedSlice(o) {
				return nil // another writer's slice, as for a selector-less Service
			}
			return []string{KeyOf(o)}
		case *Pod:
			var out []string
			for _, s := range c.List(KindService) {
				if s := s.(*Service); s.Namespace == o.Namespace && Matches(s.Selector, o.Labels) {
					out = append(out, KeyOf(s))
				}
			}
			return out
		}
		return nil
	},
	resync: func(c *Memory, h Host) []string {
		out := append(keys(c.List(KindService)), keys(c.List(KindEndpoints))...)
		for _, o := range c.List(KindEndpointSlice) {
			if managedSlice(o.(*EndpointSlice)) {
				out = append(out, KeyOf(o))
			}
		}
		return out
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
		reconcileSlice(c, t, key, nil) // a failed write above stops it
		return
	}
	if !EndpointsManaged(s) {
		return // the user's Endpoints and slices, if any, stay as they are
	}
	addrs, ports := EndpointsFor(s, c.List(KindPod))
	switch {
	case ep == nil:
		t.Create(&Endpoints{Meta: Meta{Name: s.Name, Namespace: s.Namespace, Labels: s.Labels}, Addresses: addrs, Ports: ports})
	case !slices.Equal(ep.Addresses, addrs) || !slices.Equal(ep.Ports, ports):
		n := ep.shallow().(*Endpoints)
		n.Addresses, n.Ports = addrs, ports
		t.Update(VerbUpdate, ep, n)
	}
	reconcileSlice(c, t, key, s)
}
