package api

import (
	"reflect"
	"sync"
)

// planCache keeps a plan of type P per Go type, linked to the plans of the
// types it holds: finding a type's plan in a map at every value cost more
// than the work the plans guide. A plan is published only once every plan
// it links to is complete, so readers never lock.
type planCache[P any] struct {
	plans sync.Map // reflect.Type -> *P, complete
	mu    sync.Mutex
	// fill makes t's plan in p, calling link for the plans of the types
	// it holds; done, if set, runs on each new plan once all are linked.
	fill func(t reflect.Type, p *P, link func(reflect.Type) *P)
	done func(p *P)
}

func (c *planCache[P]) of(t reflect.Type) *P {
	if p, ok := c.plans.Load(t); ok {
		return p.(*P)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	building := map[reflect.Type]*P{}
	var link func(reflect.Type) *P
	link = func(t reflect.Type) *P {
		if p, ok := c.plans.Load(t); ok {
			return p.(*P)
		}
		if p, ok := building[t]; ok {
			return p // a recursive type links to itself
		}
		p := new(P)
		building[t] = p
		c.fill(t, p, link)
		return p
	}
	p := link(t)
	for _, p := range building {
		if c.done != nil {
			c.done(p)
		}
	}
	for t, p := range building {
		c.plans.Store(t, p)
	}
	return p
}
