package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/container/containerd"
	"github.com/converge-dev/converge/impl/etcd"
	"github.com/converge-dev/converge/impl/etcd/etcdcluster"
	"github.com/converge-dev/converge/impl/proxy"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/serving"
	"github.com/converge-dev/converge/impl/store"
)

func init() {
	register(command{name: "up", summary: "run the control plane: etcd, the apiserver for kubectl, every component, fake nodes", run: runUp,
		examples: []string{
			"converge up --nodes 3 --kubeconfig ./kubeconfig",
			"converge up --crds config/crd/bases",
			"converge up --runtime containerd --import echo.tar",
		}})
}

type upFlags struct {
	dataDir, listen, kubeconfig, endpoints, tokenFile, rulesFile string
	crds                                                         string
	nodes                                                        int
	// etcdMembers > 1 runs that many embedded members in-process
	// (DATA-DIR/etcd-cluster); onEtcdCluster, set by tests, receives the
	// cluster to inject member faults into.
	etcdMembers                          int
	onEtcdCluster                        func(*etcdcluster.Cluster)
	anonymous, quiet, events, heartbeats bool
	tick, eventTTL                       time.Duration
	compactEvery                         time.Duration // 0: never
	// runtime is fake or containerd; containerdAddress an existing
	// daemon's socket (default: a private daemon in DATA-DIR/containerd);
	// imports are image archives loaded into it at start.
	runtime, containerdAddress string
	imports                    []string
	// daemon, set by tests, is an already started daemon to use.
	daemon *containerd.Daemon
}

// maxUpNodes is the most nodes converge up registers.
const maxUpNodes = 5000

func runUp(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("up", "[--data-dir DIR] [--listen ADDR] [--nodes N] [--kubeconfig PATH] [--runtime fake|containerd] [--containerd-address SOCKET] [--import ARCHIVE]", stderr)
	var f upFlags
	fs.StringVar(&f.dataDir, "data-dir", "converge-data", "where etcd, the certificates, the token and the kubeconfig live")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:6443", "the apiserver's address (HTTPS)")
	fs.IntVar(&f.nodes, "nodes", 3, "fake nodes (node-1..node-N)")
	fs.StringVar(&f.crds, "crds", "", "install the CustomResourceDefinitions in this directory (a kubebuilder project's config/crd/bases) before the control plane starts")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "where to write the kubeconfig (default DATA-DIR/kubeconfig)")
	fs.StringVar(&f.endpoints, "etcd-endpoints", "", "an external etcd (comma-separated URLs) instead of the embedded one")
	fs.IntVar(&f.etcdMembers, "etcd-members", 1, "embedded etcd members (1, 3 or 5), each with its own data dir and loopback URLs")
	fs.StringVar(&f.tokenFile, "token-file", "", "static token file (CSV: token,user,uid,\"groups\"); default: a generated admin token in DATA-DIR")
	fs.StringVar(&f.rulesFile, "authorization-rules", "", "authorization rules file (YAML list of rules); default: every authenticated user may do anything")
	fs.BoolVar(&f.anonymous, "anonymous", false, "let unauthenticated requests in as system:anonymous")
	fs.BoolVar(&f.quiet, "quiet", false, "do not print the flow")
	fs.BoolVar(&f.heartbeats, "heartbeats", false, "print the kubelets' heartbeats in the flow too")
	fs.DurationVar(&f.tick, "tick", time.Second, "heartbeat period (the logical clock's tick)")
	fs.BoolVar(&f.events, "events", true, "report what the components do as Events (kubectl describe, kubectl get events)")
	fs.DurationVar(&f.eventTTL, "event-ttl", cluster.DefaultEventTTL, "how long an Event is kept")
	fs.DurationVar(&f.compactEvery, "etcd-compaction-interval", 5*time.Minute, "compact etcd's history older than this, this often, as kube-apiserver does (0: never); a watch from a compacted resourceVersion gets 410 Gone")
	fs.StringVar(&f.runtime, "runtime", "fake", "the nodes' container runtime: fake (in memory) or containerd (real containers; root)")
	fs.StringVar(&f.containerdAddress, "containerd-address", "", "with --runtime containerd: the socket of a running containerd (default: start a private one in DATA-DIR/containerd)")
	fs.Func("import", "with --runtime containerd: an image archive (OCI or docker) to import at start; repeatable", func(s string) error {
		f.imports = append(f.imports, s)
		return nil
	})
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	// Node i's pods get 127.(100+i/250).(i%250).0/24: 5,000 nodes end at
	// 127.119, well below the Services' 127.200.0.0/16.
	if f.nodes < 0 || f.nodes > maxUpNodes {
		return usageError("--nodes must be between 0 and %d", maxUpNodes)
	}
	if f.etcdMembers != 1 && f.etcdMembers != 3 && f.etcdMembers != 5 {
		return usageError("--etcd-members must be 1, 3 or 5")
	}
	if f.etcdMembers > 1 && f.endpoints != "" {
		return usageError("--etcd-members and --etcd-endpoints exclude each other")
	}
	if f.eventTTL <= 0 {
		return usageError("--event-ttl must be positive")
	}
	if f.compactEvery < 0 {
		return usageError("--etcd-compaction-interval must not be negative")
	}
	if err := f.checkRuntime(); err != nil {
		return err
	}
	if _, _, err := net.SplitHostPort(f.listen); err != nil {
		return usageError("--listen %q: %v", f.listen, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return up(ctx, f, stdout)
}

// up runs until ctx ends, then shuts everything down cleanly.
func up(ctx context.Context, f upFlags, stdout io.Writer) error {
	if err := os.MkdirAll(f.dataDir, 0o700); err != nil {
		return err
	}
	c, closeEtcd, err := persistentEtcd(f)
	if err != nil {
		return err
	}
	defer closeEtcd()
	if f.compactEvery > 0 {
		defer etcd.CompactHistory(c, f.compactEvery)()
	}
	st := store.New(c, "")
	reg := registry.New(registry.Config{Store: st, ServiceIPRange: serviceIPRange})
	if err := reg.EnsureNamespaces(ctx); err != nil {
		return err
	}
	if f.crds != "" {
		names, err := reg.InstallCRDs(ctx, f.crds)
		if err != nil {
			return fmt.Errorf("--crds: %w", err)
		}
		if !f.quiet {
			fmt.Fprintf(stdout, "installed %d CustomResourceDefinitions: %s\n", len(names), strings.Join(names, ", "))
		}
	}
	tlsFiles, err := apiserver.EnsureTLS(filepath.Join(f.dataDir, "pki"))
	if err != nil {
		return err
	}
	tlsCfg, err := tlsFiles.TLSConfig()
	if err != nil {
		return err
	}
	tokenFile, token, err := ensureToken(f)
	if err != nil {
		return err
	}
	auth, err := apiserver.LoadAuth(tokenFile, f.rulesFile, f.anonymous)
	if err != nil {
		return usageError("%v", err)
	}
	logLine := func(line string) {
		if !f.quiet {
			fmt.Fprintln(stdout, line)
		}
	}
	m, err := newMachines(ctx, f, logLine)
	if err != nil {
		return err
	}
	defer m.close()
	go reg.RunCRDs(ctx) // serves the custom resources the stored CRDs define, and collects their garbage
	srv, err := apiserver.New(apiserver.Config{Registry: reg, Auth: auth, PodLogs: m.podLogs(reg)})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", f.listen, err)
	}
	hs := serving.NewServer(srv.Handler(), tlsCfg, serving.Limits{})
	served := make(chan error, 1)
	go func() { served <- hs.ServeTLS(ln, "", "") }()
	defer hs.Close()

	r, err := cluster.StartRunning(cluster.RunningConfig{Store: st, Nodes: f.nodes, Tick: f.tick, Log: logLine, LogHeartbeats: f.heartbeats, Runtime: m.runtime(),
		Events: f.events, EventTTL: f.eventTTL})
	if err != nil {
		return err
	}
	defer r.Close()
	if m.real {
		// Real processes die on their own, and Services are reached
		// through this host's kube-proxy.
		r.WatchRuntimes(relistPeriod)
		p := proxy.New()
		defer p.Close()
		r.RunProxy(p, proxyPeriod, func(line string) { fmt.Fprintln(stdout, line) })
	}

	kubeconfig := f.kubeconfig
	if kubeconfig == "" {
		kubeconfig = filepath.Join(f.dataDir, "kubeconfig")
	}
	if err := apiserver.WriteKubeconfig(kubeconfig, "https://"+ln.Addr().String(), tlsFiles.CA, "admin", token); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "converge is up: apiserver https://%s, %d nodes, data in %s\n", ln.Addr(), f.nodes, f.dataDir)
	example := "examples/my-app.yaml"
	if m.real {
		example = "examples/echo.yaml  # then curl the Service's CLUSTER-IP"
	}
	fmt.Fprintf(stdout, "  export KUBECONFIG=%s\n  kubectl apply -f %s\n  kubectl get deploy,rs,pods -o wide\n", kubeconfig, example)
	select {
	case <-ctx.Done():
		fmt.Fprintln(stdout, "converge: shutting down")
	case err := <-served:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	return nil
}

// persistentEtcd dials an external etcd or starts the embedded one with
// fsync on under DATA-DIR/etcd, so a restart carries on from what was acknowledged.
func persistentEtcd(f upFlags) (*clientv3.Client, func(), error) {
	if f.endpoints != "" {
		c, err := etcd.Dial(strings.Split(f.endpoints, ","))
		if err != nil {
			return nil, nil, usageError("%v", err)
		}
		return c, func() { c.Close() }, nil
	}
	if f.etcdMembers > 1 {
		return clusterEtcd(f)
	}
	e, err := etcd.StartEmbedded(etcd.Config{DataDir: filepath.Join(f.dataDir, "etcd"), Fsync: true})
	if err != nil {
		return nil, nil, err
	}
	c, err := e.InProcessClient()
	if err != nil {
		e.Close()
		return nil, nil, err
	}
	return c, func() { c.Close(); e.Close() }, nil
}

// ensureToken returns the token file to load and the admin token to put in
// the kubeconfig: the user's file (its first token), or one generated once
// and kept in DATA-DIR/tokens.csv.
func ensureToken(f upFlags) (file, token string, err error) {
	file = f.tokenFile
	if file == "" {
		file = filepath.Join(f.dataDir, "tokens.csv")
		if _, statErr := os.Stat(file); errors.Is(statErr, os.ErrNotExist) {
			tok, err := apiserver.NewToken()
			if err != nil {
				return "", "", err
			}
			line := tok + ",admin,admin,\"system:masters\"\n"
			if err := os.WriteFile(file, []byte(line), 0o600); err != nil {
				return "", "", err
			}
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", "", usageError("token file: %v", err)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(data)), ",")
	return file, first, nil
}
