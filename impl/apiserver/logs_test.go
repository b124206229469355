package apiserver

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/converge-dev/converge/impl/api"
	"github.com/converge-dev/converge/impl/store/storetest"
)

// pods/log hands the query to the PodLogs provider and answers its text.
func TestPodLogs(t *testing.T) {
	var got LogOptions
	var gotPod string
	e := newEnvOn(t, storetest.Store(t), nil, func(c *Config) {
		c.PodLogs = func(_ context.Context, ns, pod string, o LogOptions) (io.ReadCloser, error) {
			got, gotPod = o, ns+"/"+pod
			if pod == "pending" {
				return nil, api.NewBadRequest(`container "c" in pod "pending" is waiting to start: ContainerCreating`)
			}
			return io.NopCloser(strings.NewReader("line 1\nline 2\n")), nil
		}
	})
	r := e.must(200, "GET", podPath+"/p/log?container=c&tailLines=5&previous=true", "")
	if string(r.body) != "line 1\nline 2\n" || r.hdr.Get("Content-Type") != "text/plain" {
		t.Fatalf("log body %q, type %q", r.body, r.hdr.Get("Content-Type"))
	}
	if gotPod != "default/p" || got.Container != "c" || !got.Previous || got.Follow || got.TailLines == nil || *got.TailLines != 5 {
		t.Fatalf("options %+v for %s", got, gotPod)
	}
	if r := e.must(200, "GET", podPath+"/p/log?limitBytes=4", ""); string(r.body) != "line" {
		t.Fatalf("limitBytes=4: %q", r.body)
	}
	e.must(400, "GET", podPath+"/pending/log", "")
	for _, q := range []string{"tailLines=-1", "tailLines=x", "limitBytes=0", "follow=maybe"} {
		e.must(400, "GET", podPath+"/p/log?"+q, "")
	}
	e.must(405, "POST", podPath+"/p/log", "{}")
}
