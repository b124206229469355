package model

// nodeRuntime is what lives on one node's machine: the container runtime's
// containers and kube-proxy's rules. It survives component restarts and
// vanishes with the node.
type nodeRuntime struct {
	containers map[string]*Container // by ID; values are never mutated in place
	rules      map[string]Rule       // by Service name
}

func newNodeRuntime() *nodeRuntime {
	return &nodeRuntime{containers: map[string]*Container{}, rules: map[string]Rule{}}
}

func (r *nodeRuntime) clone() *nodeRuntime {
	c := newNodeRuntime()
	for k, v := range r.containers {
		c.containers[k] = v
	}
	for k, v := range r.rules {
		c.rules[k] = v
	}
	return c
}

func (r *nodeRuntime) add(c *Container) { r.containers[c.ID] = c }
func (r *nodeRuntime) remove(id string) { delete(r.containers, id) }

// crash marks a running container exited (a copy: values are shared with clones).
func (r *nodeRuntime) crash(id string, code int, reason string) bool {
	c := r.containers[id]
	if c == nil || !c.Running {
		return false
	}
	d := *c
	d.Running, d.ExitCode, d.Reason = false, code, reason
	r.containers[id] = &d
	return true
}

// worldFault kills a running container for memory or flips its readiness
// probe; it reports whether the container was there to take it.
func (r *nodeRuntime) worldFault(id string, op Op) bool {
	if op == OpContainerOOM {
		return r.crash(id, ExitOOMKilled, ReasonOOMKilled)
	}
	c := r.containers[id]
	if c == nil || !c.Running || c.Unready == (op == OpReadinessFails) {
		return false
	}
	d := *c
	d.Unready = op == OpReadinessFails
	r.containers[id] = &d
	return true
}
