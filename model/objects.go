package model

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Kind names an object type in the store.
type Kind uint8

const (
	KindDeployment Kind = iota
	KindReplicaSet
	KindPod
	KindNode
	KindService
	KindEndpoints
	KindNamespace
	KindEndpointSlice
	// KindCustom is every custom resource: a kind a
	// CustomResourceDefinition serves. One informer of it follows them all
	// (the garbage collector's and the namespace controller's); a Ref's
	// Type tells one custom resource from another.
	KindCustom
	// KindStatefulSet and KindPersistentVolumeClaim come after KindCustom
	// so that recorded actions keep the kinds' numbers
	// (statefulset.go).
	KindStatefulSet
	KindPersistentVolumeClaim
	numKinds
)

var kindResources = [numKinds]string{"deployments", "replicasets", "pods", "nodes", "services", "endpoints", "namespaces",
	"endpointslices", "custom", "statefulsets", "persistentvolumeclaims"}

// Namespaced tells whether objects of the kind live in a namespace (nodes
// and namespaces do not).
func (k Kind) Namespaced() bool { return k != KindNode && k != KindNamespace }

// Resource is the Kubernetes resource name (plural, lower case).
func (k Kind) Resource() string {
	if k < numKinds {
		return kindResources[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// KindOf maps a resource name back to its Kind.
func KindOf(resource string) (Kind, bool) {
	for i, r := range kindResources {
		if r == resource {
			return Kind(i), true
		}
	}
	return 0, false
}

// DefaultNamespace is where objects go when no namespace is named, as
// kubectl's default. It always exists and may not be deleted.
const DefaultNamespace = "default"

// Ref identifies an object: its kind, its namespace ("" for cluster-scoped
// kinds) and its name.
type Ref struct {
	Kind      Kind
	Namespace string
	Name      string
	// Type is a custom resource's full name, as kubectl names it
	// ("widgets.example.com"); "" for the built-in kinds.
	Type string
}

// Key is the object's key as client-go's MetaNamespaceKeyFunc makes it:
// namespace/name, or name alone for a cluster-scoped object. Components'
// views and queues are keyed by it.
func (r Ref) Key() string { return Key(r.Namespace, r.Name) }

func (r Ref) String() string { return r.prefixed("") }

// prefixed is prefix followed by String, built in one allocation: a
// delivery's description is one per step.
func (r Ref) prefixed(prefix string) string {
	t := r.Type
	if t == "" {
		t = r.Kind.Resource()
	}
	if r.Namespace == "" {
		return prefix + t + "/" + r.Name
	}
	return prefix + t + "/" + r.Namespace + "/" + r.Name
}

// Key is namespace/name, or name when namespace is "".
func Key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// SplitKey splits a key into namespace and name; a key with no namespace
// has namespace "".
func SplitKey(key string) (namespace, name string) {
	if ns, n, ok := strings.Cut(key, "/"); ok {
		return ns, n
	}
	return "", key
}

// RefTo is the Ref of kind k under key. A namespaced kind's key that names
// no namespace is in DefaultNamespace; a cluster-scoped kind's key is its
// name.
func RefTo(k Kind, key string) Ref {
	if !k.Namespaced() {
		return Ref{Kind: k, Name: key}
	}
	ns, name := SplitKey(key)
	if ns == "" {
		ns = DefaultNamespace
	}
	return Ref{Kind: k, Namespace: ns, Name: name}
}

// OwnerRef is the Ref of an object's owner, which lives in its namespace.
func OwnerRef(m *Meta) Ref {
	return Ref{Kind: m.Owner.Kind, Namespace: m.Namespace, Name: m.Owner.Name, Type: m.Owner.Type}
}

// Owner is a controller ownerReference. A custom resource owns only
// objects of its own scope here (a namespaced one those in its namespace).
type Owner struct {
	Kind Kind
	Name string
	UID  int64  // 0: no owner
	Type string // a custom owner's Ref.Type
}

// Meta is common to every object. Objects are immutable once stored: a write
// stores a new value, so views can share them without copying.
type Meta struct {
	Name      string
	Namespace string // "" for cluster-scoped kinds
	UID       int64  // store-assigned, unique per incarnation (volatile: masked)
	Version   int64  // store revision of the last write (volatile: masked)
	Labels    map[string]string
	Owner     Owner
	Deleting  bool // deletionTimestamp set
	// Graceful: deletionGracePeriodSeconds > 0, a pod whose kubelet must
	// finish the deletion; a Deleting object that is not Graceful goes as
	// soon as its finalizers are empty.
	Graceful   bool
	Finalizers []string // never changed in place: a write stores a new slice
}

// Obj is any stored object.
type Obj interface {
	meta() *Meta
	Kind() Kind
	shallow() Obj // a copy whose fields can be changed before storing
}

// MetaOf returns the object's metadata (read-only by convention).
func MetaOf(o Obj) *Meta { return o.meta() }

// RefOf is the object's identity.
func RefOf(o Obj) Ref {
	r := Ref{Kind: o.Kind(), Namespace: o.meta().Namespace, Name: o.meta().Name}
	if c, ok := o.(*Custom); ok {
		r.Type = c.Type
	}
	return r
}

// KeyOf is the object's key (Ref.Key).
func KeyOf(o Obj) string { return Key(o.meta().Namespace, o.meta().Name) }

// IntOrPercent is maxSurge / maxUnavailable: an absolute count or a percentage
// of the desired replicas.
type IntOrPercent struct {
	Val     int
	Percent bool
}

func (v IntOrPercent) String() string {
	if v.Percent {
		return strconv.Itoa(v.Val) + "%"
	}
	return strconv.Itoa(v.Val)
}

// ResolveSurge turns the strategy into absolute numbers as Kubernetes does:
// surge rounds up, unavailable rounds down, and both zero means one
// unavailable so a rollout can always progress.
func ResolveSurge(replicas int, surge, unavailable IntOrPercent) (int, int) {
	s := surge.Val
	if surge.Percent {
		s = (replicas*surge.Val + 99) / 100
	}
	u := unavailable.Val
	if unavailable.Percent {
		u = replicas * unavailable.Val / 100
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return s, u
}

// Deployment is apps/v1 Deployment, reduced to what the flow observes.
type Deployment struct {
	Meta
	Replicas     int
	Image        string
	PodLabels    map[string]string // template labels, also the selector
	NodeSelector map[string]string
	// Template stands for what the pod template holds beyond the fields
	// above (env, ports, probes, annotations such as kubectl rollout
	// restart's): an opaque digest, "" for nothing more. It is part of the
	// template's identity, so changing it rolls out a new ReplicaSet.
	Template           string
	MaxSurge           IntOrPercent
	MaxUnavailable     IntOrPercent
	Generation         int64
	ObservedGeneration int64
	// Revision is the newest ReplicaSet's (deployment.kubernetes.io/revision),
	// which the deployment controller writes with the status, as upstream's
	// does: an update that drops it has the controller write it again.
	Revision int
	Status   DeploymentStatus
}

type DeploymentStatus struct {
	Replicas, UpdatedReplicas, ReadyReplicas, AvailableReplicas int
}

func (d *Deployment) meta() *Meta  { return &d.Meta }
func (d *Deployment) Kind() Kind   { return KindDeployment }
func (d *Deployment) shallow() Obj { c := *d; return &c }

// ReplicaSet is apps/v1 ReplicaSet.
type ReplicaSet struct {
	Meta
	Replicas     int
	Image        string
	PodLabels    map[string]string // includes pod-template-hash
	NodeSelector map[string]string
	Template     string // as Deployment.Template
	Hash         string
	// Revision numbers the rollouts of the owning Deployment
	// (deployment.kubernetes.io/revision): kubectl rollout history lists
	// it and rollout undo goes back by it. 0: none yet.
	Revision int
	Status   ReplicaSetStatus
}

type ReplicaSetStatus struct {
	Replicas, ReadyReplicas int
}

func (r *ReplicaSet) meta() *Meta  { return &r.Meta }
func (r *ReplicaSet) Kind() Kind   { return KindReplicaSet }
func (r *ReplicaSet) shallow() Obj { c := *r; return &c }

// Pod phases the model uses.
const (
	PhasePending = "Pending"
	PhaseRunning = "Running"
)

// Pod is v1 Pod with one container.
type Pod struct {
	Meta
	Image        string
	NodeSelector map[string]string
	CPU, Memory  int // requests: milli-cores, MiB
	NodeName     string
	Phase        string
	Ready        bool
	PodIP        string
	Restarts     int
	// Gated: spec.schedulingGates holds a gate, which only a user removes;
	// the scheduler leaves the pod alone until then.
	Gated bool
	// Ports are the containers' named ports, which a Service's named
	// targetPort resolves to; they come from the pod's template.
	Ports []ContainerPort
	// Waiting is why the container is not running, in the kubelet's words
	// (state.waiting.reason): WaitingErrImagePull, WaitingImagePullBackOff,
	// WaitingInvalidImageName or WaitingCrashLoopBackOff; "" while it runs
	// or before the kubelet has tried.
	Waiting string
	// LastReason and LastExitCode are how the previous attempt ended
	// (lastState.terminated): ReasonError 1 or ReasonOOMKilled 137; ""
	// before any attempt has ended.
	LastReason   string
	LastExitCode int
	// Claims are the PersistentVolumeClaims a StatefulSet's pod mounts,
	// one per volumeClaimTemplate, in the templates' order: its own
	// ordinal's (StatefulSetClaimName). Other pods' volumes are not
	// modelled.
	Claims []string
}

// The kubelet's reasons for a waiting container and a terminated one
// (k8s.io/kubernetes pkg/kubelet/images and kuberuntime).
const (
	WaitingErrImagePull     = "ErrImagePull"
	WaitingImagePullBackOff = "ImagePullBackOff"
	WaitingCrashLoopBackOff = "CrashLoopBackOff"
	ReasonError             = "Error"
	ReasonOOMKilled         = "OOMKilled"
	ExitOOMKilled           = 137 // 128+SIGKILL: the kernel's OOM killer
	ExitError               = 1
)

func (p *Pod) meta() *Meta  { return &p.Meta }
func (p *Pod) Kind() Kind   { return KindPod }
func (p *Pod) shallow() Obj { c := *p; return &c }

// Node is v1 Node. Heartbeat and TransitionAt are logical times.
type Node struct {
	Meta
	Index        int // pod range number, assigned at registration
	CPU, Memory  int // capacity: milli-cores, MiB
	MaxPods      int
	Taints       []string // "key:Effect"; pods have no tolerations
	Ready        bool
	Heartbeat    int64
	TransitionAt int64
}

func (n *Node) meta() *Meta  { return &n.Meta }
func (n *Node) Kind() Kind   { return KindNode }
func (n *Node) shallow() Obj { c := *n; return &c }

// Service is v1 Service. Without a selector (nil or empty, which storage
// does not tell apart) or as an ExternalName, it gets no Endpoints or
// EndpointSlice from the endpoints controller: its user manages them.
type Service struct {
	Meta
	Selector     map[string]string
	Ports        []ServicePort
	ExternalName bool // spec.type ExternalName
}

func (s *Service) meta() *Meta  { return &s.Meta }
func (s *Service) Kind() Kind   { return KindService }
func (s *Service) shallow() Obj { c := *s; return &c }

// Namespace is v1 Namespace. Terminating is its phase once deleted
// (Meta.Deleting); Finalize is spec.finalizers' "kubernetes": the
// namespace controller takes it away once the namespace is empty, and
// only then may the namespace go.
type Namespace struct {
	Meta
	Finalize bool
}

func (n *Namespace) meta() *Meta  { return &n.Meta }
func (n *Namespace) Kind() Kind   { return KindNamespace }
func (n *Namespace) shallow() Obj { c := *n; return &c }

// Address is one ready backend in Endpoints.
type Address struct {
	Pod, IP, Node string
}

// Endpoints is v1 Endpoints with one subset: its ready addresses, and
// the ports they serve (endpoints_ports.go).
type Endpoints struct {
	Meta
	Addresses []Address // sorted by pod name
	Ports     []EndpointPort
}

func (e *Endpoints) meta() *Meta  { return &e.Meta }
func (e *Endpoints) Kind() Kind   { return KindEndpoints }
func (e *Endpoints) shallow() Obj { c := *e; return &c }

// Container is one container in a node's runtime.
type Container struct {
	ID       string // node/pod/attempt: deterministic
	Node     string
	Pod      string
	PodUID   int64
	Image    string
	Attempt  int
	Running  bool
	ExitCode int
	// Reason is how an exited container ended: ReasonError, or
	// ReasonOOMKilled when the kernel killed it for memory.
	Reason string
	// Unready: the container's readiness probe fails (a world fault); its
	// kubelet reports the pod not ready while it does.
	Unready bool
	// IP is the pod's address the container binds (host network). It is
	// an input to the runtime, not observed state.
	IP string
}

// Rule is one kube-proxy forwarding rule: a Service port to its backends.
type Rule struct {
	Port     int
	Backends []string // pod IPs, sorted
}

// sameMap reports whether a and b are one map, not only equal ones.
func sameMap(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// Matches reports whether labels satisfy a selector. An empty selector
// Matches nothing, as for Services.
func Matches(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	if sameMap(selector, labels) {
		return true // a replica set's pods mostly carry its own map
	}
	for k, v := range selector {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	return true
}

// subset reports whether every pair of a is in b (an empty a is a subset).
func subset(a, b map[string]string) bool {
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
