package etcd

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc"
	"go.etcd.io/etcd/server/v3/proxy/grpcproxy/adapter"
	"go.uber.org/zap"
)

// Sentinel errors of this package; match them with errors.Is.
var (
	// ErrNotReady: the embedded member did not become ready in time.
	ErrNotReady = errors.New("etcd: embedded member not ready")
	// ErrUnreachable: no endpoint of an external cluster answered.
	ErrUnreachable = errors.New("etcd: cluster unreachable")
	// ErrInvalidConfig: the Config cannot describe a member.
	ErrInvalidConfig = errors.New("etcd: invalid config")
)

// Defaults for the zero values of Config. A single local member has no peer
// latency to tolerate, so short ticks only make start-up and elections fast.
const (
	DefaultTickMs       = 10
	DefaultElectionMs   = 100
	DefaultStartTimeout = 30 * time.Second
	// memberName is fixed so that a restart on the same DataDir is the same member.
	memberName = "converge"
	// portAttempts bounds retries when a port picked as free was taken before
	// etcd could bind it.
	portAttempts = 5
)

// Config describes one embedded single-member etcd.
type Config struct {
	// DataDir holds the WAL and the database. Required; the caller owns it.
	DataDir string
	// Fsync makes every commit durable. false sets UnsafeNoFsync: fine for
	// tests and campaigns, where a lost machine means a lost run anyway.
	Fsync bool
	// ClientURL and PeerURL are the URLs to listen on, such as
	// "http://127.0.0.1:2379". "" picks a free 127.0.0.1 port.
	ClientURL, PeerURL string
	// TickMs and ElectionMs are the raft heartbeat interval and election
	// timeout. 0 means DefaultTickMs and DefaultElectionMs.
	TickMs, ElectionMs uint
	// StartTimeout bounds the wait for the member to be ready. 0 means
	// DefaultStartTimeout.
	StartTimeout time.Duration
	// Logger receives the server's logs. nil means silent.
	Logger *zap.Logger
}

// Embedded is a running in-process etcd member.
type Embedded struct {
	etcd      *embed.Etcd
	endpoints []string
	closeOnce sync.Once
}

// StartEmbedded starts a member as cfg describes and waits until it is ready.
func StartEmbedded(cfg Config) (*Embedded, error) {
	if cfg.DataDir == "" {
		return nil, fmt.Errorf("%w: DataDir is required", ErrInvalidConfig)
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
	picking := cfg.ClientURL == "" || cfg.PeerURL == ""
	var lastErr error
	for attempt := 0; attempt < portAttempts; attempt++ {
		clientURL, peerURL, err := resolveURLs(cfg.ClientURL, cfg.PeerURL)
		if err != nil {
			return nil, err
		}
		e, err := start(cfg, clientURL, peerURL)
		if err == nil {
			return e, nil
		}
		lastErr = err
		// Only a port we picked ourselves can be retried; someone may have
		// taken it between our probe and etcd's bind.
		if !picking || !IsAddrInUse(err) {
			break
		}
	}
	return nil, lastErr
}

func start(cfg Config, clientURL, peerURL *url.URL) (*Embedded, error) {
	ec := embed.NewConfig()
	ec.Name = memberName
	ec.Dir = cfg.DataDir
	ec.UnsafeNoFsync = !cfg.Fsync
	ec.TickMs = cfg.TickMs
	ec.ElectionMs = cfg.ElectionMs
	ec.ListenClientUrls = []url.URL{*clientURL}
	ec.AdvertiseClientUrls = []url.URL{*clientURL}
	ec.ListenPeerUrls = []url.URL{*peerURL}
	ec.AdvertisePeerUrls = []url.URL{*peerURL}
	ec.InitialCluster = ec.InitialClusterFromName(ec.Name)
	// Clients speak gRPC; the JSON gateway would only add a second listener path.
	ec.EnableGRPCGateway = false
	ec.Logger = "zap"
	ec.ZapLoggerBuilder = embed.NewZapLoggerBuilder(cfg.Logger)

	e, err := embed.StartEtcd(ec)
	if err != nil {
		return nil, fmt.Errorf("etcd: start embedded member in %s: %w", cfg.DataDir, err)
	}
	timer := time.NewTimer(cfg.StartTimeout)
	defer timer.Stop()
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("etcd: embedded member in %s failed while starting: %w", cfg.DataDir, err)
	case <-timer.C:
		e.Server.Stop()
		e.Close()
		return nil, fmt.Errorf("%w after %v (data dir %s)", ErrNotReady, cfg.StartTimeout, cfg.DataDir)
	}
	return &Embedded{etcd: e, endpoints: []string{clientURL.String()}}, nil
}

// Endpoints are the client URLs of the member, for Dial or for etcdctl.
func (e *Embedded) Endpoints() []string {
	return append([]string(nil), e.endpoints...)
}

// Client dials the member over gRPC, as an external client would. The caller
// closes the client. converge's own components use InProcessClient.
func (e *Embedded) Client() (*clientv3.Client, error) {
	return newClient(e.endpoints, DefaultDialTimeout)
}

// Close stops the member and waits for it to shut down. Safe to call twice.
func (e *Embedded) Close() {
	e.closeOnce.Do(func() {
		e.etcd.Close()
		<-e.etcd.Server.StopNotify()
	})
}

// resolveURLs parses the configured URLs and fills the empty ones with free
// loopback ports.
func resolveURLs(client, peer string) (*url.URL, *url.URL, error) {
	var ports []int
	if client == "" || peer == "" {
		var err error
		if ports, err = freePorts(2); err != nil {
			return nil, nil, err
		}
	}
	if client == "" {
		client = fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	}
	if peer == "" {
		peer = fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	}
	cu, err := parseURL("ClientURL", client)
	if err != nil {
		return nil, nil, err
	}
	pu, err := parseURL("PeerURL", peer)
	if err != nil {
		return nil, nil, err
	}
	return cu, pu, nil
}

func parseURL(field, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %q: %v", ErrInvalidConfig, field, raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "unix" {
		return nil, fmt.Errorf("%w: %s %q: scheme must be http, https or unix", ErrInvalidConfig, field, raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%w: %s %q: no host:port", ErrInvalidConfig, field, raw)
	}
	return u, nil
}

// freePorts holds n listeners open at once so the ports differ, then releases
// them for etcd to bind.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("etcd: pick a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// IsAddrInUse reports whether err is a listener's bind failing because
// the address is taken.
func IsAddrInUse(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}

// InProcessClient is a client whose reads, writes and watches call the
// member's gRPC handlers as functions: the same server code, with no
// socket, HTTP/2 framing or protobuf encoding between them. Over loopback
// gRPC those are about three quarters of a put's latency. Leases,
// maintenance and the rest still go over gRPC. The caller closes the
// client.
func (e *Embedded) InProcessClient() (*clientv3.Client, error) {
	c, err := e.Client()
	if err != nil {
		return nil, err
	}
	c.KV = clientv3.NewKVFromKVClient(adapter.KvServerToKvClient(v3rpc.NewQuotaKVServer(e.etcd.Server)), c)
	c.Watcher = clientv3.NewWatchFromWatchClient(inProcessWatch{v3rpc.NewWatchServer(e.etcd.Server)}, c)
	return c, nil
}
