package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/converge-dev/converge/impl/api"
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
		after: func(req *http.Request, resp *http.Response, body []byte, lastWrite int64) {
			_ = n.note(req, resp, body, lastWrite)
		}}), client.Options{Scheme: scheme})
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

// note reports a write that landed, with its revision (writeRev). It
// reports whether req was a write that landed.
func (n noter) note(req *http.Request, resp *http.Response, body []byte, lastWrite int64) bool {
	if !isWrite(req) || resp.StatusCode >= 300 {
		return false
	}
	if n.wrote == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.timeout)
	defer cancel()
	resource := resourceOf(req.URL.Path)
	if rev, err := n.writeRev(ctx, resource, body, lastWrite); err == nil {
		n.wrote(resource, rev)
	}
	return true
}

// writeRev is the revision of a write, from its answer: the object's
// resourceVersion, but for an answer that is an object's last state
// before its removal (an update that took its last finalizer, which
// upstream answers with the object as it was judged) the revision of the
// removal: the request's last store write (lastWrite), or, when the
// removal was another writer's that raced it, the first deletion of the
// object in a watch of its resource from there. (The store's revision
// right after the write would be the write's only while nothing else
// writes to the etcd, and a check's reference run, or a parallel test,
// may.) An answer of another shape (a Status), or a removal whose history
// was compacted, falls back to the store's revision.
func (n noter) writeRev(ctx context.Context, resource string, body []byte, lastWrite int64) (int64, error) {
	var a struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name              string   `json:"name"`
			Namespace         string   `json:"namespace"`
			ResourceVersion   string   `json:"resourceVersion"`
			DeletionTimestamp *string  `json:"deletionTimestamp"`
			GracePeriod       *int64   `json:"deletionGracePeriodSeconds"`
			Finalizers        []string `json:"finalizers"`
		} `json:"metadata"`
	}
	rev, err := int64(0), json.Unmarshal(body, &a)
	if err == nil {
		rev, err = strconv.ParseInt(a.Metadata.ResourceVersion, 10, 64)
	}
	if err != nil || a.Kind == "Status" {
		return n.store.Rev(ctx)
	}
	m := a.Metadata
	if m.DeletionTimestamp == nil || len(m.Finalizers) > 0 || m.GracePeriod != nil && *m.GracePeriod > 0 {
		return rev, nil // still there: the answer is the write's
	}
	// Removed, or answered as it went: a delete's answer is at its removal's revision.
	if lastWrite >= rev {
		return lastWrite, nil
	}
	events := n.store.Watch(ctx, api.StorageName(resource), m.Namespace, rev-1)
	for ev := range events {
		if errors.Is(ev.Err, store.ErrGone) {
			return n.store.Rev(ctx) // compacted away: the store's revision is all there is
		}
		if ev.Err != nil {
			return 0, ev.Err
		}
		if ev.Type == store.Deleted && ev.Object.Key.Name == m.Name {
			return ev.Object.Rev, nil
		}
	}
	return 0, fmt.Errorf("operator: no removal of %s %s after revision %d: %w", resource, m.Name, rev, ctx.Err())
}
