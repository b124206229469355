package main

import (
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/converge-dev/converge/impl/container"
	"github.com/converge-dev/converge/impl/container/containerd"
)

// serviceIPRange is where the apiserver allocates Services' clusterIPs: a
// loopback range, so the host's kube-proxy can listen on them.
var serviceIPRange = netip.MustParsePrefix("127.200.0.0/16")

// Periods of the machinery around a real runtime.
const (
	relistPeriod = 250 * time.Millisecond // the kubelets' look at their runtime
	proxyPeriod  = 100 * time.Millisecond // the kube-proxy's look at the rules
)

// machines is the container runtime side of `converge up`: the fakes, or
// one containerd runtime per node over one daemon (started here unless
// given).
type machines struct {
	mu       sync.Mutex
	real     bool
	daemon   *containerd.Daemon // owned: closed by close
	address  string
	opts     []containerd.Option
	runtimes []*containerd.Runtime
	byNode   map[string]*containerd.Runtime // for kubectl logs
}

// newMachines prepares the runtime f asks for.
func newMachines(ctx context.Context, f upFlags, logLine func(string)) (*machines, error) {
	if err := f.checkRuntime(); err != nil {
		return nil, err
	}
	if f.runtime != "containerd" {
		return &machines{}, nil
	}
	m := &machines{real: true}
	switch {
	case f.daemon != nil:
		m.address, m.opts = f.daemon.Address(), f.daemon.RuntimeOptions()
	case f.containerdAddress != "":
		m.address = f.containerdAddress
	default:
		d, err := containerd.StartDaemon(filepath.Join(f.dataDir, "containerd"))
		if err != nil {
			return nil, err
		}
		m.daemon, m.address, m.opts = d, d.Address(), d.RuntimeOptions()
		logLine("containerd: private daemon at " + d.Address())
	}
	for _, archive := range f.imports {
		ictx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		names, err := containerd.ImportArchive(ictx, m.address, archive, m.opts...)
		cancel()
		if err != nil {
			m.close()
			return nil, fmt.Errorf("import %s: %w", archive, err)
		}
		logLine("containerd: imported " + strings.Join(names, ", "))
	}
	return m, nil
}

// checkRuntime validates the runtime flags.
func (f upFlags) checkRuntime() error {
	switch f.runtime {
	case "", "fake":
		if f.containerdAddress != "" || len(f.imports) > 0 {
			return usageError("--containerd-address and --import need --runtime containerd")
		}
	case "containerd":
	default:
		return usageError("--runtime %q: want fake or containerd", f.runtime)
	}
	return nil
}

// runtime gives a node its runtime; nil means the cluster's fakes.
func (m *machines) runtime() func(node string) container.Runtime {
	if !m.real {
		return nil
	}
	return func(node string) container.Runtime {
		rt, err := containerd.New(m.address, node, m.opts...)
		if err != nil {
			return brokenRuntime{err: err}
		}
		m.mu.Lock()
		m.runtimes = append(m.runtimes, rt)
		if m.byNode == nil {
			m.byNode = map[string]*containerd.Runtime{}
		}
		m.byNode[node] = rt
		m.mu.Unlock()
		return rt
	}
}

// close lets go of the runtimes and stops an owned daemon, which takes its
// containers with it. A daemon given by address outlives us, and so do its
// containers: the next `converge up` adopts them.
func (m *machines) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, rt := range m.runtimes {
		rt.Close()
	}
	m.runtimes, m.byNode = nil, nil
	if m.daemon != nil {
		m.daemon.Close()
		m.daemon = nil
	}
}

// brokenRuntime stands for a node whose runtime could not be reached: every
// call fails, so its kubelet retries and reports.
type brokenRuntime struct{ err error }

func (b brokenRuntime) Start(context.Context, container.ContainerSpec) (container.ContainerStatus, error) {
	return container.ContainerStatus{}, b.err
}
func (b brokenRuntime) Stop(context.Context, string, time.Duration) error { return b.err }
func (b brokenRuntime) Remove(context.Context, string) error              { return b.err }
func (b brokenRuntime) List(context.Context) ([]container.ContainerStatus, error) {
	return nil, b.err
}
func (b brokenRuntime) Status(context.Context, string) (container.ContainerStatus, error) {
	return container.ContainerStatus{}, b.err
}
