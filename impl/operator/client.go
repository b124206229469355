package operator

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NewClient is an uncached controller-runtime client served in-process by
// handler, for the harness's own requests (a user's actions, another
// writer's drift, the oracles' reads). wrote, if set, hears the resource
// and revision of each write, as Config.Wrote does.
func NewClient(handler http.Handler, scheme *runtime.Scheme, wrote func(resource string, rev int64)) (client.Client, error) {
	n := noter{wrote: wrote}
	return client.New(inProcessConfig(inProcess{handler: handler,
		before: func(*http.Request) (*http.Response, error) { return nil, nil },
		after: func(req *http.Request, resp *http.Response, body []byte, lastWrite int64) {
			_ = n.note(req, resp, lastWrite)
		}}), client.Options{Scheme: scheme})
}

func inProcessConfig(t inProcess) *rest.Config {
	return &rest.Config{Host: "http://converge.in-process", QPS: -1, UserAgent: "converge-operator", Transport: t}
}

// noter tells a stepped cluster about writes made beside it.
type noter struct {
	wrote func(resource string, rev int64)
}

// note reports a write that landed, at the revision of the request's
// last store write (lastWrite): for an update that took an object's last
// finalizer, which upstream answers with the object as it was judged, that
// is the removal's revision, not the answer's resourceVersion. It reports
// whether req was a write that landed.
func (n noter) note(req *http.Request, resp *http.Response, lastWrite int64) bool {
	if !isWrite(req) || resp.StatusCode >= 300 || lastWrite == 0 {
		// A write request that stored nothing is not a write, as no
		// watcher hears of it: an apply or update that changes nothing, a
		// delete of an object already terminating, a dry run.
		return false
	}
	if n.wrote != nil {
		n.wrote(resourceOf(req.URL.Path), lastWrite)
	}
	return true
}
