package container

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Sentinel errors. Runtimes wrap them with %w and add the id or image.
var (
	// ErrNotFound: no container with that id on this node.
	ErrNotFound = errors.New("container: not found")
	// ErrImageNotPresent: the image is not in the node's image store. Start
	// reports it together with a Waiting/ErrImagePull status; it is not a crash.
	ErrImageNotPresent = errors.New("container: image not present")
	// ErrRunning: Remove was asked for a container that is still running.
	ErrRunning = errors.New("container: still running")
	// ErrNotRunning: a crash was injected into a container that is not running.
	ErrNotRunning = errors.New("container: not running")
	// ErrInvalidSpec: the spec cannot describe a container (see Validate).
	ErrInvalidSpec = errors.New("container: invalid spec")
	// ErrExists: Start was given an id that already names a different
	// container (another node, pod, name, image or attempt).
	ErrExists = errors.New("container: id in use by a different container")
)

// EnvVar is one environment variable of the container's process.
type EnvVar struct {
	Name, Value string
}

// ContainerSpec is what the kubelet asks a runtime to run.
type ContainerSpec struct {
	// ID is chosen by the kubelet and deterministic, e.g.
	// "default_myapp-7d9f-0_app_1". It must be a containerd identifier:
	// alphanumeric runs joined by '.', '_' or '-', at most 76 bytes.
	ID string
	// Node owns the container; List filters by it. Empty means the
	// runtime's own node; any other node is invalid.
	Node                                string
	PodNamespace, PodName, PodUID, Name string
	Image                               string
	// Command replaces the image's entrypoint and Args its cmd, as in
	// Kubernetes: Args alone keep the entrypoint.
	Command, Args []string
	Env           []EnvVar
	// PodIP is the address the process should bind; PORT is Ports[0].
	PodIP string
	Ports []int
	// Attempt counts restarts of this container in its pod, 0 first.
	Attempt int
}

// State is where a container is in its life.
type State string

const (
	StateCreated State = "created"
	StateRunning State = "running"
	StateExited  State = "exited"
	// StateWaiting is only ever returned by a Start that could not create
	// the container; nothing is stored for it.
	StateWaiting State = "waiting"
)

// Reasons, as Kubernetes reports them.
const (
	ReasonErrImagePull     = "ErrImagePull"
	ReasonImagePullBackOff = "ImagePullBackOff" // set by the kubelet on repeats
	ReasonError            = "Error"
	ReasonCompleted        = "Completed"
	ReasonOOMKilled        = "OOMKilled"
)

// ContainerStatus is what a runtime reports about one container.
type ContainerStatus struct {
	ID, Node, PodNamespace, PodName, PodUID, Name, Image string
	// PodIP is the address the container was started with: the runtime
	// remembers it, as CNI's IPAM state does, across kubelet restarts.
	PodIP    string
	Attempt  int
	State    State
	ExitCode int
	// Reason is ErrImagePull/ImagePullBackOff while waiting and
	// Error/Completed/OOMKilled once exited; Message says more, as the
	// kubelet's waiting message does.
	Reason, Message string
	// Unready: the container's readiness probe fails. Only the fake
	// reports it (an injected fault, FailReadiness); a kubelet over a real
	// runtime probes the process itself.
	Unready               bool
	StartedAt, FinishedAt time.Time
}

// Runtime runs the containers of one node. Implementations are safe for
// concurrent use. Only containers of the runtime's node are visible: the
// methods answer ErrNotFound for another node's id.
type Runtime interface {
	// Start creates and starts the container. A missing image returns a
	// Waiting/ErrImagePull status and ErrImageNotPresent, and stores
	// nothing. Starting an id that already names the same container
	// (node, pod uid, name, image, attempt) changes nothing and returns its
	// current status; any other reuse of the id is ErrExists.
	Start(ctx context.Context, spec ContainerSpec) (ContainerStatus, error)
	// Stop sends SIGTERM, then SIGKILL once grace has passed (at once when
	// grace <= 0). Stopping an exited or created container is a no-op.
	Stop(ctx context.Context, id string, grace time.Duration) error
	// Remove deletes a container that is not running (else ErrRunning).
	Remove(ctx context.Context, id string) error
	// List returns this node's containers, sorted by ID.
	List(ctx context.Context) ([]ContainerStatus, error)
	// Status reports one container, or ErrNotFound.
	Status(ctx context.Context, id string) (ContainerStatus, error)
}

// Versioned is a Runtime that tells when its List may answer differently:
// Version changes whenever this node's containers change, so a caller can
// keep a list while the version stays. Runtimes whose containers change on
// their own (a real process exits) need not be Versioned.
type Versioned interface {
	Version() uint64
}

var _ Versioned = (*Fake)(nil)

// idPattern is containerd's identifier rule, applied by every runtime so the
// fake accepts exactly what containerd accepts.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*$`)

const maxIDLength = 76

// Validate checks a spec for runtime node; it returns the spec with Node
// filled in, or an error wrapping ErrInvalidSpec.
func (s ContainerSpec) Validate(node string) (ContainerSpec, error) {
	bad := func(format string, args ...any) (ContainerSpec, error) {
		return ContainerSpec{}, fmt.Errorf("%w: %s", ErrInvalidSpec, fmt.Sprintf(format, args...))
	}
	if len(s.ID) > maxIDLength || !idPattern.MatchString(s.ID) {
		return bad("id %q must be alphanumeric runs joined by '.', '_' or '-', at most %d bytes", s.ID, maxIDLength)
	}
	if s.Node == "" {
		s.Node = node
	}
	if s.Node != node {
		return bad("container %s is for node %q, this runtime runs node %q", s.ID, s.Node, node)
	}
	if s.Name == "" {
		return bad("container %s has no name", s.ID)
	}
	if s.Image == "" || strings.ContainsAny(s.Image, " \t\r\n") {
		return bad("container %s: image %q", s.ID, s.Image)
	}
	if s.Attempt < 0 {
		return bad("container %s: negative attempt %d", s.ID, s.Attempt)
	}
	if s.PodIP != "" && net.ParseIP(s.PodIP) == nil {
		return bad("container %s: pod IP %q", s.ID, s.PodIP)
	}
	for _, p := range s.Ports {
		if p < 1 || p > 65535 {
			return bad("container %s: port %d out of range", s.ID, p)
		}
	}
	for _, e := range s.Env {
		if e.Name == "" || strings.ContainsAny(e.Name, "=\x00") || strings.Contains(e.Value, "\x00") {
			return bad("container %s: env var %q", s.ID, e.Name)
		}
	}
	return s, nil
}

// ProcessEnv is the environment a runtime gives the process: POD_NAME,
// POD_NAMESPACE, POD_IP and PORT (first port), then the spec's own
// variables, which win on a clash.
func ProcessEnv(s ContainerSpec) []EnvVar {
	env := []EnvVar{
		{Name: "POD_NAME", Value: s.PodName},
		{Name: "POD_NAMESPACE", Value: s.PodNamespace},
		{Name: "POD_IP", Value: s.PodIP},
	}
	if len(s.Ports) > 0 {
		env = append(env, EnvVar{Name: "PORT", Value: strconv.Itoa(s.Ports[0])})
	}
	return append(env, s.Env...)
}

// ExitReason is the Reason of a container that exited with code.
func ExitReason(code int) string {
	if code == 0 {
		return ReasonCompleted
	}
	return ReasonError
}

// WaitingStatus is the status Start returns when the image is missing.
func WaitingStatus(s ContainerSpec) ContainerStatus {
	st := Identity(s)
	st.State, st.Reason = StateWaiting, ReasonErrImagePull
	return st
}

// SameContainer reports whether a stored container's status describes the
// container spec asks for, which makes a repeated Start a no-op.
func SameContainer(st ContainerStatus, s ContainerSpec) bool {
	return st.Node == s.Node && st.PodNamespace == s.PodNamespace && st.PodName == s.PodName &&
		st.PodUID == s.PodUID && st.Name == s.Name && st.Image == s.Image && st.Attempt == s.Attempt
}

// Identity copies the identifying fields of a spec into a status.
func Identity(s ContainerSpec) ContainerStatus {
	return ContainerStatus{
		ID: s.ID, Node: s.Node, PodNamespace: s.PodNamespace, PodName: s.PodName,
		PodUID: s.PodUID, Name: s.Name, Image: s.Image, PodIP: s.PodIP, Attempt: s.Attempt,
	}
}
