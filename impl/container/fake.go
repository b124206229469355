package container

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Compile-time check that the fake is a Runtime.
var _ Runtime = (*Fake)(nil)

// ExitSIGKILL is the exit code of a process killed by SIGKILL (128+9), what
// a Stop past its grace period or a `kill -9` leaves.
const ExitSIGKILL = 137

// IgnoreSIGTERMEnv names the variable that makes converge-echo ignore
// SIGTERM; the fake honours it the same way, so Stop runs out its grace.
const IgnoreSIGTERMEnv = "ECHO_IGNORE_SIGTERM"

// FakeHost holds the in-memory containers of many nodes, as one shared
// containerd would: ids are unique across nodes, and each node's Fake sees
// only its own containers. It never starts goroutines and never reads the
// wall clock.
type FakeHost struct {
	mu         sync.Mutex
	clock      func() time.Time
	nodes      map[string]*Fake
	containers map[string]*fakeContainer
	// byNode indexes containers by spec.Node: each node's kubelet lists
	// its own on every sync, and scanning every node's was the fake's
	// main cost with a hundred nodes.
	byNode map[string]map[string]*fakeContainer
	// versions counts, per node, the changes to its containers (Version).
	versions map[string]uint64
	log      []string
	// failing are the images whose pulls fail on every node (fake_world.go).
	failing map[string]bool
}

type fakeContainer struct {
	spec   ContainerSpec
	status ContainerStatus
}

// NewFakeHost makes an empty host. clock stamps StartedAt and FinishedAt;
// nil means a clock stopped at the Unix epoch.
func NewFakeHost(clock func() time.Time) *FakeHost {
	if clock == nil {
		clock = func() time.Time { return time.Unix(0, 0).UTC() }
	}
	return &FakeHost{clock: clock, nodes: map[string]*Fake{}, containers: map[string]*fakeContainer{},
		byNode: map[string]map[string]*fakeContainer{}, versions: map[string]uint64{}, failing: map[string]bool{}}
}

// Node returns the runtime of the named node, the same one on every call, so
// a restarted kubelet finds what its predecessor started.
func (h *FakeHost) Node(name string) *Fake {
	h.mu.Lock()
	defer h.mu.Unlock()
	f, ok := h.nodes[name]
	if !ok {
		f = &Fake{host: h, node: name, present: map[string]bool{}, absent: map[string]bool{}}
		h.nodes[name] = f
	}
	return f
}

// Crash makes a running container on any node exit with exitCode, as if its
// process died. Reason is Completed for 0 and Error otherwise.
func (h *FakeHost) Crash(id string, exitCode int) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.containers[id]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return h.exitLocked(c, "crash", exitCode, ExitReason(exitCode), h.clock())
}

// Containers returns every node's containers, sorted by ID.
func (h *FakeHost) Containers() []ContainerStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	return listSorted(h.containers)
}

// WipeNode forgets every container of a node, as when its machine is
// replaced, and returns how many there were.
func (h *FakeHost) WipeNode(node string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(h.byNode[node])
	for id := range h.byNode[node] {
		delete(h.containers, id)
	}
	delete(h.byNode, node)
	h.versions[node]++
	h.log = append(h.log, fmt.Sprintf("%s wipe %d containers", node, n))
	return n
}

// Log returns one line per operation that changed something, in order, for
// tests that check what a component asked of its runtime.
func (h *FakeHost) Log() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.log...)
}

func listSorted(cs map[string]*fakeContainer) []ContainerStatus {
	out := make([]ContainerStatus, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.status)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (h *FakeHost) putLocked(c *fakeContainer) {
	h.containers[c.spec.ID] = c
	if h.byNode[c.spec.Node] == nil {
		h.byNode[c.spec.Node] = map[string]*fakeContainer{}
	}
	h.byNode[c.spec.Node][c.spec.ID] = c
	h.versions[c.spec.Node]++
}

func (h *FakeHost) removeLocked(id string) {
	if c, ok := h.containers[id]; ok {
		delete(h.containers, id)
		delete(h.byNode[c.spec.Node], id)
		h.versions[c.spec.Node]++
	}
}

func (h *FakeHost) exitLocked(c *fakeContainer, op string, code int, reason string, at time.Time) error {
	if c.status.State != StateRunning {
		return fmt.Errorf("%w: %s is %s", ErrNotRunning, c.spec.ID, c.status.State)
	}
	c.status.State, c.status.ExitCode, c.status.Reason, c.status.FinishedAt = StateExited, code, reason, at
	h.versions[c.spec.Node]++
	h.log = append(h.log, fmt.Sprintf("%s %s %s exit=%d", c.spec.Node, op, c.spec.ID, code))
	return nil
}

// Fake is the in-memory runtime of one node of a FakeHost.
type Fake struct {
	host *FakeHost
	node string
	// Image presence, guarded by host.mu. Until AddImage is called every
	// image not removed is present.
	restricted bool
	present    map[string]bool
	absent     map[string]bool
}

// NewFake returns the runtime of node on a host of its own.
func NewFake(node string, clock func() time.Time) *Fake {
	return NewFakeHost(clock).Node(node)
}

// Host returns the host the node belongs to.
func (f *Fake) Host() *FakeHost { return f.host }

// NodeName returns the node this runtime runs.
func (f *Fake) NodeName() string { return f.node }

// AddImage makes images present on this node. After the first call only
// added images are present.
func (f *Fake) AddImage(images ...string) {
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	f.restricted = true
	for _, img := range images {
		f.present[img] = true
		delete(f.absent, img)
	}
}

// RemoveImage makes images absent on this node.
func (f *Fake) RemoveImage(images ...string) {
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	for _, img := range images {
		f.absent[img] = true
		delete(f.present, img)
	}
}

// HasImage reports whether Start would find the image.
func (f *Fake) HasImage(image string) bool {
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	return f.hasImageLocked(image)
}

func (f *Fake) hasImageLocked(image string) bool {
	return !f.host.failing[image] && !f.absent[image] && (!f.restricted || f.present[image])
}

// Crash makes one of this node's running containers exit with exitCode.
func (f *Fake) Crash(id string, exitCode int) error {
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	c, err := f.getLocked(id)
	if err != nil {
		return err
	}
	return f.host.exitLocked(c, "crash", exitCode, ExitReason(exitCode), f.host.clock())
}

// OOMKill makes a running container exit as the kernel's OOM killer would.
func (f *Fake) OOMKill(id string) error {
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	c, err := f.getLocked(id)
	if err != nil {
		return err
	}
	return f.host.exitLocked(c, "oom-kill", ExitSIGKILL, ReasonOOMKilled, f.host.clock())
}

// Spec returns the spec a container was started with (Node filled in).
func (f *Fake) Spec(id string) (ContainerSpec, error) {
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	c, err := f.getLocked(id)
	if err != nil {
		return ContainerSpec{}, err
	}
	return c.spec, nil
}

func (f *Fake) getLocked(id string) (*fakeContainer, error) {
	c, ok := f.host.containers[id]
	if !ok || c.spec.Node != f.node {
		return nil, fmt.Errorf("%w: %s on node %s", ErrNotFound, id, f.node)
	}
	return c, nil
}

// Start implements Runtime.
func (f *Fake) Start(ctx context.Context, spec ContainerSpec) (ContainerStatus, error) {
	if err := ctx.Err(); err != nil {
		return ContainerStatus{}, err
	}
	spec, err := spec.Validate(f.node)
	if err != nil {
		return ContainerStatus{}, err
	}
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	if c, ok := f.host.containers[spec.ID]; ok {
		if !SameContainer(c.status, spec) {
			return ContainerStatus{}, fmt.Errorf("%w: %s (node %s, pod %s/%s, attempt %d)",
				ErrExists, spec.ID, c.spec.Node, c.spec.PodNamespace, c.spec.PodName, c.spec.Attempt)
		}
		return c.status, nil
	}
	if !f.hasImageLocked(spec.Image) {
		f.host.log = append(f.host.log, fmt.Sprintf("%s start %s %s", f.node, spec.ID, ReasonErrImagePull))
		st := WaitingStatus(spec)
		st.Message = PullFailure(spec.Image)
		return st, fmt.Errorf("%w: %s", ErrImageNotPresent, spec.Image)
	}
	spec.Command = append([]string(nil), spec.Command...)
	spec.Args = append([]string(nil), spec.Args...)
	spec.Env = append([]EnvVar(nil), spec.Env...)
	spec.Ports = append([]int(nil), spec.Ports...)
	st := Identity(spec)
	st.State, st.StartedAt = StateRunning, f.host.clock()
	f.host.putLocked(&fakeContainer{spec: spec, status: st})
	f.host.log = append(f.host.log, fmt.Sprintf("%s start %s image=%s", f.node, spec.ID, spec.Image))
	return st, nil
}

// Stop implements Runtime. The process honours SIGTERM (exit 0) unless its
// environment sets IgnoreSIGTERMEnv=1; then it is killed once grace has
// passed (exit 137, FinishedAt = now + grace).
func (f *Fake) Stop(ctx context.Context, id string, grace time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	c, err := f.getLocked(id)
	if err != nil {
		return err
	}
	if c.status.State != StateRunning {
		return nil
	}
	now := f.host.clock()
	if grace <= 0 {
		return f.host.exitLocked(c, "stop", ExitSIGKILL, ReasonError, now)
	}
	if ignoresSIGTERM(c.spec) {
		return f.host.exitLocked(c, "stop", ExitSIGKILL, ReasonError, now.Add(grace))
	}
	return f.host.exitLocked(c, "stop", 0, ReasonCompleted, now)
}

func ignoresSIGTERM(s ContainerSpec) bool {
	ignore := false
	for _, e := range ProcessEnv(s) {
		if e.Name == IgnoreSIGTERMEnv {
			ignore = e.Value == "1"
		}
	}
	return ignore
}

// Remove implements Runtime.
func (f *Fake) Remove(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	c, err := f.getLocked(id)
	if err != nil {
		return err
	}
	if c.status.State == StateRunning {
		return fmt.Errorf("%w: %s", ErrRunning, id)
	}
	f.host.removeLocked(id)
	f.host.log = append(f.host.log, fmt.Sprintf("%s remove %s", f.node, id))
	return nil
}

// List implements Runtime.
func (f *Fake) List(ctx context.Context) ([]ContainerStatus, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	return listSorted(f.host.byNode[f.node]), nil
}

// Version implements Versioned.
func (f *Fake) Version() uint64 {
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	return f.host.versions[f.node]
}

// Status implements Runtime.
func (f *Fake) Status(ctx context.Context, id string) (ContainerStatus, error) {
	if err := ctx.Err(); err != nil {
		return ContainerStatus{}, err
	}
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	c, err := f.getLocked(id)
	if err != nil {
		return ContainerStatus{}, err
	}
	return c.status, nil
}
