package container

import (
	"fmt"
	"sort"
)

// The fake's world faults: images whose pulls fail on every node (as a bad
// tag or a registry that refuses it), and readiness probes that fail. The
// stepped cluster injects them when the model's world faults say so
// (model/world.go).

// PullFailure is the message of a failed pull, as the kubelet words it
// (k8s.io/kubernetes pkg/kubelet/images): the runtime's error behind it.
func PullFailure(image string) string {
	return fmt.Sprintf("Failed to pull image %q: rpc error: code = NotFound desc = failed to pull and unpack image %q: not found", image, image)
}

// FailPulls makes every pull of the images fail on every node, from now
// on: Start answers ErrImageNotPresent with a Waiting/ErrImagePull status.
// Running containers are not touched.
func (h *FakeHost) FailPulls(images ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, img := range images {
		h.failing[img] = true
		h.log = append(h.log, "image "+img+" pulls fail")
	}
}

// HealPulls makes the images pull again.
func (h *FakeHost) HealPulls(images ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, img := range images {
		delete(h.failing, img)
		h.log = append(h.log, "image "+img+" pulls")
	}
}

// PullFails tells whether a pull of the image fails on every node.
func (h *FakeHost) PullFails(image string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failing[image]
}

// FailingPulls lists the images whose pulls fail, sorted.
func (h *FakeHost) FailingPulls() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.failing))
	for img := range h.failing {
		out = append(out, img)
	}
	sort.Strings(out)
	return out
}

// PullFails tells whether a pull of the image fails on this node: the
// host's failing images, and the images this node lacks.
func (f *Fake) PullFails(image string) bool { return !f.HasImage(image) }

// SetReadiness makes a running container's readiness probe fail (ready
// false) or pass again; the status reports it as Unready. It reports
// whether the probe changed.
func (f *Fake) SetReadiness(id string, ready bool) (bool, error) {
	f.host.mu.Lock()
	defer f.host.mu.Unlock()
	c, err := f.getLocked(id)
	if err != nil {
		return false, err
	}
	if c.status.State != StateRunning {
		return false, fmt.Errorf("%w: %s is %s", ErrNotRunning, id, c.status.State)
	}
	if c.status.Unready == !ready {
		return false, nil
	}
	c.status.Unready = !ready
	f.host.versions[c.spec.Node]++
	f.host.log = append(f.host.log, fmt.Sprintf("%s readiness %s ready=%t", f.node, id, ready))
	return true, nil
}
