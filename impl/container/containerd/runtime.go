package containerd

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	runcoptions "github.com/containerd/containerd/api/types/runc/options"
	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/containers"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/containerd/errdefs"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/converge-dev/converge/impl/container"
)

var _ container.Runtime = (*Runtime)(nil)

// Namespace is the containerd namespace converge works in by default.
const Namespace = "converge"

// DefaultSnapshotter unpacks images and makes container root filesystems.
const DefaultSnapshotter = "overlayfs"

// runcRuntime is the shim every container runs under.
const runcRuntime = "io.containerd.runc.v2"

// ErrDaemonUnavailable reports that no containerd answers at the address.
var ErrDaemonUnavailable = errors.New("containerd: daemon not reachable")

// cleanupTimeout bounds the undo of a half-made container, which runs even
// when the caller's context is already done.
const cleanupTimeout = 30 * time.Second

// Option configures New, ImportArchive and ImportReader.
type Option func(*options)

type options struct {
	namespace, snapshotter, logDir string
	runcRoot, cgroupParent         string
	dialTimeout                    time.Duration
}

// WithNamespace sets the containerd namespace (default Namespace).
func WithNamespace(ns string) Option { return func(o *options) { o.namespace = ns } }

// WithSnapshotter sets the snapshotter (default DefaultSnapshotter).
func WithSnapshotter(name string) Option { return func(o *options) { o.snapshotter = name } }

// WithLogDir sets where each container's stdout and stderr go, one
// <id>.log per container (default <tmp>/converge-containers/<namespace>).
func WithLogDir(dir string) Option { return func(o *options) { o.logDir = dir } }

// WithRuncRoot sets runc's state directory (default runc's own,
// /run/containerd/runc). Daemons that may run containers with the same ids
// at the same time need different roots.
func WithRuncRoot(dir string) Option { return func(o *options) { o.runcRoot = dir } }

// WithCgroupParent puts each container's cgroup at <parent>/<id> (default
// /<namespace>/<id>), for the same reason as WithRuncRoot.
func WithCgroupParent(parent string) Option { return func(o *options) { o.cgroupParent = parent } }

// WithDialTimeout bounds the check that the daemon answers (default 5s).
func WithDialTimeout(d time.Duration) Option { return func(o *options) { o.dialTimeout = d } }

func buildOptions(opts []Option) options {
	o := options{namespace: Namespace, snapshotter: DefaultSnapshotter, dialTimeout: 5 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	if o.logDir == "" {
		o.logDir = filepath.Join(os.TempDir(), "converge-containers", o.namespace)
	}
	return o
}

// Runtime is a container.Runtime for one node over a containerd daemon.
// Several runtimes (nodes) may share one daemon and namespace: each sees only
// the containers labelled with its node.
type Runtime struct {
	client *client.Client
	node   string
	opts   options
	locks  [64]sync.Mutex // striped by id: one operation per container at a time
}

// New connects to the daemon at address (a unix socket path) for node.
func New(address, node string, opts ...Option) (*Runtime, error) {
	if node == "" {
		return nil, fmt.Errorf("%w: empty node name", container.ErrInvalidSpec)
	}
	o := buildOptions(opts)
	if !filepath.IsAbs(o.logDir) {
		return nil, fmt.Errorf("containerd: log dir %q must be absolute", o.logDir)
	}
	c, err := dial(address, o)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.logDir, 0o755); err != nil {
		c.Close()
		return nil, fmt.Errorf("containerd: %w", err)
	}
	return &Runtime{client: c, node: node, opts: o}, nil
}

// dial connects and checks that the daemon answers, so a missing daemon is a
// clear error here rather than a hang later.
func dial(address string, o options) (*client.Client, error) {
	path := strings.TrimPrefix(address, "unix://")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w: no socket at %s", ErrDaemonUnavailable, path)
	}
	c, err := client.New(path, client.WithDefaultNamespace(o.namespace), client.WithTimeout(o.dialTimeout))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrDaemonUnavailable, path, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.dialTimeout)
	defer cancel()
	if ok, err := c.IsServing(ctx); err != nil || !ok {
		c.Close()
		return nil, fmt.Errorf("%w: %s: not serving: %v", ErrDaemonUnavailable, path, err)
	}
	return c, nil
}

// Close drops the connection; containers keep running in the daemon.
func (r *Runtime) Close() error { return r.client.Close() }

// Node returns the node this runtime serves.
func (r *Runtime) Node() string { return r.node }

// LogPath is the file holding the container's stdout and stderr.
func (r *Runtime) LogPath(id string) string { return filepath.Join(r.opts.logDir, id+".log") }

func (r *Runtime) ctx(ctx context.Context) context.Context {
	return namespaces.WithNamespace(ctx, r.opts.namespace)
}

func (r *Runtime) lock(id string) func() {
	h := fnv.New32a()
	h.Write([]byte(id))
	m := &r.locks[h.Sum32()%uint32(len(r.locks))]
	m.Lock()
	return m.Unlock
}

// load finds one of this node's containers and its record.
func (r *Runtime) load(ctx context.Context, id string) (client.Container, containers.Container, error) {
	c, err := r.client.LoadContainer(ctx, id)
	if errdefs.IsNotFound(err) {
		return nil, containers.Container{}, fmt.Errorf("%w: %s on node %s", container.ErrNotFound, id, r.node)
	}
	if err != nil {
		return nil, containers.Container{}, fmt.Errorf("containerd: load %s: %w", id, err)
	}
	info, err := c.Info(ctx, client.WithoutRefreshedMetadata)
	if err != nil {
		return nil, containers.Container{}, fmt.Errorf("containerd: info %s: %w", id, err)
	}
	if info.Labels[labelNode] != r.node {
		return nil, containers.Container{}, fmt.Errorf("%w: %s on node %s", container.ErrNotFound, id, r.node)
	}
	return c, info, nil
}

// Start implements container.Runtime.
func (r *Runtime) Start(ctx context.Context, spec container.ContainerSpec) (container.ContainerStatus, error) {
	spec, err := spec.Validate(r.node)
	if err != nil {
		return container.ContainerStatus{}, err
	}
	ctx = r.ctx(ctx)
	defer r.lock(spec.ID)()

	if c, err := r.client.LoadContainer(ctx, spec.ID); err == nil {
		info, err := c.Info(ctx, client.WithoutRefreshedMetadata)
		if err != nil {
			return container.ContainerStatus{}, fmt.Errorf("containerd: info %s: %w", spec.ID, err)
		}
		if existing := identityOf(info); !container.SameContainer(existing, spec) {
			return container.ContainerStatus{}, fmt.Errorf("%w: %s (node %s, pod %s/%s, attempt %d)", container.ErrExists,
				spec.ID, existing.Node, existing.PodNamespace, existing.PodName, existing.Attempt)
		}
		return r.statusOf(ctx, c, info)
	} else if !errdefs.IsNotFound(err) {
		return container.ContainerStatus{}, fmt.Errorf("containerd: load %s: %w", spec.ID, err)
	}

	img, err := r.client.GetImage(ctx, spec.Image)
	if errdefs.IsNotFound(err) {
		return container.WaitingStatus(spec), fmt.Errorf("%w: %s", container.ErrImageNotPresent, spec.Image)
	}
	if err != nil {
		return container.ContainerStatus{}, fmt.Errorf("containerd: image %s: %w", spec.Image, err)
	}
	if err := r.ensureUnpacked(ctx, img); err != nil {
		return container.ContainerStatus{}, err
	}
	sopts := specOpts(img, spec)
	if r.opts.cgroupParent != "" {
		sopts = append(sopts, oci.WithCgroup(path.Join("/", r.opts.cgroupParent, spec.ID)))
	}
	copts := []client.NewContainerOpts{
		client.WithImage(img),
		client.WithSnapshotter(r.opts.snapshotter),
		client.WithNewSnapshot(spec.ID, img),
		client.WithNewSpec(sopts...),
		client.WithContainerLabels(labelsOf(spec)),
	}
	if r.opts.runcRoot != "" {
		copts = append(copts, client.WithRuntime(runcRuntime, &runcoptions.Options{Root: r.opts.runcRoot}))
	}
	c, err := r.client.NewContainer(ctx, spec.ID, copts...)
	if err != nil {
		return container.ContainerStatus{}, fmt.Errorf("containerd: create %s: %w", spec.ID, err)
	}
	if err := r.startTask(ctx, c, spec.ID); err != nil {
		undo, cancel := context.WithTimeout(r.ctx(context.WithoutCancel(ctx)), cleanupTimeout)
		defer cancel()
		if t, terr := c.Task(undo, nil); terr == nil {
			t.Delete(undo, client.WithProcessKill)
		}
		c.Delete(undo, client.WithSnapshotCleanup)
		return container.ContainerStatus{}, fmt.Errorf("containerd: start %s: %w", spec.ID, err)
	}
	info, err := c.Info(ctx) // refreshed: it now carries the start time
	if err != nil {
		return container.ContainerStatus{}, fmt.Errorf("containerd: info %s: %w", spec.ID, err)
	}
	return r.statusOf(ctx, c, info)
}

func (r *Runtime) ensureUnpacked(ctx context.Context, img client.Image) error {
	ok, err := img.IsUnpacked(ctx, r.opts.snapshotter)
	if err != nil {
		return fmt.Errorf("containerd: image %s: %w", img.Name(), err)
	}
	if !ok {
		if err := img.Unpack(ctx, r.opts.snapshotter); err != nil {
			return fmt.Errorf("containerd: unpack %s: %w", img.Name(), err)
		}
	}
	return nil
}

// specOpts builds the OCI spec: the image's defaults, Kubernetes' rules for
// command and args, the host network (there is no CNI) and the pod's env.
func specOpts(img client.Image, spec container.ContainerSpec) []oci.SpecOpts {
	var opts []oci.SpecOpts
	switch {
	case len(spec.Command) > 0:
		opts = append(opts, oci.WithImageConfig(img), oci.WithProcessArgs(append(append([]string(nil), spec.Command...), spec.Args...)...))
	case len(spec.Args) > 0:
		opts = append(opts, oci.WithImageConfigArgs(img, spec.Args))
	default:
		opts = append(opts, oci.WithImageConfig(img))
	}
	env := container.ProcessEnv(spec)
	kv := make([]string, len(env))
	for i, e := range env {
		kv[i] = e.Name + "=" + e.Value
	}
	opts = append(opts, oci.WithEnv(kv), oci.WithHostNamespace(specs.NetworkNamespace))
	if spec.PodName != "" && len(spec.PodName) <= 63 {
		opts = append(opts, oci.WithHostname(spec.PodName))
	}
	return opts
}

// startTask creates the task with its output in a log file, which the shim
// writes itself: no FIFO needs a reader, so the process never blocks on a
// full pipe after the kubelet goes away.
func (r *Runtime) startTask(ctx context.Context, c client.Container, id string) error {
	task, err := c.NewTask(ctx, cio.LogFile(r.LogPath(id)))
	if err != nil {
		return err
	}
	if err := task.Start(ctx); err != nil {
		return err
	}
	_, err = c.SetLabels(ctx, map[string]string{labelStartedAt: formatTime(time.Now())})
	return err
}
