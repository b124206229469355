package clients

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/apiserver"
	"github.com/converge-dev/converge/impl/cluster"
	"github.com/converge-dev/converge/impl/registry"
	"github.com/converge-dev/converge/impl/store"
	"github.com/converge-dev/converge/impl/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// converge is one control plane for one test: etcd (shared, under a
// prefix of its own), the registry with its CRD controllers, the
// apiserver over HTTPS on 127.0.0.1, and every controller with two fake
// nodes.
type converge struct {
	cfg *rest.Config
	cs  *kubernetes.Clientset
	st  *store.Store // its own etcd's, for tests that compact it
	// watchLists counts the streaming lists (sendInitialEvents=true
	// watches) answered 200: proof that a client did not fall back to
	// LIST.
	watchLists atomic.Int32
}

// statusWriter counts a 200 header (a watch writes it before its
// events) and keeps Flush.
type statusWriter struct {
	http.ResponseWriter
	ok *atomic.Int32
}

func (w *statusWriter) WriteHeader(code int) {
	if code == http.StatusOK {
		w.ok.Add(1)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// count wraps the apiserver to count streaming lists.
func (c *converge) count(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("sendInitialEvents") != "true" {
			h.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(&statusWriter{ResponseWriter: w, ok: &c.watchLists}, r)
	})
}

func start(t *testing.T) *converge {
	t.Helper()
	st := storetest.Isolated(t)
	reg := registry.New(registry.Config{Store: st})
	// The CRD controllers (naming, establishing, deleting a CRD's custom
	// resources before it goes), as kube-apiserver runs them, for the
	// test's lifetime.
	crdCtx, stopCRDs := context.WithCancel(context.Background())
	crdsDone := make(chan struct{})
	go func() { defer close(crdsDone); reg.RunCRDs(crdCtx) }()
	t.Cleanup(func() { stopCRDs(); <-crdsDone })
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
	c := &converge{st: st}
	hs := &http.Server{Handler: c.count(srv.Handler()), TLSConfig: tlsCfg, ReadHeaderTimeout: 10 * time.Second}
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
	c.cfg = &rest.Config{Host: "https://" + ln.Addr().String(), TLSClientConfig: rest.TLSClientConfig{CAFile: files.CA}}
	if c.cs, err = kubernetes.NewForConfig(c.cfg); err != nil {
		t.Fatal(err)
	}
	return c
}

// ctx is a test's deadline for one client interaction.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// runManager starts a controller-runtime manager for the test. stop ends
// it and waits, failing the test if it ends with an error or not within
// 30 s; a cleanup calls it too, and it runs once.
func runManager(t *testing.T, mgr manager.Manager) (stop func()) {
	t.Helper()
	mctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("manager: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Error("manager did not stop")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}
