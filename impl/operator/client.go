package operator

import (
	"context"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/converge-dev/converge/impl/store"
)

// NewClient is an uncached controller-runtime client served in-process by
// handler, for the harness's own requests (a user's actions, another
// writer's drift, the oracles' reads). wrote, if set, hears the resource
// and revision of each write, as Config.Wrote does.
func NewClient(handler http.Handler, scheme *runtime.Scheme, st *store.Store, wrote func(resource string, rev int64)) (client.Client, error) {
	n := noter{store: st, wrote: wrote, timeout: 10 * time.Second}
	return client.New(inProcessConfig(inProcess{handler: handler,
		before: func(*http.Request) (*http.Response, error) { return nil, nil },
		after:  func(req *http.Request, resp *http.Response, _ []byte) { _ = n.note(req, resp) }}), client.Options{Scheme: scheme})
}

func inProcessConfig(t inProcess) *rest.Config {
	return &rest.Config{Host: "http://converge.in-process", QPS: -1, UserAgent: "converge-operator", Transport: t}
}

// noter tells a stepped cluster about writes made beside it.
type noter struct {
	store   *store.Store
	wrote   func(resource string, rev int64)
	timeout time.Duration
}

// note reports a write that landed, with its revision: no other writer
// runs between steps, so the store's revision right after a write is the
// write's. It reports whether req was a write that landed.
func (n noter) note(req *http.Request, resp *http.Response) bool {
	if !isWrite(req) || resp.StatusCode >= 300 {
		return false
	}
	if n.wrote == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.timeout)
	defer cancel()
	if rev, err := n.store.Rev(ctx); err == nil {
		n.wrote(resourceOf(req.URL.Path), rev)
	}
	return true
}
