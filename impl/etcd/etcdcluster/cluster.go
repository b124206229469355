package etcdcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Sentinel errors of this package; match them with errors.Is.
var (
	// ErrInvalidConfig: the Config cannot describe a cluster.
	ErrInvalidConfig = errors.New("etcdcluster: invalid config")
	// ErrNotReady: a member or the cluster did not become ready in time.
	ErrNotReady = errors.New("etcdcluster: not ready")
	// ErrNoMember: a member index out of range, or a fault that does not
	// apply to the member's state (killing a stopped member).
	ErrNoMember = errors.New("etcdcluster: no such member")
	// ErrNoLeader: no member knows a leader.
	ErrNoLeader = errors.New("etcdcluster: no leader")
)

// Defaults for the zero values of Config. Members share a loopback and, in
// CI, two busy cores: the election timeout leaves room for a slow tick, and
// a leader change still takes well under a second.
const (
	DefaultMembers      = 3
	DefaultTickMs       = 50
	DefaultElectionMs   = 500
	DefaultStartTimeout = 30 * time.Second
	layoutFile          = "cluster.json"
	clusterToken        = "converge"
)

// Config describes a cluster.
type Config struct {
	// Dir holds cluster.json and one data dir per member. Required.
	Dir string
	// Members is the member count; 0 means DefaultMembers.
	Members int
	// Fsync makes every commit durable; false sets UnsafeNoFsync.
	Fsync bool
	// TickMs and ElectionMs are raft's heartbeat and election timeout; 0
	// means DefaultTickMs and DefaultElectionMs.
	TickMs, ElectionMs uint
	// StartTimeout bounds each wait for readiness; 0 means DefaultStartTimeout.
	StartTimeout time.Duration
	// Logger receives the members' logs; nil is silent.
	Logger *zap.Logger
}

// memberAddr is a member's identity and addresses, as kept in cluster.json.
// Peers reach a member through Peer, the address of its fault proxy, which
// forwards to Listen, where raft really listens.
type memberAddr struct {
	Name   string `json:"name"`
	Client string `json:"client"`
	Peer   string `json:"peer"`
	Listen string `json:"listen"`
}

type member struct {
	addr  memberAddr
	dir   string
	etcd  *embed.Etcd // nil while killed
	proxy *peerProxy
}

// Cluster is a running in-process cluster.
type Cluster struct {
	cfg       Config
	mu        sync.Mutex // guards members' etcd and the fault calls
	members   []*member
	closeOnce sync.Once
}

// Start starts the cluster cfg describes, or restarts the one kept in cfg.Dir.
func Start(cfg Config) (*Cluster, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: Dir is required", ErrInvalidConfig)
	}
	if cfg.Members == 0 {
		cfg.Members = DefaultMembers
	}
	if cfg.Members < 1 || cfg.Members > 7 {
		return nil, fmt.Errorf("%w: %d members (1 to 7)", ErrInvalidConfig, cfg.Members)
	}
	if cfg.TickMs == 0 {
		cfg.TickMs = DefaultTickMs
	}
	if cfg.ElectionMs == 0 {
		cfg.ElectionMs = DefaultElectionMs
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, err
	}
	addrs, err := layout(cfg)
	if err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg}
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()
	for _, a := range addrs {
		m := &member{addr: a, dir: filepath.Join(cfg.Dir, a.Name)}
		if m.proxy, err = startPeerProxy(a); err != nil {
			return nil, err
		}
		c.members = append(c.members, m)
	}
	for i := range c.members {
		if err := c.startMember(i); err != nil {
			return nil, err
		}
	}
	for i := range c.members {
		if err := c.waitReady(i); err != nil {
			return nil, err
		}
	}
	ok = true
	return c, nil
}

// layout reads the members' addresses from cluster.json, or picks free
// loopback ports and writes them there.
func layout(cfg Config) ([]memberAddr, error) {
	path := filepath.Join(cfg.Dir, layoutFile)
	if data, err := os.ReadFile(path); err == nil {
		var addrs []memberAddr
		if err := json.Unmarshal(data, &addrs); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInvalidConfig, path, err)
		}
		if len(addrs) != cfg.Members {
			return nil, fmt.Errorf("%w: %s has %d members, not %d", ErrInvalidConfig, path, len(addrs), cfg.Members)
		}
		return addrs, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	ports, err := freePorts(3 * cfg.Members)
	if err != nil {
		return nil, err
	}
	addrs := make([]memberAddr, cfg.Members)
	for i := range addrs {
		addrs[i] = memberAddr{
			Name:   fmt.Sprintf("member-%d", i),
			Client: fmt.Sprintf("http://127.0.0.1:%d", ports[3*i]),
			Peer:   fmt.Sprintf("http://127.0.0.1:%d", ports[3*i+1]),
			Listen: fmt.Sprintf("http://127.0.0.1:%d", ports[3*i+2]),
		}
	}
	data, _ := json.MarshalIndent(addrs, "", "  ")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, err
	}
	return addrs, nil
}

// startMember starts member i's server; the caller holds c.mu or owns c.
func (c *Cluster) startMember(i int) error {
	m := c.members[i]
	ec := embed.NewConfig()
	ec.Name = m.addr.Name
	ec.Dir = m.dir
	ec.UnsafeNoFsync = !c.cfg.Fsync
	ec.TickMs = c.cfg.TickMs
	ec.ElectionMs = c.cfg.ElectionMs
	cu, err := url.Parse(m.addr.Client)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	pu, err := url.Parse(m.addr.Peer)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	lu, err := url.Parse(m.addr.Listen)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	ec.ListenClientUrls, ec.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	ec.ListenPeerUrls, ec.AdvertisePeerUrls = []url.URL{*lu}, []url.URL{*pu}
	var initial []string
	for _, o := range c.members {
		initial = append(initial, o.addr.Name+"="+o.addr.Peer)
	}
	ec.InitialCluster = strings.Join(initial, ",")
	ec.InitialClusterToken = clusterToken
	ec.ClusterState = embed.ClusterStateFlagNew // ignored once the data dir has a WAL
	ec.EnableGRPCGateway = false
	ec.Logger = "zap"
	ec.ZapLoggerBuilder = embed.NewZapLoggerBuilder(c.cfg.Logger.Named(m.addr.Name))
	e, err := embed.StartEtcd(ec)
	if err != nil {
		return fmt.Errorf("etcdcluster: start %s in %s: %w", m.addr.Name, m.dir, err)
	}
	m.etcd = e
	return nil
}

// waitReady waits until member i has joined the cluster and serves.
func (c *Cluster) waitReady(i int) error {
	e := c.members[i].etcd
	timer := time.NewTimer(c.cfg.StartTimeout)
	defer timer.Stop()
	select {
	case <-e.Server.ReadyNotify():
		return nil
	case err := <-e.Err():
		return fmt.Errorf("etcdcluster: %s failed while starting: %w", c.members[i].addr.Name, err)
	case <-timer.C:
		return fmt.Errorf("%w: %s after %v", ErrNotReady, c.members[i].addr.Name, c.cfg.StartTimeout)
	}
}

// Endpoints are every member's client URL.
func (c *Cluster) Endpoints() []string {
	var eps []string
	for _, m := range c.members {
		eps = append(eps, m.addr.Client)
	}
	return eps
}

// Size is the member count.
func (c *Cluster) Size() int { return len(c.members) }

// Client dials every member; clientv3 balances and fails over between them.
// The caller closes it.
func (c *Cluster) Client() (*clientv3.Client, error) {
	cl, err := clientv3.New(clientv3.Config{
		Endpoints:            c.Endpoints(),
		DialTimeout:          5 * time.Second,
		DialKeepAliveTime:    time.Second,
		DialKeepAliveTimeout: time.Second,
		Logger:               zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcdcluster: client: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.StartTimeout)
	defer cancel()
	if _, err := cl.Get(ctx, "/converge/dial-probe", clientv3.WithCountOnly()); err != nil {
		cl.Close()
		return nil, fmt.Errorf("%w: no member answered: %v", ErrNotReady, err)
	}
	return cl, nil
}

// Close stops every member and proxy. Safe to call twice. What was
// committed stays in the data dirs.
func (c *Cluster) Close() {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, m := range c.members {
			if m.etcd != nil {
				// No leadership hand-over: the others are stopping too,
				// and a transfer would only wait out its timeout.
				m.etcd.Server.HardStop()
				m.etcd.Close()
				m.etcd = nil
			}
			if m.proxy != nil {
				m.proxy.close()
			}
		}
	})
}

// freePorts holds n listeners open at once so the ports differ, then
// releases them.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("etcdcluster: free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
