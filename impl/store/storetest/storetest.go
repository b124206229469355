package storetest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/etcd"
	"github.com/converge-dev/converge/impl/gctune"
	"github.com/converge-dev/converge/impl/store"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// shared is the one etcd of this test binary.
var shared struct {
	once          sync.Once
	dir           string
	etcd          *etcd.Embedded
	inproc        *clientv3.Client // what Store and Client use
	grpc          *clientv3.Client // GRPCClient
	err           error
	stopCompactor func() // etcd.CompactHistory's
}

// prefixes numbers the stores handed out, so each gets its own key space.
var prefixes atomic.Int64

func startShared() error {
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "converge-storetest-")
		if err != nil {
			shared.err = fmt.Errorf("storetest: temp dir: %w", err)
			return
		}
		shared.dir = dir
		e, err := etcd.StartEmbedded(etcd.Config{DataDir: dir})
		if err != nil {
			shared.err = fmt.Errorf("storetest: start etcd: %w", err)
			return
		}
		shared.etcd = e
		c, err := e.Client()
		if err != nil {
			shared.err = fmt.Errorf("storetest: client: %w", err)
			return
		}
		shared.grpc = c
		if shared.inproc, err = e.InProcessClient(); err != nil {
			shared.err = fmt.Errorf("storetest: in-process client: %w", err)
			return
		}
		shared.stopCompactor = etcd.CompactHistory(shared.inproc, compactEvery)
	})
	return shared.err
}

// compactEvery is how often the shared etcd's history is compacted, up to
// the revision of one interval before: a long campaign would otherwise
// fill etcd's database, and no check looks a minute back.
const compactEvery = time.Minute

// Store returns a store over the shared etcd under a prefix no other call
// gets. Its keys are deleted when the test ends.
func Store(t testing.TB) *store.Store {
	t.Helper()
	return dropped(t, store.New(Client(t), fmt.Sprintf("/t/%d", prefixes.Add(1))))
}

// GRPCStore is Store reached over the gRPC endpoint (GRPCClient), as a
// store over an external cluster is.
func GRPCStore(t testing.TB) *store.Store {
	t.Helper()
	return dropped(t, store.New(GRPCClient(t), fmt.Sprintf("/t/%d", prefixes.Add(1))))
}

// dropped deletes st's keys when t ends, so that the shared etcd holds only
// the running tests' objects and compaction can reclaim the rest: a long
// benchmark run filled etcd's quota otherwise.
func dropped(t testing.TB, st *store.Store) *store.Store {
	t.Cleanup(func() {
		if err := st.Drop(context.Background()); err != nil {
			t.Errorf("storetest: %v", err)
		}
	})
	return st
}

// Client is the shared etcd's in-process client, the one Store uses and
// the one converge's embedded mode uses. Do not close it.
func Client(t testing.TB) *clientv3.Client {
	t.Helper()
	if err := startShared(); err != nil {
		t.Fatal(err)
	}
	return shared.inproc
}

// GRPCClient is a shared client to the same etcd over its gRPC endpoint,
// as an external cluster is reached. Do not close it.
func GRPCClient(t testing.TB) *clientv3.Client {
	t.Helper()
	if err := startShared(); err != nil {
		t.Fatal(err)
	}
	return shared.grpc
}

// Endpoints are the shared etcd's client URLs, for dialling it as an external
// cluster.
func Endpoints(t testing.TB) []string {
	t.Helper()
	if err := startShared(); err != nil {
		t.Fatal(err)
	}
	return shared.etcd.Endpoints()
}

// Isolated starts an etcd for this test alone and returns a store over it
// (prefix ""). Use it for tests that compact or otherwise touch the whole
// etcd. Everything is stopped and removed when the test ends.
func Isolated(t testing.TB) *store.Store {
	t.Helper()
	return store.New(IsolatedClient(t), "")
}

// IsolatedClient is Isolated's in-process client, for tests of etcd itself.
func IsolatedClient(t testing.TB) *clientv3.Client {
	t.Helper()
	e, err := etcd.StartEmbedded(etcd.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatalf("storetest: start isolated etcd: %v", err)
	}
	t.Cleanup(e.Close)
	c, err := e.InProcessClient()
	if err != nil {
		t.Fatalf("storetest: isolated client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Main is a TestMain body: it runs the tests, stops the shared etcd and
// removes its directory, then exits with the tests' status.
//
//	func TestMain(m *testing.M) { storetest.Main(m) }
func Main(m *testing.M) {
	gctune.Apply() // as converge runs: the benchmarks measure what users get
	code := m.Run()
	shutdown()
	os.Exit(code)
}

func shutdown() {
	if shared.stopCompactor != nil {
		shared.stopCompactor()
	}
	for _, c := range []*clientv3.Client{shared.inproc, shared.grpc} {
		if c != nil {
			c.Close()
		}
	}
	if shared.etcd != nil {
		shared.etcd.Close()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}
