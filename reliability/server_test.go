package reliability

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/etcd/etcdcluster"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/serving"
	"github.com/converge-dev/converge/impl/store"
)

// apiOnCluster serves converge's apiserver over plain HTTP on loopback,
// on a fresh 3-member etcd whose members the test may fault. No component
// runs, so the objects written are the test's alone.
type apiOnCluster struct {
	etcd  *etcdcluster.Cluster
	store *store.Store
	kube  *kube
	srv   *httptest.Server
}

func startAPI(t *testing.T, members int, bookmark time.Duration) *apiOnCluster {
	return startAPIWith(t, members, bookmark, serving.Limits{})
}

// startAPIWith serves the apiserver through serving.NewServer with limits.
func startAPIWith(t *testing.T, members int, bookmark time.Duration, limits serving.Limits) *apiOnCluster {
	t.Helper()
	cl, err := etcdcluster.Start(etcdcluster.Config{Dir: t.TempDir(), Members: members})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	c, err := cl.Client()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	st := store.New(c, "")
	srv, err := apiserver.New(apiserver.Config{Registry: registry.New(registry.Config{Store: st}), BookmarkInterval: bookmark})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(nil)
	hs.Config = serving.NewServer(srv.Handler(), nil, limits)
	hs.Listener.Close()
	if hs.Listener, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	hs.Start()
	t.Cleanup(hs.Close)
	k := &kube{base: hs.URL, hc: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 128}}}
	return &apiOnCluster{etcd: cl, store: st, kube: k, srv: hs}
}
