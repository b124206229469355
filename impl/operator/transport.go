package operator

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/converge-dev/converge/impl/store"
)

// inProcess is an http.RoundTripper that serves client-go's requests with
// converge's apiserver handler in the calling goroutine: the operator's
// client is the real one, with its real encoding, but a write has happened
// when the call returns, which is what stepping needs. before sees every
// request first and may answer it itself, as a crash or an API fault
// would; after sees every answer the handler gave, with the revision of
// the last store write the request made (0: none).
type inProcess struct {
	handler http.Handler
	before  func(*http.Request) (*http.Response, error)
	after   func(req *http.Request, resp *http.Response, body []byte, lastWrite int64)
}

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	if w := req.URL.Query().Get("watch"); w == "true" || w == "1" {
		return nil, errors.New("converge: the operator's watches go through its cache, not its client")
	}
	if isEventWrite(req) {
		return recordedEvent(req)
	}
	if resp, err := t.before(req); resp != nil || err != nil {
		return resp, err
	}
	var writes store.Writes
	r := req.Clone(store.WithWrites(req.Context(), &writes))
	r.RequestURI = req.URL.RequestURI()
	r.RemoteAddr = "127.0.0.1:0"
	rec := httptest.NewRecorder()
	t.handler.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	resp := rec.Result()
	resp.Request = req
	t.after(req, resp, body, writes.Take())
	return resp, nil
}

// isEventWrite: the operator's event recorder writes Events from a
// goroutine of its own, at times no step decides.
func isEventWrite(req *http.Request) bool {
	return req.Method != http.MethodGet && strings.Contains(req.URL.Path, "/events")
}

// recordedEvent answers an Event write as accepted without storing it, so
// that the recorder's background writes neither race the steps nor count
// as the operator's writes. Events are a log, not state: no oracle reads
// them.
func recordedEvent(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		body = b
	}
	status := http.StatusCreated
	if req.Method != http.MethodPost {
		status = http.StatusOK
	}
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {req.Header.Get("Content-Type")}}, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: req}, nil
}

// isWrite is a request that changes state: not a read, not a dry run.
func isWrite(req *http.Request) bool {
	if req.URL.Query().Get("dryRun") != "" {
		return false
	}
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// resourceOf is the resource a request's path names: /api/v1/namespaces/
// ns/configmaps/x and /apis/apps/v1/deployments are configmaps and
// deployments; /api/v1/namespaces/ns is namespaces.
func resourceOf(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		segs = segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		segs = segs[3:]
	default:
		return ""
	}
	if len(segs) >= 3 && segs[0] == "namespaces" {
		return segs[2]
	}
	if len(segs) > 0 {
		return segs[0]
	}
	return ""
}

// statusResponse is the apiserver's answer for err, as JSON.
func statusResponse(req *http.Request, err *apierrors.StatusError) *http.Response {
	st := err.Status()
	st.Kind, st.APIVersion = "Status", "v1"
	body, _ := json.Marshal(st)
	return &http.Response{StatusCode: int(st.Code), Status: http.StatusText(int(st.Code)), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: req}
}
