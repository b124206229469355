package clients

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// converge is one control plane for one test: etcd (shared, under a
// prefix of its own), the registry, the apiserver over HTTPS on
// 127.0.0.1, and every controller with two fake nodes.
type converge struct {
	cfg *rest.Config
	cs  *kubernetes.Clientset
}

func start(t *testing.T) *converge {
	t.Helper()
	st := storetest.Isolated(t)
	reg := registry.New(registry.Config{Store: st})
	ctx := context.Background()
	for _, ns := range []string{"default", "kube-system"} {
		if _, err := reg.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	files, err := apiserver.EnsureTLS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tlsCfg, err := files.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := apiserver.New(apiserver.Config{Registry: reg, Log: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler(), TLSConfig: tlsCfg, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	}()
	t.Cleanup(func() { hs.Close() })
	r, err := cluster.StartRunning(cluster.RunningConfig{Store: st, Nodes: 2, Tick: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	cfg := &rest.Config{Host: "https://" + ln.Addr().String(), TLSClientConfig: rest.TLSClientConfig{CAFile: files.CA}}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &converge{cfg: cfg, cs: cs}
}

// ctx is a test's deadline for one client interaction.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}
