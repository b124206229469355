package controller_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/controller"
	"github.com/converge-dev/converge/impl/controller/controllertest"
)

// testCtx bounds a test that could otherwise hang on a bug; it is a
// safety net, not an assertion about speed.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func pod(ns, name string, labels ...string) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}}
	if len(labels) > 0 {
		p.Labels = map[string]string{}
		for _, kv := range labels {
			k, v, _ := strings.Cut(kv, "=")
			p.Labels[k] = v
		}
	}
	return p
}

// recorder keeps handler calls as "TYPE key rv rev cached=bool" lines.
type recorder struct {
	mu    sync.Mutex
	lines []string
	ch    chan string
}

func newRecorder() *recorder { return &recorder{ch: make(chan string, 1024)} }

func (r *recorder) handler(ev controller.ListWatchEvent, c *controller.Cache) {
	m := api.Meta(ev.Object)
	_, cached := c.Get(m.Namespace, m.Name)
	line := fmt.Sprintf("%s %s rv=%s rev=%d cached=%v", ev.Type, controller.KeyOf(ev.Object), m.ResourceVersion, ev.Rev, cached)
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
	r.ch <- line
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}

// next waits for the next handler call.
func (r *recorder) next(t *testing.T, ctx context.Context) string {
	t.Helper()
	select {
	case l := <-r.ch:
		return l
	case <-ctx.Done():
		t.Fatalf("no handler call: %v (so far %q)", ctx.Err(), r.all())
		return ""
	}
}

func keys(objs []api.Object) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = controller.KeyOf(o) + "@" + api.Meta(o).ResourceVersion
	}
	return out
}

func newStepped(t *testing.T, lw *controllertest.FakeListWatcher) (*controller.Informer, *recorder) {
	t.Helper()
	inf := controller.NewInformer(lw, controller.InformerConfig{Resource: "pods"})
	rec := newRecorder()
	inf.AddHandler(rec.handler)
	return inf, rec
}
