package cluster

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/impl/project"
	"github.com/converge-dev/converge/model"
)

// nodes is what lives on the machines: each node's container runtime, its
// kube-proxy rules table and its pod range. It outlives the components.
type nodes struct {
	mu      sync.Mutex
	uids    *project.UIDs
	runtime func(node string) container.Runtime
	rt      map[string]container.Runtime
	rules   map[string]map[string]model.Rule
	index   map[string]int
	next    int
	// ips records, per node, which pod each started container's address
	// was given to (real runtimes only; see claimIP).
	ips map[string]map[string]string
	// listed keeps each node's last container list, for runtimes that say
	// when it changes (container.Versioned): a kubelet lists its node's
	// containers on every sync, up to three times.
	listed map[string]listedContainers
	// fakes is the built-in fake runtime's host, which takes the world
	// faults (world.go); nil with a runtime the user gives.
	fakes *container.FakeHost
	// cpuFull are the nodes whose spare CPU another tenant holds
	// (world_cpu.go), under cpuMu: the scheduler reads them.
	cpuMu   sync.Mutex
	cpuFull map[string]bool
}

type listedContainers struct {
	rt      container.Runtime
	version uint64
	list    []model.Container
}

func newNodes(uids *project.UIDs, runtime func(node string) container.Runtime) *nodes {
	return &nodes{uids: uids, runtime: runtime, rt: map[string]container.Runtime{}, rules: map[string]map[string]model.Rule{}, index: map[string]int{}, ips: map[string]map[string]string{}, listed: map[string]listedContainers{}}
}

// add boots a node's machine and gives it the next pod range.
func (n *nodes) add(node string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	i := n.next
	n.next++
	n.index[node] = i
	n.rt[node] = n.runtime(node)
	n.rules[node] = map[string]model.Rule{}
	return i
}

// addAt boots a node's machine with a known pod range (after a restart).
func (n *nodes) addAt(node string, index int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.index[node] = index
	n.next = max(n.next, index+1)
	n.rt[node] = n.runtime(node)
	n.rules[node] = map[string]model.Rule{}
}

// remove takes the machine away with its containers.
func (n *nodes) remove(ctx context.Context, node string) {
	n.mu.Lock()
	rt := n.rt[node]
	delete(n.rt, node)
	delete(n.rules, node)
	delete(n.index, node)
	delete(n.listed, node)
	n.mu.Unlock()
	if rt == nil {
		return
	}
	cs, _ := rt.List(ctx)
	for _, c := range cs {
		_ = rt.Stop(ctx, c.ID, 0)
		_ = rt.Remove(ctx, c.ID)
	}
}

func (n *nodes) runtimeOf(node string) container.Runtime {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.rt[node]
}

func (n *nodes) indexOf(node string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.index[node]
}

var errNoNode = errors.New("cluster: node has no runtime")

// runtimeID is the runtime's name for a model container ID ("/" is not
// allowed in container IDs).
func runtimeID(id string) string { return strings.ReplaceAll(id, "/", "_") }

// start runs c; p (possibly nil) is the pod's API object, which gives the
// process its command, args, env and ports.
func (n *nodes) start(ctx context.Context, c model.Container, p *api.Pod) error {
	rt := n.runtimeOf(c.Node)
	if rt == nil {
		return errNoNode
	}
	cs, err := rt.List(ctx)
	if err != nil {
		return err
	}
	for _, old := range cs {
		if model.Key(old.PodNamespace, old.PodName) == c.Pod && old.State != container.StateRunning {
			_ = rt.Remove(ctx, old.ID)
		}
	}
	_, err = rt.Start(ctx, n.containerSpec(c, p))
	return err
}

// stop stops c (SIGTERM, then SIGKILL after grace) and removes it.
func (n *nodes) stop(ctx context.Context, c model.Container, grace time.Duration) error {
	rt := n.runtimeOf(c.Node)
	if rt == nil {
		return errNoNode
	}
	id := runtimeID(c.ID)
	if err := rt.Stop(ctx, id, grace); err != nil && !errors.Is(err, container.ErrNotFound) {
		return err
	}
	if err := rt.Remove(ctx, id); err != nil && !errors.Is(err, container.ErrNotFound) {
		return err
	}
	return nil
}

// containers lists a node's containers in model terms, sorted by ID. The
// caller may change the list.
func (n *nodes) containers(ctx context.Context, node string) []model.Container {
	rt := n.runtimeOf(node)
	if rt == nil {
		return nil
	}
	v, versioned := rt.(container.Versioned)
	if !versioned {
		list, _ := n.list(ctx, rt, node)
		return list
	}
	// The version is read before listing: a change in between leaves a
	// list newer than its version, which the next call lists again.
	version := v.Version()
	n.mu.Lock()
	l, ok := n.listed[node]
	n.mu.Unlock()
	if ok && l.rt == rt && l.version == version && ctx.Err() == nil {
		return slices.Clone(l.list)
	}
	list, err := n.list(ctx, rt, node)
	if err == nil {
		n.mu.Lock()
		n.listed[node] = listedContainers{rt: rt, version: version, list: slices.Clone(list)}
		n.mu.Unlock()
	}
	return list
}

// list asks rt for node's containers in model terms, sorted by ID.
func (n *nodes) list(ctx context.Context, rt container.Runtime, node string) ([]model.Container, error) {
	cs, err := rt.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]model.Container, 0, len(cs))
	for _, c := range cs {
		out = append(out, model.Container{
			ID: model.ContainerID(node, model.Key(c.PodNamespace, c.PodName), c.Attempt), Node: node, Pod: model.Key(c.PodNamespace, c.PodName),
			PodUID: n.uids.Of(c.PodUID), Image: c.Image, Attempt: c.Attempt,
			Running: c.State == container.StateRunning, ExitCode: c.ExitCode, IP: c.PodIP,
			Reason: exitReason(c), Unready: c.Unready,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// exitReason is the model's reason of an exited container: OOMKilled, else
// Error, as the model's runtime keeps it.
func exitReason(c container.ContainerStatus) string {
	switch {
	case c.State == container.StateRunning:
		return ""
	case c.Reason == container.ReasonOOMKilled:
		return model.ReasonOOMKilled
	}
	return model.ReasonError
}

// all lists every node's containers, sorted by ID.
func (n *nodes) all(ctx context.Context) []model.Container {
	n.mu.Lock()
	names := make([]string, 0, len(n.rt))
	for name := range n.rt {
		names = append(names, name)
	}
	n.mu.Unlock()
	var out []model.Container
	for _, name := range names {
		out = append(out, n.containers(ctx, name)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// crash makes a pod's running container on a node exit with an error.
func (n *nodes) crash(ctx context.Context, node, pod string) bool {
	for _, c := range n.containers(ctx, node) {
		if c.Pod == pod && c.Running {
			if f, ok := n.runtimeOf(node).(interface{ Crash(string, int) error }); ok {
				return f.Crash(runtimeID(c.ID), 1) == nil
			}
		}
	}
	return false
}

func (n *nodes) setRule(node, service string, r *model.Rule) {
	n.mu.Lock()
	defer n.mu.Unlock()
	rules := n.rules[node]
	if rules == nil {
		return
	}
	if r == nil {
		delete(rules, service)
	} else {
		rules[service] = *r
	}
}

// rulesOf returns a copy of a node's rules.
func (n *nodes) rulesOf(node string) map[string]model.Rule {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := make(map[string]model.Rule, len(n.rules[node]))
	for k, v := range n.rules[node] {
		out[k] = v
	}
	return out
}

// allRules returns every node's rules.
func (n *nodes) allRules() map[string]map[string]model.Rule {
	n.mu.Lock()
	names := make([]string, 0, len(n.rules))
	for name := range n.rules {
		names = append(names, name)
	}
	n.mu.Unlock()
	out := map[string]map[string]model.Rule{}
	for _, name := range names {
		out[name] = n.rulesOf(name)
	}
	return out
}
